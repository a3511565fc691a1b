package suites

import (
	"context"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/scenarios"
)

// A prefetcher runs the planned scenarios of a whole run ahead of their
// specs, a few at once, so that the quiet windows and waits of one scenario
// overlap the work of others (of its own transport and version or the next
// ones); each scenario's specs then take its finished result, in plan
// order, and the reports read as in a run one scenario at a time.
//
// The order constraints of each transport and version are kept: its
// handshake scenario finishes before any other of it starts (its verdict
// decides the gate the others consult), and its scenarios marked Last (they
// judge the ledger all others fill) start only when every other one of it
// has finished.
type prefetcher struct {
	parallel int

	mu      sync.Mutex
	wake    *sync.Cond
	jobs    []*prefetched // in plan order
	byKey   map[string]*prefetched
	configs map[string]*configJobs
	started bool
	// ctx ends every background run when a spec gives up waiting (an
	// interrupt).
	ctx    context.Context
	cancel context.CancelFunc
}

// configJobs are the jobs of one transport and version so far.
type configJobs struct{ handshakes, others []*prefetched }

// prefetched is one scenario's background run.
type prefetched struct {
	run   func(ctx context.Context, step func(string)) (time.Time, *scenarios.Result)
	deps  []*prefetched
	taken bool
	done  chan struct{}

	started time.Time
	res     *scenarios.Result
	steps   []string
}

func newPrefetcher(parallel int) *prefetcher {
	ctx, cancel := context.WithCancel(context.Background())
	p := &prefetcher{parallel: parallel, byKey: map[string]*prefetched{}, configs: map[string]*configJobs{}, ctx: ctx, cancel: cancel}
	p.wake = sync.NewCond(&p.mu)
	return p
}

// add plans the run of scenario s of config cfg under key; call it in plan
// order while the spec tree is built. One at a time (parallel 1) plans
// nothing: each spec runs its scenario itself.
func (p *prefetcher) add(cfg, key string, s *scenarios.Scenario, run func(ctx context.Context, step func(string)) (time.Time, *scenarios.Result)) {
	if p.parallel <= 1 {
		return
	}
	c := p.configs[cfg]
	if c == nil {
		c = &configJobs{}
		p.configs[cfg] = c
	}
	job := &prefetched{run: run, done: make(chan struct{})}
	switch {
	case s.Handshake:
		c.handshakes = append(c.handshakes, job)
	case s.Last:
		job.deps = append(append([]*prefetched(nil), c.handshakes...), c.others...)
	default:
		job.deps = append([]*prefetched(nil), c.handshakes...)
		c.others = append(c.others, job)
	}
	p.jobs = append(p.jobs, job)
	p.byKey[key] = job
}

// result is the run of the scenario planned under key: the background one
// (the workers start on the first call), or, when nothing was planned for
// it, run here and now. step receives the run's steps (replayed, for a
// background run).
func (p *prefetcher) result(ctx context.Context, key string, step func(string), run func(ctx context.Context, step func(string)) (time.Time, *scenarios.Result)) (time.Time, *scenarios.Result) {
	p.mu.Lock()
	job := p.byKey[key]
	if job != nil {
		p.start()
	}
	p.mu.Unlock()
	if job == nil {
		return run(ctx, step)
	}
	select {
	case <-job.done:
	case <-ctx.Done():
		// The spec was interrupted: stop what runs in the background,
		// and wait for this one to unwind. Its steps are not replayed:
		// Ginkgo takes the node for finished (By would be refused).
		p.cancel()
		<-job.done
		return job.started, job.res
	}
	for _, text := range job.steps {
		step(text)
	}
	return job.started, job.res
}

// start starts the workers, once; call it with p.mu held.
func (p *prefetcher) start() {
	if p.started {
		return
	}
	p.started = true
	for range min(p.parallel, len(p.jobs)) {
		go p.work()
	}
}

// prefetch starts the workers and waits until every job has finished or
// ctx ends.
func (p *prefetcher) prefetch(ctx context.Context) {
	p.mu.Lock()
	p.start()
	jobs := p.jobs
	p.mu.Unlock()
	for _, job := range jobs {
		select {
		case <-job.done:
		case <-ctx.Done():
			return
		}
	}
}

// work runs jobs, each time the first in plan order whose dependencies
// have finished, until none is left.
func (p *prefetcher) work() {
	for {
		job := p.next()
		if job == nil {
			return
		}
		var mu sync.Mutex
		job.started, job.res = job.run(p.ctx, func(text string) {
			mu.Lock()
			defer mu.Unlock()
			job.steps = append(job.steps, text)
		})
		close(job.done)
		p.mu.Lock()
		p.wake.Broadcast()
		p.mu.Unlock()
	}
}

// next takes the first ready job, waiting while some remain but none is
// ready; nil when every job is taken.
func (p *prefetcher) next() *prefetched {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		remaining := false
		for _, job := range p.jobs {
			if job.taken {
				continue
			}
			remaining = true
			if ready(job) {
				job.taken = true
				return job
			}
		}
		if !remaining {
			return nil
		}
		p.wake.Wait()
	}
}

// ready reports a job whose dependencies have all finished.
func ready(job *prefetched) bool {
	for _, d := range job.deps {
		select {
		case <-d.done:
		default:
			return false
		}
	}
	return true
}
