package catalogue

import "maps"

// unjudged are the requirement ids of the official lists for the
// 2026-07-28 design notes (official-conformance seps/sep-*.yaml) that no
// check names in Requirements, with why. A test holds the lists, the
// checks and this table together: each id in exactly one place.
var unjudged = map[string]string{
	"sep-2663-client-handles-polymorphic-result": "a client requirement of the tasks extension, which no client family " +
		"judges yet",
	"sep-2663-client-rejects-task-result-on-unsupported": "a client requirement of the tasks extension, which no client " +
		"family judges yet",
	"sep-2663-cancel-not-via-cancelled-notification": "a client requirement of the tasks extension, which no client " +
		"family judges yet",
	"sep-2663-client-emits-mcp-name-on-tasks-methods": "a client requirement of the tasks extension, which no client " +
		"family judges yet (the fake client sets Mcp-Name to params.taskId itself)",
}

// UnjudgedRequirements maps each official requirement id that no check
// judges to why.
func UnjudgedRequirements() map[string]string { return maps.Clone(unjudged) }
