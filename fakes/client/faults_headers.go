package client

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the reference client's 2026-07-28 requests over
// Streamable HTTP: per-request _meta and the standard and custom headers.
var (
	headerFaults    = fault.Set{}
	headerLiberties = fault.Set{}
)
