package client

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the reference client's answers and transport use
// at 2025-11-25 and earlier (the client surface).
var (
	surfaceFaults    = fault.Set{}
	surfaceLiberties = fault.Set{}
)
