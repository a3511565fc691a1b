package server

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Fault is a named mutant of the reference server: it breaks exactly one
// rule, and declares the check that must catch it.
type Fault struct {
	Name        string
	Description string
	// Kills is the id of the check this fault must make fail.
	Kills string
	// AlsoKills lists further checks the same defect necessarily breaks
	// (rare: ids are only required to be unguessable when tasks are not
	// bound, so that fault must unbind them too). Why says why.
	AlsoKills []string
	Why       string
	// Transports where the fault is observable; empty means all. (Example:
	// over HTTP the transport itself refuses requests without a session,
	// so a fault in the engine's pre-initialize handling cannot show.)
	Transports []string
	// Versions where the fault is observable; empty means all.
	Versions []string
	// NotOn lists "transport@version" pairs where it cannot show even so
	// (each stateless HTTP POST is a connection of its own, for example).
	NotOn []string
}

// ObservableOn reports whether the fault can show on this transport and version.
func (f Fault) ObservableOn(transport, version string) bool {
	return (len(f.Transports) == 0 || slices.Contains(f.Transports, transport)) &&
		(len(f.Versions) == 0 || slices.Contains(f.Versions, version)) &&
		!slices.Contains(f.NotOn, transport+"@"+version)
}

var (
	legacy = []string{"2025-11-25", "2025-06-18", "2025-03-26"}
	modern = []string{"2026-07-28"}
)

// The fault catalogue. Names are kebab-case and stable: they are what
// `fake-server --fault` and the self-test report use.
var faults = []Fault{
	{Name: "init-wrong-version", Kills: "lifecycle-initialize/version-echoed", Versions: legacy,
		Description: "answers initialize with 2025-03-26 whatever supported version was requested"},
	{Name: "init-missing-capabilities", Kills: "lifecycle-initialize/result-schema", Versions: legacy,
		Description: "leaves capabilities out of the initialize result"},
	{Name: "negotiation-echoes-unsupported", Kills: "lifecycle-version-negotiation/unsupported-version-handled", Versions: legacy,
		Description: "echoes any requested protocol version, even one it does not support"},
	{Name: "ping-error", Kills: "lifecycle-ping/empty-result", Versions: legacy,
		Description: "answers ping with an internal error"},
	{Name: "serves-before-initialize", Kills: "lifecycle-before-initialize/request-rejected", Versions: legacy,
		Transports:  []string{"stdio", "ws"},
		Description: "serves tools/list before initialize"},
	{Name: "parse-error-silent", Kills: "lifecycle-malformed-json/parse-error",
		Transports:  []string{"stdio", "ws"},
		Description: "drops malformed JSON without answering"},
	{Name: "crash-on-malformed-json", Kills: "lifecycle-malformed-json/survives",
		NotOn:       []string{"http@2026-07-28"},
		Description: "answers the parse error, then drops the connection (exits over stdio, ends the session over HTTP)"},
	{Name: "invalid-request-wrong-code", Kills: "lifecycle-invalid-request/invalid-request-error",
		Transports:  []string{"stdio", "ws"},
		Description: "answers a request whose method is not a string with -32603 instead of -32600"},
	{Name: "unknown-method-invalid-request", Kills: "lifecycle-unknown-method/method-not-found",
		Description: "answers unknown methods with -32600 instead of -32601"},
	{Name: "id-numeric-string-unquoted", Kills: "lifecycle-id-echo/ids-exact",
		Description: "echoes a string id made of digits (\"42\") as a number (42)"},
	{Name: "answers-notifications", Kills: "lifecycle-notification-silent/no-response",
		// Streamable HTTP answers a notification POST with 202 before the
		// engine sees it, so the stray answer has nowhere to go.
		Transports:  []string{"stdio", "ws"},
		Description: "answers unknown notifications with a -32601 error"},

	{Name: "tool-missing-input-schema", Kills: "wire-schema/messages-valid",
		Description: "lists test_simple_text without its required inputSchema"},

	{Name: "discover-missing-versions", Kills: "lifecycle-discover/result-schema", Versions: modern,
		Description: "leaves supportedVersions out of the server/discover result"},
	{Name: "discover-no-server-info", Kills: "lifecycle-discover/server-info", Versions: modern,
		Description: "leaves _meta serverInfo out of the server/discover result"},
	{Name: "unsupported-version-wrong-code", Kills: "lifecycle-unsupported-version/error-32022", Versions: modern,
		Description: "rejects an unknown protocol version with -32602 (the 2025 example's code) instead of -32022"},
	{Name: "missing-meta-accepted", Kills: "lifecycle-missing-meta/invalid-params", Versions: modern,
		Description: "serves requests that lack io.modelcontextprotocol/clientCapabilities"},
	{Name: "missing-capability-wrong-code", Kills: "lifecycle-missing-capability/error-32021", Versions: modern,
		Description: "answers a call needing an undeclared capability with -32603 instead of -32021"},
	{Name: "header-mismatch-accepted", Kills: "lifecycle-header-mismatch/error-32020", Versions: modern,
		Transports:  []string{"http"},
		Description: "does not compare Mcp-Method with the body's method"},
}

var (
	v1Tasks  = []string{"2025-11-25"}
	shared   = []string{"http", "ws"} // transports where sessions share one server
	isolated = []string{
		"tasks-isolation/foreign-get-rejected", "tasks-isolation/foreign-result-rejected",
		"tasks-isolation/foreign-cancel-rejected", "tasks-isolation/list-excludes-foreign",
		"tasks-isolation/foreign-cancel-no-effect",
	}
)

// Tasks v1 faults (2025-11-25/basic/utilities/tasks.mdx). Isolation faults
// show only where two sessions reach one server process (HTTP, WebSocket):
// two stdio sessions are two processes.
var taskFaults = []Fault{
	{Name: "leak-get-foreign", Kills: "tasks-isolation/foreign-get-rejected", Versions: v1Tasks, Transports: shared,
		Description: "answers tasks/get for another session's task"},
	{Name: "leak-result-foreign", Kills: "tasks-isolation/foreign-result-rejected", Versions: v1Tasks, Transports: shared,
		Description: "answers tasks/result for another session's task"},
	{Name: "leak-cancel-foreign", Kills: "tasks-isolation/foreign-cancel-rejected", Versions: v1Tasks, Transports: shared,
		Description: "answers another session's tasks/cancel as if it had cancelled (without cancelling)"},
	{Name: "distinct-foreign-error", Kills: "tasks-isolation/indistinguishable-errors", Versions: v1Tasks, Transports: shared,
		Description: "says 'Task belongs to another session' for a foreign id, confirming that it exists"},
	{Name: "list-leaks-foreign", Kills: "tasks-isolation/list-excludes-foreign", Versions: v1Tasks, Transports: shared,
		Description: "lists every session's tasks in tasks/list"},
	{Name: "foreign-cancel-takes-effect", Kills: "tasks-isolation/foreign-cancel-no-effect", Versions: v1Tasks, Transports: shared,
		Description: "rejects another session's tasks/cancel, but cancels the task anyway"},
	{Name: "status-to-wrong-session", Kills: "tasks-isolation/no-foreign-notifications", Versions: v1Tasks, Transports: shared,
		Description: "sends notifications/tasks/status to every connected session"},
	{Name: "sequential-task-ids", Kills: "tasks-isolation/unguessable-ids", Versions: v1Tasks, Transports: shared,
		AlsoKills: isolated, Why: "ids need entropy only when tasks are unbound, so this fault drops the binding as well",
		Description: "binds tasks to no session and numbers them 1, 2, 3"},

	{Name: "create-not-working", Kills: "tasks-status/starts-working", Versions: v1Tasks,
		Description: "reports a new task as input_required in the CreateTaskResult"},
	{Name: "illegal-transition", Kills: "tasks-status/transitions-legal", Versions: v1Tasks,
		Description: "a completed task reads completed once, then failed"},
	{Name: "ttl-missing", Kills: "tasks-status/get-result-valid", Versions: v1Tasks,
		Description: "leaves the required ttl out of tasks/get results"},
	{Name: "created-at-drifts", Kills: "tasks-status/timestamps-consistent", Versions: v1Tasks,
		Description: "reports the current time as createdAt"},
	{Name: "notification-missing-fields", Kills: "tasks-status/notifications-valid", Versions: v1Tasks,
		Description: "leaves createdAt out of notifications/tasks/status"},
	{Name: "notification-related-meta", Kills: "tasks-status/notifications-no-related-meta", Versions: v1Tasks,
		Description: "adds related-task _meta to status notifications"},
	{Name: "notification-wrong-status", Kills: "tasks-status/notifications-agree", Versions: v1Tasks,
		Description: "notifies failed when the task completes"},
	{Name: "notify-after-terminal", Kills: "tasks-status/none-after-terminal", Versions: v1Tasks,
		Description: "sends the terminal status notification twice"},

	{Name: "elicitation-no-related-task", Kills: "tasks-cancel-during-elicitation/elicitation-related-task", Versions: v1Tasks,
		Description: "sends a task's elicitation/create without related-task _meta"},
	{Name: "skip-input-required", Kills: "tasks-cancel-during-elicitation/input-required-observed", Versions: v1Tasks,
		Description: "asks for input while the task stays working"},
	{Name: "cancel-response-stale", Kills: "tasks-cancel-during-elicitation/cancel-response-cancelled", Versions: v1Tasks,
		Description: "answers tasks/cancel with the status from before the cancel"},
	{Name: "resurrect-on-late-answer", Kills: "tasks-cancel-during-elicitation/stays-cancelled", Versions: v1Tasks,
		Description: "a late elicitation answer brings a cancelled task back to working and completes it"},
	{Name: "result-hangs-after-cancel", Kills: "tasks-cancel-during-elicitation/result-returns", Versions: v1Tasks,
		Description: "tasks/result on a cancelled task never returns"},
	{Name: "recancel-accepted", Kills: "tasks-cancel-during-elicitation/second-cancel-rejected", Versions: v1Tasks,
		Description: "accepts tasks/cancel for a task already cancelled"},
	{Name: "crash-on-late-answer", Kills: "tasks-cancel-during-elicitation/survives-late-answer", Versions: v1Tasks,
		Description: "drops the connection when an answer to an abandoned request arrives"},
	{Name: "stuck-after-decline", Kills: "tasks-elicitation-refused/decline-leaves-input-required", Versions: v1Tasks,
		Description: "a declined question leaves the task in input_required for good"},
	{Name: "stuck-after-cancel-action", Kills: "tasks-elicitation-refused/cancel-leaves-input-required", Versions: v1Tasks,
		Description: "a question the user cancelled leaves the task in input_required for good"},
	{Name: "responds-after-cancel", Kills: "tools-cancel-during-elicitation/no-response-after-cancel", Versions: []string{"2025-11-25", "2025-06-18"},
		Description: "answers a tools/call after the client cancelled it with notifications/cancelled"},

	{Name: "forbidden-runs-as-task", Kills: "tasks-tool-negotiation/forbidden-rejected", Versions: v1Tasks,
		Description: "runs a taskSupport: forbidden tool as a task"},
	{Name: "required-runs-inline", Kills: "tasks-tool-negotiation/required-rejected", Versions: v1Tasks,
		Description: "runs a taskSupport: required tool without a task"},
	{Name: "result-returns-early", Kills: "tasks-result/blocks-until-terminal", Versions: v1Tasks,
		Description: "answers tasks/result at once while the task still works"},
	{Name: "result-wrapped", Kills: "tasks-result/exact-result", Versions: v1Tasks,
		Description: "wraps the tool result in {task, result} instead of returning it as is"},
	{Name: "result-no-related-task", Kills: "tasks-result/related-task-meta", Versions: v1Tasks,
		Description: "leaves related-task _meta out of tasks/result"},
	{Name: "iserror-completed", Kills: "tasks-failing/status-failed", Versions: v1Tasks,
		Description: "a tool result with isError ends the task as completed"},
	{Name: "failing-result-swallowed", Kills: "tasks-failing/result-is-error", Versions: v1Tasks,
		Description: "tasks/result of a failed task returns a JSON-RPC error instead of the tool's isError result"},
	{Name: "list-cursor-skips", Kills: "tasks-list/own-tasks-listed", Versions: v1Tasks,
		Description: "nextCursor skips one task"},
	{Name: "bad-cursor-accepted", Kills: "tasks-list/bad-cursor-rejected", Versions: v1Tasks,
		Description: "treats an unknown cursor as the first page"},
	{Name: "cancel-terminal-accepted", Kills: "tasks-cancel-terminal/rejected", Versions: v1Tasks,
		Description: "accepts tasks/cancel for a completed task"},
	// Over stdio session B is a process of its own, where A's id is simply
	// unknown: the isolation probes would catch this defect too.
	{Name: "unknown-id-wrong-code", Kills: "tasks-unknown-id/invalid-params", Versions: v1Tasks, Transports: shared,
		Description: "answers tasks/cancel for a nonexistent id with -32603"},
}

func init() { faults = append(faults, taskFaults...) }

// Checks is every check the fault must fail: Kills and AlsoKills.
func (f Fault) Checks() []string { return append([]string{f.Kills}, f.AlsoKills...) }

// Faults lists the fault catalogue sorted by name.
func Faults() []Fault {
	out := append([]Fault(nil), faults...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FindFault looks a fault up by name.
func FindFault(name string) (Fault, error) {
	for _, f := range faults {
		if f.Name == name {
			return f, nil
		}
	}
	names := make([]string, 0, len(faults))
	for _, f := range Faults() {
		names = append(names, f.Name)
	}
	return Fault{}, fmt.Errorf("unknown fault %q (known: %s)", name, strings.Join(names, ", "))
}

// Killers maps each check id to the faults that must kill it.
func Killers() map[string][]string {
	out := map[string][]string{}
	for _, f := range Faults() {
		out[f.Kills] = append(out[f.Kills], f.Name)
	}
	return out
}
