// Package tasksext is the server side of the tasks extension (scenarios.md S2/S7, 2026-07-28, ext-tasks/tasks.md).
//
// The official requirement ids of seps/sep-2663.yaml and the checks that
// judge them (server side; the client-side ids are judged, if at all, by
// the client families):
//
//	sep-2663-server-rejects-undeclared-client                → tasksext-negotiation/undeclared-no-task
//	sep-2663-client-handles-polymorphic-result               → none here: a client requirement
//	sep-2663-client-rejects-task-result-on-unsupported       → none here: a client requirement
//	sep-2663-server-returns-missing-capability-when-required → tasksext-negotiation/required-32021
//	sep-2663-server-returns-missing-capability-data-shape    → tasksext-negotiation/required-names-extension
//	sep-2663-result-type-task-on-create                      → tasksext-lifecycle/result-type-task
//	sep-2663-no-task-result-type-on-others                   → wire-schema/messages-valid (resultType "task" is valid only
//	                                                           where the schema allows a CreateTaskResult, and such a result
//	                                                           is validated as one; no fault can break it without breaking
//	                                                           the schema, so no check of this family)
//	sep-2663-failed-status-jsonrpc-only                      → tasksext-tool-error/completed
//	sep-2663-durable-create-strong-consistency               → tasksext-lifecycle/durable
//	sep-2663-mrtr-synchronous-before-task-creation           → none: MRTR composed with task creation (the fixture
//	                                                           test_tool_with_task) belongs to the MRTR family
//	sep-2663-tasks-get-status-working                        → tasksext-lifecycle/durable (the first tasks/get reads the
//	                                                           working task; the status enum is wire-schema's)
//	sep-2663-tasks-get-status-input-required                 → tasksext-input/requests-listed
//	sep-2663-tasks-get-status-completed                      → tasksext-lifecycle/completed-result
//	sep-2663-tasks-get-status-cancelled                      → tasksext-cancel/stays-cancelled, tasksext-cancel/input-stays-cancelled
//	sep-2663-tasks-get-status-failed                         → tasksext-protocol-error/failed-with-error
//	sep-2663-result-type-complete-on-tasks-get               → wire-schema/messages-valid (the extension's schema fixes
//	sep-2663-result-type-complete-on-tasks-update              resultType "complete" on these results: a fault is a
//	sep-2663-result-type-complete-on-tasks-cancel              schema violation, judged there)
//	sep-2663-input-request-key-unique-per-task               → tasksext-input/keys-stable
//	sep-2663-no-key-reuse-after-response                     → tasksext-input/keys-stable
//	sep-2663-update-ack-empty-result                         → tasksext-input/update-ack-empty
//	sep-2663-update-error-unknown-task-id                    → tasksext-lifecycle/unknown-update-cancel-32602
//	sep-2663-update-ignore-unknown-keys                      → tasksext-input/unknown-key-ignored
//	sep-2663-cancel-not-via-cancelled-notification           → none here: a client requirement
//	sep-2663-cancel-ack-empty-result                         → tasksext-cancel/ack-empty
//	sep-2663-cancel-error-unknown-task-id                    → tasksext-lifecycle/unknown-update-cancel-32602
//	sep-2663-subscribe-missing-capability-non-declaring      → tasksext-notifications/listen-undeclared
//	sep-2663-no-progress-or-message-on-task-stream           → tasksext-notifications/no-progress
//	sep-2663-client-emits-mcp-name-on-tasks-methods          → none here: a client requirement (the fake client sets
//	                                                           Mcp-Name to params.taskId itself)
//	sep-2663-routing-headers-accepted-on-tasks-get           → tasksext-lifecycle/durable over HTTP (its tasks/get carries
//	                                                           matching Mcp-Method and Mcp-Name; a refusal fails it)
//	sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get → tasksext-lifecycle/mcp-name-mismatch
//	sep-2663-tasks-get-invalid-task-id-32602                 → tasksext-lifecycle/unknown-get-32602
//	sep-2663-tasks-update-cancel-invalid-task-id-32602       → tasksext-lifecycle/unknown-update-cancel-32602
//	sep-2663-tasks-methods-non-declaring                     → tasksext-negotiation/methods-undeclared
//	sep-2663-failed-includes-statusmessage                   → tasksext-protocol-error/status-message (SHOULD half),
//	                                                           tasksext-protocol-error/failed-with-error (MUST half)
//	sep-2663-tool-error-uses-completed-status                → tasksext-tool-error/completed
//	sep-2663-tasks-result-removed-method-not-found           → tasksext-lifecycle/tasks-result-removed
//	sep-2663-legacy-task-param-ignored                       → tasksext-negotiation/undeclared-no-task (the call carries
//	                                                           the removed task parameter)
//	sep-2663-migrate-from-legacy-capabilities                → tasksext-negotiation/no-legacy-capability
//	sep-2663-legacy-capability-treated-as-non-declaring      → tasksext-negotiation/legacy-only-undeclared
//
// No sep-2663 id names the Security Considerations of ext-tasks/tasks.md:
// sep-2663.yaml lists both sentences as excluded (entropy "cannot be
// asserted at the wire layer", auth binding "not observable ... without
// coupling to a specific auth scheme"). tasksext-isolation judges them
// anyway, with a bearer token as the auth scheme and an entropy heuristic
// that catches only obviously guessable ids: auth binding →
// tasksext-isolation/foreign-get-rejected, foreign-update-rejected,
// foreign-cancel-rejected, foreign-no-effect (MUST, judged only with two
// bearer tokens over a transport that carries headers: at 2026-07-28 there
// are no sessions, so without two authorization contexts a task has nothing
// to be bound to and they are skipped); task id unguessability →
// tasksext-isolation/unguessable-ids (judged always).
package tasksext

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue, in the order a reader meets them.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		negotiationScenario,
		lifecycleScenario,
		toolErrorScenario,
		protocolErrorScenario,
		inputScenario,
		cancelScenario,
		notificationsScenario,
		isolationScenario,
	}
}
