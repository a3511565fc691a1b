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
	NotifyAfterTerminal = &fault.Fault{Name: "notify-after-terminal", Versions: v1Tasks,
		Description: "sends the terminal status notification twice"}
	StatusNotificationNoTTL = &fault.Fault{Name: "status-notification-no-ttl", Versions: v1Tasks,
		Description: "leaves the required ttl out of the notifications/tasks/status that reports a cancellation"}

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
	RespondsAfterCancel = &fault.Fault{Name: "responds-after-cancel", Versions: []string{protocol.V20251125, protocol.V20250618},
		Description: "answers a tools/call after the client cancelled it with notifications/cancelled"}

	ForbiddenRunsAsTask = &fault.Fault{Name: "forbidden-runs-as-task", Versions: v1Tasks,
		Description: "runs a taskSupport: forbidden tool as a task"}
	RequiredRunsInline = &fault.Fault{Name: "required-runs-inline", Versions: v1Tasks,
		Description: "runs a taskSupport: required tool without a task"}
	ResultReturnsEarly = &fault.Fault{Name: "result-returns-early", Versions: v1Tasks,
		Description: "answers tasks/result at once while the task still works"}
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
	NotifyAfterTerminal,
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
	RespondsAfterCancel,
	ForbiddenRunsAsTask,
	RequiredRunsInline,
	ResultReturnsEarly,
	ResultWrapped,
	ResultNoRelatedTask,
	IserrorCompleted,
	FailingResultSwallowed,
	ListCursorSkips,
	BadCursorAccepted,
	CancelTerminalAccepted,
	UnknownIdWrongCode,
}

// Liberties of the tasks family.
var taskLiberties = fault.Set{}

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
