package server

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
	CachingHintsMissing:       {"result of resources/read"},
	CachingScopeInvalid:       {"result of resources/list"},
	CachingTTLNegative:        {"result of resources/templates/list"},
	DiscoverMissingVersions:   {"result of server/discover"},
	InitMissingCapabilities:   {"result of initialize"},
	JSONRPCVersionWrong:       {"result of tools/list", "error response to tools/list"},
	MRTRElicitationInvalid:    {"result of tools/call"},
	MRTROnToolsList:           {"result of tools/list"},
	MRTRResultTypeMissing:     {"result of tools/call"},
	MRTRRootsWrongMethod:      {"result of tools/call"},
	MRTRSamplingInvalid:       {"result of tools/call"},
	NotificationMissingFields: {"notification notifications/tasks/status"},
	PromptContentUnknownType:  {"result of prompts/get"},
	PromptSystemRole:          {"result of prompts/get"},
	ReadContentsNoText:        {"result of resources/read"},
	RequestIDNull:             {"request ping"},
	SkillsSettingsNotObject:   {"result of server/discover"},
	StatusNotificationNoTTL:   {"notification notifications/tasks/status"},
	StdoutBanner:              {"frame"},
	StdoutOverlongLine:        {"frame"},
	ToolMissingInputSchema:    {"result of tools/list"},
	TtlMissing:                {"result of tasks/get"},
	FractionalMs:              {"result of tools/call", "result of tasks/get"},
	SyncResultSaysTask:        {"result of tools/call"},
}

// deviation is the fault's deliberate deviation for the message what, or nil.
func deviation(f *fault.Fault, what string) *peer.Deviation {
	if f == nil || !slices.Contains(invalidOnPurpose[f], what) {
		return nil
	}
	return &peer.Deviation{By: f.Kind() + " " + f.Name}
}
