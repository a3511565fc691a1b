package client

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The tasks extension (io.modelcontextprotocol/tasks, ext-tasks/tasks.md) as
// a requestor at 2026-07-28: the extension declared in the per-request
// capabilities, tools/call answered with resultType "task", tasks/get
// polled at the server's pollIntervalMs, tasks/update, tasks/cancel, and
// notifications/tasks over subscriptions/listen.

// WithTasksExtension returns caps with the extension declared in
// capabilities.extensions (ext-tasks/tasks.md#capability-negotiation).
func WithTasksExtension(caps map[string]any) map[string]any {
	out := maps.Clone(caps)
	if out == nil {
		out = map[string]any{}
	}
	ext, _ := out["extensions"].(map[string]any)
	ext = maps.Clone(ext)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[protocol.ExtensionTasks] = map[string]any{}
	out["extensions"] = ext
	return out
}

// ExtTask is a task of the extension as it arrived (a CreateTaskResult, a
// tasks/get result or a notifications/tasks): the Task and, by status, its
// result, error or inputRequests.
type ExtTask struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  *string                    `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs *int64                     `json:"pollIntervalMs"`
	Result         json.RawMessage            `json:"result"`
	Error          json.RawMessage            `json:"error"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
}

// ReadExtTask reads a task from a result or notification's params.
func ReadExtTask(raw json.RawMessage) (ExtTask, bool) {
	var t ExtTask
	if json.Unmarshal(raw, &t) != nil || t.TaskID == "" {
		return t, false
	}
	return t, true
}

// ExtGetTask sends tasks/get.
func (s *Session) ExtGetTask(ctx context.Context, id string) (*jsonrpc.Message, error) {
	return s.Request(ctx, protocol.MethodTasksGet, map[string]any{"taskId": id})
}

// ExtUpdateTask sends tasks/update with inputResponses.
func (s *Session) ExtUpdateTask(ctx context.Context, id string, responses map[string]any) (*jsonrpc.Message, error) {
	return s.Request(ctx, protocol.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": responses})
}

// ExtCancelTask sends tasks/cancel.
func (s *Session) ExtCancelTask(ctx context.Context, id string) (*jsonrpc.Message, error) {
	return s.Request(ctx, protocol.MethodTasksCancel, map[string]any{"taskId": id})
}

// ExtPoll is one tasks/get a wait made: its answer and, when it is a task,
// the task.
type ExtPoll struct {
	Resp *jsonrpc.Message
	Task ExtTask
	At   time.Time
}

// WaitExtTask polls tasks/get until done(task) holds or the answer is not a
// task (an error), and returns every poll it made. Between polls it waits
// for a notifications/tasks of the task for at most the latest
// pollIntervalMs the server suggested (fallback: the session's Poll), so a
// server that notifies is seen at once and one that does not is polled at
// the pace it asked for. ctx bounds the whole wait.
func (s *Session) WaitExtTask(ctx context.Context, id string, done func(ExtTask) bool) ([]ExtPoll, error) {
	var polls []ExtPoll
	interval := s.opts.Poll
	for {
		mark := s.inbox.Mark()
		resp, err := s.ExtGetTask(ctx, id)
		if err != nil {
			return polls, err
		}
		t, _ := ReadExtTask(resp.Result)
		polls = append(polls, ExtPoll{Resp: resp, Task: t, At: time.Now()})
		if resp.Error != nil || done(t) {
			return polls, nil
		}
		if t.PollIntervalMs != nil && *t.PollIntervalMs > 0 {
			interval = time.Duration(*t.PollIntervalMs) * time.Millisecond
		}
		wctx, cancel := context.WithTimeout(ctx, interval)
		_, werr := s.inbox.WaitFrom(wctx, mark, func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationTasks && notifiedTaskID(m) == id
		})
		cancel()
		if ctx.Err() != nil {
			return polls, fmt.Errorf("task %s still %s: %w", id, t.Status, ctx.Err())
		}
		if werr != nil && wctx.Err() == nil {
			return polls, werr // the connection closed
		}
	}
}

// Listening is an open subscriptions/listen request.
type Listening struct {
	ID   jsonrpc.ID
	s    *Session
	stop context.CancelFunc
	done chan struct{}
	resp *jsonrpc.Message
	err  error
}

// Listen opens subscriptions/listen with this notifications filter; the
// request stays open, its notifications arrive in the inbox, until Stop.
// id names the subscription (the request's JSON-RPC id); meta overrides
// entries of the per-request _meta (nil for none).
func (s *Session) Listen(ctx context.Context, id jsonrpc.ID, filter, meta map[string]any) *Listening {
	lctx, stop := context.WithCancel(ctx)
	l := &Listening{ID: id, s: s, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.resp, l.err = s.Do(lctx, Call{ID: id, Method: protocol.MethodSubscriptionsListen,
			Params: map[string]any{"notifications": filter}, Meta: meta})
	}()
	return l
}

// Answered returns the response to the listen request if one came (an
// error refusing it, or a graceful end), without waiting.
func (l *Listening) Answered() (*jsonrpc.Message, bool) {
	select {
	case <-l.done:
		return l.resp, l.resp != nil
	default:
		return nil, false
	}
}

// Done is closed once the request has ended (answered, or stopped).
func (l *Listening) Done() <-chan struct{} { return l.done }

// Response is what ended the request, once Done is closed.
func (l *Listening) Response() (*jsonrpc.Message, error) { return l.resp, l.err }

type requestCanceller interface {
	CancelRequest(id jsonrpc.ID) bool
}

// Stop cancels the subscription (subscriptions.mdx#cancellation): over
// HTTP the response stream is closed, elsewhere notifications/cancelled
// names the request.
func (l *Listening) Stop(ctx context.Context) {
	if c, ok := transport.As[requestCanceller](l.s.conn); ok {
		c.CancelRequest(l.ID)
	} else if _, answered := l.Answered(); !answered {
		_ = l.s.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": l.ID, "reason": "the scenario is over"})
	}
	l.stop()
	select {
	case <-l.done:
	case <-ctx.Done():
	}
}
