package main_test

import "github.com/mcpconform/mcpconform/internal/testprogress"

// This suite runs for minutes: under go test -json (the README's test
// command) it says how far it is while it runs.
var _ = testprogress.Register()
