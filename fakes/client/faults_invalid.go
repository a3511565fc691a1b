package client

import (
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
)

// invalidOnPurpose lists the faults that send a message the schema of the
// version in use refuses, on purpose (it is what the checks that name them
// judge), and which messages, named as the guard of fakes/peer names them.
// The guard notes those as the fault's deliberate deviation; any other
// invalid message of a variant, and any of the reference's, is a defect.
var invalidOnPurpose = map[*fault.Fault][]string{
	// Its clientCapabilities ride in the _meta of every 2026-07-28 request.
	CapabilityNotObject: {"request server/discover", "request tools/list", "request tools/call", "request prompts/list",
		"request prompts/get", "request resources/list", "request resources/templates/list", "request resources/read"},
	InitNoClientInfo:           {"request initialize"},
	RootsInvalidResult:         {"result of roots/list"},
	SamplingInvalidResult:      {"result of sampling/createMessage"},
	TaskForUndeclared:          {"result of roots/list"},
	TaskGetNoTTL:               {"result of tasks/get"},
	ToolCallArgumentsNotObject: {"request tools/call"},
}

// deviation is the fault's deliberate deviation for the message what, or nil.
func deviation(f *fault.Fault, what string) *peer.Deviation {
	if f == nil || !slices.Contains(invalidOnPurpose[f], what) {
		return nil
	}
	return &peer.Deviation{By: f.Kind() + " " + f.Name}
}
