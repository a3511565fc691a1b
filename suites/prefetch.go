package suites

import (
	"context"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/scenarios"
)

// A prefetcher runs the scenarios of one config ahead of their specs, a few
// at once, so that the quiet windows and waits of one scenario overlap the
// work of others; each scenario's specs then take its finished result, in
// plan order, and the reports read as in a run one scenario at a time.
//
// The plan's order constraints are kept: the handshake's scenario runs alone
// and first (its verdict decides the gate the others consult), and the
// scenarios marked Last (they judge the ledger all others fill) start only
// when every other scenario of the config has finished.
type prefetcher struct {
	parallel int
	run      func(ctx context.Context, s *scenarios.Scenario, step func(string)) (time.Time, *scenarios.Result)

	mu      sync.Mutex
	middle  []*scenarios.Scenario // planned, neither Handshake nor Last, in plan order
	pending map[*scenarios.Scenario]*prefetched
	started bool
	// ctx ends every background run when a spec gives up waiting (an
	// interrupt or the suite's end).
	ctx    context.Context
	cancel context.CancelFunc
}

// prefetched is one scenario's background run.
type prefetched struct {
	done    chan struct{}
	started time.Time
	res     *scenarios.Result
	steps   []string
}

func newPrefetcher(parallel int, run func(ctx context.Context, s *scenarios.Scenario, step func(string)) (time.Time, *scenarios.Result)) *prefetcher {
	ctx, cancel := context.WithCancel(context.Background())
	return &prefetcher{parallel: parallel, run: run, pending: map[*scenarios.Scenario]*prefetched{}, ctx: ctx, cancel: cancel}
}

// add plans s; call it in plan order while the spec tree is built.
func (p *prefetcher) add(s *scenarios.Scenario) {
	if p.parallel > 1 && !s.Handshake && !s.Last {
		p.middle = append(p.middle, s)
	}
}

// result is s's run: the background one when s is prefetched (started with
// all the others of its phase on the first call), otherwise run here and
// now. step receives the run's steps (replayed, for a background run).
func (p *prefetcher) result(ctx context.Context, s *scenarios.Scenario, step func(string)) (time.Time, *scenarios.Result) {
	job := p.job(s)
	if job == nil {
		return p.run(ctx, s, step)
	}
	select {
	case <-job.done:
	case <-ctx.Done():
		// The spec was interrupted: stop what still runs in the
		// background, and wait for this one to unwind.
		p.cancel()
		<-job.done
	}
	for _, text := range job.steps {
		step(text)
	}
	return job.started, job.res
}

// job returns s's background run, starting the phase's runs on first use.
func (p *prefetcher) job(s *scenarios.Scenario) *prefetched {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started && len(p.middle) > 0 && !s.Handshake && !s.Last {
		p.started = true
		p.startAll()
	}
	return p.pending[s]
}

// startAll starts the middle scenarios in plan order on parallel workers.
// Called with p.mu held.
func (p *prefetcher) startAll() {
	queue := make(chan *scenarios.Scenario, len(p.middle))
	for _, s := range p.middle {
		p.pending[s] = &prefetched{done: make(chan struct{})}
		queue <- s
	}
	close(queue)
	for range min(p.parallel, len(p.middle)) {
		go func() {
			for s := range queue {
				job := p.pending[s]
				var mu sync.Mutex
				job.started, job.res = p.run(p.ctx, s, func(text string) {
					mu.Lock()
					defer mu.Unlock()
					job.steps = append(job.steps, text)
				})
				close(job.done)
			}
		}()
	}
}
