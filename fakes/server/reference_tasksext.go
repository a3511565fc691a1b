package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The tasks extension (io.modelcontextprotocol/tasks, ext-tasks/tasks.md)
// in the reference server, under the 2026-07-28 rules: the extension
// declared in server/discover, the official fixture tools (greet,
// slow_compute, failing_job, protocol_error_job, confirm_delete,
// multi_input), resultType "task" for the calls it turns into tasks,
// tasks/get with the detailed task, tasks/update, tasks/cancel, -32601 for
// the removed tasks/result and tasks/list, -32021 for a client that did not
// declare the extension, and notifications/tasks over subscriptions/listen.
// Requests are stateless, so tasks live in the server, bound to the
// authorization the client presented, not to a connection.

// Pace of the reference's tasks: short, so a suite runs in seconds.
const (
	extPollInterval = 100
	extSlowPoll     = 1000 // the slow-poll liberty
	extTTL          = 300_000
	extJobTime      = 300 * time.Millisecond
)

type extTask struct {
	id, owner, tool string
	label           string // slow_compute's, which scopes the faults keyed to one scenario
	status          string
	statusMessage   string
	createdAt       time.Time
	lastUpdatedAt   time.Time
	result          map[string]any
	rpcError        map[string]any
	// outstanding is what the task waits for, by key (guarded by the
	// store's lock); answers reach the worker on input.
	outstanding map[string]map[string]any
	input       chan map[string]json.RawMessage
	stop        chan struct{}
	gets        int // tasks/get answered, for the not-yet-durable fault
	// pending holds answers, and cancelPending a cancel, acknowledged but
	// not applied yet (the liberties that apply them at the next tasks/get).
	pending       map[string]json.RawMessage
	cancelPending bool
	// expired: the forgets-read-tasks liberty ended its TTL when its
	// terminal status was read, so it may be deleted.
	expired bool
}

type extSub struct {
	// mu orders what is sent on the subscription: its first states before
	// any change.
	mu    sync.Mutex
	p     *Peer
	ctx   context.Context
	id    jsonrpc.ID
	tasks []string
}

type extStore struct {
	r     *tasksExtensionFamily
	mu    sync.Mutex
	tasks map[string]*extTask
	subs  map[*extSub]bool
	seq   atomic.Int64 // the sequential-ids fault's counter
}

// tasksExtensionFamily serves the extension. Its state is the store of its
// tasks and of the subscriptions that follow them: requests are stateless,
// so tasks outlive the connection (an HTTP POST) that made them.
type tasksExtensionFamily struct {
	familyBase
	store *extStore
}

func newTasksExtensionFamily(r *reference) family {
	f := &tasksExtensionFamily{familyBase: familyBase{r}}
	f.store = &extStore{r: f, tasks: map[string]*extTask{}, subs: map[*extSub]bool{}}
	return f
}

func (r *tasksExtensionFamily) ext() *extStore { return r.store }

func (r *tasksExtensionFamily) handlers() map[string]Handler {
	return map[string]Handler{
		protocol.MethodTasksUpdate:         r.ext().update,
		protocol.MethodSubscriptionsListen: r.ext().listen,
	}
}

func (r *tasksExtensionFamily) modern() map[string]Handler {
	return map[string]Handler{
		protocol.MethodTasksGet:    r.ext().get,
		protocol.MethodTasksCancel: r.ext().cancel,
		protocol.MethodTasksResult: r.ext().removed,
		protocol.MethodTasksList:   r.ext().removed,
	}
}

func (r *tasksExtensionFamily) capabilities(version string, caps map[string]any) {
	if !protocol.IsStateless(version) {
		return
	}
	ext, _ := caps["extensions"].(map[string]any)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[protocol.ExtensionTasks] = map[string]any{}
	caps["extensions"] = ext
	if r.is(LegacyTasksCapabilityAdvertised) {
		caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
			"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
	}
}

func (r *tasksExtensionFamily) tools() []refTool {
	return []refTool{
		{name: fixtures.TasksExtGreet, description: "Answers Hello, <name>! at once, never as a task.",
			properties: map[string]any{"name": map[string]any{"type": "string"}}, call: r.extGreet},
		{name: fixtures.TasksExtSlowCompute, description: "Works for `seconds` (default 1), as a task when the client declares the tasks extension.",
			properties: map[string]any{"seconds": map[string]any{"type": "number"}, "label": map[string]any{"type": "string"}},
			call:       r.extSlowCompute},
		{name: fixtures.TasksExtFailingJob, description: "Needs the tasks extension; the task completes with a tool error (isError).",
			call: r.extFixture(fixtures.TasksExtFailingJob)},
		{name: fixtures.TasksExtProtocolError, description: "As a task, fails with a JSON-RPC error.",
			call: r.extFixture(fixtures.TasksExtProtocolError)},
		{name: fixtures.TasksExtConfirmDelete, description: "As a task, asks for confirmation (input_required) before it deletes `filename`.",
			properties: map[string]any{"filename": map[string]any{"type": "string"}}, call: r.extFixture(fixtures.TasksExtConfirmDelete)},
		{name: fixtures.TasksExtMultiInput, description: "As a task, asks two questions at once and completes when both are answered.",
			call: r.extFixture(fixtures.TasksExtMultiInput)},
		{name: fixtures.TasksExtToolWithTask, description: "Asks the user's name (input required, key user_name), then runs as a task that greets them.",
			call: r.extToolWithTask},
	}
}

// wrap answers a subscriptions/listen that asks for task ids: another
// family may serve the method for its own filters (wrap runs after every
// family added its handlers).
func (r *tasksExtensionFamily) wrap(method string, next Handler) Handler {
	if method != protocol.MethodSubscriptionsListen {
		return next
	}
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		filter, ok := listenFilter(req)
		if !ok || !isModern(ctx) {
			return next(ctx, p, req)
		}
		if len(filter) > 1 {
			// Task ids beside other filters: the other family
			// acknowledges and holds the stream, the task updates
			// share it.
			if !r.extDeclared(req) && !r.is(ListenServesUndeclared) {
				return nil, missingExtension()
			}
			go r.ext().follow(ctx, p, req)
			return next(ctx, p, req)
		}
		return r.ext().listen(ctx, p, req)
	}
}

func (*tasksExtensionFamily) faults() fault.Set {
	return append(slices.Clone(tasksExtFaults), tasksExtIsolationFaults...)
}

func (*tasksExtensionFamily) liberties() fault.Set {
	return append(slices.Clone(tasksExtLiberties), ForeignTaskForbidden)
}

// listenFilter reads the notifications filter of a subscriptions/listen;
// ok reports whether it asks for task ids.
func listenFilter(req *jsonrpc.Message) (map[string]json.RawMessage, bool) {
	var params protocol.ListenFilterParams
	_ = json.Unmarshal(req.Params, &params)
	_, ok := params.Notifications["taskIds"]
	return params.Notifications, ok
}

// extDeclared reports whether the request declares the extension in its
// per-request capabilities (ext-tasks/tasks.md#capability-negotiation).
func (r *tasksExtensionFamily) extDeclared(req *jsonrpc.Message) bool {
	meta, _ := requestMeta(req)
	var caps protocol.DeclaredCapabilities
	_ = json.Unmarshal(meta[protocol.MetaClientCapabilities], &caps)
	if _, ok := caps.Extensions[protocol.ExtensionTasks]; ok {
		return true
	}
	return r.is(LegacyClientCapabilityHonoured) && len(caps.Tasks) > 0
}

func missingExtension() *jsonrpc.Error {
	return rpcError(codes.MissingRequiredClientCapability, "Missing required client capability",
		map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{protocol.ExtensionTasks: map[string]any{}}}})
}

func (r *tasksExtensionFamily) extGreet(ctx context.Context, _ *Peer, _ *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		Name string `json:"name"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Name == "" {
		a.Name = "world"
	}
	res := textResult(ctx, "Hello, "+a.Name+"!", false)
	if r.is(SyncResultSaysTask) && isModern(ctx) {
		res["resultType"], res["taskId"] = "task", "greet-"+a.Name
	}
	return res, nil
}

func (r *tasksExtensionFamily) extSlowCompute(ctx context.Context, p *Peer, req *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		Seconds *float64 `json:"seconds"`
		Label   string   `json:"label"`
	}
	_ = json.Unmarshal(args, &a)
	d := time.Second
	if a.Seconds != nil && *a.Seconds >= 0 {
		d = time.Duration(*a.Seconds * float64(time.Second))
	}
	text := fmt.Sprintf("Computed %s in %s.", a.Label, d)
	task := isModern(ctx) && (r.extDeclared(req) || r.is(TaskForUndeclaredClient))
	if !task || r.is(AnswersSynchronously) {
		// Without the extension the work runs inside the request
		// (ext-tasks/tasks.md: the server MUST NOT return CreateTaskResult).
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C: // the server's own pace
		case <-ctx.Done():
			return peer.NoAnswer, nil
		}
		return textResult(ctx, text, false), nil
	}
	return r.ext().create(p, fixtures.TasksExtSlowCompute, a.Label, func(s *extStore, t *extTask) {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.stop:
			return
		}
		s.finish(t, textResult(ctx, text, false), nil)
	}), nil
}

// extFixture serves the fixtures that only make sense as tasks.
func (r *tasksExtensionFamily) extFixture(name string) toolCall {
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
		if !isModern(ctx) {
			return textResult(ctx, name+" runs as a task of the 2026-07-28 tasks extension only.", true), nil
		}
		if !r.extDeclared(req) && !r.is(TaskForUndeclaredClient) {
			if name == fixtures.TasksExtProtocolError {
				return nil, rpcError(codes.InternalError, "The job hit an internal error", nil)
			}
			// These tools cannot answer without a task
			// (ext-tasks/tasks.md#capability-negotiation).
			switch {
			case r.is(RequiredTaskWrongCode):
				return nil, rpcError(codes.InvalidParams, name+" must run as a task", nil)
			case r.is(RequiredTaskNoData):
				return nil, rpcError(codes.MissingRequiredClientCapability, "Missing required client capability", nil)
			}
			return nil, missingExtension()
		}
		var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
			Filename string `json:"filename"`
		}
		_ = json.Unmarshal(args, &a)
		return r.ext().create(p, name, "", func(s *extStore, t *extTask) {
			switch name {
			case fixtures.TasksExtFailingJob:
				if !s.pause(t, extJobTime) {
					return
				}
				s.finish(t, textResult(ctx, "The job failed on purpose.", true), nil)
			case fixtures.TasksExtProtocolError:
				if !s.pause(t, extJobTime) {
					return
				}
				s.finish(t, nil, map[string]any{"code": codes.InternalError, "message": "The job hit an internal error"})
			case fixtures.TasksExtConfirmDelete:
				s.confirmDelete(ctx, t, a.Filename)
			case fixtures.TasksExtMultiInput:
				s.multiInput(ctx, t)
			}
		}), nil
	}
}

// pause works for d; false when the task was cancelled meanwhile.
func (s *extStore) pause(t *extTask, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.stop:
		return false
	}
}

func elicitForm(message, field, kind string) map[string]any {
	return map[string]any{"method": "elicitation/create", "params": map[string]any{
		"mode": "form", "message": message,
		"requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{field: map[string]any{"type": kind}}, "required": []string{field}},
	}}
}

// answerOf reads an elicitation answer: its action and content.
func answerOf(raw json.RawMessage) (string, map[string]any) {
	var a protocol.ElicitResult
	_ = json.Unmarshal(raw, &a)
	return a.Action, a.Content
}

func (s *extStore) confirmDelete(ctx context.Context, t *extTask, filename string) {
	if filename == "" {
		filename = "notes.txt"
	}
	answers := s.ask(t, map[string]map[string]any{"confirm": elicitForm("Delete "+filename+"?", "confirm", "boolean")})
	if answers == nil {
		return
	}
	action, content := answerOf(answers["confirm"])
	text := "Kept " + filename + "."
	if yes, _ := content["confirm"].(bool); action == "accept" && yes {
		text = "Deleted " + filename + "."
	}
	s.finish(t, textResult(ctx, text, false), nil)
}

func (s *extStore) multiInput(ctx context.Context, t *extTask) {
	answers := s.ask(t, map[string]map[string]any{
		"first":  elicitForm("First question: your name?", "name", "string"),
		"second": elicitForm("Second question: your colour?", "colour", "string"),
	})
	if answers == nil {
		return
	}
	_, first := answerOf(answers["first"])
	_, second := answerOf(answers["second"])
	s.finish(t, textResult(ctx, fmt.Sprintf("Thanks, %v (%v).", first["name"], second["colour"]), false), nil)
}

// ask parks the task in input_required with these requests and collects
// answers (one tasks/update may carry a part of them) until every key is
// answered; nil when the task was cancelled.
func (s *extStore) ask(t *extTask, requests map[string]map[string]any) map[string]json.RawMessage {
	s.mu.Lock()
	t.outstanding = requests
	s.mu.Unlock()
	s.setStatus(t, statusInputRequired, "Waiting for the user's answer.")
	got := map[string]json.RawMessage{}
	reused := false
	for {
		select {
		case <-t.stop:
			if !s.r.is(UpdateResurrectsCancelled) {
				return nil
			}
			// Keeps listening after the cancel, and resumes on a late answer.
			select {
			case in := <-t.input:
				for k, v := range in {
					got[k] = v
				}
				return got
			case <-time.After(time.Minute):
				return nil
			}
		case in := <-t.input:
			s.mu.Lock()
			for k, v := range in {
				got[k] = v
				delete(t.outstanding, k)
			}
			if s.r.is(InputKeyReused) && !reused && len(t.outstanding) > 0 {
				// A new question under a key already answered.
				for k := range in {
					reused = true
					t.outstanding[k] = elicitForm("Another question, same key: are you sure?", "sure", "boolean")
					delete(got, k)
					break
				}
			}
			left := len(t.outstanding)
			s.mu.Unlock()
			if left == 0 {
				s.setStatus(t, statusWorking, "Working on the answers.")
				return got
			}
			s.touch(t)
		}
	}
}

func (s *extStore) newID() string {
	if s.r.is(SequentialExtTaskIDs) {
		return fmt.Sprintf("task-%d", s.seq.Add(1))
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// create registers a task and starts its worker; it returns the
// CreateTaskResult only once tasks/get resolves the id
// (ext-tasks/tasks.md#task-creation).
func (s *extStore) create(p *Peer, tool, label string, work func(s *extStore, t *extTask)) map[string]any {
	now := time.Now()
	t := &extTask{id: s.newID(), owner: p.Authorization(), tool: tool, label: label, status: statusWorking,
		statusMessage: "The operation is now in progress.", createdAt: now, lastUpdatedAt: now,
		input: make(chan map[string]json.RawMessage, 4), stop: make(chan struct{})}
	s.mu.Lock()
	s.tasks[t.id] = t
	view := s.view(t, false)
	s.mu.Unlock()
	view["resultType"] = "task"
	if s.r.is(CreateResultTypeComplete) {
		// A task announced as a complete CallToolResult.
		view["resultType"] = "complete"
		view["content"] = []any{map[string]any{"type": "text", "text": "Task " + t.id + " created."}}
	}
	go work(s, t)
	return view
}

func (s *extStore) pollInterval() int64 {
	if s.r.is(SlowPollInterval) {
		return extSlowPoll
	}
	return extPollInterval
}

// view renders the DetailedTask; call with s.mu held.
func (s *extStore) view(t *extTask, detailed bool) map[string]any {
	v := map[string]any{
		"taskId": t.id, "status": t.status,
		"createdAt": timestamp(t.createdAt), "lastUpdatedAt": timestamp(t.lastUpdatedAt),
		"ttlMs": extTTL,
	}
	if !s.r.is(NoPollInterval) {
		v["pollIntervalMs"] = s.pollInterval()
	}
	if t.statusMessage != "" && !(t.status == statusFailed && s.r.is(FailedNoStatusMessage)) {
		v["statusMessage"] = t.statusMessage
	}
	if t.expired {
		v["ttlMs"] = max(1, time.Since(t.createdAt).Milliseconds())
	}
	s.labelFaults(t, v)
	if !detailed {
		return v
	}
	switch t.status {
	case statusInputRequired:
		reqs := map[string]any{}
		if !s.r.is(InputRequestsEmpty) {
			for k, q := range t.outstanding {
				reqs[k] = q
			}
		}
		v["inputRequests"] = reqs
	case statusCompleted:
		v["result"] = t.result
		if s.r.is(CompletedEmptyResult) && t.tool == fixtures.TasksExtSlowCompute {
			v["result"] = map[string]any{}
		}
		if s.r.is(RelatedTaskMeta) && t.label == LabelWireFields {
			// The 2025-11-25 association, on the result the task inlines.
			inlined := map[string]any{}
			for k, x := range t.result {
				inlined[k] = x
			}
			inlined["_meta"] = map[string]any{protocol.MetaRelatedTask: map[string]any{"taskId": t.id}}
			v["result"] = inlined
		}
	case statusFailed:
		v["error"] = t.rpcError
	}
	return v
}

// setStatus moves a task (a terminal status is final) and notifies its
// subscribers.
func (s *extStore) setStatus(t *extTask, status, message string) bool {
	s.mu.Lock()
	if terminal(t.status) && !(t.status == statusCancelled && s.r.is(UpdateResurrectsCancelled)) {
		s.mu.Unlock()
		return false
	}
	t.status, t.statusMessage, t.lastUpdatedAt = status, message, time.Now()
	s.mu.Unlock()
	s.notify(t)
	return true
}

// touch records a change within a status (an answer arrived).
func (s *extStore) touch(t *extTask) {
	s.mu.Lock()
	t.lastUpdatedAt = time.Now()
	s.mu.Unlock()
	s.notify(t)
}

// finish ends the task with the underlying request's result or JSON-RPC
// error: a tool result with isError still completes
// (ext-tasks/tasks.md#task-execution-errors).
func (s *extStore) finish(t *extTask, result map[string]any, rpcErr map[string]any) {
	status := statusCompleted
	message := "The operation completed."
	if rpcErr != nil {
		status, message = statusFailed, "Tool execution failed: "+fmt.Sprint(rpcErr["message"])
	}
	if isErr, _ := result["isError"].(bool); isErr && s.r.is(IsErrorFailed) {
		status, message = statusFailed, "The tool reported an error."
		rpcErr = map[string]any{"code": codes.InternalError, "message": "The tool reported an error"}
	}
	if rpcErr != nil && s.r.is(ProtocolErrorCompleted) {
		status, message = statusCompleted, "The operation completed."
		result = textResult(context.Background(), fmt.Sprint(rpcErr["message"]), true)
		rpcErr = nil
	}
	s.mu.Lock()
	if terminal(t.status) && !(t.status == statusCancelled && s.r.is(UpdateResurrectsCancelled)) {
		s.mu.Unlock()
		return
	}
	t.result, t.rpcError = result, rpcErr
	s.mu.Unlock()
	s.setStatus(t, status, message)
}

// notify sends notifications/tasks to every subscription of the task.
func (s *extStore) notify(t *extTask) {
	s.mu.Lock()
	view := s.view(t, true)
	var subs []*extSub
	for sub := range s.subs {
		if slices.Contains(sub.tasks, t.id) {
			subs = append(subs, sub)
		}
	}
	s.mu.Unlock()
	for _, sub := range subs {
		s.send(sub, view)
	}
}

func (s *extStore) send(sub *extSub, view map[string]any) {
	params := map[string]any{}
	for k, v := range view {
		params[k] = v
	}
	if !s.r.is(TaskNotificationNoSubscriptionID) {
		params["_meta"] = map[string]any{protocol.MetaSubscriptionID: json.RawMessage(sub.id)}
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	ctx := transport.WithRelatedRequest(sub.ctx, sub.id)
	_ = sub.p.Notify(ctx, protocol.NotificationTasks, params)
	if s.r.is(ProgressOnTaskStream) {
		_ = sub.p.Notify(ctx, protocol.NotificationProgress, map[string]any{
			"_meta":         map[string]any{protocol.MetaSubscriptionID: json.RawMessage(sub.id)},
			"progressToken": view["taskId"], "progress": 1, "message": "still working"})
	}
}

func taskParams(req *jsonrpc.Message) (string, map[string]json.RawMessage) {
	var p protocol.ExtTaskParams
	_ = json.Unmarshal(req.Params, &p)
	return p.TaskID, p.InputResponses
}

func taskNotFound() *jsonrpc.Error {
	return rpcError(codes.InvalidParams, "Failed to retrieve task: Task not found", nil)
}

// lookup finds a task the requester may see: tasks are bound to the
// authorization the client presented (ext-tasks/tasks.md#security-considerations).
// Call with s.mu held.
func (s *extStore) lookup(p *Peer, id string) (*extTask, bool) {
	t, ok := s.tasks[id]
	if !ok || (t.owner != p.Authorization() && !s.r.is(ForeignTaskServed)) {
		return nil, false
	}
	return t, true
}

// foreign reports a task that exists but was created under another
// Authorization (for the faults that serve or acknowledge it anyway).
// Call with s.mu held.
func (s *extStore) foreign(p *Peer, id string) (*extTask, bool) {
	t, ok := s.tasks[id]
	return t, ok && t.owner != p.Authorization()
}

// forbidden is the foreign-task-forbidden liberty's refusal of a task
// that exists under another Authorization, or nil. Call with s.mu held.
func (s *extStore) forbidden(p *Peer, id string) *jsonrpc.Error {
	if _, isForeign := s.foreign(p, id); isForeign && s.r.is(ForeignTaskForbidden) {
		return rpcError(-32001, "Forbidden: the task belongs to another authorization context", nil)
	}
	return nil
}

func (s *extStore) get(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if !s.r.extDeclared(req) && !s.r.is(TasksMethodsServeUndeclared) {
		return nil, missingExtension()
	}
	id, _ := taskParams(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.lookup(p, id)
	if !ok && s.r.is(ForeignGetServed) {
		t, ok = s.foreign(p, id)
	}
	if !ok {
		if e := s.forbidden(p, id); e != nil {
			return nil, e
		}
		if s.r.is(GetUnknownWrongCode) {
			return nil, rpcError(codes.InternalError, "no such task", nil)
		}
		return nil, taskNotFound()
	}
	t.gets++
	if s.r.is(CreatedNotDurable) && t.gets == 1 {
		return nil, taskNotFound() // created, but not yet findable
	}
	// The liberty lets the task expire as its outcome is read (this
	// answer's ttlMs says so), then deletes it.
	// Only once a whole millisecond has passed: the answer's ttlMs counts
	// whole milliseconds since createdAt, and a task deleted before the
	// ttlMs it states would be deleted early (a client judging the deletion
	// by the time it has waited since it asked would rightly see that).
	forget := terminal(t.status) && s.r.is(ForgetsReadTasks) && time.Since(t.createdAt) >= time.Millisecond
	t.expired = t.expired || forget
	view := s.view(t, true)
	view["resultType"] = "complete"
	if s.r.is(CancelledThenCompleted) && t.status == statusCancelled && t.tool == fixtures.TasksExtSlowCompute {
		// The work it was asked to stop finishes anyway, once the
		// cancelled status has been read.
		t.status, t.statusMessage, t.lastUpdatedAt = statusCompleted, "The operation completed.", time.Now()
		t.result = textResult(context.WithValue(context.Background(), modernKey{}, true), "Computed anyway.", false)
	}
	if forget || (terminal(t.status) && s.r.is(ExpiresEarly) && t.label == LabelWireFields) {
		delete(s.tasks, t.id) // not retained once its outcome was read
	}
	if t.pending != nil {
		s.deliver(t, t.pending) // applied only now, after a stale read
		t.pending = nil
	}
	if t.cancelPending {
		t.cancelPending = false
		go s.doCancel(t)
	}
	return view, nil
}

func (s *extStore) update(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if !isModern(ctx) {
		return s.r.notFound(ctx, p, req)
	}
	if !s.r.extDeclared(req) && !s.r.is(TasksMethodsServeUndeclared) {
		return nil, missingExtension()
	}
	id, responses := taskParams(req)
	s.mu.Lock()
	t, ok := s.lookup(p, id)
	if !ok {
		_, isForeign := s.foreign(p, id)
		refusal := s.forbidden(p, id)
		s.mu.Unlock()
		if refusal != nil {
			return nil, refusal
		}
		if s.r.is(UnknownTaskAcked) || (isForeign && s.r.is(ForeignUpdateAcked)) {
			return map[string]any{"resultType": "complete"}, nil
		}
		return nil, taskNotFound()
	}
	// Answers to keys that are not outstanding are ignored
	// (ext-tasks/tasks.md#task-update-requests).
	known := map[string]json.RawMessage{}
	for k, v := range responses {
		if _, out := t.outstanding[k]; out {
			known[k] = v
		} else if s.r.is(UpdateUnknownKeyRefused) {
			s.mu.Unlock()
			return nil, rpcError(codes.InvalidParams, "Unknown input request key: "+k, nil)
		}
	}
	cancelled := t.status == statusCancelled
	s.mu.Unlock()
	if len(known) > 0 && (!cancelled || s.r.is(UpdateResurrectsCancelled)) {
		s.mu.Lock()
		if s.r.is(UpdateAppliedLate) {
			if t.pending == nil {
				t.pending = map[string]json.RawMessage{}
			}
			for k, v := range known {
				t.pending[k] = v
			}
		} else {
			s.deliver(t, known)
		}
		s.mu.Unlock()
	}
	ack := map[string]any{"resultType": "complete"}
	if s.r.is(UpdateAckNotEmpty) {
		ack["taskId"], ack["status"] = t.id, statusWorking
	}
	return ack, nil
}

// deliver hands answers to the task's worker.
func (s *extStore) deliver(t *extTask, answers map[string]json.RawMessage) {
	select {
	case t.input <- answers:
	default: // the worker is gone or flooded: the answer has nowhere to go
	}
}

// doCancel moves the task to cancelled and stops its work.
func (s *extStore) doCancel(t *extTask) {
	if s.setStatus(t, statusCancelled, "The task was cancelled by request.") {
		close(t.stop)
	}
}

func (s *extStore) cancel(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if !s.r.extDeclared(req) && !s.r.is(TasksMethodsServeUndeclared) {
		return nil, missingExtension()
	}
	id, _ := taskParams(req)
	s.mu.Lock()
	t, ok := s.lookup(p, id)
	_, isForeign := s.foreign(p, id)
	refusal := s.forbidden(p, id)
	s.mu.Unlock()
	if refusal != nil && !ok {
		return nil, refusal
	}
	if !ok {
		if s.r.is(UnknownTaskAcked) || (isForeign && s.r.is(ForeignCancelAcked)) {
			return map[string]any{"resultType": "complete"}, nil
		}
		return nil, taskNotFound()
	}
	s.mu.Lock()
	finished := terminal(t.status)
	s.mu.Unlock()
	if finished && s.r.is(CancelTerminalRefused) && t.label == LabelCancelTerminal {
		return nil, rpcError(codes.InvalidParams, "Task already finished", nil)
	}
	switch {
	case s.r.is(CancelNotHonoured):
		// Acknowledged, and the work goes on: cancellation is cooperative.
	case s.r.is(CancelAppliedLate):
		s.mu.Lock()
		t.cancelPending = !terminal(t.status)
		s.mu.Unlock()
	default:
		s.doCancel(t)
	}
	ack := map[string]any{"resultType": "complete"}
	if s.r.is(CancelAckNotEmpty) {
		s.mu.Lock()
		for k, v := range s.view(t, false) {
			ack[k] = v
		}
		s.mu.Unlock()
	}
	return ack, nil
}

// removed answers tasks/result and tasks/list, which the extension removed
// (seps/2663-tasks-extension.md, backwards compatibility).
func (s *extStore) removed(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if req.Method == protocol.MethodTasksResult && s.r.is(TasksResultServed) {
		id, _ := taskParams(req)
		s.mu.Lock()
		defer s.mu.Unlock()
		t, ok := s.lookup(p, id)
		if !ok {
			return nil, taskNotFound()
		}
		if t.result != nil {
			return t.result, nil
		}
		return nil, rpcError(codes.InternalError, "Task has no result yet", nil)
	}
	if req.Method == protocol.MethodTasksList && s.r.is(TasksListServed) {
		s.mu.Lock()
		defer s.mu.Unlock()
		tasks := []any{}
		for id := range s.tasks {
			if t, ok := s.lookup(p, id); ok {
				tasks = append(tasks, s.view(t, false))
			}
		}
		return map[string]any{"resultType": "complete", "tasks": tasks}, nil
	}
	return nil, rpcError(codes.MethodNotFound, "Method not found: "+req.Method+" (removed by the tasks extension)", nil)
}

// labelFaults applies the faults keyed to one scenario's slow_compute
// label to a task's view. Call with s.mu held.
func (s *extStore) labelFaults(t *extTask, v map[string]any) {
	switch t.label {
	case LabelWireFields:
		if s.r.is(LegacyTTLKeys) {
			v["ttl"], v["pollInterval"] = v["ttlMs"], s.pollInterval()
		}
		if s.r.is(FractionalMs) {
			v["ttlMs"] = extTTL + 0.5
		}
	case LabelRequestState:
		if s.r.is(TaskRequestState) {
			v["requestState"] = "mcpconform-state-" + t.id
		}
	}
}

// extToolWithTask is test_tool_with_task: a multi round-trip request that
// asks the user's name (input_required, key user_name) and, once answered,
// hands the greeting to a task: every MRTR exchange is resolved before the
// CreateTaskResult (ext-tasks/tasks.md#task-creation). It needs the
// extension (it cannot answer without a task) and the elicitation
// capability.
func (r *tasksExtensionFamily) extToolWithTask(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	name := fixtures.TasksExtToolWithTask
	if !isModern(ctx) {
		return textResult(ctx, name+" runs as a task of the 2026-07-28 tasks extension only.", true), nil
	}
	if !r.extDeclared(req) {
		return nil, missingExtension()
	}
	q := elicitQuestion("user_name", "Please provide your name", "name", "string")
	in := &mrtrIn{caps: requestCaps(req)}
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	if r.is(MRTRTaskFirst) {
		// The question asked from inside the task instead.
		return r.ext().create(p, name, "", func(s *extStore, t *extTask) {
			answers := s.ask(t, map[string]map[string]any{q.key: elicitForm("Please provide your name", "name", "string")})
			if answers == nil {
				return
			}
			_, content := answerOf(answers[q.key])
			s.finish(t, textResult(ctx, fmt.Sprintf("Hello, %v!", content["name"]), false), nil)
		}), nil
	}
	var params struct { // the retry's answers (2026-07-28/basic/patterns/mrtr.mdx)
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = json.Unmarshal(req.Params, &params)
	raw, answered := params.InputResponses[q.key]
	if !answered {
		return inputRequired([]mrtrQuestion{q}, ""), nil
	}
	user, err := answer(q, raw)
	if err != nil {
		return nil, rpcError(codes.InvalidParams, err.Error(), nil)
	}
	if r.is(MRTRAnswerDropped) {
		user = "world"
	}
	view := r.ext().create(p, name, "", func(s *extStore, t *extTask) {
		if s.pause(t, extJobTime) {
			s.finish(t, textResult(ctx, "Hello, "+user+"!", false), nil)
		}
	})
	if r.is(MRTRStateOnTask) {
		view["requestState"] = "mcpconform-mrtr-state"
	}
	return view, nil
}

// listen serves subscriptions/listen for task ids
// (ext-tasks/tasks.md#task-status-notifications): it acknowledges the ids
// it agreed to, sends each one's current state, then every change, on the
// request's own stream, until the client cancels it. The other filters are
// not supported here, so the acknowledgement omits them.
func (s *extStore) listen(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if !isModern(ctx) {
		return s.r.notFound(ctx, p, req)
	}
	var params protocol.ListenParams
	_ = json.Unmarshal(req.Params, &params)
	if params.Notifications.TaskIDs != nil && !s.r.extDeclared(req) && !s.r.is(ListenServesUndeclared) {
		return nil, missingExtension()
	}
	sub := s.subscribe(ctx, p, req, params.Notifications.TaskIDs)
	related := transport.WithRelatedRequest(ctx, req.ID)
	agreed := map[string]any{}
	if params.Notifications.TaskIDs != nil {
		agreed["taskIds"] = append([]string{}, sub.tasks...)
	}
	_ = p.Notify(related, protocol.NotificationSubscriptionsAcknowledged, map[string]any{
		"_meta":         map[string]any{protocol.MetaSubscriptionID: json.RawMessage(req.ID)},
		"notifications": agreed,
	})
	s.start(sub)
	<-ctx.Done() // the client cancelled, or the connection ended
	s.unsubscribe(sub)
	return peer.NoAnswer, nil
}

// follow sends task updates on a listen stream another family holds.
func (s *extStore) follow(ctx context.Context, p *Peer, req *jsonrpc.Message) {
	var params protocol.ListenParams
	_ = json.Unmarshal(req.Params, &params)
	sub := s.subscribe(ctx, p, req, params.Notifications.TaskIDs)
	s.start(sub)
	<-ctx.Done()
	s.unsubscribe(sub)
}

// subscribe makes a subscription of the task ids the requester may see.
func (s *extStore) subscribe(ctx context.Context, p *Peer, req *jsonrpc.Message, ids []string) *extSub {
	sub := &extSub{p: p, ctx: ctx, id: req.ID}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if _, ok := s.lookup(p, id); ok && !s.r.is(NoTaskNotifications) {
			sub.tasks = append(sub.tasks, id)
		}
	}
	return sub
}

func (s *extStore) unsubscribe(sub *extSub) {
	s.mu.Lock()
	delete(s.subs, sub)
	s.mu.Unlock()
}

// start registers the subscription and sends each task's current state
// before any change.
func (s *extStore) start(sub *extSub) {
	s.mu.Lock()
	s.subs[sub] = true
	var views []map[string]any
	for _, id := range sub.tasks {
		if t, ok := s.tasks[id]; ok {
			views = append(views, s.view(t, true))
		}
	}
	first := &extSub{p: sub.p, ctx: sub.ctx, id: sub.id}
	sub.mu.Lock() // a change notified meanwhile waits for these first states
	s.mu.Unlock()
	for _, v := range views {
		s.send(first, v)
	}
	sub.mu.Unlock()
}
