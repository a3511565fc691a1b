package runner_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/runner"
)

// log records the order jobs start and end in, and how many run at once.
type log struct {
	mu              sync.Mutex
	events          []string
	running, peak   int
	procs, procPeak int
}

func (l *log) job(key string, process bool, gate <-chan struct{}) func(context.Context, func(string)) string {
	return func(ctx context.Context, step func(string)) string {
		l.mu.Lock()
		l.events = append(l.events, "start "+key)
		l.running++
		l.peak = max(l.peak, l.running)
		if process {
			l.procs++
			l.procPeak = max(l.procPeak, l.procs)
		}
		l.mu.Unlock()
		step("step of " + key)
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
			}
		}
		l.mu.Lock()
		l.events = append(l.events, "end "+key)
		l.running--
		if process {
			l.procs--
		}
		l.mu.Unlock()
		return "value of " + key
	}
}

func (l *log) index(event string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, e := range l.events {
		if e == event {
			return i
		}
	}
	return -1
}

var _ = Describe("a run", func() {
	It("keeps each group's order: its First jobs end before the rest start, its Last jobs start after all others end", func() {
		l := &log{}
		var jobs []runner.Job[string]
		for _, g := range []string{"a", "b"} {
			jobs = append(jobs,
				runner.Job[string]{Key: g + "-handshake", Group: g, Phase: runner.First, Run: l.job(g+"-handshake", false, nil)},
				runner.Job[string]{Key: g + "-ledger", Group: g, Phase: runner.Last, Run: l.job(g+"-ledger", false, nil)},
			)
			for i := range 5 {
				key := fmt.Sprintf("%s-%d", g, i)
				jobs = append(jobs, runner.Job[string]{Key: key, Group: g, Run: l.job(key, false, nil)})
			}
		}
		r := runner.Start(jobs, runner.Limits{Width: 8})
		r.Wait()
		for _, g := range []string{"a", "b"} {
			for i := range 5 {
				key := fmt.Sprintf("%s-%d", g, i)
				Expect(l.index("end "+g+"-handshake")).To(BeNumerically("<", l.index("start "+key)), key)
				Expect(l.index("end "+key)).To(BeNumerically("<", l.index("start "+g+"-ledger")), key)
			}
		}
	})

	It("runs at most Width at once and at most Processes of those holding a process", func() {
		l := &log{}
		gate := make(chan struct{})
		var jobs []runner.Job[string]
		for i := range 20 {
			key := fmt.Sprint(i)
			jobs = append(jobs, runner.Job[string]{Key: key, Process: i%2 == 0, Run: l.job(key, i%2 == 0, gate)})
		}
		r := runner.Start(jobs, runner.Limits{Width: 6, Processes: 2})
		// Six start: the two process slots and four of the rest.
		Eventually(func() int { l.mu.Lock(); defer l.mu.Unlock(); return l.running }).Should(Equal(6))
		Consistently(func() int { l.mu.Lock(); defer l.mu.Unlock(); return l.running }, 50*time.Millisecond).Should(Equal(6))
		close(gate)
		r.Wait()
		Expect(l.peak).To(Equal(6))
		Expect(l.procPeak).To(Equal(2))
	})

	It("starts the longest expected first among the ready jobs", func() {
		l := &log{}
		jobs := []runner.Job[string]{
			{Key: "short", Estimate: time.Millisecond, Run: l.job("short", false, nil)},
			{Key: "long", Estimate: time.Second, Run: l.job("long", false, nil)},
			{Key: "middle", Estimate: 10 * time.Millisecond, Run: l.job("middle", false, nil)},
		}
		runner.Start(jobs, runner.Limits{Width: 1}).Wait()
		Expect(l.events).To(Equal([]string{"start long", "end long", "start middle", "end middle", "start short", "end short"}))
	})

	It("does not let light work starve a heavy job: the first in rank waits for room", func() {
		l := &log{}
		gate := make(chan struct{})
		jobs := []runner.Job[string]{
			{Key: "light-1", Estimate: 3, Run: l.job("light-1", false, gate)},
			{Key: "heavy", Weight: 2, Estimate: 2, Run: l.job("heavy", false, nil)},
			{Key: "light-2", Estimate: 1, Run: l.job("light-2", false, nil)},
		}
		r := runner.Start(jobs, runner.Limits{Width: 2})
		Eventually(func() int { return l.index("start light-1") }).Should(Equal(0))
		Consistently(func() int { return l.index("start light-2") }, 50*time.Millisecond).Should(Equal(-1))
		close(gate)
		r.Wait()
		Expect(l.index("end heavy")).To(BeNumerically("<", l.index("start light-2")))
	})

	It("hands results back in the plan's order, with the steps each job took", func() {
		l := &log{}
		jobs := []runner.Job[string]{
			{Key: "one", Run: l.job("one", false, nil)},
			{Key: "two", Estimate: time.Second, Run: l.job("two", false, nil)},
		}
		r := runner.Start(jobs, runner.Limits{Width: 1})
		var keys []string
		r.InOrder(func(key string, res runner.Result[string]) bool {
			Expect(res.Ran).To(BeTrue())
			Expect(res.Value).To(Equal("value of " + key))
			Expect(res.Steps).To(Equal([]string{"step of " + key}))
			keys = append(keys, key)
			return true
		})
		Expect(keys).To(Equal([]string{"one", "two"}))
	})

	It("runs a job in its reader when nothing has begun, its group's First jobs before it", func() {
		l := &log{}
		jobs := []runner.Job[string]{
			{Key: "handshake", Group: "g", Phase: runner.First, Run: l.job("handshake", false, nil)},
			{Key: "work", Group: "g", Run: l.job("work", false, nil)},
			{Key: "other", Group: "g", Run: l.job("other", false, nil)},
		}
		r := runner.New(jobs, runner.Limits{Width: 4})
		res, ok := r.Result(context.Background(), "work")
		Expect(ok).To(BeTrue())
		Expect(res.Value).To(Equal("value of work"))
		Expect(l.events).To(Equal([]string{"start handshake", "end handshake", "start work", "end work"}))
		_, ok = r.Result(context.Background(), "missing")
		Expect(ok).To(BeFalse())
	})

	It("stops: the running jobs see their context end, the rest never run", func() {
		l := &log{}
		gate := make(chan struct{}) // never closed: only the stop ends the job
		jobs := []runner.Job[string]{
			{Key: "running", Run: l.job("running", false, gate)},
			{Key: "waiting", Run: l.job("waiting", false, nil)},
		}
		r := runner.Start(jobs, runner.Limits{Width: 1})
		Eventually(func() int { return l.index("start running") }).Should(Equal(0))
		r.Stop()
		Expect(r.Stopped()).To(BeTrue())
		var ran []bool
		r.InOrder(func(_ string, res runner.Result[string]) bool { ran = append(ran, res.Ran); return true })
		Expect(ran).To(Equal([]bool{true, false}))
		Expect(l.index("start waiting")).To(Equal(-1))
	})

	It("stops when a reader gives up waiting", func() {
		l := &log{}
		gate := make(chan struct{})
		r := runner.Start([]runner.Job[string]{{Key: "slow", Run: l.job("slow", false, gate)}}, runner.Limits{Width: 1})
		ctx, cancel := context.WithCancel(context.Background())
		Eventually(func() int { return l.index("start slow") }).Should(Equal(0))
		cancel()
		res, ok := r.Result(ctx, "slow")
		Expect(ok).To(BeTrue())
		Expect(res.Ran).To(BeTrue())
		Expect(r.Stopped()).To(BeTrue())
	})
})

// startStuck starts one job, "stuck", that ignores its context and returns
// only when the spec ends, and waits until it runs.
func startStuck(limits runner.Limits) *runner.Run[string] {
	stuck := make(chan struct{})
	DeferCleanup(func() { close(stuck) })
	started := make(chan struct{})
	r := runner.Start([]runner.Job[string]{{Key: "stuck", Run: func(context.Context, func(string)) string {
		close(started)
		<-stuck
		return "late"
	}}}, limits)
	<-started
	return r
}

var _ = Describe("a stopped run", func() {
	It("gives up a job that does not return within the grace", func() {
		r := startStuck(runner.Limits{Width: 1, Grace: 10 * time.Millisecond})
		r.Stop()
		res, ok := r.Result(context.Background(), "stuck")
		Expect(ok).To(BeTrue())
		Expect(res.Ran).To(BeFalse())
	})

	It("gives up at once when told to", func() {
		r := startStuck(runner.Limits{Width: 1})
		stopped := make(chan struct{})
		go func() { r.Stop(); close(stopped) }()
		r.GiveUp()
		Eventually(stopped).Should(BeClosed())
		var ran []bool
		r.InOrder(func(_ string, res runner.Result[string]) bool { ran = append(ran, res.Ran); return true })
		Expect(ran).To(Equal([]bool{false}))
	})
})

var _ = Describe("a job with After", func() {
	It("starts when the jobs it names have finished, and its group's Last jobs wait for it", func() {
		l := &log{}
		jobs := []runner.Job[string]{
			{Key: "changes", Group: "a", After: []string{"a-read", "b-read", "no-such-job"}, Estimate: time.Hour, Run: l.job("changes", false, nil)},
			{Key: "a-read", Group: "a", Run: l.job("a-read", false, nil)},
			{Key: "b-read", Group: "b", Run: l.job("b-read", false, nil)},
			{Key: "a-ledger", Group: "a", Phase: runner.Last, Run: l.job("a-ledger", false, nil)},
		}
		runner.Start(jobs, runner.Limits{Width: 4}).Wait()
		Expect(l.index("end a-read")).To(BeNumerically("<", l.index("start changes")))
		Expect(l.index("end b-read")).To(BeNumerically("<", l.index("start changes")))
		Expect(l.index("end changes")).To(BeNumerically("<", l.index("start a-ledger")))
	})
})

var _ = Describe("the default bound on target processes", func() {
	It("is at least one, and no more than the cores allow", func() {
		n := runner.DefaultProcesses()
		Expect(n).To(BeNumerically(">=", 1))
		Expect(n).To(BeNumerically("<=", max(8, 4*runtime.NumCPU())))
	})
})

var _ = Describe("the order of ready jobs", func() {
	It("starts a First job that holds back a long job before a longer job of its own weight elsewhere", func() {
		l := &log{}
		jobs := []runner.Job[string]{
			{Key: "medium", Estimate: 50 * time.Millisecond, Run: l.job("medium", false, nil)},
			{Key: "handshake", Group: "g", Phase: runner.First, Estimate: time.Millisecond, Run: l.job("handshake", false, nil)},
			{Key: "long", Group: "g", Estimate: time.Second, Run: l.job("long", false, nil)},
		}
		runner.Start(jobs, runner.Limits{Width: 1}).Wait()
		Expect(l.events).To(Equal([]string{"start handshake", "end handshake", "start long", "end long", "start medium", "end medium"}))
	})
})
