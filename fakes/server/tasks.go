package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Tasks v1 (2025-11-25/basic/utilities/tasks.mdx) in the reference server:
// task-augmented tools/call, tasks/get|result|list|cancel, status
// notifications to the owning session only, related-task _meta, blocking
// tasks/result, paginated listing and ttl expiry.

// Task statuses, as the reference keeps them (strings on the wire): the
// protocol's.
const (
	statusWorking       = string(protocol.TaskWorking)
	statusInputRequired = string(protocol.TaskInputRequired)
	statusCompleted     = string(protocol.TaskCompleted)
	statusFailed        = string(protocol.TaskFailed)
	statusCancelled     = string(protocol.TaskCancelled)
)

func terminal(status string) bool { return protocol.TaskStatus(status).Terminal() }

// Reference limits.
const (
	defaultTaskTTL   = 60_000
	maxTaskTTL       = 3_600_000
	taskPollInterval = 100
	taskPageSize     = 2
	// shortTaskTTL is the short-ttl liberty's ttl: longer than any fixture
	// runs, short enough for tasks/list to outlive a task.
	shortTaskTTL = 2_000
	// foreignTaskCode is the server-defined code the foreign-task-other-code
	// liberty rejects another session's task with.
	foreignTaskCode = -32001
)

type task struct {
	id            string
	owner         string // the session (peer) and authorization it is bound to
	peer          *Peer
	status        string
	statusMessage string
	createdAt     time.Time
	lastUpdatedAt time.Time
	ttl           int64

	result   json.RawMessage // the underlying request's result, once terminal
	rpcError *jsonrpc.Error  // or its error
	done     chan struct{}   // closed once terminal
	stop     chan struct{}   // closed on cancel: cooperative cancellation
	// worker is closed when the worker goroutine has finished; faults that
	// act after a cancel make tasks/result wait for it.
	worker  chan struct{}
	tool    string
	flipped bool // illegal-transition fault: completed read once, then failed
	// resultCalls carries the ids of tasks/result requests in progress, for
	// a server that sends task requests only on such a stream.
	resultCalls chan jsonrpc.ID
}

type taskStore struct {
	r       *reference
	mu      sync.Mutex
	tasks   map[string]*task
	order   []string
	seq     int
	cursors map[string]int // opaque cursor → offset
	peers   map[*Peer]bool
}

func newTaskStore(r *reference) *taskStore {
	return &taskStore{r: r, tasks: map[string]*task{}, cursors: map[string]int{}, peers: map[*Peer]bool{}}
}

// ownerOf binds tasks to the session and, where one is given, to the
// authorization context (tasks.mdx#task-isolation-and-access-control).
func ownerOf(p *Peer) string { return p.ID + "|" + p.Authorization() }

func (s *taskStore) newID() string {
	if s.r.is(SequentialTaskIds) {
		s.seq++
		return strconv.Itoa(s.seq)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *taskStore) addPeer(p *Peer) {
	s.mu.Lock()
	s.peers[p] = true
	s.mu.Unlock()
}

func (s *taskStore) removePeer(p *Peer) {
	s.mu.Lock()
	delete(s.peers, p)
	s.mu.Unlock()
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// now is the instant a task records: to the millisecond or the second
// where a liberty keeps coarser timestamps.
func (s *taskStore) now() time.Time {
	switch {
	case s.r.is(TimestampPrecision):
		return time.Now().Truncate(time.Millisecond)
	case s.r.is(SecondTimestamps):
		return time.Now().Truncate(time.Second)
	}
	return time.Now()
}

// respell writes a view's timestamps with six fraction digits, where the
// timestamp-precision liberty spells them differently (the CreateTaskResult
// and notifications) from tasks/get, tasks/list and tasks/cancel (three).
func (s *taskStore) respell(view map[string]any, t *task) {
	if !s.r.is(TimestampPrecision) {
		return
	}
	const long = "2006-01-02T15:04:05.000000Z07:00"
	view["createdAt"] = t.createdAt.UTC().Format(long)
	view["lastUpdatedAt"] = t.lastUpdatedAt.UTC().Format(long)
}

func (s *taskStore) pollInterval() int64 {
	if s.r.is(SlowPollNoNotifications) {
		return 5000 // the spec's own example
	}
	return taskPollInterval
}

// view renders a task as the Task type; call with s.mu held.
func (s *taskStore) view(t *task) map[string]any {
	created := t.createdAt
	if s.r.is(CreatedAtDrifts) {
		created = time.Now()
	}
	v := map[string]any{
		"taskId":        t.id,
		"status":        t.status,
		"createdAt":     timestamp(created),
		"lastUpdatedAt": timestamp(t.lastUpdatedAt),
		"ttl":           t.ttl,
		"pollInterval":  s.pollInterval(),
	}
	if s.r.is(TimestampPrecision) {
		const short = "2006-01-02T15:04:05.000Z07:00"
		v["createdAt"] = t.createdAt.UTC().Format(short)
		v["lastUpdatedAt"] = t.lastUpdatedAt.UTC().Format(short)
	}
	if t.statusMessage != "" {
		v["statusMessage"] = t.statusMessage
	}
	return v
}

// lookup finds a task the requester may see; expired tasks are purged.
func (s *taskStore) lookup(p *Peer, id string) (*task, bool) {
	t, ok := s.tasks[id]
	if !ok {
		return nil, false
	}
	if time.Since(t.createdAt) > time.Duration(t.ttl)*time.Millisecond {
		delete(s.tasks, id)
		return nil, false
	}
	if t.owner != ownerOf(p) && !s.r.is(SequentialTaskIds) {
		return t, false
	}
	return t, true
}

// setStatus moves a task and tells its owner; call without s.mu held.
func (s *taskStore) setStatus(t *task, status, message string) bool {
	s.mu.Lock()
	if terminal(t.status) && !(s.r.is(ResurrectOnLateAnswer) && t.status == statusCancelled) {
		s.mu.Unlock()
		return false
	}
	t.status = status
	t.statusMessage = message
	t.lastUpdatedAt = s.now()
	view := s.view(t)
	s.respell(view, t)
	targets := []*Peer{t.peer}
	if s.r.is(StatusToWrongSession) {
		targets = targets[:0]
		for p := range s.peers {
			targets = append(targets, p)
		}
	}
	s.mu.Unlock()
	// Notify before releasing tasks/result waiters, so a client that sees
	// the result has been sent the notification already.
	s.notify(view, targets, t)
	if terminal(status) {
		s.mu.Lock()
		select {
		case <-t.done:
		default:
			close(t.done)
		}
		s.mu.Unlock()
	}
	return true
}

func (s *taskStore) notify(view map[string]any, targets []*Peer, t *task) {
	if s.r.is(SlowPollNoNotifications) {
		return // notifications are optional: this receiver only answers polls
	}
	params := map[string]any{}
	for k, v := range view {
		params[k] = v
	}
	if s.r.is(NotificationMissingFields) {
		delete(params, "createdAt")
	}
	if s.r.is(NotificationRelatedMeta) {
		params["_meta"] = relatedTask(t.id)
	}
	if s.r.is(NotificationWrongStatus) && params["status"] == statusCompleted {
		params["status"] = statusFailed
	}
	if s.r.is(StatusNotificationNoTTL) && params["status"] == statusCancelled {
		delete(params, "ttl")
	}
	for _, p := range targets {
		_ = p.Notify(context.Background(), protocol.NotificationTasksStatus, params)
	}
	if s.r.is(RepeatsTerminalNotification) && terminal(view["status"].(string)) {
		_ = t.peer.Notify(context.Background(), protocol.NotificationTasksStatus, params)
	}
	if s.r.is(NotifiesWorkingAfterTerminal) && terminal(view["status"].(string)) {
		after := map[string]any{}
		for k, v := range params {
			after[k] = v
		}
		after["status"] = statusWorking
		after["lastUpdatedAt"] = timestamp(time.Now())
		delete(after, "statusMessage")
		_ = t.peer.Notify(context.Background(), protocol.NotificationTasksStatus, after)
	}
}

func relatedTask(id string) map[string]any {
	return map[string]any{protocol.MetaRelatedTask: map[string]any{"taskId": id}}
}

// finish stores the underlying request's outcome and moves to a terminal status.
func (s *taskStore) finish(t *task, result map[string]any, rpcErr *jsonrpc.Error) {
	status := statusCompleted
	if rpcErr != nil {
		status = statusFailed
	} else if isErr, _ := result["isError"].(bool); isErr && !s.r.is(IserrorCompleted) {
		// tasks.mdx#task-status: a tool result with isError is a failed task.
		status = statusFailed
	}
	s.mu.Lock()
	if terminal(t.status) && !(s.r.is(ResurrectOnLateAnswer) && t.status == statusCancelled) {
		s.mu.Unlock()
		return // cancelled stays cancelled (tasks.mdx#task-cancellation)
	}
	if result != nil {
		t.result, _ = json.Marshal(result)
	}
	t.rpcError = rpcErr
	s.mu.Unlock()
	s.setStatus(t, status, "")
}

// createTask registers a task for a task-augmented tools/call and starts
// its worker. It returns the CreateTaskResult.
func (s *taskStore) createTask(p *Peer, tool string, requestedTTL *int64, work func(t *task)) map[string]any {
	ttl := int64(defaultTaskTTL)
	if requestedTTL != nil && *requestedTTL > 0 {
		ttl = min(*requestedTTL, maxTaskTTL)
	}
	if s.r.is(ShortTTL) {
		ttl = shortTaskTTL // receivers MAY override the requested ttl
	}
	now := s.now()
	s.mu.Lock()
	t := &task{
		owner: ownerOf(p), peer: p, status: statusWorking, tool: tool,
		createdAt: now, lastUpdatedAt: now, ttl: ttl,
		done: make(chan struct{}), stop: make(chan struct{}), worker: make(chan struct{}),
		resultCalls: make(chan jsonrpc.ID, 8),
	}
	t.id = s.newID()
	s.tasks[t.id] = t
	s.order = append(s.order, t.id)
	view := s.view(t)
	s.respell(view, t)
	s.mu.Unlock()
	if s.r.is(CreateNotWorking) {
		view["status"] = statusInputRequired
	}
	go func() {
		defer close(t.worker)
		if s.r.is(CancelsOwnTasks) {
			s.doCancel(t) // nobody asked
		}
		select {
		case <-t.stop:
			return // cancelled before it started: nothing to stop
		default:
		}
		work(t)
	}()
	return map[string]any{"task": view}
}

func taskIDParam(req *jsonrpc.Message) string {
	var params protocol.RelatedTask
	_ = json.Unmarshal(req.Params, &params)
	return params.TaskID
}

// notFound rejects an id the requester may not see: t is the task when it
// exists but belongs to another session or authorization context.
func (s *taskStore) notFound(t *task, id string) *jsonrpc.Error {
	foreign := t != nil
	switch {
	case foreign && s.r.is(DistinctForeignError):
		return rpcError(codes.InvalidParams, "Task belongs to another session", nil)
	case foreign && s.r.is(ForeignTaskOtherCode):
		return rpcError(foreignTaskCode, "Failed to retrieve task: Task not found", nil)
	case foreign && s.r.is(InformativeTaskErrors):
		return rpcError(codes.InvalidParams, fmt.Sprintf("Task %s belongs to another session", id), nil)
	case s.r.is(InformativeTaskErrors):
		return rpcError(codes.InvalidParams, fmt.Sprintf("Task %s not found: it never existed here, expired or was deleted", id), nil)
	}
	return rpcError(codes.InvalidParams, "Failed to retrieve task: Task not found", nil)
}

func (s *taskStore) get(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := taskIDParam(req)
	t, ok := s.lookup(p, id)
	if !ok && !(t != nil && s.r.is(LeakGetForeign)) {
		return nil, s.notFound(t, id)
	}
	view := s.view(t)
	if s.r.is(IllegalTransition) && t.status == statusCompleted && !t.flipped {
		// Reads completed once, then failed: a terminal status that changes.
		t.flipped = true
		t.status = statusFailed
	}
	if s.r.is(TtlMissing) {
		delete(view, "ttl")
	}
	return view, nil
}

func (s *taskStore) result(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	id := taskIDParam(req)
	s.mu.Lock()
	t, ok := s.lookup(p, id)
	working := ok && !terminal(t.status)
	s.mu.Unlock()
	if !ok && !(t != nil && s.r.is(LeakResultForeign)) {
		return nil, s.notFound(t, id)
	}
	if s.r.is(ResultErrorWhileWorking) && working && t.tool == fixtures.TaskWorking {
		return nil, rpcError(codes.InternalError, "Task is still working: try again later", nil)
	}
	if s.r.is(ResultReturnsEarly) && t.tool == fixtures.TaskWorking {
		// Answers at once with the result the task will have: not blocking.
		res := textResult(ctx, t.tool+" finished.", false)
		res["_meta"] = relatedTask(t.id)
		return res, nil
	}
	if s.r.hold {
		select { // offer this stream to a worker holding a request
		case t.resultCalls <- req.ID:
		default:
		}
	}
	// tasks.mdx#result-retrieval: block until terminal.
	select {
	case <-t.done:
	case <-ctx.Done():
		return peer.NoAnswer, nil
	}
	s.mu.Lock()
	status := t.status
	s.mu.Unlock()
	if status == statusCancelled {
		if s.r.is(ResultHangsAfterCancel) {
			<-ctx.Done()
			return peer.NoAnswer, nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.rpcError != nil {
		return nil, t.rpcError
	}
	if t.status == statusFailed && s.r.is(FailingResultSwallowed) {
		return nil, rpcError(codes.InternalError, "Task failed", nil)
	}
	if t.result == nil {
		return nil, rpcError(codes.InternalError, "Task was cancelled before it produced a result", nil)
	}
	var result map[string]any
	_ = json.Unmarshal(t.result, &result)
	if s.r.is(ResultWrapped) && t.status == statusCompleted {
		return map[string]any{"task": s.view(t), "result": result, "_meta": relatedTask(t.id)}, nil
	}
	if !s.r.is(ResultNoRelatedTask) {
		meta, _ := result["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[protocol.MetaRelatedTask] = map[string]any{"taskId": t.id}
		result["_meta"] = meta
	}
	return result, nil
}

func (s *taskStore) list(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.PageParams
	_ = json.Unmarshal(req.Params, &params)
	s.mu.Lock()
	defer s.mu.Unlock()
	offset := 0
	if params.Cursor != nil {
		o, ok := s.cursors[*params.Cursor]
		if !ok && !s.r.is(BadCursorAccepted) {
			return nil, rpcError(codes.InvalidParams, "Invalid cursor", nil)
		}
		offset = o
	}
	var visible []*task
	for _, id := range s.order {
		t, ok := s.lookup(p, id)
		if ok || (t != nil && s.r.is(ListLeaksForeign)) {
			visible = append(visible, t)
		}
	}
	sort.SliceStable(visible, func(i, j int) bool { return visible[i].createdAt.Before(visible[j].createdAt) })
	end := min(offset+taskPageSize, len(visible))
	page := []any{}
	for _, t := range visible[min(offset, len(visible)):end] {
		page = append(page, s.view(t))
	}
	result := map[string]any{"tasks": page}
	if end < len(visible) || s.r.is(TaskListNeverEnds) {
		next := end
		if s.r.is(ListCursorSkips) {
			next++
		}
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		cursor := base64.RawURLEncoding.EncodeToString(b)
		s.cursors[cursor] = next
		result["nextCursor"] = cursor
	}
	return result, nil
}

func (s *taskStore) cancel(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	id := taskIDParam(req)
	s.mu.Lock()
	t, ok := s.lookup(p, id)
	if !ok {
		foreign := t != nil
		if !foreign && s.r.is(UnknownIdWrongCode) {
			s.mu.Unlock()
			return nil, rpcError(codes.InternalError, "no such task", nil)
		}
		if foreign && s.r.is(LeakCancelForeign) {
			view := s.view(t) // answers as if cancelled, without cancelling
			view["status"] = statusCancelled
			s.mu.Unlock()
			return view, nil
		}
		if foreign && s.r.is(ForeignCancelTakesEffect) {
			s.mu.Unlock()
			s.doCancel(t)
			return nil, s.notFound(nil, id)
		}
		s.mu.Unlock()
		return nil, s.notFound(t, id)
	}
	if terminal(t.status) {
		accept := (t.status == statusCancelled && s.r.is(RecancelAccepted)) ||
			(t.status != statusCancelled && s.r.is(CancelTerminalAccepted))
		view := s.view(t)
		s.mu.Unlock()
		if accept {
			return view, nil
		}
		if s.r.is(InformativeTaskErrors) {
			return nil, rpcError(codes.InvalidParams, fmt.Sprintf("Cannot cancel task %s: it already ended as %s", t.id, t.status), nil)
		}
		return nil, rpcError(codes.InvalidParams, fmt.Sprintf("Cannot cancel task: already in terminal status '%s'", t.status), nil)
	}
	before := s.view(t)
	s.mu.Unlock()
	s.doCancel(t)
	if s.r.is(CancelResponseStale) {
		return before, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	view := s.view(t) // cancelled before the response (tasks.mdx#task-cancellation)
	if s.r.is(DeletesCancelledTasks) {
		s.delete(t.id) // at once, as the page allows
	}
	return view, nil
}

// delete forgets a task; call with s.mu held.
func (s *taskStore) delete(id string) {
	delete(s.tasks, id)
	s.order = slices.DeleteFunc(s.order, func(x string) bool { return x == id })
}

func (s *taskStore) doCancel(t *task) {
	s.setStatus(t, statusCancelled, "The task was cancelled by request.")
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
}
