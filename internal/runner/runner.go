// Package runner is mcpconform's one scheduler: it runs a plan of jobs (the
// scenarios of a judging run, the runs of the self-test, the slow work of a
// test suite) several at once, so that the waits of one job (a target's
// answer, a quiet window, a task's poll interval) overlap the work of the
// others, and hands their results back.
//
// A plan keeps two kinds of order. Within a group (a transport and version
// of one target), its First jobs finish before any other of it starts (the
// handshake decides the gate the others consult) and its Last jobs start
// only when every other of it has finished (they judge the traffic the
// others left in a ledger); a job may also name jobs it starts after
// (After: a scenario that changes what its target lists runs when the
// others that read it are done). Among the jobs ready, the one with the
// most at stake starts first: its own Estimate, or that of the longest job
// waiting for it (a handshake holds back its group's longest scenario),
// then the plan's order. A long job started last would end the run on its
// own.
//
// The width bounds the weight running at once (most jobs weigh 1: they
// wait); Processes bounds, apart, the jobs that hold a target process of
// their own (a stdio target starts one per session), which cost memory and
// process slots where a wait costs nothing.
package runner

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Phase is a job's place in its group's order.
type Phase int

const (
	// Middle jobs start when the group's First jobs have finished.
	Middle Phase = iota
	// First jobs start before the rest of their group.
	First
	// Last jobs start when every other job of their group has finished.
	Last
)

// Job is one unit of work of a plan.
type Job[T any] struct {
	Key   string // unique in the plan
	Group string // the jobs whose order Phase keeps; "" for none
	Phase Phase
	// Weight is the job's share of the width: 1 (the zero value too) for
	// work that mostly waits, more for work that keeps a core busy.
	Weight int
	// Process marks a job that holds target processes while it runs.
	Process bool
	// Estimate is how long the job is expected to take.
	Estimate time.Duration
	// After names jobs of the plan this one starts after, beyond its
	// group's order (keys the plan does not hold are ignored).
	After []string
	// Run does the work. step receives the steps it wants shown (they
	// are kept with the result). ctx ends when the run is stopped.
	Run func(ctx context.Context, step func(string)) T
}

// Limits bound what runs at once.
type Limits struct {
	// Width bounds the weight of the jobs running at once; below 1 means 1.
	Width int
	// Processes bounds the Process jobs running at once; 0 means Width.
	Processes int
	// Grace is how long Stop waits for the running jobs to return before
	// it gives them up; 0: as long as they take.
	Grace time.Duration
}

// DefaultWidth is the width of a judging run when none is asked for: the
// jobs mostly wait on a target, so many run on few cores; the bound is
// what the run keeps in memory and what a target serves at once, not the
// cores.
const DefaultWidth = 32

// DefaultProcesses bounds the jobs that start target processes: each is a
// program of its own in memory (processBudget is what one is given), and it
// competes for the cores with the rest of the run. At least one.
func DefaultProcesses() int {
	n := max(8, 4*runtime.NumCPU())
	if avail, ok := availableMemory(); ok {
		n = min(n, int(avail/processBudget))
	}
	return max(n, 1)
}

// processBudget is the memory a target process is allowed for in
// DefaultProcesses: a Node.js or Python MCP server takes some 50–100 MB.
const processBudget = 128 << 20

// availableMemory is the memory the system can give without swapping
// (Linux's MemAvailable); ok is false where it cannot be read.
func availableMemory() (bytes uint64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, found := strings.CutPrefix(line, "MemAvailable:"); found {
			var kb uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// Result is what a job produced.
type Result[T any] struct {
	Value   T
	Steps   []string
	Started time.Time
	// Ran is false for a job the run was stopped before.
	Ran bool
}

type job[T any] struct {
	Job[T]
	index      int
	priority   time.Duration // its Estimate, or the longest of the jobs waiting for it
	deps       []*job[T]     // the jobs it starts after
	dependents []*job[T]     // the jobs that start after it
	waiting    int           // its deps not finished, under Run.mu
	started    bool          // under Run.mu
	done       chan struct{}

	mu     sync.Mutex // guards result.Steps while the job runs
	result Result[T]
}

// queue is a heap of ready jobs, the one to start first on top.
type queue[T any] []*job[T]

func (q queue[T]) Len() int           { return len(q) }
func (q queue[T]) Less(i, k int) bool { return before(q[i], q[k]) }
func (q queue[T]) Swap(i, k int)      { q[i], q[k] = q[k], q[i] }
func (q *queue[T]) Push(x any)        { *q = append(*q, x.(*job[T])) }
func (q *queue[T]) Pop() any {
	old := *q
	j := old[len(old)-1]
	*q = old[:len(old)-1]
	return j
}

// top is the queue's first job not started (a reader may have started
// one in its place), nil when none is left.
func (q *queue[T]) top() *job[T] {
	for q.Len() > 0 && (*q)[0].started {
		heap.Pop(q)
	}
	if q.Len() == 0 {
		return nil
	}
	return (*q)[0]
}

// Run is a plan being run.
type Run[T any] struct {
	limits Limits
	ctx    context.Context
	stop   context.CancelFunc
	// gaveUp is closed when the run stops waiting for jobs still running
	// after a stop (GiveUp).
	gaveUp     chan struct{}
	giveUpOnce sync.Once

	mu    sync.Mutex
	wake  *sync.Cond
	jobs  []*job[T]
	byKey map[string]*job[T]
	// The ready jobs not started, those that hold processes apart.
	ready, readyProcesses queue[T]
	unstarted             int
	running               int // weight running
	processes             int // Process jobs running
	began                 bool
	all                   sync.WaitGroup
}

// New plans jobs under limits; nothing starts before Begin, or before a
// job's result is asked for (that job alone then runs in the caller).
// Jobs keep the order given.
func New[T any](jobs []Job[T], limits Limits) *Run[T] {
	limits.Width = max(limits.Width, 1)
	if limits.Processes <= 0 {
		limits.Processes = limits.Width
	}
	ctx, stop := context.WithCancel(context.Background())
	r := &Run[T]{limits: limits, ctx: ctx, stop: stop, gaveUp: make(chan struct{}), byKey: map[string]*job[T]{}, unstarted: len(jobs)}
	r.wake = sync.NewCond(&r.mu)
	type group struct{ first, middle, last []*job[T] }
	groups := map[string]*group{}
	for i, jb := range jobs {
		j := &job[T]{Job: jb, index: i, done: make(chan struct{})}
		j.Weight = min(max(j.Weight, 1), limits.Width)
		r.jobs = append(r.jobs, j)
		r.byKey[j.Key] = j
		if j.Group == "" {
			continue
		}
		g := groups[j.Group]
		if g == nil {
			g = &group{}
			groups[j.Group] = g
		}
		switch j.Phase {
		case First:
			g.first = append(g.first, j)
		case Middle:
			g.middle = append(g.middle, j)
		case Last:
			g.last = append(g.last, j)
		}
	}
	// A group's order is dependencies: its Middle jobs start after its
	// First, its Last after both.
	for _, g := range groups {
		for _, j := range g.middle {
			j.deps = append(j.deps, g.first...)
		}
		for _, j := range g.last {
			j.deps = append(append(j.deps, g.first...), g.middle...)
		}
	}
	for _, j := range r.jobs {
		for _, key := range j.After {
			if d := r.byKey[key]; d != nil && d != j {
				j.deps = append(j.deps, d)
			}
		}
		j.waiting = len(j.deps)
		for _, d := range j.deps {
			d.dependents = append(d.dependents, j)
		}
	}
	for _, j := range r.jobs {
		j.priority = max(j.priority, j.Estimate)
		for _, d := range j.deps {
			d.priority = max(d.priority, j.Estimate)
		}
	}
	for _, j := range r.jobs {
		if j.waiting == 0 {
			r.push(j)
		}
	}
	return r
}

func (r *Run[T]) push(j *job[T]) {
	if j.Process {
		heap.Push(&r.readyProcesses, j)
	} else {
		heap.Push(&r.ready, j)
	}
}

// Start plans jobs and begins them at once.
func Start[T any](jobs []Job[T], limits Limits) *Run[T] {
	r := New(jobs, limits)
	r.Begin()
	return r
}

// Begin starts the jobs; calls after the first do nothing.
func (r *Run[T]) Begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.began {
		return
	}
	r.began = true
	r.all.Add(1)
	go r.dispatch()
}

// dispatch starts each job when it is ready and fits, until every job has
// started or the run is stopped.
func (r *Run[T]) dispatch() {
	defer r.all.Done()
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.ctx.Err() == nil && r.unstarted > 0 {
		next := r.pickLocked()
		if next == nil {
			r.wake.Wait()
			continue
		}
		r.startLocked(next)
		r.all.Add(1)
		go func() {
			defer r.all.Done()
			r.execute(next)
		}()
	}
}

// pickLocked is the job to start now: of the jobs ready (those that hold
// processes only while a process slot is free), the first by phase,
// estimate and plan order, when its weight fits; a job that does not fit
// yet holds back the ones after it, so heavy work is not starved by light.
func (r *Run[T]) pickLocked() *job[T] {
	next := r.ready.top()
	if r.processes < r.limits.Processes {
		if p := r.readyProcesses.top(); p != nil && (next == nil || before(p, next)) {
			next = p
		}
	}
	if next == nil || r.running+next.Weight > r.limits.Width {
		return nil
	}
	return next
}

// before orders two ready jobs: the more at stake first (priority), then
// the plan's order.
func before[T any](a, b *job[T]) bool {
	if c := cmp.Compare(b.priority, a.priority); c != 0 {
		return c < 0
	}
	return a.index < b.index
}

// ready reports whether j's order allows it to start.
func ready[T any](j *job[T]) bool {
	for _, d := range j.deps {
		select {
		case <-d.done:
		default:
			return false
		}
	}
	return true
}

func (r *Run[T]) startLocked(j *job[T]) {
	j.started = true
	r.unstarted--
	r.running += j.Weight
	if j.Process {
		r.processes++
	}
}

func (r *Run[T]) execute(j *job[T]) {
	j.result.Started = time.Now()
	j.result.Value = j.Run(r.ctx, func(text string) {
		j.mu.Lock()
		defer j.mu.Unlock()
		j.result.Steps = append(j.result.Steps, text)
	})
	j.result.Ran = true
	r.mu.Lock()
	r.running -= j.Weight
	if j.Process {
		r.processes--
	}
	close(j.done)
	for _, d := range j.dependents {
		if d.waiting--; d.waiting == 0 {
			r.push(d)
		}
	}
	r.wake.Broadcast()
	r.mu.Unlock()
}

// Result waits for the job planned under key and returns what it produced.
// A job that has not started yet runs now, in the caller, whatever the
// limits (its reader cannot go on without it), once its group's order
// allows. ok is false for a key the plan does not hold. ctx bounds the
// wait; when it ends first, the run is stopped and the result is the
// job's as far as it went.
func (r *Run[T]) Result(ctx context.Context, key string) (res Result[T], ok bool) {
	r.mu.Lock()
	j := r.byKey[key]
	if j == nil {
		r.mu.Unlock()
		return res, false
	}
	for !j.started && !ready(j) && r.ctx.Err() == nil {
		// Its dependencies run elsewhere (or are read by another spec).
		r.mu.Unlock()
		if !r.waitDeps(ctx, j) {
			r.Stop()
		}
		r.mu.Lock()
	}
	mine := !j.started && r.ctx.Err() == nil
	if mine {
		r.startLocked(j)
	}
	if !j.started {
		// Stopped before it started: it never runs.
		j.started = true
		r.unstarted--
		close(j.done)
		r.wake.Broadcast()
	}
	r.mu.Unlock()
	if mine {
		r.execute(j)
	}
	select {
	case <-j.done:
	case <-r.gaveUp:
	case <-ctx.Done():
		r.Stop()
	}
	return r.finished(j), true
}

// finished is j's result once it has returned, or a result that did not
// run when the run gave it up first.
func (r *Run[T]) finished(j *job[T]) Result[T] {
	select {
	case <-j.done:
		return r.snapshot(j)
	case <-r.gaveUp:
		select {
		case <-j.done:
			return r.snapshot(j)
		default:
			return Result[T]{}
		}
	}
}

// waitDeps waits until j's dependencies finish; false when ctx ended first.
func (r *Run[T]) waitDeps(ctx context.Context, j *job[T]) bool {
	for _, d := range j.deps {
		r.mu.Lock()
		mine := !d.started && ready(d) && r.ctx.Err() == nil
		if mine {
			r.startLocked(d)
		}
		r.mu.Unlock()
		if mine {
			// A dependency nobody started yet (Begin was not called):
			// it runs here, in the reader's turn.
			r.execute(d)
		}
		select {
		case <-d.done:
		case <-ctx.Done():
			return false
		case <-r.ctx.Done():
			return true
		}
	}
	return true
}

func (r *Run[T]) snapshot(j *job[T]) Result[T] {
	j.mu.Lock()
	defer j.mu.Unlock()
	res := j.result
	res.Steps = slices.Clone(res.Steps)
	return res
}

// InOrder calls yield with each job's result in the plan's order, as soon
// as the job and those before it have finished or will never run; it
// returns when every job has, or yield returns false.
func (r *Run[T]) InOrder(yield func(key string, res Result[T]) bool) {
	for _, j := range r.jobs {
		select {
		case <-j.done:
		case <-r.ctx.Done():
			r.abandon()
		}
		if !yield(j.Key, r.finished(j)) {
			return
		}
	}
}

// abandon marks every job not started as done without a result; the run
// is stopped.
func (r *Run[T]) abandon() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.jobs {
		if !j.started {
			j.started = true
			close(j.done)
		}
	}
	r.unstarted = 0
	r.wake.Broadcast()
}

// Wait waits until every job has finished or will never run.
func (r *Run[T]) Wait() {
	r.InOrder(func(string, Result[T]) bool { return true })
}

// Stop ends the run: the jobs running see their context end, the jobs not
// started never start. It waits for the running ones to return, at most
// Limits.Grace; then it gives them up (GiveUp).
func (r *Run[T]) Stop() {
	r.stop()
	r.abandon()
	returned := make(chan struct{})
	go func() {
		r.all.Wait()
		close(returned)
	}()
	var grace <-chan time.Time
	if r.limits.Grace > 0 {
		t := time.NewTimer(r.limits.Grace)
		defer t.Stop()
		grace = t.C
	}
	select {
	case <-returned:
	case <-grace:
		r.GiveUp()
	case <-r.gaveUp:
	}
}

// GiveUp stops the run and stops waiting for the jobs still running: their
// readers get results that did not run. The jobs are left to return when
// they do.
func (r *Run[T]) GiveUp() {
	r.stop()
	r.abandon()
	r.giveUpOnce.Do(func() { close(r.gaveUp) })
}

// Forget lets go of the value and steps of the job under key, once no one
// will read them again (a scenario's transcript may hold megabytes).
func (r *Run[T]) Forget(key string) {
	r.mu.Lock()
	j := r.byKey[key]
	r.mu.Unlock()
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var zero T
	j.result.Value, j.result.Steps = zero, nil
}

// Stopped reports whether Stop was called.
func (r *Run[T]) Stopped() bool { return r.ctx.Err() != nil }
