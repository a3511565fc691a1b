// Package tasks is the client-hosted tasks family (scenarios.md C2): a fake
// server at 2025-11-25 sends task-augmented elicitation/create and
// sampling/createMessage requests to a client that declares client-side
// tasks and judges the client's task receiver: a CreateTaskResult for what
// it declares and a plain answer for what it does not, the status lifecycle
// and its notifications, a blocking tasks/result with the related-task
// _meta, cancellation while the user's answer is pending, the -32602 cases
// and tasks/list paging.
//
// The server's requests go out while the client's call of a tool of the
// fake server is open (the context's toolCalls), as a server asks for input
// in the middle of a tool call: the call is answered once the scenario is
// done, so a client stays connected for as long as it takes.
//
// Isolation across sessions is not judged: the client under test is
// launched once per scenario and opens one connection, and nothing in the
// launch contract asks a client for a second session, so another session's
// tasks cannot be put beside its own.
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	family    = "client-tasks"
	tasksPage = "2025-11-25/basic/utilities/tasks.mdx"
	// requestedTTL is what the fake server asks for: long enough that no
	// task expires within a scenario.
	requestedTTL = 60000
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{augmentationScenario, lifecycleScenario, cancelScenario, listScenario, capacityScenario}
}

var versions = protocol.StatefulWith(protocol.MethodTasksGet)

// kind is a request type a client may take as a task.
type kind struct {
	method     string
	capability string // the client capability the request needs
	path       [2]string
}

var (
	elicitKind = kind{method: protocol.MethodElicitationCreate, capability: "elicitation", path: [2]string{"elicitation", "create"}}
	sampleKind = kind{method: protocol.MethodSamplingCreateMessage, capability: "sampling", path: [2]string{"sampling", "createMessage"}}
	kinds      = []kind{elicitKind, sampleKind}
)

// params are the request's params: a form elicitation or a sampling
// request, task-augmented when task, held for release when hold.
func (k kind) params(n int, task, hold bool) map[string]any {
	var p map[string]any
	if k == elicitKind {
		p = map[string]any{
			"mode":    "form",
			"message": fmt.Sprintf("Question %d: your name, please.", n),
			"requestedSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}},
				"required":   []any{"name"},
			},
		}
	} else {
		p = map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": fmt.Sprintf("Question %d: say hello.", n)}}},
			"maxTokens": 50,
		}
	}
	if task {
		p["task"] = map[string]any{"ttl": requestedTTL}
	}
	if hold {
		p["_meta"] = map[string]any{client.MetaHoldAnswer: true}
	}
	return p
}

// answered reports whether result is this kind's plain result.
func (k kind) answered(result map[string]json.RawMessage) bool {
	if k == elicitKind {
		return result["action"] != nil
	}
	return result["role"] != nil && result["content"] != nil
}

func (k kind) resultName() string {
	if k == elicitKind {
		return "an ElicitResult (action)"
	}
	return "a CreateMessageResult (role, content)"
}

// caps is what the client declared in initialize.
type caps struct {
	all      map[string]json.RawMessage
	tasks    protocol.TasksCapability
	hasTasks bool
}

func (c caps) declares(capability string) bool { return c.all[capability] != nil }

// taskKinds are the request types the client declares both plainly and
// under tasks.requests.
func (c caps) taskKinds() []kind {
	var out []kind
	for _, k := range kinds {
		if c.declares(k.capability) && c.tasks.Requests[k.path[0]][k.path[1]] != nil {
			out = append(out, k)
		}
	}
	return out
}

// run is one scenario's fake server and the client's connection to it.
type run struct {
	t      *clientside.T
	conn   *server.Peer // the connection that carried the client's call of the tool
	caps   caps
	finish chan struct{}
	once   sync.Once
	// obs are the task states seen, in order.
	obs []observation
}

type observation struct {
	source string // create, get, cancel, list
	task   wireTask
}

type wireTask struct {
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	CreatedAt     string          `json:"createdAt"`
	LastUpdatedAt string          `json:"lastUpdatedAt"`
	TTL           json.RawMessage `json:"ttl"`
	PollInterval  *int64          `json:"pollInterval"`
}

// open serves a fake server whose one tool stays open until the scenario
// ends, launches the client and waits for its call of the tool.
func open(t *clientside.T, tool string) *run {
	r := &run{t: t, finish: make(chan struct{})}
	// The requests go to the client on the connection of its call: a
	// dual-era client's first connection may be a server/discover probe
	// that is already over (a stateless POST).
	callers := make(chan *server.Peer, 1)
	t.Serve(clientside.Script{
		Tools: []clientside.Tool{{Name: tool, Description: "asks the client for input, as tasks, while it runs",
			Call: func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				select {
				case callers <- p:
				default:
				}
				select {
				case <-r.finish:
				case <-ctx.Done():
					return peer.NoAnswer, nil
				}
				return map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}, nil
			}}},
		Context: map[string]any{"toolCalls": []any{map[string]any{"name": tool, "arguments": map[string]any{}}}},
	})
	t.Cleanup(r.end)
	t.Step("wait for the client to call %s: the server's requests go out while the call is open", tool)
	ctx, cancel := t.Wait()
	out := t.Await(ctx, func(rs []clientside.Received) bool { return len(clientside.ToolCalls(rs, tool)) > 0 })
	cancel()
	if out != clientside.Done {
		if out == clientside.TimedOut && t.Ctx.Err() == nil {
			out = clientside.Silent
		}
		t.Missed("a tools/call of "+tool, out)
	}
	ctx, cancel = t.Wait()
	defer cancel()
	select {
	case r.conn = <-callers:
	case <-ctx.Done():
		t.Lost("the call of "+tool+" to reach its handler", "it was logged but never handled")
	}
	r.readCaps()
	return r
}

func (r *run) readCaps() {
	inits := r.t.Log().Requests(protocol.MethodInitialize)
	if len(inits) == 0 {
		return
	}
	var p protocol.InitializeParams
	_ = json.Unmarshal(inits[len(inits)-1].Msg.Params, &p)
	_ = json.Unmarshal(p.Capabilities, &r.caps.all)
	if raw := r.caps.all["tasks"]; raw != nil {
		r.caps.hasTasks = json.Unmarshal(raw, &r.caps.tasks) == nil
	}
}

// end answers the open tool call and lets the client exit by itself.
func (r *run) end() {
	r.once.Do(func() {
		close(r.finish)
		r.t.Finish()
	})
}

// ask sends a request to the client and waits for its answer (response
// timeout). A transport failure ends the scenario: the client is gone.
func (r *run) ask(method string, params map[string]any) *jsonrpc.Message {
	ctx, cancel := r.t.Wait()
	defer cancel()
	resp, err := r.conn.Request(ctx, method, params)
	if err != nil {
		r.t.Lost("an answer to "+method, fmt.Sprintf("none: %v", err))
	}
	return resp
}

// tryAsk is ask without ending the scenario: nil when no answer came.
func (r *run) tryAsk(ctx context.Context, method string, params map[string]any) (*jsonrpc.Message, error) {
	return r.conn.Request(ctx, method, params)
}

func resultObject(resp *jsonrpc.Message) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if resp != nil && resp.Error == nil {
		_ = json.Unmarshal(resp.Result, &m)
	}
	return m
}

// created reads a CreateTaskResult: the task, or false.
func created(resp *jsonrpc.Message) (wireTask, bool) {
	var task wireTask
	raw := resultObject(resp)["task"]
	if raw == nil || json.Unmarshal(raw, &task) != nil || task.TaskID == "" {
		return task, false
	}
	return task, true
}

// create sends a task-augmented request and records the created task.
func (r *run) create(k kind, n int, hold bool) (wireTask, *jsonrpc.Message, bool) {
	resp := r.ask(k.method, k.params(n, true, hold))
	task, ok := created(resp)
	if ok {
		r.obs = append(r.obs, observation{source: "create", task: task})
	}
	return task, resp, ok
}

// taskRequest sends tasks/get or tasks/cancel and records the state
// answered.
func (r *run) taskRequest(method, id string) *jsonrpc.Message {
	resp := r.ask(method, map[string]any{"taskId": id})
	var task wireTask
	if resp.Error == nil && json.Unmarshal(resp.Result, &task) == nil && task.TaskID != "" {
		r.obs = append(r.obs, observation{source: strings.TrimPrefix(method, "tasks/"), task: task})
	}
	return resp
}

// release is the ping that lets the reference client's held user answer
// (client.MetaReleaseAnswer); any client answers a ping.
func (r *run) release(id string) {
	r.t.Step("ping the client, releasing the user's answer to task %s", id)
	r.ask(protocol.MethodPing, map[string]any{"_meta": map[string]any{client.MetaReleaseAnswer: id}})
}

// statusNotified reports whether the client sent a status notification
// for id from entry mark on.
func statusNotified(id string, mark int) func([]clientside.Received) bool {
	return func(rs []clientside.Received) bool {
		for _, e := range rs[min(mark, len(rs)):] {
			if e.Msg.Method == protocol.NotificationTasksStatus && notifiedID(e.Msg) == id {
				return true
			}
		}
		return false
	}
}

func notifiedID(m *jsonrpc.Message) string {
	var p protocol.RelatedTask
	_ = json.Unmarshal(m.Params, &p)
	return p.TaskID
}

// waitTerminal polls tasks/get until the task is terminal, waiting between
// polls for the task's pollInterval or a status notification of it, within
// the response timeout. It returns the last state (ok false when none was
// terminal, or the task was not found).
func (r *run) waitTerminal(id string) (wireTask, *jsonrpc.Message, bool) {
	ctx, cancel := r.t.Wait()
	defer cancel()
	for {
		mark := len(r.t.Log().Entries())
		resp := r.taskRequest(protocol.MethodTasksGet, id)
		var task wireTask
		if resp.Error != nil || json.Unmarshal(resp.Result, &task) != nil {
			return task, resp, false
		}
		if client.IsTerminal(task.Status) {
			return task, resp, true
		}
		interval := r.t.Env.Timing.Poll
		if task.PollInterval != nil && *task.PollInterval > 0 {
			interval = time.Duration(*task.PollInterval) * time.Millisecond
		}
		wctx, wcancel := context.WithTimeout(ctx, interval)
		r.t.Await(wctx, statusNotified(id, mark))
		wcancel()
		if ctx.Err() != nil {
			return task, resp, false
		}
	}
}

func describe(resp *jsonrpc.Message) string {
	switch {
	case resp == nil:
		return "no answer"
	case resp.Error != nil:
		return fmt.Sprintf("error %d %q", resp.Error.Code, resp.Error.Message)
	}
	return "result " + abbreviate(string(resp.Result))
}

func abbreviate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func isInvalidParams(resp *jsonrpc.Message) bool {
	return resp != nil && resp.Error != nil && resp.Error.Code == codes.InvalidParams
}

// needKinds stops a scenario for a client that takes no request type as a
// task: nothing here can be judged.
func (r *run) needKinds() []kind {
	ks := r.caps.taskKinds()
	if len(ks) == 0 {
		r.t.SkipRest("the client declares no task-augmented request type (capabilities.tasks.requests.elicitation.create or sampling.createMessage, with the elicitation or sampling capability itself)")
	}
	return ks
}

// mustCreate creates a task of the first kind the client declares; a
// client that answers without a task stops the scenario (the augmentation
// scenario judges that).
func (r *run) mustCreate(k kind, n int, hold bool) wireTask {
	r.t.Step("send a task-augmented %s (ttl %d%s)", k.method, requestedTTL, map[bool]string{true: ", the user's answer held", false: ""}[hold])
	task, resp, ok := r.create(k, n, hold)
	if !ok {
		r.t.Blocked("the client answered the task-augmented %s without a task (%s); client-tasks-augmentation judges that", k.method, describe(resp))
	}
	return task
}
