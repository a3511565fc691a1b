package tasksext

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Shared machinery of the tasks extension's server-side scenarios.

const (
	extSpec = "ext-tasks/tasks.md"
	sepNote = "seps/2663-tasks-extension.md"
	family  = "tasksext"
)

var versions = protocol.JudgedStateless()

// plainCaps is what the fake client declares besides the extension.
func plainCaps() map[string]any { return map[string]any{"elicitation": map[string]any{}} }

// extCaps declares the extension too.
func extCaps() map[string]any { return client.WithTasksExtension(plainCaps()) }

// undeclared overrides a request's per-request capabilities: caps, which
// do not declare the extension.
func undeclared(caps map[string]any) map[string]any {
	return map[string]any{protocol.MetaClientCapabilities: caps}
}

// open opens a session whose requests declare the extension, and skips the
// scenario when the server does not declare it.
func open(t *serverside.T) *client.Session {
	s := t.Open("A", client.Options{Capabilities: extCaps()})
	if !serverDeclares(s) {
		t.SkipRest("the server does not declare " + protocol.ExtensionTasks + " in capabilities.extensions of server/discover " +
			"(ext-tasks/tasks.md#capability-negotiation)")
	}
	return s
}

func serverDeclares(s *client.Session) bool {
	ext, _ := s.ServerCapabilities["extensions"].(map[string]any)
	_, ok := ext[protocol.ExtensionTasks]
	return ok
}

// callTool calls a fixture; meta overrides the per-request _meta.
func callTool(t *serverside.T, s *client.Session, fx scenarios.Fixture, meta map[string]any, extra map[string]any) (*jsonrpc.Message, error) {
	args := fx.Arguments
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": fx.Tool, "arguments": args}
	for k, v := range extra {
		params[k] = v
	}
	return t.Do(s, client.Call{Method: protocol.MethodToolsCall, Params: params, Meta: meta})
}

// isTask reports a result that is a task: resultType "task" or, whatever
// its resultType says, a taskId and a status.
func isTask(resp *jsonrpc.Message) bool {
	if resp == nil || resp.Error != nil {
		return false
	}
	if judge.StringField(resp.Result, "resultType") == "task" {
		return true
	}
	return judge.StringField(resp.Result, "taskId") != "" && judge.StringField(resp.Result, "status") != ""
}

// createTask calls fx declaring the extension. A plain result (the server
// may answer without a task) skips the rest; an error blocks it.
func createTask(t *serverside.T, s *client.Session, fx scenarios.Fixture) (client.ExtTask, *jsonrpc.Message) {
	t.Step("call %s declaring the extension", fx.Tool)
	resp, err := callTool(t, s, fx, nil, nil)
	if err != nil || resp.Error != nil {
		t.Blocked("tools/call of %s failed: %s", fx.Tool, judge.Describe(resp, err))
	}
	if !isTask(resp) {
		t.NotJudgedRest(fmt.Sprintf("%s was answered without a task (resultType %q), as a server may "+
			"(ext-tasks/tasks.md#capability-negotiation: the server is the sole decider)", fx.Tool, judge.StringField(resp.Result, "resultType")))
	}
	task, _ := client.ReadExtTask(resp.Result)
	return task, resp
}

// pollOf is the task's suggested poll interval, or the configured one.
func pollOf(t *serverside.T, task client.ExtTask) time.Duration {
	if task.PollIntervalMs != nil && *task.PollIntervalMs > 0 {
		return time.Duration(*task.PollIntervalMs) * time.Millisecond
	}
	return t.Env.Timing.Poll
}

// waitTask polls tasks/get (and listens) until done holds, for one answer
// timeout plus work and two of the task's poll intervals.
func waitTask(t *serverside.T, s *client.Session, last client.ExtTask, work time.Duration, done func(client.ExtTask) bool) ([]client.ExtPoll, error) {
	bound := t.Env.Timing.ResponseTimeout + work + 2*max(pollOf(t, last), t.Env.Timing.Poll)
	ctx, cancel := context.WithTimeout(t.Ctx, bound)
	defer cancel()
	return s.WaitExtTask(ctx, last.TaskID, done)
}

func terminal(task client.ExtTask) bool { return client.IsTerminal(task.Status) }

// waitTerminal waits for a terminal status; a wait that fails blocks the
// scenario. The last poll is the first terminal one.
func waitTerminal(t *serverside.T, s *client.Session, last client.ExtTask, work time.Duration) client.ExtPoll {
	t.Step("poll tasks/get until %s is terminal", last.TaskID)
	polls, err := waitTask(t, s, last, work, terminal)
	return lastPoll(t, polls, err, "reach a terminal status")
}

func lastPoll(t *serverside.T, polls []client.ExtPoll, err error, what string) client.ExtPoll {
	if err != nil {
		t.Blocked("the task did not %s: %v", what, err)
	}
	p := polls[len(polls)-1]
	if p.Resp.Error != nil {
		t.Blocked("tasks/get answered %s before the task could %s", judge.Describe(p.Resp, nil), what)
	}
	return p
}

// emptyAck reports a result with no members but resultType and _meta (an
// empty acknowledgement).
func emptyAck(raw json.RawMessage) (bool, []string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false, nil
	}
	var extra []string
	for k := range m {
		if k != "resultType" && k != "_meta" {
			extra = append(extra, k)
		}
	}
	return len(extra) == 0, extra
}

// sameJSON compares two JSON values as values.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// describeTask renders a tasks/get answer by status, without ids or
// timestamps, so failures group across runs.
func describeTask(m *jsonrpc.Message, err error) string {
	if err != nil || m == nil || m.Error != nil {
		return judge.Describe(m, err)
	}
	if st := judge.StringField(m.Result, "status"); st != "" {
		return "a task with status " + st
	}
	return judge.Describe(m, err)
}

// watchStays polls the task for a quiet window (and two poll intervals)
// after it read status, and returns the first answer that shows another
// status; an error answer (the task was purged) ends the watch.
func watchStays(t *serverside.T, s *client.Session, last client.ExtTask) *jsonrpc.Message {
	window := t.QuietWindow() + 2*pollOf(t, last)
	ctx, cancel := context.WithTimeout(t.Ctx, window)
	defer cancel()
	polls, _ := s.WaitExtTask(ctx, last.TaskID, func(task client.ExtTask) bool { return task.Status != last.Status })
	if len(polls) == 0 {
		return nil
	}
	p := polls[len(polls)-1]
	if p.Resp.Error == nil && p.Task.Status != last.Status {
		return p.Resp
	}
	return nil
}

// answerFor accepts an elicitation request surfaced in inputRequests with
// content built from its requestedSchema: a value of each property's type
// (true for booleans, as confirm_delete's confirm expects).
func answerFor(request json.RawMessage) map[string]any {
	var r protocol.InputRequest
	_ = json.Unmarshal(request, &r)
	var params protocol.ElicitParams
	_ = json.Unmarshal(r.Params, &params)
	content := map[string]any{}
	for name, p := range params.RequestedSchema.Properties {
		enum, _ := p["enum"].([]any)
		switch {
		case len(enum) > 0:
			content[name] = enum[0]
		case p["type"] == "boolean":
			content[name] = true
		case p["type"] == "number" || p["type"] == "integer":
			content[name] = 1
		default:
			content[name] = "Alice"
		}
	}
	return map[string]any{"action": "accept", "content": content}
}

// mayBeGone reports a task whose ttlMs, as last read, has surely elapsed:
// more time has passed since the call that created it was sent, so the
// server may have deleted it (ext-tasks/tasks.md#response). A null ttlMs
// is unlimited.
func mayBeGone(last client.ExtTask, sent time.Time) bool {
	return last.TTLMs != nil && time.Since(sent) >= time.Duration(*last.TTLMs)*time.Millisecond
}
