package ahead_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/internal/ahead"
)

// closed is a value that records its release.
type closed struct{ released *bool }

func (c closed) Close() { *c.released = true }

// startOrder notes the order in which work starts.
type startOrder struct {
	mu    sync.Mutex
	order []string
}

// record is work that notes its name when it starts, and returns it.
func (s *startOrder) record(name string) func(context.Context) string {
	return func(context.Context) string {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.order = append(s.order, name)
		return name
	}
}

func (s *startOrder) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

var _ = Describe("a pool", func() {
	It("starts only the work of specs that will run, in their order, and names work no spec has", func() {
		p := ahead.New(1)
		var started startOrder
		a := ahead.Add(p, "s a", 1, started.record("a"))
		b := ahead.Add(p, "s b", 1, started.record("b"))
		_ = ahead.Add(p, "s skipped", 1, started.record("skipped"))
		_ = ahead.Add(p, "s renamed", 1, started.record("renamed"))
		unknown := p.Plan([]string{"s b", "s a"}, map[string]bool{"s a": true, "s b": true, "s skipped": true})
		Expect(unknown).To(ConsistOf("s renamed"))
		p.Begin()
		Expect(b.Get()).To(Equal("b"))
		Expect(a.Get()).To(Equal("a"))
		p.End()
		Expect(started.names()).To(Equal([]string{"b", "a"}), "the work of specs that do not run never starts")
	})

	It("starts work marked First before the work of earlier specs", func() {
		p := ahead.New(1)
		var started startOrder
		a := ahead.Add(p, "s a", 1, started.record("a"))
		b := ahead.Add(p, "s b", 1, started.record("b"))
		long := ahead.Add(p, "s long", 1, started.record("long")).First()
		all := map[string]bool{"s a": true, "s b": true, "s long": true}
		Expect(p.Plan([]string{"s a", "s b", "s long"}, all)).To(BeEmpty())
		p.Begin()
		Expect(long.Get()).To(Equal("long"))
		Expect(a.Get()).To(Equal("a"))
		Expect(b.Get()).To(Equal("b"))
		p.End()
		Expect(started.names()).To(Equal([]string{"long", "a", "b"}))
	})

	It("runs at most Width units of weight at once", func() {
		p := ahead.New(3)
		var mu sync.Mutex
		running, peak := 0, 0
		release := make(chan struct{})
		entered := make(chan struct{}, 8)
		work := func(weight int) func(context.Context) int {
			return func(context.Context) int {
				mu.Lock()
				running += weight
				peak = max(peak, running)
				mu.Unlock()
				entered <- struct{}{}
				<-release
				mu.Lock()
				running -= weight
				mu.Unlock()
				return weight
			}
		}
		var ws []ahead.Work[int]
		var keys []string
		for i, w := range []int{2, 1, 2, 1, 1} {
			key := "s " + string(rune('a'+i))
			keys = append(keys, key)
			ws = append(ws, ahead.Add(p, key, w, work(w)))
		}
		known := map[string]bool{}
		for _, k := range keys {
			known[k] = true
		}
		Expect(p.Plan(keys, known)).To(BeEmpty())
		p.Begin()
		// The first two (weights 2 and 1) fill the width; the third waits.
		Eventually(entered).Should(Receive())
		Eventually(entered).Should(Receive())
		Consistently(entered, 100*time.Millisecond).ShouldNot(Receive())
		close(release)
		for _, w := range ws {
			w.Get()
		}
		p.End()
		Expect(peak).To(Equal(3))
	})

	It("runs the parts of one spec's work side by side", func() {
		p := ahead.New(2)
		var arrived sync.WaitGroup
		arrived.Add(2)
		ready := make(chan struct{})
		go func() { arrived.Wait(); close(ready) }()
		// Each part waits until both have started: run one after the
		// other, the first would give up at its deadline.
		part := func(ctx context.Context) bool {
			arrived.Done()
			select {
			case <-ready:
				return true
			case <-ctx.Done():
			case <-time.After(time.Minute):
			}
			return false
		}
		a := ahead.AddPart(p, "s a", "one", 1, part)
		b := ahead.AddPart(p, "s a", "two", 1, part)
		Expect(p.Plan([]string{"s a"}, map[string]bool{"s a": true})).To(BeEmpty())
		p.Begin()
		Expect(a.Get()).To(BeTrue())
		Expect(b.Get()).To(BeTrue())
		p.End()
	})

	It("runs work in the reading spec when it has not started", func() {
		p := ahead.New(1)
		w := ahead.Add(p, "s a", 1, func(context.Context) int { return 7 })
		Expect(w.Get()).To(Equal(7), "without Plan and Begin")
		p.End()
	})

	It("ends running work at End, and releases values no spec read", func() {
		p := ahead.New(2)
		var releasedRead, releasedUnread bool
		started := make(chan struct{})
		read := ahead.Add(p, "s read", 1, func(context.Context) closed { return closed{&releasedRead} })
		_ = ahead.Add(p, "s unread", 1, func(context.Context) closed { return closed{&releasedUnread} })
		cancelled := ahead.Add(p, "s waits", 1, func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
		all := map[string]bool{"s read": true, "s unread": true, "s waits": true}
		Expect(p.Plan([]string{"s read", "s waits", "s unread"}, all)).To(BeEmpty())
		p.Begin()
		Eventually(started).Should(BeClosed())
		read.Get()
		p.End()
		Expect(cancelled.Get()).To(MatchError(context.Canceled))
		Expect(releasedRead).To(BeFalse(), "a spec that read its value releases it")
		Expect(releasedUnread).To(BeTrue())
	})
})

// The real thing: a suite run with a focus starts the work of the focused
// specs only, ahead of their turn, and every spec still gets its own value;
// a top-level node registered through RunSpecs survives the preview.
var _ = Describe("RunSpecs", func() {
	It("honours the suite's filters", func(ctx SpecContext) {
		log := filepath.Join(GinkgoT().TempDir(), "started")
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "./testdata/sample", "-ginkgo.focus", "one|three")
		cmd.Env = append(os.Environ(), "SAMPLE_LOG="+log)
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s).WithTimeout(2 * time.Minute).Should(gexec.Exit(0))
		b, err := os.ReadFile(log)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Split(strings.TrimSpace(string(b)), "\n")).To(ConsistOf("one", "three", "reported one", "reported three"),
			"the focused specs' work, and the top-level report node passed to RunSpecs")
	}, SpecTimeout(3*time.Minute))
})
