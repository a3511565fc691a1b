package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults and liberties of the reference client's task receiver (client-hosted
// tasks, 2025-11-25/basic/utilities/tasks.mdx). Each fault breaks one rule of
// a receiver; tasks v1 exists only at 2025-11-25. None of them changes how a
// request without the task param is answered, so no other family sees them.
var clientTaskVersions = []string{protocol.V20251125}

var (
	// TaskSyncAnswer breaks "Receivers that accept a task-augmented request
	// MUST return a CreateTaskResult as the response": it declares the
	// requests but answers them as plain ones.
	TaskSyncAnswer = &fault.Fault{Name: "task-sync-answer", Versions: clientTaskVersions,
		Description: "declares tasks.requests for elicitation and sampling, yet answers task-augmented requests synchronously with the plain result"}
	// TaskForUndeclared breaks "Receivers that do not declare the task
	// capability for a request type MUST process requests of that type
	// normally".
	TaskForUndeclared = &fault.Fault{Name: "task-for-undeclared", Versions: clientTaskVersions,
		Description: "creates a task for a task-augmented roots/list, a request type its tasks capability does not name"}
	// TaskStartsInputRequired breaks "Tasks MUST begin in the working status
	// when created", as a receiver that takes the pending user for input it
	// needs would (the vendor document seeds/003 starts them so).
	TaskStartsInputRequired = &fault.Fault{Name: "task-starts-input-required", Versions: clientTaskVersions,
		Description: "creates elicitation and sampling tasks in input_required instead of working"}
	// TaskGetNoTTL breaks "Receivers MUST include the actual ttl duration
	// (or null for unlimited) in tasks/get responses".
	TaskGetNoTTL = &fault.Fault{Name: "task-get-no-ttl", Versions: clientTaskVersions,
		Description: "leaves ttl out of its tasks/get results"}
	// TaskUnixTimestamps breaks "Receivers MUST include a createdAt ISO
	// 8601-formatted timestamp in all task responses" (and lastUpdatedAt).
	TaskUnixTimestamps = &fault.Fault{Name: "task-unix-timestamps", Versions: clientTaskVersions,
		Description: `writes createdAt and lastUpdatedAt as Unix milliseconds ("1764500000000") instead of ISO 8601`}
	// TaskResultEarly breaks "it MUST block the response until the task
	// reaches a terminal status".
	TaskResultEarly = &fault.Fault{Name: "task-result-early", Versions: clientTaskVersions,
		Description: "answers tasks/result for a task still working at once, with the task's current state"}
	// TaskResultNoRelatedTask breaks "The tasks/result operation MUST include
	// this metadata in its response".
	TaskResultNoRelatedTask = &fault.Fault{Name: "task-result-no-related-task", Versions: clientTaskVersions,
		Description: "answers tasks/result without the io.modelcontextprotocol/related-task _meta"}
	// TaskReopens breaks "Tasks with a completed, failed, or cancelled status
	// are in a terminal state and MUST NOT transition to any other status":
	// once its result was fetched the task is working again (without a
	// notification, so only polling shows it).
	TaskReopens = &fault.Fault{Name: "task-reopens", Versions: clientTaskVersions,
		Description: "moves a completed task back to working once tasks/result has returned it, silently"}
	// TaskNotifiesAfterTerminal breaks the same rule in its notifications
	// only: the task stays completed, but a status notification says working.
	TaskNotifiesAfterTerminal = &fault.Fault{Name: "task-notifies-after-terminal", Versions: clientTaskVersions,
		Description: "after a task's completed notification, sends another notifications/tasks/status saying working"}
	// TaskNotifiesRelatedTask breaks "When sent, the
	// notifications/tasks/status notification SHOULD NOT include the
	// io.modelcontextprotocol/related-task metadata".
	TaskNotifiesRelatedTask = &fault.Fault{Name: "task-notifies-related-task", Versions: clientTaskVersions,
		Description: "puts the io.modelcontextprotocol/related-task _meta into its notifications/tasks/status"}
	// TaskCancelLate breaks "MUST transition the task to cancelled status
	// before sending the response".
	TaskCancelLate = &fault.Fault{Name: "task-cancel-late", Versions: clientTaskVersions,
		Description: "answers tasks/cancel with the task's state before the cancel (working), and cancels it just after"}
	// TaskResurrects breaks "Once a task is cancelled, it MUST remain in
	// cancelled status even if execution continues to completion".
	TaskResurrects = &fault.Fault{Name: "task-resurrects", Versions: clientTaskVersions,
		Description: "completes a cancelled task when the user's answer arrives after the cancel"}
	// TaskResultHangsAfterCancel breaks "When a receiver receives a
	// tasks/result request for a task in a terminal status … it MUST return
	// the final result": it waits for an answer a cancelled task never gets.
	TaskResultHangsAfterCancel = &fault.Fault{Name: "task-result-hangs-after-cancel", Versions: clientTaskVersions,
		Description: "never answers tasks/result for a cancelled task"}
	// TaskCancelsTerminal breaks "Receivers MUST reject cancellation requests
	// for tasks already in a terminal status … with error code -32602".
	TaskCancelsTerminal = &fault.Fault{Name: "task-cancels-terminal", Versions: clientTaskVersions,
		Description: "answers tasks/cancel of a terminal task with the task as it is, instead of -32602"}
	// TaskUnknownIDCode breaks "Invalid or nonexistent taskId in tasks/get,
	// tasks/result, or tasks/cancel: -32602".
	TaskUnknownIDCode = &fault.Fault{Name: "task-unknown-id-code", Versions: clientTaskVersions,
		Description: "answers tasks/get, tasks/result and tasks/cancel of an unknown task id with -32603 instead of -32602"}
	// TaskListIgnoresCursor breaks "If a task is retrievable via tasks/get
	// for a requestor, it MUST be retrievable via tasks/list": every cursor
	// it issued gets the first page again (an unknown one is still refused).
	TaskListIgnoresCursor = &fault.Fault{Name: "task-list-ignores-cursor", Versions: clientTaskVersions,
		Description: "answers tasks/list with the first page (and its nextCursor) whatever cursor it issued is passed back"}
	// TaskListNoCursor breaks "Receivers MUST include a nextCursor in the
	// response if more tasks are available".
	TaskListNoCursor = &fault.Fault{Name: "task-list-no-cursor", Versions: clientTaskVersions,
		Description: "pages tasks/list but never sends nextCursor"}
	// TaskListBadCursor breaks "Invalid or nonexistent cursor in tasks/list:
	// -32602".
	TaskListBadCursor = &fault.Fault{Name: "task-list-bad-cursor", Versions: clientTaskVersions,
		Description: "answers tasks/list with an unknown cursor with the first page instead of -32602"}

	// NoClientTasks declares no tasks capability: a task-augmented request
	// is then answered as a plain one.
	NoClientTasks = &fault.Fault{Name: "no-client-tasks", Liberty: true, Versions: clientTaskVersions,
		Description: "declares no tasks capability and answers task-augmented requests as plain ones",
		Freedom: "Receivers that do not declare the task capability for a request type MUST process requests of that type normally, " +
			"ignoring any task-augmentation metadata if present."}
	// TaskNoNotifications never sends notifications/tasks/status.
	TaskNoNotifications = &fault.Fault{Name: "task-no-notifications", Liberty: true, Versions: clientTaskVersions,
		Description: "sends no notifications/tasks/status",
		Freedom:     "Receivers MAY send notifications/tasks/status notifications when a task's status changes."}
	// TaskDeletesCancelled forgets a task the moment it is cancelled.
	TaskDeletesCancelled = &fault.Fault{Name: "task-deletes-cancelled", Liberty: true, Versions: clientTaskVersions,
		Description: "deletes a cancelled task right after answering tasks/cancel (later tasks/get: -32602)",
		Freedom: "receivers MAY delete cancelled tasks at their discretion at any time, including immediately after cancellation " +
			"or after the task ttl expires."}
	// TaskOwnTTL overrides the requested ttl and suggests a short poll
	// interval.
	TaskOwnTTL = &fault.Fault{Name: "task-own-ttl", Liberty: true, Versions: clientTaskVersions,
		Description: "keeps tasks for 30 s whatever ttl was asked for, and suggests polling every 20 ms",
		Freedom:     "Receivers MAY override the requested ttl duration. Receivers MAY include a pollInterval value (in milliseconds) in tasks/get responses to suggest polling intervals."}

	// TaskCapacityHangs holds at most 16 live tasks and leaves any further
	// task-augmented request unanswered: its requestor waits for ever.
	TaskCapacityHangs = &fault.Fault{Name: "task-capacity-hangs", Versions: clientTaskVersions,
		Description: "holds at most 16 live tasks and leaves further task-augmented requests unanswered"}
	// TaskCapacityRefuses holds at most 16 live tasks and refuses further
	// task-augmented requests with an error: a limit, as the spec asks.
	TaskCapacityRefuses = &fault.Fault{Name: "task-capacity-refuses", Liberty: true, Versions: clientTaskVersions,
		Description: "holds at most 16 live tasks and refuses further task-augmented requests with -32603",
		Freedom:     "Enforce limits on concurrent tasks per requestor"}
)

var (
	clientTaskFaults = fault.Set{TaskSyncAnswer, TaskForUndeclared, TaskStartsInputRequired, TaskGetNoTTL, TaskUnixTimestamps, TaskResultEarly, TaskResultNoRelatedTask,
		TaskReopens, TaskNotifiesAfterTerminal, TaskNotifiesRelatedTask, TaskCancelLate, TaskResurrects, TaskResultHangsAfterCancel, TaskCancelsTerminal,
		TaskUnknownIDCode, TaskListIgnoresCursor, TaskListNoCursor, TaskListBadCursor, TaskCapacityHangs}
	clientTaskLiberties = fault.Set{NoClientTasks, TaskNoNotifications, TaskDeletesCancelled, TaskOwnTTL, TaskCapacityRefuses}
)
