// Package tasks is the client-hosted tasks family (scenarios.md C2): a fake server at 2025-11-25 sends task-augmented requests to a client that declares client-side tasks and judges the client's task receiver.
package tasks

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
