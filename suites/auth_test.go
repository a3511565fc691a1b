package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = Describe("task isolation with two authorization contexts", func() {
	isolation := func(ctx context.Context, f *fault.Fault, tokens []string) map[string]scenarios.Verdict {
		ref, err := suites.StartReference(ctx, transport.HTTP, server.ReferenceOptions{Variant: f}, exe)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ref.Stop)
		s, ok := catalogue.All().Find("tasks-isolation")
		Expect(ok).To(BeTrue())
		res := scenarios.Execute(ctx, s, scenarios.Env{Target: ref.Target, Version: "2025-11-25", Transport: transport.HTTP,
			AuthTokens: tokens, Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second}})
		out := map[string]scenarios.Verdict{}
		for _, v := range res.Verdicts {
			out[v.Check.ID] = v
		}
		return out
	}

	It("judges the isolation checks as MUST, and a leak fails at that level", func(ctx SpecContext) {
		v := isolation(ctx, server.LeakGetForeign, []string{"token-alice", "token-bob"})
		Expect(v["tasks-isolation/foreign-get-rejected"].Outcome).To(Equal(scenarios.Fail))
		Expect(v["tasks-isolation/foreign-get-rejected"].Check.Level).To(Equal(scenarios.Must))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], false)).To(BeEquivalentTo("failed"))
		// The indistinguishability rule stays a SHOULD either way.
		Expect(v["tasks-isolation/indistinguishable-errors"].Check.Level).To(Equal(scenarios.Should))
	}, SpecTimeout(time.Minute))

	It("keeps them SHOULD across plain sessions, so a leak is a warning unless --strict", func(ctx SpecContext) {
		v := isolation(ctx, server.LeakGetForeign, nil)
		Expect(v["tasks-isolation/foreign-get-rejected"].Check.Level).To(Equal(scenarios.Should))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], false)).To(BeEquivalentTo("warning"))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], true)).To(BeEquivalentTo("failed"))
	}, SpecTimeout(time.Minute))

	It("passes the conformant reference with tokens", func(ctx SpecContext) {
		for id, v := range isolation(ctx, nil, []string{"token-alice", "token-bob"}) {
			Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), id+": "+v.Message)
		}
	}, SpecTimeout(time.Minute))
})
