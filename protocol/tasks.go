package protocol

import "time"

// DefaultPollInterval is how often mcpconform's peers poll a task when the
// other side suggests no pollInterval (the spec leaves it to the poller).
const DefaultPollInterval = 500 * time.Millisecond

// TaskStatus is a task's status, as tasks/get and notifications/tasks/status
// report it (2025-11-25 basic/utilities/tasks.mdx#task-status-lifecycle; the
// same statuses and graph govern the 2026-07-28 tasks extension).
type TaskStatus string

const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports completed, failed and cancelled: a task in one of them
// never changes again.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskTransitionLegal is the task status graph: working and input_required
// go to each other or to a terminal status; a terminal status goes nowhere.
// Seeing the same status again is no transition, so it is legal.
func TaskTransitionLegal(from, to TaskStatus) bool {
	if from == to {
		return true
	}
	switch from {
	case TaskWorking:
		return to == TaskInputRequired || to.Terminal()
	case TaskInputRequired:
		return to == TaskWorking || to.Terminal()
	}
	return false
}
