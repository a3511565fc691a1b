package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Shared machinery of the tasks v1 families (scenarios.md S1, S2, S3, S7).

const tasksSpec = "2025-11-25/basic/utilities/tasks.mdx"

var taskVersions = protocol.Where(func(v protocol.Version) bool { return v.TasksV1 })

// taskClientCaps is what the fake client declares in task sessions: it can
// answer elicitations (a task may ask for input).
func taskClientCaps() map[string]any {
	return map[string]any{"elicitation": map[string]any{}}
}

// needsTaskCalls is the capability every scenario that opens a task session
// needs (tasks.mdx#server-capabilities): the driver skips the scenario when
// the first session's handshake does not declare it.
var needsTaskCalls = scenarios.NeedsCapability(capTaskCalls)

const capTaskCalls = "tasks.requests.tools.call"

// openTaskSession opens a session that can create tasks. index picks the
// bearer token of its authorization context, when two were given. The
// scenario's first session is held to capabilities.tasks.requests.tools.call
// by its needs (needsTaskCalls); a later one is checked by requireTaskCalls.
func openTaskSession(t *serverside.T, label string, index int) *client.Session {
	opts := client.Options{Capabilities: taskClientCaps()}
	if len(t.Env.AuthTokens) == 2 {
		opts.Header = http.Header{"Authorization": {"Bearer " + t.Env.AuthTokens[index]}}
	}
	return t.Open(label, opts)
}

// requireTaskCalls skips the rest of the scenario when a session other than
// the first does not declare capabilities.tasks.requests.tools.call.
func requireTaskCalls(t *serverside.T, s *client.Session) {
	if !serverside.Declares(s.ServerCapabilities, capTaskCalls) {
		t.SkipRest("the server does not declare capabilities.tasks.requests.tools.call (tasks.mdx#server-capabilities)")
	}
}

// serverTasksCapability reports capabilities.tasks.<name> (list, cancel).
func serverTasksCapability(s *client.Session, name string) bool {
	tasks, _ := s.ServerCapabilities["tasks"].(map[string]any)
	_, ok := tasks[name]
	return ok
}

// taskTool resolves a fixture to the target's tool and checks it is listed
// with one of the wanted taskSupport values; otherwise the reason to skip.
func taskTool(t *serverside.T, tools map[string]protocol.Tool, fixture string, defaults map[string]any, support ...string) (scenarios.Fixture, string) {
	fx := t.Fixture(fixture, defaults)
	tl, ok := tools[fx.Tool]
	if !ok {
		return fx, fmt.Sprintf("the target lists no tool %q for the fixture %s (map one with --fixture or the config file)", fx.Tool, fixture)
	}
	got := tl.Execution.TaskSupport
	if got == "" {
		got = "forbidden"
	}
	if !slices.Contains(support, got) {
		return fx, fmt.Sprintf("tool %q has execution.taskSupport %q; the fixture %s needs %s", fx.Tool, got, fixture, strings.Join(support, " or "))
	}
	return fx, ""
}

// requireTaskTool is taskTool that skips the rest of the scenario.
func requireTaskTool(t *serverside.T, s *client.Session, fixture string, defaults map[string]any, support ...string) scenarios.Fixture {
	tools, err := t.ListTools(s)
	if err != nil {
		t.Blocked("%v", err)
	}
	fx, why := taskTool(t, tools, fixture, defaults, support...)
	if why != "" {
		t.SkipRest(why)
	}
	return fx
}

// createTask calls the fixture as a task; a target that does not answer
// with a CreateTaskResult blocks the scenario (the check that judges
// creation, where there is one, carries the failure).
func createTask(t *serverside.T, s *client.Session, fx scenarios.Fixture) (string, *jsonrpc.Message) {
	t.Step("call %s as a task on session %s", fx.Tool, s.Label())
	ctx, cancel := t.Wait()
	defer cancel()
	id, resp, err := s.CallToolAsTask(ctx, fx.Tool, fx.Arguments, nil)
	if err != nil || resp.Error != nil || id == "" {
		t.Blocked("the task-augmented tools/call of %s was not answered with a CreateTaskResult: %s", fx.Tool, judge.Describe(resp, err))
	}
	return id, resp
}

// createdStatus reads task.status from a CreateTaskResult.
func createdStatus(resp *jsonrpc.Message) string {
	var r protocol.CreateTaskResult
	_ = json.Unmarshal(resp.Result, &r)
	return r.Task.Status
}

// statusOf reads status from a Task-shaped result.
func statusOf(resp *jsonrpc.Message) string {
	if resp == nil || resp.Error != nil {
		return ""
	}
	return judge.StringField(resp.Result, "status")
}

// taskWait bounds one wait on a task by the task's own pace: one answer
// timeout plus two of its poll intervals (a server that suggests polling
// every 5 s and sends no notifications is seen to change only at the next
// poll), within the scenario's deadline (the context's parent).
func taskWait(t *serverside.T, s *client.Session, id string) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Ctx, taskWaitBound(t.Env.Timing, pollIntervalOf(s.TaskHistory(id), t.Env.Timing.Poll)))
}

// taskWaitBound is the longest one wait on a task may take.
func taskWaitBound(timing scenarios.Timing, poll time.Duration) time.Duration {
	return timing.ResponseTimeout + 2*poll
}

// pollIntervalOf is the latest pollInterval the task was seen with, or
// fallback when it never named one.
func pollIntervalOf(history []client.Observation, fallback time.Duration) time.Duration {
	for i := len(history) - 1; i >= 0; i-- {
		if p := history[i].PollInterval; p != nil && *p > 0 {
			return time.Duration(*p) * time.Millisecond
		}
	}
	return fallback
}

// waitResult calls tasks/result, which blocks until the task is terminal;
// it is waited for as long as the task itself (taskWait).
func waitResult(t *serverside.T, s *client.Session, id string) (*jsonrpc.Message, error) {
	t.Step("tasks/result on %s (blocks until the task is terminal)", id)
	ctx, cancel := taskWait(t, s, id)
	defer cancel()
	return s.TaskResult(ctx, id)
}

func getTask(t *serverside.T, s *client.Session, id string) (*jsonrpc.Message, error) {
	ctx, cancel := t.Wait()
	defer cancel()
	return s.GetTask(ctx, id)
}

func cancelTask(t *serverside.T, s *client.Session, id string) (*jsonrpc.Message, error) {
	t.Step("tasks/cancel %s on session %s", id, s.Label())
	ctx, cancel := t.Wait()
	defer cancel()
	return s.CancelTask(ctx, id)
}

// quiet waits QuietWindow for a message matching pred that must not come.
func quiet(t *serverside.T, s *client.Session, mark int, pred func(*jsonrpc.Message) bool) *jsonrpc.Message {
	ctx, cancel := context.WithTimeout(t.Ctx, t.QuietWindow())
	defer cancel()
	m, err := s.Inbox().WaitFrom(ctx, mark, pred)
	if err != nil {
		return nil
	}
	return m
}

// relatedTaskID reads _meta["io.modelcontextprotocol/related-task"].taskId.
func relatedTaskID(raw json.RawMessage) (string, bool) {
	var v protocol.Meta
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	rt, ok := v.Meta[protocol.MetaRelatedTask]
	if !ok {
		return "", false
	}
	var ref protocol.RelatedTask
	_ = json.Unmarshal(rt, &ref)
	return ref.TaskID, true
}

// waitTerminal waits, event-driven (notifications, else polling at the
// server's pollInterval), until the task reads terminal.
func waitTerminal(t *serverside.T, s *client.Session, id string) (client.Task, error) {
	t.Step("wait for %s to read terminal", id)
	return waitStatus(t, s, id, client.IsTerminal)
}

// waitStatus polls (and listens) until want holds, for as long as the
// task's pace allows (taskWait).
func waitStatus(t *serverside.T, s *client.Session, id string, want func(string) bool) (client.Task, error) {
	ctx, cancel := taskWait(t, s, id)
	defer cancel()
	return s.WaitTaskStatus(ctx, id, want)
}

// taskElicitation waits for the elicitation a task sends from inside
// itself. A receiver may hold it until the requestor, seeing
// input_required, calls tasks/result (tasks.mdx#input-required-status: the
// requestor SHOULD then call tasks/result preemptively, and the spec's own
// flow delivers the question on that stream). So: whichever comes first,
// the question or the status; on input_required, tasks/result is called in
// the background and the question awaited.
func taskElicitation(t *serverside.T, s *client.Session, held *client.HeldRequests, id string) *client.Held {
	ctx, cancel := taskWait(t, s, id)
	defer cancel()
	got := make(chan *client.Held, 1)
	go func() {
		h, err := held.Next(ctx)
		if err == nil {
			got <- h
		}
	}()
	// The status watcher polls tasks/get, which records into the task's
	// history: it must be finished before the scenario polls on its own, or
	// a stale answer could be recorded after a newer one.
	pollCtx, stopPolling := context.WithCancel(ctx)
	status := make(chan string, 1)
	polling := make(chan struct{})
	go func() {
		defer close(polling)
		tk, err := s.WaitTaskStatus(pollCtx, id, func(st string) bool { return st == "input_required" || client.IsTerminal(st) })
		if err == nil {
			status <- tk.Status
		}
	}()
	defer func() { stopPolling(); <-polling }()
	select {
	case h := <-got:
		return h
	case st := <-status:
		if st != "input_required" {
			t.Blocked("the task reached %s without asking for input", st)
		}
		t.Step("the task reads input_required: call tasks/result to receive its question")
		go func() {
			// Until the scenario ends: the call returns once the task is terminal.
			_, _ = s.TaskResult(t.Ctx, id)
		}()
	case <-ctx.Done():
		t.Blocked("the task neither asked for input nor read input_required within %s (one answer timeout and two of its poll intervals)",
			taskWaitBound(t.Env.Timing, pollIntervalOf(s.TaskHistory(id), t.Env.Timing.Poll)))
	}
	select {
	case h := <-got:
		return h
	case <-ctx.Done():
		t.Blocked("the task reads input_required, but no elicitation/create arrived, even on a tasks/result stream")
		return nil
	}
}

// DescribeTask renders a Task-shaped answer by its status (and message),
// leaving out ids and timestamps so failures group across runs.
func DescribeTask(m *jsonrpc.Message, err error) string {
	if err != nil || m == nil || m.Error != nil {
		return judge.Describe(m, err)
	}
	status := judge.StringField(m.Result, "status")
	if status == "" {
		return judge.Describe(m, err)
	}
	if msg := judge.StringField(m.Result, "statusMessage"); msg != "" {
		return fmt.Sprintf("a Task with status %s (%q)", status, msg)
	}
	return "a Task with status " + status
}
