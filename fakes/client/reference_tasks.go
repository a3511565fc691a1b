package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The reference client's task receiver (2025-11-25/basic/utilities/tasks.mdx,
// the client as receiver): at 2025-11-25 it declares task-augmented
// elicitation/create and sampling/createMessage, tasks/list and tasks/cancel.
// A task-augmented request gets a CreateTaskResult at once (status working)
// and the question is answered in the background by the same "user" and
// "model" as a plain request (reference_answers.go); tasks/get, tasks/result
// (blocking until terminal, with related-task _meta), tasks/list (pages of
// taskPageSize behind opaque cursors) and tasks/cancel serve them, and every
// transition is announced with notifications/tasks/status.
//
// Limits (tasks.mdx, Resource Management, asks receivers to document them):
// a task is kept for the ttl asked for, at most maxTTL (an hour, also when
// none is asked for), then deleted; the number of tasks is not limited, the
// process lives for one scenario. Tasks belong to the one connection the
// process opens, and their ids are 128 random bits.
//
// Scenario-controlled timing. A judge of cancellation needs a user whose
// answer is still pending when the cancel arrives, and must know when that
// late answer has landed. The reference client is mcpconform's own, so the
// request says so: a task-augmented request whose _meta carries
// MetaHoldAnswer: true is answered by the user only when the server sends a
// ping whose _meta names the task under MetaReleaseAnswer; that ping is
// answered once the answer has been applied to the task (or ignored, for a
// cancelled one). Any other client answers the ping at once and its user
// answers when it does; the scenarios judge what they can see either way.
const (
	MetaHoldAnswer    = "dev.mcpconform/hold-answer"
	MetaReleaseAnswer = "dev.mcpconform/release-answer"
)

// Receiver settings. The page size is small on purpose, so that a handful
// of tasks exercises paging (the vendor's default is 100, seeds/003).
const (
	taskPageSize     = 2
	taskPollInterval = 200     // ms, suggested to the requestor
	maxTTL           = 3600000 // ms: the longest retention granted, and the one when none is asked for
	ownTTL           = 30000   // ms, TaskOwnTTL
	ownPollInterval  = 20      // ms, TaskOwnTTL
)

// capacityLimit is how many live tasks the capacity variants hold.
const capacityLimit = 16

// full reports whether capacityLimit tasks are live.
func (r *taskReceiver) full() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	live := 0
	for _, t := range r.tasks {
		if !terminalStatus(t.status) {
			live++
		}
	}
	return live >= capacityLimit
}

// clientTaskMethods are the request types the receiver takes as tasks, by
// their capability path under tasks.requests.
var clientTaskMethods = map[string][2]string{
	protocol.MethodElicitationCreate:     {"elicitation", "create"},
	protocol.MethodSamplingCreateMessage: {"sampling", "createMessage"},
}

type taskReceiver struct {
	rc *referenceRun

	mu      sync.Mutex
	tasks   map[string]*clientTask
	order   []string         // task ids by creation
	cursors map[string]int   // opaque cursor → offset into order
	holds   map[string]*hold // by task id; outlives a deleted task
}

type clientTask struct {
	id            string
	status        string
	statusMessage string
	createdAt     time.Time
	lastUpdatedAt time.Time
	ttl           *int64
	pollInterval  int64
	result        map[string]any
	rpcErr        *jsonrpc.Error
	done          chan struct{} // closed once terminal (and notified)
	fetched       bool          // tasks/result returned it (TaskReopens)
	unixStamps    bool          // TaskUnixTimestamps
}

// hold is a question the user answers only when released.
type hold struct {
	release chan struct{}
	applied chan struct{} // closed once the answer has been applied or ignored
	once    sync.Once
}

func newTaskReceiver(rc *referenceRun) *taskReceiver {
	return &taskReceiver{rc: rc, tasks: map[string]*clientTask{}, cursors: map[string]int{}, holds: map[string]*hold{}}
}

// capability is the tasks capability the receiver declares.
func (r *taskReceiver) capability() map[string]any {
	requests := map[string]any{}
	for _, path := range clientTaskMethods {
		requests[path[0]] = map[string]any{path[1]: map[string]any{}}
	}
	return map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": requests}
}

// taskParam reads the task param of a request: present, and its ttl.
func taskParam(params json.RawMessage) (bool, *int64) {
	var p protocol.TaskAugmentedParams
	if json.Unmarshal(params, &p) != nil || p.Task == nil {
		return false, nil
	}
	return true, p.Task.TTL
}

func heldByServer(params json.RawMessage) bool {
	var p protocol.Meta
	_ = json.Unmarshal(params, &p)
	var b bool
	return json.Unmarshal(p.Meta[MetaHoldAnswer], &b) == nil && b
}

func newTaskID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // unguessable: the receiver binds tasks to nothing but the connection
	return hex.EncodeToString(b)
}

// stamp writes a timestamp as RFC 3339, the ISO 8601 profile tasks.mdx
// links to.
func (t *clientTask) stamp(at time.Time) string {
	if t.unixStamps {
		return strconv.FormatInt(at.UnixMilli(), 10)
	}
	return at.UTC().Format(time.RFC3339Nano)
}

// wire is the Task as sent (caller holds r.mu).
func (t *clientTask) wire() map[string]any {
	m := map[string]any{
		"taskId":        t.id,
		"status":        t.status,
		"createdAt":     t.stamp(t.createdAt),
		"lastUpdatedAt": t.stamp(t.lastUpdatedAt),
		"ttl":           nil,
		"pollInterval":  t.pollInterval,
	}
	if t.ttl != nil {
		m["ttl"] = *t.ttl
	}
	if t.statusMessage != "" {
		m["statusMessage"] = t.statusMessage
	}
	return m
}

func terminalStatus(s string) bool { return protocol.TaskStatus(s).Terminal() }

// create accepts a task-augmented request: the CreateTaskResult goes out
// at once, the question is answered in the background.
// ctx is the request handler's: it ends once the CreateTaskResult has been
// written, and only then does the work start, so that no status
// notification overtakes the task's creation.
func (r *taskReceiver) create(ctx context.Context, req *jsonrpc.Message, ttl *int64) map[string]any {
	// The requested ttl within the receiver's maximum (tasks.mdx: receivers
	// SHOULD "Enforce maximum ttl durations").
	granted := int64(maxTTL)
	if ttl != nil && *ttl >= 0 && *ttl < granted {
		granted = *ttl
	}
	ttl = &granted
	now := time.Now()
	t := &clientTask{id: newTaskID(), status: "working", createdAt: now, lastUpdatedAt: now, ttl: ttl,
		pollInterval: taskPollInterval, done: make(chan struct{}), unixStamps: r.rc.is(TaskUnixTimestamps)}
	if r.rc.is(TaskStartsInputRequired) {
		t.status, t.statusMessage = "input_required", "Waiting for the user."
	}
	if r.rc.is(TaskOwnTTL) {
		own := int64(ownTTL)
		t.ttl, t.pollInterval = &own, ownPollInterval
	}
	var h *hold
	if heldByServer(req.Params) {
		h = &hold{release: make(chan struct{}), applied: make(chan struct{})}
	}
	r.mu.Lock()
	r.tasks[t.id] = t
	r.order = append(r.order, t.id)
	if h != nil {
		r.holds[t.id] = h
	}
	created := t.wire()
	r.mu.Unlock()
	r.rc.logf("the server asks %s as a task; task %s created", req.Method, t.id)
	go func() {
		<-ctx.Done()
		r.work(t, req.Method, req.Params, h)
	}()
	return map[string]any{"task": created}
}

// work is the user (or model) answering in the background; a held question
// waits for its release or the end of the connection.
func (r *taskReceiver) work(t *clientTask, method string, params json.RawMessage, h *hold) {
	if h != nil {
		select {
		case <-h.release:
		case <-r.rc.session.Done():
			return
		}
		defer close(h.applied)
	}
	result, rpcErr := r.rc.answer(method, params)
	status := "completed"
	if rpcErr != nil {
		status = "failed"
	}
	r.finish(t, status, result, rpcErr)
}

// finish records the answer: a task already terminal (cancelled) keeps
// its status, unless the fault resurrects it.
func (r *taskReceiver) finish(t *clientTask, status string, result map[string]any, rpcErr *jsonrpc.Error) {
	r.mu.Lock()
	if terminalStatus(t.status) && !(r.rc.is(TaskResurrects) && t.status == "cancelled") {
		r.mu.Unlock()
		r.rc.logf("task %s: the answer came after it was %s; ignored", t.id, t.status)
		return
	}
	t.result, t.rpcErr = result, rpcErr
	r.setLocked(t, status, "")
	note := t.wire()
	r.mu.Unlock()
	r.notify(note)
	// tasks/result is released only now, so that the requestor has the
	// notification before the result.
	r.settled(t)
	if r.rc.is(TaskNotifiesAfterTerminal) {
		note["status"] = "working"
		r.notify(note)
	}
}

// settled releases the waiters of tasks/result once t is terminal.
func (r *taskReceiver) settled(t *clientTask) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !terminalStatus(t.status) {
		return
	}
	select {
	case <-t.done:
	default:
		close(t.done)
	}
}

// setLocked moves t to status (caller holds r.mu).
func (r *taskReceiver) setLocked(t *clientTask, status, message string) {
	t.status, t.statusMessage = status, message
	if now := time.Now(); now.After(t.lastUpdatedAt) {
		t.lastUpdatedAt = now
	}
}

func (r *taskReceiver) notify(task map[string]any) {
	if r.rc.is(TaskNoNotifications) {
		return
	}
	if r.rc.is(TaskNotifiesRelatedTask) {
		task = maps.Clone(task)
		task["_meta"] = map[string]any{protocol.MetaRelatedTask: map[string]any{"taskId": task["taskId"]}}
	}
	ctx, cancel := r.rc.step(context.Background())
	defer cancel()
	if err := r.rc.session.Notify(ctx, protocol.NotificationTasksStatus, task); err != nil {
		r.rc.logf("notifications/tasks/status: %v", err)
	}
}

// lookup finds a live task; one whose ttl has elapsed is deleted first
// (tasks.mdx: "After a task's ttl lifetime has elapsed, receivers MAY
// delete the task and its results").
func (r *taskReceiver) lookup(params json.RawMessage) (*clientTask, *jsonrpc.Error) {
	var p protocol.RelatedTask
	_ = json.Unmarshal(params, &p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expireLocked()
	if t, ok := r.tasks[p.TaskID]; ok {
		return t, nil
	}
	code := codes.InvalidParams
	if r.rc.is(TaskUnknownIDCode) {
		code = codes.InternalError
	}
	return nil, &jsonrpc.Error{Code: code, Message: "Task not found: " + p.TaskID}
}

func (r *taskReceiver) expireLocked() {
	now := time.Now()
	for id, t := range r.tasks {
		if t.ttl != nil && now.Sub(t.createdAt) > time.Duration(*t.ttl)*time.Millisecond {
			r.deleteLocked(id)
		}
	}
}

func (r *taskReceiver) deleteLocked(id string) {
	delete(r.tasks, id)
	for i, o := range r.order {
		if o == id {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
}

func (r *taskReceiver) get(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	t, rpcErr := r.lookup(req.Params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	task := t.wire()
	if r.rc.is(TaskGetNoTTL) {
		delete(task, "ttl")
	}
	return task, nil
}

// result blocks until the task is terminal, then returns what the request
// would have returned, with the related-task _meta.
func (r *taskReceiver) result(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	t, rpcErr := r.lookup(req.Params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	r.mu.Lock()
	early, hang := r.rc.is(TaskResultEarly) && !terminalStatus(t.status), r.rc.is(TaskResultHangsAfterCancel) && t.status == "cancelled"
	snapshot := t.wire()
	r.mu.Unlock()
	switch {
	case early:
		return snapshot, nil
	case hang:
		<-ctx.Done()
		return peer.NoAnswer, nil
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return peer.NoAnswer, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.status == "cancelled" && t.result == nil {
		return nil, &jsonrpc.Error{Code: codes.InternalError, Message: "The task was cancelled before it was answered."}
	}
	if t.rpcErr != nil {
		return nil, t.rpcErr
	}
	out := maps.Clone(t.result)
	if !r.rc.is(TaskResultNoRelatedTask) {
		out["_meta"] = map[string]any{protocol.MetaRelatedTask: map[string]any{"taskId": t.id}}
	}
	if r.rc.is(TaskReopens) && !t.fetched {
		// Silently, after this answer: only a later tasks/get shows it.
		t.fetched = true
		t.status = "working"
	}
	return out, nil
}

func (r *taskReceiver) cancel(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	t, rpcErr := r.lookup(req.Params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	r.mu.Lock()
	if terminalStatus(t.status) && !r.rc.is(TaskCancelsTerminal) {
		status := t.status
		r.mu.Unlock()
		return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "Cannot cancel task: already in terminal status '" + status + "'"}
	}
	before := t.wire()
	moved := !terminalStatus(t.status)
	if moved {
		r.setLocked(t, "cancelled", "The task was cancelled by request.")
	}
	after := t.wire()
	if r.rc.is(TaskDeletesCancelled) {
		r.deleteLocked(t.id)
	}
	r.mu.Unlock()
	if moved {
		r.notify(after)
		r.settled(t)
	}
	if r.rc.is(TaskCancelLate) {
		return before, nil
	}
	return after, nil
}

func (r *taskReceiver) list(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var p protocol.PageParams
	_ = json.Unmarshal(req.Params, &p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expireLocked()
	offset := 0
	if p.Cursor != nil {
		o, ok := r.cursors[*p.Cursor]
		switch {
		case ok && r.rc.is(TaskListIgnoresCursor):
			// A cursor it knows, whose position it forgets.
		case ok:
			offset = min(o, len(r.order))
		case !r.rc.is(TaskListBadCursor):
			return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "Invalid cursor"}
		}
	}
	end := min(offset+taskPageSize, len(r.order))
	tasks := make([]any, 0, end-offset)
	for _, id := range r.order[offset:end] {
		tasks = append(tasks, r.tasks[id].wire())
	}
	out := map[string]any{"tasks": tasks}
	if end < len(r.order) && !r.rc.is(TaskListNoCursor) {
		cursor := newTaskID()
		r.cursors[cursor] = end
		out["nextCursor"] = cursor
	}
	return out, nil
}

// release is the server's ping naming a held task: the user answers it,
// and the ping is answered once the answer has been applied.
func (r *taskReceiver) release(ctx context.Context, params json.RawMessage) {
	var p protocol.Meta
	_ = json.Unmarshal(params, &p)
	var id string
	if json.Unmarshal(p.Meta[MetaReleaseAnswer], &id) != nil {
		return
	}
	r.mu.Lock()
	h := r.holds[id]
	r.mu.Unlock()
	if h == nil {
		return
	}
	h.once.Do(func() { close(h.release) })
	select {
	case <-h.applied:
	case <-ctx.Done():
	}
}

// handlers are the receiver's request handlers, added to the client's.
func (r *taskReceiver) handlers() map[string]RequestHandler {
	return map[string]RequestHandler{
		protocol.MethodTasksGet:    r.get,
		protocol.MethodTasksResult: r.result,
		protocol.MethodTasksList:   r.list,
		protocol.MethodTasksCancel: r.cancel,
	}
}
