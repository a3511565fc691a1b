package client

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the reference client's task receiver (client-hosted
// tasks, 2025-11-25).
var (
	clientTaskFaults    = fault.Set{}
	clientTaskLiberties = fault.Set{}
)
