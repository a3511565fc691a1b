package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/internal/ahead"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// isolationRun is one run of an isolation scenario against a reference
// variant, made ahead of the spec that judges it.
type isolationRun struct {
	err      error
	found    bool
	verdicts map[string]scenarios.Verdict
}

// runIsolation runs scenario against the variant f over kind at version
// with tokens (without assertions: it may run ahead of its spec).
func runIsolation(ctx context.Context, kind transport.Kind, version, scenario string, f *fault.Fault, tokens []string) isolationRun {
	ref, err := suites.StartReference(ctx, kind, server.ReferenceOptions{Variant: f}, exe)
	if err != nil {
		return isolationRun{err: err}
	}
	defer ref.Stop()
	s, ok := catalogue.All().Find(scenario)
	if !ok {
		return isolationRun{}
	}
	res := scenarios.Execute(ctx, s, scenarios.Env{Target: ref.Target, Version: version, Transport: kind,
		AuthTokens: tokens, Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second}})
	out := map[string]scenarios.Verdict{}
	for _, v := range res.Verdicts {
		out[v.Check.ID] = v
	}
	return isolationRun{found: true, verdicts: out}
}

// judged asserts that the run could be made and returns its verdicts by
// check id.
func (r isolationRun) judged() map[string]scenarios.Verdict {
	Expect(r.err).NotTo(HaveOccurred())
	Expect(r.found).To(BeTrue())
	return r.verdicts
}

const taskIsolation = "task isolation with two authorization contexts"

var _ = Describe(taskIsolation, func() {
	// isolation makes, ahead of the spec text, the run of tasks-isolation
	// over HTTP against f with tokens.
	isolation := func(text string, f *fault.Fault, tokens []string) ahead.Work[isolationRun] {
		return runAhead(taskIsolation+" "+text, time.Minute, func(ctx context.Context) isolationRun {
			return runIsolation(ctx, transport.HTTP, "2025-11-25", "tasks-isolation", f, tokens)
		})
	}

	const mustLeak = "judges the isolation checks as MUST, and a leak fails at that level"
	mustLeakRun := isolation(mustLeak, server.LeakGetForeign, []string{"token-alice", "token-bob"})
	It(mustLeak, func(ctx SpecContext) {
		v := mustLeakRun.Get().judged()
		Expect(v["tasks-isolation/foreign-get-rejected"].Outcome).To(Equal(scenarios.Fail))
		Expect(v["tasks-isolation/foreign-get-rejected"].Check.Level).To(Equal(scenarios.Must))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], false)).To(BeEquivalentTo("failed"))
		// The indistinguishability rule stays a SHOULD either way (and opt-in).
		Expect(v["tasks-isolation/indistinguishable-errors"].Check.Level).To(Equal(scenarios.Should))
		Expect(v["tasks-isolation/indistinguishable-errors"].Check.Profile).To(Equal("strict-isolation"))
	}, SpecTimeout(time.Minute))

	const shouldLeak = "keeps them SHOULD across plain sessions, so a leak is a warning unless --strict"
	shouldLeakRun := isolation(shouldLeak, server.LeakGetForeign, nil)
	It(shouldLeak, func(ctx SpecContext) {
		v := shouldLeakRun.Get().judged()
		Expect(v["tasks-isolation/foreign-get-rejected"].Check.Level).To(Equal(scenarios.Should))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], false)).To(BeEquivalentTo("warning"))
		Expect(suites.Status(v["tasks-isolation/foreign-get-rejected"], true)).To(BeEquivalentTo("failed"))
	}, SpecTimeout(time.Minute))

	const anyError = "accepts any error for a foreign task at MUST, whatever its code"
	anyErrorRun := isolation(anyError, server.ForeignTaskOtherCode, []string{"token-alice", "token-bob"})
	It(anyError, func(ctx SpecContext) {
		// Old verdict with two tokens: FAIL foreign-get-rejected,
		// foreign-result-rejected and foreign-cancel-rejected, "Expected:
		// error -32602 / Actual: error -32001": the spec names no code.
		v := anyErrorRun.Get().judged()
		for _, id := range []string{"tasks-isolation/foreign-get-rejected", "tasks-isolation/foreign-result-rejected", "tasks-isolation/foreign-cancel-rejected"} {
			Expect(v[id].Check.Level).To(Equal(scenarios.Must), id)
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), id+": "+v[id].Message)
		}
		// Whether the rejection tells a foreign task from an unknown id is
		// the opt-in strict-isolation profile's affair.
		Expect(v["tasks-isolation/indistinguishable-errors"].Outcome).To(Equal(scenarios.Skip))
	}, SpecTimeout(time.Minute))

	const conformant = "passes the conformant reference with tokens"
	conformantRun := isolation(conformant, nil, []string{"token-alice", "token-bob"})
	It(conformant, func(ctx SpecContext) {
		for id, v := range conformantRun.Get().judged() {
			Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), id+": "+v.Message)
		}
	}, SpecTimeout(time.Minute))
})

const extIsolation = "tasks-extension isolation with two authorization contexts (2026-07-28)"

var _ = Describe(extIsolation, func() {
	// isolation makes, ahead of the spec text, the run of
	// tasksext-isolation over kind against f with tokens.
	isolation := func(text string, kind transport.Kind, f *fault.Fault, tokens []string) ahead.Work[isolationRun] {
		return runAhead(extIsolation+" "+text, time.Minute, func(ctx context.Context) isolationRun {
			return runIsolation(ctx, kind, "2026-07-28", "tasksext-isolation", f, tokens)
		})
	}
	binding := []string{"tasksext-isolation/foreign-get-rejected", "tasksext-isolation/foreign-update-rejected",
		"tasksext-isolation/foreign-cancel-rejected", "tasksext-isolation/foreign-no-effect"}
	tokens := []string{"token-alice", "token-bob"}

	const mustBinding = "judges the binding checks as MUST with two tokens, and the conformant reference passes them"
	mustBindingRun := isolation(mustBinding, transport.HTTP, nil, tokens)
	It(mustBinding, func(ctx SpecContext) {
		v := mustBindingRun.Get().judged()
		for _, id := range append(binding, "tasksext-isolation/unguessable-ids") {
			Expect(v[id].Check.Level).To(Equal(scenarios.Must), id)
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), id+": "+v[id].Message)
		}
	}, SpecTimeout(time.Minute))

	const ignoresBinding = "fails a server that ignores the binding, at MUST, with two tokens"
	ignoresBindingRun := isolation(ignoresBinding, transport.HTTP, server.ForeignTaskServed, tokens)
	It(ignoresBinding, func(ctx SpecContext) {
		v := ignoresBindingRun.Get().judged()
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Fail), id)
			Expect(suites.Status(v[id], false)).To(BeEquivalentTo("failed"), id)
		}
		Expect(v["tasksext-isolation/unguessable-ids"].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	const narrower = "fails each narrower binding fault on its own check only"
	narrowerRuns := runAhead(extIsolation+" "+narrower, 2*time.Minute, func(ctx context.Context) map[*fault.Fault]isolationRun {
		runs := map[*fault.Fault]isolationRun{}
		for _, f := range []*fault.Fault{server.ForeignGetServed, server.ForeignUpdateAcked, server.ForeignCancelAcked} {
			runs[f] = runIsolation(ctx, transport.HTTP, "2026-07-28", "tasksext-isolation", f, tokens)
		}
		return runs
	})
	It(narrower, func(ctx SpecContext) {
		runs := narrowerRuns.Get()
		for f, id := range map[*fault.Fault]string{server.ForeignGetServed: binding[0], server.ForeignUpdateAcked: binding[1],
			server.ForeignCancelAcked: binding[2]} {
			v := runs[f].judged()
			for _, other := range binding {
				want := scenarios.Pass
				if other == id {
					want = scenarios.Fail
				}
				Expect(v[other].Outcome).To(Equal(want), f.Name+" on "+other+": "+v[other].Message)
			}
		}
	}, SpecTimeout(2*time.Minute))

	const anyError = "accepts any error for a foreign task, whatever its code"
	anyErrorRun := isolation(anyError, transport.HTTP, server.ForeignTaskForbidden, tokens)
	It(anyError, func(ctx SpecContext) {
		v := anyErrorRun.Get().judged()
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), id+": "+v[id].Message)
		}
	}, SpecTimeout(time.Minute))

	const unknownAcked = "does not blame the binding for a server that acknowledges unknown ids as well"
	unknownAckedRun := isolation(unknownAcked, transport.HTTP, server.UnknownTaskAcked, tokens)
	It(unknownAcked, func(ctx SpecContext) {
		// Its acknowledgement of B's update and cancel grants B nothing;
		// tasksext-lifecycle judges the unknown ids.
		v := unknownAckedRun.Get().judged()
		Expect(v[binding[0]].Outcome).To(Equal(scenarios.Pass))
		Expect(v[binding[1]].Outcome).To(Equal(scenarios.Skip))
		Expect(v[binding[2]].Outcome).To(Equal(scenarios.Skip))
		Expect(v[binding[3]].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	const noTokens = "skips the binding checks without two tokens, even against a server that ignores the binding"
	noTokensRun := isolation(noTokens, transport.HTTP, server.ForeignTaskServed, nil)
	It(noTokens, func(ctx SpecContext) {
		// Without two authorization contexts there is nothing to bind a
		// task to: a skip with the reason, never a failure.
		v := noTokensRun.Get().judged()
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Skip), id)
			Expect(v[id].Message).To(ContainSubstring("no two authorization contexts"), id)
		}
		Expect(v["tasksext-isolation/unguessable-ids"].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	const overStdio = "skips the binding checks over stdio even with two tokens: no header carries them"
	overStdioRun := isolation(overStdio, transport.Stdio, server.ForeignTaskServed, tokens)
	It(overStdio, func(ctx SpecContext) {
		v := overStdioRun.Get().judged()
		for _, id := range binding {
			Expect(v[id].Outcome).To(Equal(scenarios.Skip), id)
		}
	}, SpecTimeout(time.Minute))

	const entropy = "judges id entropy without tokens: sequential ids fail"
	entropyRun := isolation(entropy, transport.HTTP, server.SequentialExtTaskIDs, nil)
	It(entropy, func(ctx SpecContext) {
		v := entropyRun.Get().judged()
		Expect(v["tasksext-isolation/unguessable-ids"].Outcome).To(Equal(scenarios.Fail))
		Expect(v["tasksext-isolation/unguessable-ids"].Check.Level).To(Equal(scenarios.Must))
	}, SpecTimeout(time.Minute))
})
