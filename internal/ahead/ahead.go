// Package ahead starts the slow, mostly waiting work of Ginkgo specs before
// their turn, several at once. Ginkgo under go test runs a package's specs
// one after another, so a suite whose specs each wait on a process (a
// target that stalls, a run of the self-test) takes the sum of those waits;
// with the work started ahead it takes about the longest of them, and what
// the machine's cores allow.
//
// A spec keeps its own verdict: the work only produces a value (an exit
// code, a process's output, a report), without assertions, and the spec
// judges it when its turn comes. Work is registered while the tree is
// built, under the full text of the spec that will read it; the suite's
// Test function calls RunSpecs, which previews the specs (so focus, skip
// and label filters hold: the work of a spec that will not run never
// starts), runs them, and then ends and cleans up work that no spec read.
//
//	var slow = ahead.Add(pool, "a suite the spec", 1, func(ctx context.Context) result { … })
//	It("the spec", func() { r := slow.Get(); Expect(r.code).To(Equal(0)) })
//
// Work starts when the suite calls Begin (from BeforeSuite, once what the
// work needs is built), in the order the specs will run (work marked First
// before the rest), at most Width units of weight at a time: the pool is
// a plan of mcpconform's one runner (internal/runner). A spec that reads
// work not yet started runs it itself, at once.
package ahead

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/runner"
)

// Closer is implemented by a result that holds something to release
// (processes, a directory) when no spec reads it; a spec that reads it
// releases it itself.
type Closer interface{ Close() }

// Pool holds the work of one suite.
type Pool struct {
	// Width bounds the weight of the work running at once.
	Width int

	mu    sync.Mutex
	jobs  []*job
	byKey map[string]*job
	run   *runner.Run[any] // the plan, made by Begin or the first Get
	ended bool
}

type job struct {
	spec   string // the full text of the spec that reads it
	key    string // spec, and the part's name
	weight int
	run    func(context.Context) any
	rank   int  // the spec's place in the run order; -1: it will not run
	first  bool // starts before the rest (long work, which ends the suite if it starts last)
	read   bool // under Pool.mu: a spec took the value
}

// Work is the handle a spec reads its value from.
type Work[T any] struct {
	pool *Pool
	job  *job
}

// New returns a pool that runs at most width units of weight at once.
func New(width int) *Pool {
	return &Pool{Width: max(width, 1), byKey: map[string]*job{}}
}

// Add registers work for the spec whose full text is key (containers and
// the spec's own text, joined by spaces, as SpecReport.FullText gives it).
// weight is its share of Width: 1 for work that mostly waits, more for
// work that keeps a core busy. The context passed to run ends when the
// suite ends. Ginkgo builds the tree twice (for the preview, then for the
// run): the second Add of a key returns the work the first registered.
func Add[T any](p *Pool, key string, weight int, run func(context.Context) T) Work[T] {
	return AddPart(p, key, "", weight, run)
}

// AddPart registers one of several pieces of work one spec reads, told
// apart by part; each runs on its own, side by side with the others.
func AddPart[T any](p *Pool, spec, part string, weight int, run func(context.Context) T) Work[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := spec + "\x00" + part
	if j, again := p.byKey[key]; again {
		return Work[T]{pool: p, job: j}
	}
	j := &job{spec: spec, key: key, weight: weight, rank: -1,
		run: func(ctx context.Context) any { return run(ctx) }}
	p.jobs = append(p.jobs, j)
	p.byKey[key] = j
	return Work[T]{pool: p, job: j}
}

// Plan takes the run order: will lists, in order, the full texts of the
// specs that will run; known holds every spec's full text. It returns the
// keys of work registered for no spec at all (a renamed spec), which are
// a mistake of the suite.
func (p *Pool) Plan(will []string, known map[string]bool) (unknown []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rank := map[string]int{}
	for i, text := range will {
		rank[text] = i
	}
	for _, j := range p.jobs {
		if i, ok := rank[j.spec]; ok {
			j.rank = i
		}
		if !known[j.spec] && !slices.Contains(unknown, j.spec) {
			unknown = append(unknown, j.spec)
		}
	}
	return unknown
}

// planLocked makes the runner's plan of the work of the specs that will
// run, once: in run order (the parts of one spec in the order they were
// registered), long work (First) ahead of the rest. p.mu is held.
func (p *Pool) planLocked() *runner.Run[any] {
	if p.run != nil {
		return p.run
	}
	queue := slices.DeleteFunc(slices.Clone(p.jobs), func(j *job) bool { return j.rank < 0 })
	slices.SortStableFunc(queue, func(a, b *job) int { return cmp.Compare(a.rank, b.rank) })
	jobs := make([]runner.Job[any], len(queue))
	for i, j := range queue {
		jobs[i] = runner.Job[any]{Key: j.key, Weight: j.weight, Run: func(ctx context.Context, _ func(string)) any { return j.run(ctx) }}
		if j.first {
			jobs[i].Estimate = 1 // ahead of the rest, in run order among themselves
		}
	}
	p.run = runner.New(jobs, runner.Limits{Width: p.Width})
	return p.run
}

// Begin starts the work of the specs that will run, in their order. Call
// it once what the work needs exists (from BeforeSuite).
func (p *Pool) Begin() {
	p.mu.Lock()
	run := p.planLocked()
	p.mu.Unlock()
	run.Begin()
}

// First starts the work before the work of specs that come earlier: work
// that takes long would otherwise, started last, end the suite on its own.
// It returns w, for use where the work is registered.
func (w Work[T]) First() Work[T] {
	w.pool.mu.Lock()
	defer w.pool.mu.Unlock()
	w.job.first = true
	return w
}

// Get returns the work's value, waiting for it if it runs; work not yet
// started (its spec came first, or Begin was never called) runs here.
func (w Work[T]) Get() T {
	p, j := w.pool, w.job
	p.mu.Lock()
	j.read = true
	run := p.planLocked()
	p.mu.Unlock()
	res, planned := run.Result(context.Background(), j.key)
	if !planned {
		// Work of a spec the preview did not expect to run.
		v, _ := j.run(context.Background()).(T)
		return v
	}
	v, _ := res.Value.(T)
	return v
}

// End cancels the work still running, waits for it, and releases the
// values no spec read. Calls after the first do nothing.
func (p *Pool) End() {
	p.mu.Lock()
	if p.ended || p.run == nil {
		p.ended = true
		p.mu.Unlock()
		return
	}
	p.ended = true
	run := p.run
	p.mu.Unlock()
	run.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, j := range p.jobs {
		if j.read || j.rank < 0 {
			continue
		}
		if res, _ := run.Result(context.Background(), j.key); res.Ran {
			if c, ok := res.Value.(Closer); ok {
				c.Close()
			}
		}
	}
}

// RunSpecs previews the suite's specs, plans the pool by them, runs the
// specs (ginkgo.RunSpecs) and ends the pool. Under the ginkgo CLI's
// parallel processes or a dry run nothing starts ahead: each spec runs its
// own work when it reads it.
//
// The preview costs the suite the top-level nodes of its tree registered
// at init (a top-level BeforeEach, ReportBeforeEach, ReportAfterEach):
// Ginkgo's PreviewSpecs leaves behind a copy of the suite without them.
// topLevel registers such nodes; RunSpecs calls each once, just before the
// run, instead of a `var _ =` at the top of a file.
func (p *Pool) RunSpecs(t *testing.T, description string, topLevel ...func() bool) bool {
	suite, _ := ginkgo.GinkgoConfiguration()
	if suite.ParallelTotal <= 1 && !suite.DryRun {
		preview := ginkgo.PreviewSpecs(description)
		var will []string
		known := map[string]bool{}
		for _, s := range preview.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt {
				continue
			}
			known[s.FullText()] = true
			if s.State == types.SpecStatePassed {
				will = append(will, s.FullText())
			}
		}
		if unknown := p.Plan(will, known); len(unknown) > 0 {
			t.Errorf("ahead: work registered for specs the suite does not have:\n  %s", strings.Join(unknown, "\n  "))
		}
	}
	for _, register := range topLevel {
		register()
	}
	defer p.End()
	return ginkgo.RunSpecs(t, description)
}
