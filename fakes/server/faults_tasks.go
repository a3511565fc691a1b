package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

var (
	v1Tasks = protocol.Where(func(v protocol.Version) bool { return v.TasksV1 })
	shared  = sharedServerKinds() // transports where sessions share one server
)

// Tasks v1 faults (2025-11-25/basic/utilities/tasks.mdx). Isolation faults
// show only where two sessions reach one server process (HTTP, WebSocket):
// two stdio sessions are two processes.
var (
	LeakGetForeign = &fault.Fault{Name: "leak-get-foreign", Versions: v1Tasks, Transports: shared,
		Description: "answers tasks/get for another session's task"}
	LeakResultForeign = &fault.Fault{Name: "leak-result-foreign", Versions: v1Tasks, Transports: shared,
		Description: "answers tasks/result for another session's task"}
	LeakCancelForeign = &fault.Fault{Name: "leak-cancel-foreign", Versions: v1Tasks, Transports: shared,
		Description: "answers another session's tasks/cancel as if it had cancelled (without cancelling)"}
	DistinctForeignError = &fault.Fault{Name: "distinct-foreign-error", Versions: v1Tasks, Transports: shared,
		Description: "says 'Task belongs to another session' for a foreign id, confirming that it exists"}
	ListLeaksForeign = &fault.Fault{Name: "list-leaks-foreign", Versions: v1Tasks, Transports: shared,
		Description: "lists every session's tasks in tasks/list"}
	ForeignCancelTakesEffect = &fault.Fault{Name: "foreign-cancel-takes-effect", Versions: v1Tasks, Transports: shared,
		Description: "rejects another session's tasks/cancel, but cancels the task anyway"}
	StatusToWrongSession = &fault.Fault{Name: "status-to-wrong-session", Versions: v1Tasks, Transports: shared,
		Description: "sends notifications/tasks/status to every connected session"}
	SequentialTaskIds = &fault.Fault{Name: "sequential-task-ids", Versions: v1Tasks, Transports: shared,
		Why:         "ids need entropy only when tasks are unbound, so this fault drops the binding as well",
		Description: "binds tasks to no session and numbers them 1, 2, 3"}

	CreateNotWorking = &fault.Fault{Name: "create-not-working", Versions: v1Tasks,
		Description: "reports a new task as input_required in the CreateTaskResult"}
	IllegalTransition = &fault.Fault{Name: "illegal-transition", Versions: v1Tasks,
		Description: "a completed task reads completed once, then failed"}
	TtlMissing = &fault.Fault{Name: "ttl-missing", Versions: v1Tasks,
		Description: "leaves the required ttl out of tasks/get results"}
	CreatedAtDrifts = &fault.Fault{Name: "created-at-drifts", Versions: v1Tasks,
		Description: "reports the current time as createdAt"}
	NotificationMissingFields = &fault.Fault{Name: "notification-missing-fields", Versions: v1Tasks,
		Description: "leaves createdAt out of notifications/tasks/status"}
	NotificationRelatedMeta = &fault.Fault{Name: "notification-related-meta", Versions: v1Tasks,
		Description: "adds related-task _meta to status notifications"}
	NotificationWrongStatus = &fault.Fault{Name: "notification-wrong-status", Versions: v1Tasks,
		Description: "notifies failed when the task completes"}
	NotifiesWorkingAfterTerminal = &fault.Fault{Name: "notifies-working-after-terminal", Versions: v1Tasks,
		Description: "after the terminal status notification, sends one more that says working"}
	StatusNotificationNoTTL = &fault.Fault{Name: "status-notification-no-ttl", Versions: v1Tasks,
		Description: "leaves the required ttl out of the notifications/tasks/status that reports a cancellation",
		ShownBy:     []string{"tasks-cancel-during-elicitation"}}

	ElicitationNoRelatedTask = &fault.Fault{Name: "elicitation-no-related-task", Versions: v1Tasks,
		Description: "sends a task's elicitation/create without related-task _meta"}
	SkipInputRequired = &fault.Fault{Name: "skip-input-required", Versions: v1Tasks,
		Description: "asks for input while the task stays working"}
	CancelResponseStale = &fault.Fault{Name: "cancel-response-stale", Versions: v1Tasks,
		Description: "answers tasks/cancel with the status from before the cancel"}
	ResurrectOnLateAnswer = &fault.Fault{Name: "resurrect-on-late-answer", Versions: v1Tasks,
		Description: "a late elicitation answer brings a cancelled task back to working and completes it"}
	ResultHangsAfterCancel = &fault.Fault{Name: "result-hangs-after-cancel", Versions: v1Tasks,
		Description: "tasks/result on a cancelled task never returns"}
	RecancelAccepted = &fault.Fault{Name: "recancel-accepted", Versions: v1Tasks,
		Description: "accepts tasks/cancel for a task already cancelled"}
	CrashOnLateAnswer = &fault.Fault{Name: "crash-on-late-answer", Versions: v1Tasks,
		Description: "drops the connection when an answer to an abandoned request arrives"}
	StuckAfterDecline = &fault.Fault{Name: "stuck-after-decline", Versions: v1Tasks,
		Description: "a declined question leaves the task in input_required for good"}
	StuckAfterCancelAction = &fault.Fault{Name: "stuck-after-cancel-action", Versions: v1Tasks,
		Description: "a question the user cancelled leaves the task in input_required for good"}

	ForbiddenRunsAsTask = &fault.Fault{Name: "forbidden-runs-as-task", Versions: v1Tasks,
		Description: "runs a taskSupport: forbidden tool as a task"}
	RequiredRunsInline = &fault.Fault{Name: "required-runs-inline", Versions: v1Tasks,
		Description: "runs a taskSupport: required tool without a task"}
	ResultReturnsEarly = &fault.Fault{Name: "result-returns-early", Versions: v1Tasks,
		Description: "answers tasks/result at once while the task still works"}
	ResultErrorWhileWorking = &fault.Fault{Name: "result-error-while-working", Versions: v1Tasks,
		Description: "answers tasks/result for a working test_task_working at once with a -32603 error instead of blocking"}
	CancelsOwnTasks = &fault.Fault{Name: "cancels-own-tasks", Versions: v1Tasks,
		Description: "cancels every task right after creating it, though nobody asked"}
	ResultWrapped = &fault.Fault{Name: "result-wrapped", Versions: v1Tasks,
		Description: "wraps the tool result in {task, result} instead of returning it as is"}
	ResultNoRelatedTask = &fault.Fault{Name: "result-no-related-task", Versions: v1Tasks,
		Description: "leaves related-task _meta out of tasks/result"}
	IserrorCompleted = &fault.Fault{Name: "iserror-completed", Versions: v1Tasks,
		Description: "a tool result with isError ends the task as completed"}
	FailingResultSwallowed = &fault.Fault{Name: "failing-result-swallowed", Versions: v1Tasks,
		Description: "tasks/result of a failed task returns a JSON-RPC error instead of the tool's isError result"}
	ListCursorSkips = &fault.Fault{Name: "list-cursor-skips", Versions: v1Tasks,
		Description: "nextCursor skips one task"}
	TaskListNeverEnds = &fault.Fault{Name: "task-list-never-ends", Versions: v1Tasks,
		Description: "gives every tasks/list page a new nextCursor, the last page's leading to an empty page with another"}
	BadCursorAccepted = &fault.Fault{Name: "bad-cursor-accepted", Versions: v1Tasks,
		Description: "treats an unknown cursor as the first page"}
	CancelTerminalAccepted = &fault.Fault{Name: "cancel-terminal-accepted", Versions: v1Tasks,
		Description: "accepts tasks/cancel for a completed task"}
	// Over stdio session B is a process of its own, where A's id is simply
	// unknown: the isolation probes would catch this defect too.
	UnknownIdWrongCode = &fault.Fault{Name: "unknown-id-wrong-code", Versions: v1Tasks, Transports: shared,
		Description: "answers tasks/cancel for a nonexistent id with -32603"}
)

var taskFaults = fault.Set{
	LeakGetForeign,
	LeakResultForeign,
	LeakCancelForeign,
	DistinctForeignError,
	ListLeaksForeign,
	ForeignCancelTakesEffect,
	StatusToWrongSession,
	SequentialTaskIds,
	CreateNotWorking,
	IllegalTransition,
	TtlMissing,
	CreatedAtDrifts,
	NotificationMissingFields,
	NotificationRelatedMeta,
	NotificationWrongStatus,
	NotifiesWorkingAfterTerminal,
	StatusNotificationNoTTL,
	ElicitationNoRelatedTask,
	SkipInputRequired,
	CancelResponseStale,
	ResurrectOnLateAnswer,
	ResultHangsAfterCancel,
	RecancelAccepted,
	CrashOnLateAnswer,
	StuckAfterDecline,
	StuckAfterCancelAction,
	ForbiddenRunsAsTask,
	RequiredRunsInline,
	ResultReturnsEarly,
	ResultErrorWhileWorking,
	CancelsOwnTasks,
	ResultWrapped,
	ResultNoRelatedTask,
	IserrorCompleted,
	FailingResultSwallowed,
	ListCursorSkips,
	TaskListNeverEnds,
	BadCursorAccepted,
	CancelTerminalAccepted,
	UnknownIdWrongCode,
}

// Liberties of the tasks family: conformant variants that take the other
// side of a choice the spec leaves to the receiver.
var (
	DeletesCancelledTasks = &fault.Fault{Name: "deletes-cancelled-tasks", Liberty: true, Versions: v1Tasks,
		Description: "deletes a task as soon as it is cancelled: later tasks/get, tasks/result and tasks/cancel get -32602 (not found)",
		Freedom: `tasks.mdx#task-cancellation: "However, receivers MAY delete cancelled tasks at their discretion at any time, ` +
			`including immediately after cancellation or after the task ttl expires."`}
	ForeignTaskOtherCode = &fault.Fault{Name: "foreign-task-other-code", Liberty: true, Versions: v1Tasks, Transports: shared,
		Description: "rejects another session's tasks/get, tasks/result and tasks/cancel with the server-defined code -32001 (unknown ids still get -32602)",
		Freedom: `tasks.mdx#task-isolation-and-access-control: "receivers MUST reject tasks/get, tasks/result, and tasks/cancel ` +
			`requests for tasks that do not belong to the same authorization context as the requestor" names no error code`}
	InformativeTaskErrors = &fault.Fault{Name: "informative-task-errors", Liberty: true, Versions: v1Tasks,
		Description: "every task error says its cause and the task id: 'Task X not found', 'Task X belongs to another session', 'Cannot cancel task X: …' (all -32602)",
		Freedom:     `tasks.mdx#protocol-errors: "Receivers SHOULD provide informative error messages to describe the cause of errors."`}
	ShortTTL = &fault.Fault{Name: "short-ttl", Liberty: true, Versions: v1Tasks,
		Description: "overrides every requested ttl with 2000 ms and deletes a task once its ttl has passed, whatever its status",
		Freedom: `tasks.mdx#ttl-and-resource-management: "Receivers MAY override the requested ttl duration." and ` +
			`"After a task's ttl lifetime has elapsed, receivers MAY delete the task and its results, regardless of the task status."`}
	TimestampPrecision = &fault.Fault{Name: "timestamp-precision", Liberty: true, Versions: v1Tasks,
		Description: "writes the same millisecond instants with six fraction digits in CreateTaskResult and notifications (…05.123000Z) and three elsewhere (…05.123Z)",
		Freedom: `tasks.mdx#ttl-and-resource-management: "Receivers MUST include a createdAt ISO 8601-formatted timestamp in all task ` +
			`responses" asks for an ISO 8601 instant, not for one spelling of it`}
	SecondTimestamps = &fault.Fault{Name: "second-timestamps", Liberty: true, Versions: v1Tasks,
		Description: "keeps createdAt and lastUpdatedAt to the second, so the status changes of a short task carry equal timestamps",
		Freedom: `tasks.mdx#ttl-and-resource-management: "Receivers MUST include a lastUpdatedAt ISO 8601-formatted timestamp in ` +
			`all task responses"; fractions of a second are optional (RFC 3339 time-secfrac), and the page's own examples write ` +
			`whole seconds ("2025-11-25T10:40:00Z")`}
	RepeatsTerminalNotification = &fault.Fault{Name: "repeats-terminal-notification", Liberty: true, Versions: v1Tasks,
		Description: "sends the terminal status notification twice (the same status, no change)",
		Freedom: `tasks.mdx#task-status-notification: "When a task status changes, receivers MAY send a notifications/tasks/status ` +
			`notification to inform the requestor of the change." Nothing forbids telling the same terminal status again.`}
	DeclinedResumesWorking = &fault.Fault{Name: "declined-resumes-working", Liberty: true, Versions: v1Tasks,
		Description: "a declined or cancelled question sends the task back to working; it completes 8 s later without the answer",
		Freedom: `tasks.mdx#input-required-status: "When the receiver receives all required input, the task SHOULD transition ` +
			`out of input_required status (typically back to working)."`}
	NondeterministicOutput = &fault.Fault{Name: "nondeterministic-output", Liberty: true, Versions: v1Tasks,
		Description: "test_task_working's result names a fresh random run id, in plain calls and tasks alike",
		Freedom: `tasks.mdx#result-retrieval: "receivers MUST return from tasks/result exactly what the underlying request ` +
			`would have returned": that request's own result; nothing asks a tool to answer two calls alike`}
	SlowPollNoNotifications = &fault.Fault{Name: "slow-poll-no-notifications", Liberty: true, Versions: v1Tasks,
		Description: "suggests pollInterval 5000 ms (the spec's own example) and sends no notifications/tasks/status",
		Freedom: `tasks.mdx#task-status-notification: "Receivers are not required to send status notifications and may choose ` +
			`to only send them for certain status transitions."; #ttl-and-resource-management: "Receivers MAY include a ` +
			`pollInterval value (in milliseconds) in tasks/get responses to suggest polling intervals."`}
)

var taskLiberties = fault.Set{
	DeletesCancelledTasks,
	ForeignTaskOtherCode,
	InformativeTaskErrors,
	ShortTTL,
	TimestampPrecision,
	SecondTimestamps,
	RepeatsTerminalNotification,
	DeclinedResumesWorking,
	NondeterministicOutput,
	SlowPollNoNotifications,
}

// sharedServerKinds are the transports where two sessions reach one server.
func sharedServerKinds() []transport.Kind {
	var out []transport.Kind
	for _, k := range transport.Kinds() {
		if k.SharedServer() {
			out = append(out, k)
		}
	}
	return out
}
