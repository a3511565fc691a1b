package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// Tasks v1 (2025-11-25/basic/utilities/tasks.mdx) as a requestor: task-
// augmented tools/call, tasks/get|result|list|cancel, and the history of
// every status the session observed for each task, from its own polling and
// from notifications/tasks/status.

// Task is the Task type as it arrived.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  *int64 `json:"pollInterval,omitempty"`
}

// Observation is one sighting of a task's state.
type Observation struct {
	Task
	// Source is where it was seen: create, get, cancel, list, notification.
	Source string
	Raw    json.RawMessage
	At     time.Time
}

type taskLog struct {
	mu  sync.Mutex
	obs map[string][]Observation
}

func (l *taskLog) add(source string, raw json.RawMessage) (Task, bool) {
	var t Task
	if json.Unmarshal(raw, &t) != nil || t.TaskID == "" {
		return t, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.obs == nil {
		l.obs = map[string][]Observation{}
	}
	l.obs[t.TaskID] = append(l.obs[t.TaskID], Observation{Task: t, Source: source, Raw: append(json.RawMessage(nil), raw...), At: time.Now()})
	return t, true
}

// TaskHistory returns every observation of the task, in arrival order.
func (s *Session) TaskHistory(id string) []Observation {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	return append([]Observation(nil), s.tasks.obs[id]...)
}

// TaskNotifications returns the notifications/tasks/status messages received
// for a task (all tasks when id is "").
func (s *Session) TaskNotifications(id string) []*jsonrpc.Message {
	return s.inbox.Matching(0, func(m *jsonrpc.Message) bool {
		return m.Method == protocol.NotificationTasksStatus && (id == "" || notifiedTaskID(m) == id)
	})
}

func notifiedTaskID(m *jsonrpc.Message) string {
	var p protocol.RelatedTask
	_ = json.Unmarshal(m.Params, &p)
	return p.TaskID
}

// CallTool calls a tool without a task.
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any) (*jsonrpc.Message, error) {
	if args == nil {
		args = map[string]any{}
	}
	return s.Request(ctx, protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args})
}

// CallToolAsTask sends a task-augmented tools/call. It returns the task id
// when the response is a CreateTaskResult, and the response as received.
func (s *Session) CallToolAsTask(ctx context.Context, name string, args map[string]any, ttl *int64) (string, *jsonrpc.Message, error) {
	if args == nil {
		args = map[string]any{}
	}
	task := map[string]any{}
	if ttl != nil {
		task["ttl"] = *ttl
	}
	resp, err := s.Request(ctx, protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args, "task": task})
	if err != nil || resp.Error != nil {
		return "", resp, err
	}
	var created protocol.CreateTaskReply
	if json.Unmarshal(resp.Result, &created) != nil || created.Task == nil {
		return "", resp, nil
	}
	t, _ := s.tasks.add("create", created.Task)
	return t.TaskID, resp, nil
}

// GetTask polls tasks/get and records what it saw.
func (s *Session) GetTask(ctx context.Context, id string) (*jsonrpc.Message, error) {
	return s.taskRequest(ctx, protocol.MethodTasksGet, id, "get")
}

// CancelTask sends tasks/cancel and records the state it answered.
func (s *Session) CancelTask(ctx context.Context, id string) (*jsonrpc.Message, error) {
	return s.taskRequest(ctx, protocol.MethodTasksCancel, id, "cancel")
}

// TaskResult calls tasks/result, which blocks until the task is terminal.
func (s *Session) TaskResult(ctx context.Context, id string) (*jsonrpc.Message, error) {
	return s.Request(ctx, protocol.MethodTasksResult, map[string]any{"taskId": id})
}

func (s *Session) taskRequest(ctx context.Context, method, id, source string) (*jsonrpc.Message, error) {
	resp, err := s.Request(ctx, method, map[string]any{"taskId": id})
	if err == nil && resp.Error == nil {
		s.tasks.add(source, resp.Result)
	}
	return resp, err
}

// ListTasks calls tasks/list once; cursor "" asks for the first page.
func (s *Session) ListTasks(ctx context.Context, cursor string) (*jsonrpc.Message, []Task, string, error) {
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	resp, err := s.Request(ctx, protocol.MethodTasksList, params)
	if err != nil || resp.Error != nil {
		return resp, nil, "", err
	}
	var page protocol.TasksPage
	if err := json.Unmarshal(resp.Result, &page); err != nil {
		return resp, nil, "", fmt.Errorf("tasks/list result: %w", err)
	}
	var tasks []Task
	for _, raw := range page.Tasks {
		if t, ok := s.tasks.add("list", raw); ok {
			tasks = append(tasks, t)
		}
	}
	next := ""
	if page.NextCursor != nil {
		next = *page.NextCursor
	}
	return resp, tasks, next, nil
}

// WaitTaskStatus polls tasks/get until want(status) holds. Between polls it
// waits for a status notification for the task, for at most the server's
// pollInterval: a server that notifies is observed at once, and polling
// paces itself by pollInterval only where polling is the only way to see.
func (s *Session) WaitTaskStatus(ctx context.Context, id string, want func(status string) bool) (Task, error) {
	for {
		mark := s.inbox.Mark()
		resp, err := s.GetTask(ctx, id)
		if err != nil {
			return Task{}, err
		}
		if resp.Error != nil {
			return Task{}, &TaskError{Code: resp.Error.Code, Message: resp.Error.Message}
		}
		var t Task
		_ = json.Unmarshal(resp.Result, &t)
		if want(t.Status) {
			return t, nil
		}
		interval := s.opts.Poll
		if t.PollInterval != nil && *t.PollInterval > 0 {
			interval = time.Duration(*t.PollInterval) * time.Millisecond
		}
		wctx, cancel := context.WithTimeout(ctx, interval)
		_, werr := s.inbox.WaitFrom(wctx, mark, func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationTasksStatus && notifiedTaskID(m) == id
		})
		cancel()
		if ctx.Err() != nil {
			return t, fmt.Errorf("task %s still %s: %w", id, t.Status, ctx.Err())
		}
		if werr != nil && wctx.Err() == nil {
			return t, werr // the connection closed
		}
	}
}

// TaskError is a tasks/get that WaitTaskStatus sent answered with a
// JSON-RPC error: the task is unknown, expired or deleted (-32602), or the
// server failed.
type TaskError struct {
	Code    int
	Message string
}

func (e *TaskError) Error() string { return fmt.Sprintf("tasks/get: error %d %s", e.Code, e.Message) }

// IsTerminal reports completed, failed and cancelled, for a status as the
// wire gives it (protocol.TaskStatus.Terminal).
func IsTerminal(status string) bool { return protocol.TaskStatus(status).Terminal() }
