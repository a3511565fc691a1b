package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults and liberties of the tasks extension (reference_tasksext.go),
// observable at 2026-07-28 only.

// The labels the tasksext scenarios give slow_compute where a fault is
// keyed to one scenario's task.
const (
	LabelWireFields     = "wire-fields"
	LabelRequestState   = "request-state"
	LabelCancelTerminal = "cancel-terminal"
)

var (
	LegacyTasksCapabilityAdvertised = &fault.Fault{Name: "tasksext-legacy-capability-advertised", Versions: modern,
		Description: "server/discover declares the 2025-11-25 tasks capability beside the extension"}
	LegacyClientCapabilityHonoured = &fault.Fault{Name: "tasksext-legacy-client-capability-honoured", Versions: modern,
		Description: "a client declaring only the legacy tasks capability is treated as declaring the extension"}
	TaskForUndeclaredClient = &fault.Fault{Name: "tasksext-task-for-undeclared-client", Versions: modern,
		Description: "tools/call creates tasks whether or not the request declares the extension"}
	RequiredTaskWrongCode = &fault.Fault{Name: "tasksext-required-task-wrong-code", Versions: modern,
		Description: "a tool that needs a task, called without the extension, is refused with -32602, not -32021"}
	RequiredTaskNoData = &fault.Fault{Name: "tasksext-required-task-no-data", Versions: modern,
		Description: "the -32021 for a tool that needs a task does not name the extension in data.requiredCapabilities"}
	TasksMethodsServeUndeclared = &fault.Fault{Name: "tasksext-methods-serve-undeclared", Versions: modern,
		Description: "tasks/get, tasks/update and tasks/cancel are served to a request that does not declare the extension"}
	CreateResultTypeComplete = &fault.Fault{Name: "tasksext-create-result-type-complete", Versions: modern,
		Description: "a created task is answered with resultType \"complete\" (and a text item), not \"task\""}
	CreatedNotDurable = &fault.Fault{Name: "tasksext-created-not-durable", Versions: modern,
		Description: "the first tasks/get of a task just returned by tools/call answers -32602 (not created yet)"}
	CompletedEmptyResult = &fault.Fault{Name: "tasksext-completed-empty-result", Versions: modern,
		Description: "tasks/get of a completed slow_compute inlines an empty result, not the tool's CallToolResult"}
	TasksResultServed = &fault.Fault{Name: "tasksext-tasks-result-served", Versions: modern,
		Description: "tasks/result, removed by the extension, still answers (the result, or an error other than -32601)"}
	GetUnknownWrongCode = &fault.Fault{Name: "tasksext-get-unknown-wrong-code", Versions: modern,
		Description: "tasks/get of an unknown task id answers -32603, not -32602"}
	UnknownTaskAcked = &fault.Fault{Name: "tasksext-unknown-task-acked", Versions: modern,
		Description: "tasks/update and tasks/cancel of an unknown task id are acknowledged"}
	IsErrorFailed = &fault.Fault{Name: "tasksext-iserror-failed", Versions: modern,
		Description: "a tool result with isError ends the task failed (with an error), not completed"}
	ProtocolErrorCompleted = &fault.Fault{Name: "tasksext-protocol-error-completed", Versions: modern,
		Description: "a JSON-RPC error of the underlying request ends the task completed with an isError result, not failed"}
	FailedNoStatusMessage = &fault.Fault{Name: "tasksext-failed-no-status-message", Versions: modern,
		Description: "a failed task carries no statusMessage"}
	InputRequestsEmpty = &fault.Fault{Name: "tasksext-input-requests-empty", Versions: modern,
		Description: "an input_required task lists no inputRequests while it waits for an answer"}
	UpdateAckNotEmpty = &fault.Fault{Name: "tasksext-update-ack-not-empty", Versions: modern,
		Description: "tasks/update answers with the task's id and status, not an empty result"}
	InputKeyReused = &fault.Fault{Name: "tasksext-input-key-reused", Versions: modern,
		Description: "after an answer to one key of multi_input, a new question is asked under the same key"}
	UpdateUnknownKeyRefused = &fault.Fault{Name: "tasksext-update-unknown-key-refused", Versions: modern,
		Description: "tasks/update with an answer to a key that is not outstanding is refused with -32602"}
	CancelAckNotEmpty = &fault.Fault{Name: "tasksext-cancel-ack-not-empty", Versions: modern,
		Description: "tasks/cancel answers with the task, not an empty result",
		Why:         "every tasks/cancel answers with the task, a finished task's as well as a working one's"}
	CancelledThenCompleted = &fault.Fault{Name: "tasksext-cancelled-then-completed", Versions: modern,
		Description: "a cancelled slow_compute finishes its work anyway and its status moves from cancelled to completed"}
	UpdateResurrectsCancelled = &fault.Fault{Name: "tasksext-update-resurrects-cancelled", Versions: modern,
		Description: "a tasks/update sent after the cancel of a task waiting for input resumes it: cancelled becomes completed"}
	ListenServesUndeclared = &fault.Fault{Name: "tasksext-listen-serves-undeclared", Versions: modern,
		Description: "subscriptions/listen for task ids is served to a client that does not declare the extension"}
	TaskNotificationNoSubscriptionID = &fault.Fault{Name: "tasksext-notification-no-subscription-id", Versions: modern,
		Description: "notifications/tasks on a subscriptions/listen stream lack _meta io.modelcontextprotocol/subscriptionId"}
	ProgressOnTaskStream = &fault.Fault{Name: "tasksext-progress-on-task-stream", Versions: modern,
		Description: "notifications/progress is sent on the subscriptions/listen stream of a task"}

	// The gaps the official tasks-* scenarios judge. Each fault touches one
	// fixture, or one slow_compute label, that only its scenario uses.
	SyncResultSaysTask = &fault.Fault{Name: "tasksext-sync-result-says-task", Versions: modern,
		Description: "greet's CallToolResult says resultType \"task\" and carries a taskId",
		Why:         "a CallToolResult that says resultType \"task\" is no CreateTaskResult, which the extension's schema also refuses"}
	TasksListServed = &fault.Fault{Name: "tasksext-tasks-list-served", Versions: modern,
		Description: "tasks/list, removed by the extension, answers a list of the caller's tasks"}
	MethodHeaderUncheckedOnTasks = &fault.Fault{Name: "tasksext-method-header-unchecked", Versions: modern,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "an Mcp-Method header is not compared with the body when either names a tasks/ method"}
	CancelTerminalRefused = &fault.Fault{Name: "tasksext-cancel-terminal-refused", Versions: modern,
		Description: "tasks/cancel of a finished slow_compute labelled " + LabelCancelTerminal + " is refused with -32602"}
	LegacyTTLKeys = &fault.Fault{Name: "tasksext-legacy-ttl-keys", Versions: modern,
		Description: "a slow_compute task labelled " + LabelWireFields + " carries the 2025-11-25 ttl and pollInterval keys beside ttlMs and pollIntervalMs"}
	FractionalMs = &fault.Fault{Name: "tasksext-fractional-ms", Versions: modern,
		Description: "a slow_compute task labelled " + LabelWireFields + " says ttlMs 300000.5",
		Why:         "a fractional ttlMs is what the extension's schema refuses (an integer), so wire-schema sees it too"}
	ExpiresEarly = &fault.Fault{Name: "tasksext-expires-early", Versions: modern,
		Description: "a slow_compute task labelled " + LabelWireFields + " is deleted once its terminal status was read, long before its ttlMs"}
	RelatedTaskMeta = &fault.Fault{Name: "tasksext-related-task-meta", Versions: modern,
		Description: "the result inlined in a finished slow_compute task labelled " + LabelWireFields + " carries _meta io.modelcontextprotocol/related-task"}
	TaskRequestState = &fault.Fault{Name: "tasksext-task-request-state", Versions: modern,
		Description: "a slow_compute task labelled " + LabelRequestState + " carries requestState, in its CreateTaskResult and in tasks/get"}
	MRTRTaskFirst = &fault.Fault{Name: "tasksext-mrtr-task-first", Versions: modern,
		Description: "test_tool_with_task creates its task at once and asks the user's name from inside it (input_required)"}
	MRTRStateOnTask = &fault.Fault{Name: "tasksext-mrtr-state-on-task", Versions: modern,
		Description: "the CreateTaskResult that ends test_tool_with_task's input exchange carries a requestState"}
	MRTRAnswerDropped = &fault.Fault{Name: "tasksext-mrtr-answer-dropped", Versions: modern,
		Description: "test_tool_with_task's task greets \"world\", not the name the client gave"}

	tasksExtFaults = fault.Set{LegacyTasksCapabilityAdvertised, LegacyClientCapabilityHonoured, TaskForUndeclaredClient,
		RequiredTaskWrongCode, RequiredTaskNoData, TasksMethodsServeUndeclared, CreateResultTypeComplete, CreatedNotDurable,
		CompletedEmptyResult, TasksResultServed, GetUnknownWrongCode, UnknownTaskAcked, IsErrorFailed, ProtocolErrorCompleted,
		FailedNoStatusMessage, InputRequestsEmpty, UpdateAckNotEmpty, InputKeyReused, UpdateUnknownKeyRefused, CancelAckNotEmpty,
		CancelledThenCompleted, UpdateResurrectsCancelled, ListenServesUndeclared, TaskNotificationNoSubscriptionID, ProgressOnTaskStream,
		SyncResultSaysTask, TasksListServed, MethodHeaderUncheckedOnTasks, CancelTerminalRefused, LegacyTTLKeys, FractionalMs,
		ExpiresEarly, RelatedTaskMeta, TaskRequestState, MRTRTaskFirst, MRTRStateOnTask, MRTRAnswerDropped}
)

var (
	AnswersSynchronously = &fault.Fault{Name: "tasksext-answers-synchronously", Liberty: true, Versions: modern,
		Description: "slow_compute is answered with a plain CallToolResult even when the client declares the extension",
		Freedom:     "A server that has negotiated this extension MAY return CreateTaskResult in lieu of a standard result (e.g. CallToolResult) in response to any supported request at its own discretion and on a per-request basis."}
	SlowPollInterval = &fault.Fault{Name: "tasksext-slow-poll-interval", Liberty: true, Versions: modern,
		Description: "tasks suggest pollIntervalMs 1000 and are seen to change only when polled at that pace",
		Freedom:     "The pollIntervalMs MAY change over the lifetime of a task."}
	NoPollInterval = &fault.Fault{Name: "tasksext-no-poll-interval", Liberty: true, Versions: modern,
		Description: "tasks carry no pollIntervalMs (it is optional)",
		Freedom:     "Suggested polling interval in integer milliseconds."}
	ForgetsReadTasks = &fault.Fault{Name: "tasksext-forgets-read-tasks", Liberty: true, Versions: modern,
		Description: "a task expires when tasks/get returns its terminal status (that answer's ttlMs is the time since createdAt) and is deleted; later tasks/get answers -32602",
		Freedom:     "Conversely, servers MAY mark a task as failed at any point after the TTL elapses, and subsequently delete it at any time. The value of ttlMs MAY change over the lifetime of a task."}

	UpdateAppliedLate = &fault.Fault{Name: "tasksext-update-applied-late", Liberty: true, Versions: modern,
		Description: "tasks/update is acknowledged at once, its answers applied only at the next tasks/get (which still shows the old state)",
		Freedom:     "The acknowledgement is eventually consistent: the server MAY accept the responses and return the ack before the task's observable status (via tasks/get or notifications/tasks) reflects them."}
	CancelAppliedLate = &fault.Fault{Name: "tasksext-cancel-applied-late", Liberty: true, Versions: modern,
		Description: "tasks/cancel is acknowledged at once; the task reads its old status once more before it reads cancelled",
		Freedom:     "Cancellation processing is eventually consistent — the task's observable status MAY remain working (or some other non-terminal status) after the ack"}
	NoTaskNotifications = &fault.Fault{Name: "tasksext-no-task-notifications", Liberty: true, Versions: modern,
		Description: "subscriptions/listen for task ids is acknowledged with no task id agreed, and no notifications/tasks is sent",
		Freedom:     "Servers MAY push status updates via notifications/tasks notifications in addition to servicing client polls:"}

	CancelNotHonoured = &fault.Fault{Name: "tasksext-cancel-not-honoured", Liberty: true, Versions: modern,
		Description: "tasks/cancel is acknowledged and the task goes on as if it had not been sent",
		Freedom:     "A server is not obligated to actually stop the work; it is only obligated to acknowledge the request."}

	tasksExtLiberties = fault.Set{AnswersSynchronously, SlowPollInterval, NoPollInterval, ForgetsReadTasks,
		UpdateAppliedLate, CancelAppliedLate, NoTaskNotifications, CancelNotHonoured}
)

// Faults of task isolation (ext-tasks/tasks.md#security-considerations).
// Tasks are bound to the Authorization header; the self-test presents two
// bearer tokens over the transports that carry it (per POST, or in the
// WebSocket handshake), so the binding faults show there and not on stdio.
var (
	headerCarriers = []transport.Kind{transport.HTTP, transport.WS}

	ForeignTaskServed = &fault.Fault{Name: "tasksext-foreign-task-served", Versions: modern, Transports: headerCarriers,
		Description: "tasks are not bound to the Authorization that created them: any caller may get, update and cancel them",
		Why:         "with no binding every task method serves the foreign caller, and its update and cancel reach the task"}
	ForeignGetServed = &fault.Fault{Name: "tasksext-foreign-get-served", Versions: modern, Transports: headerCarriers,
		Description: "tasks/get serves a task created under another Authorization (update and cancel are bound)"}
	ForeignUpdateAcked = &fault.Fault{Name: "tasksext-foreign-update-acked", Versions: modern, Transports: headerCarriers,
		Description: "tasks/update of a task created under another Authorization is acknowledged (and not applied)"}
	ForeignCancelAcked = &fault.Fault{Name: "tasksext-foreign-cancel-acked", Versions: modern, Transports: headerCarriers,
		Description: "tasks/cancel of a task created under another Authorization is acknowledged (and not applied)"}
	SequentialExtTaskIDs = &fault.Fault{Name: "tasksext-sequential-ids", Versions: modern,
		Description: "task ids count up (task-1, task-2, …) instead of being random"}

	tasksExtIsolationFaults = fault.Set{ForeignTaskServed, ForeignGetServed, ForeignUpdateAcked, ForeignCancelAcked, SequentialExtTaskIDs}

	ForeignTaskForbidden = &fault.Fault{Name: "tasksext-foreign-task-forbidden", Liberty: true, Versions: modern, Transports: headerCarriers,
		Description: "tasks/get, tasks/update and tasks/cancel of a task created under another Authorization are refused with " +
			"the server-defined code -32001 (unknown ids still get -32602)",
		Freedom: `ext-tasks/tasks.md#security-considerations: "Servers MUST perform authentication and authorization checks on ` +
			`each task-related request to ensure that the client has permission to access a task." names no error code`}
)
