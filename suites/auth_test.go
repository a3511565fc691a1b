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
		// The indistinguishability rule stays a SHOULD either way (and opt-in).
		Expect(v["tasks-isolation/indistinguishable-errors"].Check.Level).To(Equal(scenarios.Should))
		Expect(v["tasks-isolation/indistinguishable-errors"].Check.Profile).To(Equal("strict-isolation"))
	}, SpecTimeout(time.Minute))

	It("keeps them SHOULD across plain sessions, so a leak is a warning unless --strict", func(ctx SpecContext) {
		v := isolation(ctx, server.LeakGetForeign, nil)
		Expect(v["tasks-isolation/foreign-get-rejected"].Check.Level).To(Equal(scenarios.Should))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], false)).To(BeEquivalentTo("warning"))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], true)).To(BeEquivalentTo("failed"))
	}, SpecTimeout(time.Minute))

	It("accepts any error for a foreign task at MUST, whatever its code", func(ctx SpecContext) {
		// Old verdict with two tokens: FAIL foreign-get-rejected,
		// foreign-result-rejected and foreign-cancel-rejected, "Expected:
		// error -32602 / Actual: error -32001": the spec names no code.
		v := isolation(ctx, server.ForeignTaskOtherCode, []string{"token-alice", "token-bob"})
		for _, id := range []string{"tasks-isolation/foreign-get-rejected", "tasks-isolation/foreign-result-rejected", "tasks-isolation/foreign-cancel-rejected"} {
			Expect(v[id].Check.Level).To(Equal(scenarios.Must), id)
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), id+": "+v[id].Message)
		}
		// Whether the rejection tells a foreign task from an unknown id is
		// the opt-in strict-isolation profile's affair.
		Expect(v["tasks-isolation/indistinguishable-errors"].Outcome).To(Equal(scenarios.Skip))
	}, SpecTimeout(time.Minute))

	It("passes the conformant reference with tokens", func(ctx SpecContext) {
		for id, v := range isolation(ctx, nil, []string{"token-alice", "token-bob"}) {
			Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), id+": "+v.Message)
		}
	}, SpecTimeout(time.Minute))
})

var _ = Describe("tasks-extension isolation with two authorization contexts (2026-07-28)", func() {
	isolation := func(ctx context.Context, kind transport.Kind, f *fault.Fault, tokens []string) map[string]scenarios.Verdict {
		ref, err := suites.StartReference(ctx, kind, server.ReferenceOptions{Variant: f}, exe)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ref.Stop)
		s, ok := catalogue.All().Find("tasksext-isolation")
		Expect(ok).To(BeTrue())
		res := scenarios.Execute(ctx, s, scenarios.Env{Target: ref.Target, Version: "2026-07-28", Transport: kind,
			AuthTokens: tokens, Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second}})
		out := map[string]scenarios.Verdict{}
		for _, v := range res.Verdicts {
			out[v.Check.ID] = v
		}
		return out
	}
	binding := []string{"tasksext-isolation/foreign-get-rejected", "tasksext-isolation/foreign-update-rejected",
		"tasksext-isolation/foreign-cancel-rejected", "tasksext-isolation/foreign-no-effect"}
	tokens := []string{"token-alice", "token-bob"}

	It("judges the binding checks as MUST with two tokens, and the conformant reference passes them", func(ctx SpecContext) {
		v := isolation(ctx, transport.HTTP, nil, tokens)
		for _, id := range append(binding, "tasksext-isolation/unguessable-ids") {
			Expect(v[id].Check.Level).To(Equal(scenarios.Must), id)
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), id+": "+v[id].Message)
		}
	}, SpecTimeout(time.Minute))

	It("fails a server that ignores the binding, at MUST, with two tokens", func(ctx SpecContext) {
		v := isolation(ctx, transport.HTTP, server.ForeignTaskServed, tokens)
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Fail), id)
			Expect(suites.Status(v[id], false)).To(BeEquivalentTo("failed"), id)
		}
		Expect(v["tasksext-isolation/unguessable-ids"].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	It("fails each narrower binding fault on its own check only", func(ctx SpecContext) {
		for f, id := range map[*fault.Fault]string{server.ForeignGetServed: binding[0], server.ForeignUpdateAcked: binding[1],
			server.ForeignCancelAcked: binding[2]} {
			v := isolation(ctx, transport.HTTP, f, tokens)
			for _, other := range binding {
				want := scenarios.Pass
				if other == id {
					want = scenarios.Fail
				}
				Expect(v[other].Outcome).To(Equal(want), f.Name+" on "+other+": "+v[other].Message)
			}
		}
	}, SpecTimeout(2*time.Minute))

	It("accepts any error for a foreign task, whatever its code", func(ctx SpecContext) {
		v := isolation(ctx, transport.HTTP, server.ForeignTaskForbidden, tokens)
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), id+": "+v[id].Message)
		}
	}, SpecTimeout(time.Minute))

	It("does not blame the binding for a server that acknowledges unknown ids as well", func(ctx SpecContext) {
		// Its acknowledgement of B's update and cancel grants B nothing;
		// tasksext-lifecycle judges the unknown ids.
		v := isolation(ctx, transport.HTTP, server.UnknownTaskAcked, tokens)
		Expect(v[binding[0]].Outcome).To(Equal(scenarios.Pass))
		Expect(v[binding[1]].Outcome).To(Equal(scenarios.Skip))
		Expect(v[binding[2]].Outcome).To(Equal(scenarios.Skip))
		Expect(v[binding[3]].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	It("skips the binding checks without two tokens, even against a server that ignores the binding", func(ctx SpecContext) {
		// Without two authorization contexts there is nothing to bind a
		// task to: a skip with the reason, never a failure.
		v := isolation(ctx, transport.HTTP, server.ForeignTaskServed, nil)
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Skip), id)
			Expect(v[id].Message).To(ContainSubstring("no two authorization contexts"), id)
		}
		Expect(v["tasksext-isolation/unguessable-ids"].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	It("skips the binding checks over stdio even with two tokens: no header carries them", func(ctx SpecContext) {
		v := isolation(ctx, transport.Stdio, server.ForeignTaskServed, tokens)
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Skip), id)
		}
	}, SpecTimeout(time.Minute))

	It("judges id entropy without tokens: sequential ids fail", func(ctx SpecContext) {
		v := isolation(ctx, transport.HTTP, server.SequentialExtTaskIDs, nil)
		Expect(v["tasksext-isolation/unguessable-ids"].Outcome).To(Equal(scenarios.Fail))
		Expect(v["tasksext-isolation/unguessable-ids"].Check.Level).To(Equal(scenarios.Must))
	}, SpecTimeout(time.Minute))
})
