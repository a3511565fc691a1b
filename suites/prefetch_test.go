package suites

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios"
)

var _ = Describe("prefetch of a catalogue's scenario runs", func() {
	// plan adds the scenarios to p under their ids; each run records its
	// id and returns a result named by it.
	plan := func(p *prefetcher, ran *[]string, mu *sync.Mutex, ss ...*scenarios.Scenario) {
		for _, s := range ss {
			p.add("cfg", s.ID, s, func(ctx context.Context, step func(string)) (time.Time, *scenarios.Result) {
				mu.Lock()
				*ran = append(*ran, s.ID)
				mu.Unlock()
				step("ran " + s.ID)
				return time.Now(), &scenarios.Result{Transcript: s.ID}
			})
		}
	}
	handshake := &scenarios.Scenario{ID: "handshake", Handshake: true}
	others := []*scenarios.Scenario{{ID: "a"}, {ID: "b"}, {ID: "judge", Last: true}}

	It("runs every planned scenario before any spec asks, and the specs take those runs", func(ctx SpecContext) {
		p := newPrefetcher(2)
		var ran []string
		var mu sync.Mutex
		plan(p, &ran, &mu, append([]*scenarios.Scenario{handshake}, others...)...)
		p.prefetch(ctx)
		Expect(ran).To(ConsistOf("handshake", "a", "b", "judge"))
		Expect(ran[0]).To(Equal("handshake"), "the handshake's scenario first")
		Expect(ran[3]).To(Equal("judge"), "the ledger's judge last")

		var steps []string
		_, res := p.result(ctx, "a", func(text string) { steps = append(steps, text) },
			func(context.Context, func(string)) (time.Time, *scenarios.Result) {
				Fail("the spec runs the scenario again")
				return time.Time{}, nil
			})
		Expect(res.Transcript).To(Equal("a"))
		Expect(steps).To(Equal([]string{"ran a"}), "the run's steps, replayed")
		Expect(ran).To(HaveLen(4), "nothing ran twice")
	})

	It("stops waiting when its context ends", func(ctx SpecContext) {
		p := newPrefetcher(2) // not 1: a prefetcher of one at a time plans nothing
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		p.add("cfg", "stuck", &scenarios.Scenario{ID: "stuck"}, func(context.Context, func(string)) (time.Time, *scenarios.Result) {
			<-release
			return time.Now(), &scenarios.Result{}
		})
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		p.prefetch(short)
		Expect(short.Err()).To(HaveOccurred())
	}, SpecTimeout(10*time.Second))
})
