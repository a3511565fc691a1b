package suites_test

import (
	"context"
	"fmt"
	"slices"
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

// The tasks family's liberties: conformant variants of the reference that
// each take the other side of a choice the spec leaves open. Each ran first
// against the checks as they were; the comment names that old verdict. Now
// every check of the scenarios they exercise must pass them (or skip, where
// there is nothing to judge), and the checks that name them must pass.

// taskRun is a run of scenarios against a reference variant over one
// transport at 2025-11-25, made ahead of the spec that judges it.
type taskRun struct {
	ids      []string
	err      error
	verdicts map[string]scenarios.Verdict
}

// runTasks runs the given scenarios (without assertions: it may run ahead
// of its spec) and keeps every verdict by check id.
func runTasks(ctx context.Context, tr transport.Kind, opts server.ReferenceOptions, env scenarios.Env, ids ...string) taskRun {
	run := taskRun{ids: ids, verdicts: map[string]scenarios.Verdict{}}
	ref, err := suites.StartReference(ctx, tr, opts, exe)
	if err != nil {
		run.err = err
		return run
	}
	defer ref.Stop()
	env.Target, env.Version, env.Transport = ref.Target, "2025-11-25", tr
	if env.Timing.ResponseTimeout == 0 {
		env.Timing.ResponseTimeout = 3 * time.Second
	}
	for _, id := range ids {
		s, ok := catalogue.All().Find(id)
		if !ok {
			break // judged by the spec
		}
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		res := scenarios.Execute(sctx, s, env)
		cancel()
		for _, v := range res.Verdicts {
			run.verdicts[v.Check.ID] = v
		}
	}
	return run
}

// judged asserts that the run could be made and returns its verdicts by
// check id.
func (r taskRun) judged() map[string]scenarios.Verdict {
	Expect(r.err).NotTo(HaveOccurred())
	for _, id := range r.ids {
		_, ok := catalogue.All().Find(id)
		Expect(ok).To(BeTrue(), id)
	}
	return r.verdicts
}

// scenariosOf lists the scenarios of the checks that exercise a liberty.
func scenariosOf(l *fault.Fault) []string {
	var ids []string
	for _, s := range catalogue.All() {
		for _, c := range catalogue.All().Exercisers()[l] {
			if slices.Contains(s.Checks, c) && !slices.Contains(ids, s.ID) {
				ids = append(ids, s.ID)
			}
		}
	}
	return ids
}

const tasksLiberties = "the tasks family's liberties"

var _ = Describe(tasksLiberties, func() {
	const passEvery = "pass every check of the scenarios that exercise them"
	entry := func(l *fault.Fault, old string) TableEntry {
		work := runAhead(tasksLiberties+" "+passEvery+" "+l.Name, 0, func(ctx context.Context) taskRun {
			return runTasks(ctx, transport.HTTP, server.ReferenceOptions{Variant: l}, scenarios.Env{}, scenariosOf(l)...)
		})
		return Entry(l.Name, l, old, work)
	}
	// Over HTTP, where every one of them shows; the self-test table in
	// faults_test.go runs them over every transport and version.
	DescribeTable(passEvery,
		func(ctx SpecContext, l *fault.Fault, old string, work ahead.Work[taskRun]) {
			ids := scenariosOf(l)
			Expect(ids).NotTo(BeEmpty())
			Expect(l.ObservableOn(transport.HTTP, "2025-11-25")).To(BeTrue())
			verdicts := work.Get().judged()
			for id, v := range verdicts {
				Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s: %s (before the correction: %s)", l.Name, id, v.Message, old)
			}
			for _, c := range catalogue.All().Exercisers()[l] {
				Expect(verdicts[c.ID].Outcome).To(Equal(scenarios.Pass), "%s: %s names it but was not judged: %s", l.Name, c.ID, verdicts[c.ID].Message)
			}
		},
		entry(server.DeletesCancelledTasks,
			`FAIL tasks-cancel-during-elicitation/stays-cancelled: Expected: status cancelled / Actual: error -32602 "Failed to retrieve task: Task not found"`),
		entry(server.ForeignTaskOtherCode,
			`WARN tasks-isolation/foreign-{get,result,cancel}-rejected: Expected: error -32602 / Actual: error -32001 (FAIL at MUST with two tokens)`),
		entry(server.InformativeTaskErrors,
			`WARN tasks-isolation/indistinguishable-errors: Expected: -32602 with the same message as for a never-existing id / Actual: "Task … belongs to another session"`),
		entry(server.ShortTTL,
			`PASS on the old scenario, which listed at once and never saw a task expire; with the expiry wait and the old judgement: FAIL tasks-list/own-tasks-listed "missing [the expired task]"`),
		entry(server.TimestampPrecision,
			`FAIL tasks-status/timestamps-consistent: Expected: createdAt …14.172000Z every time / Actual: createdAt …14.172Z (from get)`),
		entry(server.SecondTimestamps,
			`PASS in 30 of 30 runs: the reference's HTTP notifications happen to arrive in order; the old misjudgement of equal instants arriving out of order is reproduced in scenarios/server/tasks/helpers_test.go`),
		entry(server.RepeatsTerminalNotification,
			`WARN tasks-status/none-after-terminal: Expected: nothing after the terminal notification / Actual: 1 more: … "status":"completed"`),
		entry(server.DeclinedResumesWorking,
			`WARN tasks-elicitation-refused/{decline,cancel}-leaves-input-required: Expected: the task to leave input_required and reach a terminal status / Actual: task … still working: context deadline exceeded`),
		entry(server.NondeterministicOutput,
			`FAIL tasks-result/exact-result: Expected: the plain call's result {… "test_task_working finished (run 383841787035)."} / Actual: {… run …}`),
		entry(server.SlowPollNoNotifications,
			`SKIP tasks-cancel-terminal/rejected: not judged: the task did not finish: task … still working: context deadline exceeded`),
	)

	It("are every liberty of the tasks family", func() {
		// A new liberty gets an entry above, with its old verdict.
		var names []string
		for _, l := range server.Liberties() {
			for _, id := range scenariosOf(l) {
				if s, _ := catalogue.All().Find(id); s.Family == "tasks" && !slices.Contains(names, l.Name) {
					names = append(names, l.Name)
				}
			}
		}
		Expect(names).To(ConsistOf("declined-resumes-working", "deletes-cancelled-tasks", "foreign-task-other-code", "informative-task-errors",
			"nondeterministic-output", "repeats-terminal-notification", "second-timestamps", "short-ttl", "slow-poll-no-notifications", "timestamp-precision"))
	})

	const distinct = "judges the distinct messages under the opt-in strict-isolation profile, and only there"
	distinctRuns := runAhead(tasksLiberties+" "+distinct, time.Minute, func(ctx context.Context) [2]taskRun {
		return [2]taskRun{
			runTasks(ctx, transport.HTTP, server.ReferenceOptions{Variant: server.InformativeTaskErrors}, scenarios.Env{}, "tasks-isolation"),
			runTasks(ctx, transport.HTTP, server.ReferenceOptions{Variant: server.InformativeTaskErrors}, scenarios.Env{Profiles: []string{"strict-isolation"}}, "tasks-isolation"),
		}
	})
	It(distinct, func(ctx SpecContext) {
		// The default run skips indistinguishable-errors (no spec sentence
		// asks it of every server); asked for, it still catches the variant.
		runs := distinctRuns.Get()
		v := runs[0].judged()
		Expect(v["tasks-isolation/indistinguishable-errors"].Outcome).To(Equal(scenarios.Skip))
		Expect(v["tasks-isolation/indistinguishable-errors"].Message).To(ContainSubstring("opt-in profile strict-isolation"))
		strict := runs[1].judged()
		Expect(strict["tasks-isolation/indistinguishable-errors"].Outcome).To(Equal(scenarios.Fail))
		Expect(strict["tasks-isolation/indistinguishable-errors"].Check.Level).To(Equal(scenarios.Should))
	}, SpecTimeout(time.Minute))

	It("cites the design note for isolation across plain sessions", func() {
		for _, id := range []string{"foreign-get-rejected", "foreign-result-rejected", "foreign-cancel-rejected", "list-excludes-foreign",
			"foreign-cancel-no-effect", "no-foreign-notifications"} {
			c := checkByID("tasks-isolation/" + id)
			Expect(c.Level).To(Equal(scenarios.Should), id)
			Expect(c.Source).To(Equal("seps/1686-tasks.md#81-task-isolation-and-access-control"), id)
		}
	})

	const slowPoll = "waits for a task at its pollInterval of 5000 ms and asks for its held question on input_required"
	slowPollRun := runAhead(tasksLiberties+" "+slowPoll, 3*time.Minute, func(ctx context.Context) taskRun {
		var ids []string
		for _, s := range catalogue.All() {
			if s.Family == "tasks" && s.AppliesTo("2025-11-25", transport.HTTP) {
				ids = append(ids, s.ID)
			}
		}
		return runTasks(ctx, transport.HTTP, server.ReferenceOptions{Variant: server.SlowPollNoNotifications, HoldTaskRequests: true}, scenarios.Env{}, ids...)
	}).First() // long: it waits out 5 s polls
	It(slowPoll, func(ctx SpecContext) {
		// The slow-poll variant that also sends a task's question only on a
		// pending tasks/result (as the TypeScript SDK does). Old verdict:
		// each wait lasted one answer timeout, so the question (only seen
		// after a poll reading input_required) and the finish were missed.
		v := slowPollRun.Get().judged()
		passed := 0
		for id, verdict := range v {
			Expect(verdict.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s", id, verdict.Message)
			if verdict.Outcome == scenarios.Pass {
				passed++
			}
		}
		for _, id := range []string{"tasks-cancel-terminal/rejected", "tasks-elicitation-refused/decline-leaves-input-required",
			"tasks-cancel-during-elicitation/stays-cancelled", "tasks-status/transitions-legal", "tasks-result/blocks-until-terminal"} {
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), "%s: %s", id, v[id].Message)
		}
		Expect(passed).To(BeNumerically(">=", 30))
	}, SpecTimeout(3*time.Minute))
})

const correctedCatches = "the tasks family's corrected catches"

var _ = Describe(correctedCatches, func() {
	const earlyError = "judges blocking on an early error, and the result on its own"
	earlyErrorRun := runAhead(correctedCatches+" "+earlyError, time.Minute, func(ctx context.Context) taskRun {
		return runTasks(ctx, transport.WS, server.ReferenceOptions{Variant: server.ResultErrorWhileWorking}, scenarios.Env{}, "tasks-result")
	})
	It(earlyError, func(ctx SpecContext) {
		// Old verdict: an error from tasks/result failed exact-result and
		// skipped blocks-until-terminal ("not judged: tasks/result gave no
		// result"), so a server that refuses tasks/result while the task
		// works was never caught for not blocking.
		v := earlyErrorRun.Get().judged()
		Expect(v["tasks-result/blocks-until-terminal"].Outcome).To(Equal(scenarios.Fail))
		for _, id := range []string{"tasks-result/completes-uncancelled", "tasks-result/exact-result", "tasks-result/related-task-meta"} {
			Expect(v[id].Outcome).To(Equal(scenarios.Pass), "%s: %s", id, v[id].Message)
		}
	}, SpecTimeout(time.Minute))

	const cancelsOwn = "fails a server that cancels its own tasks, and blames nothing else on it"
	cancelsOwnRun := runAhead(correctedCatches+" "+cancelsOwn, time.Minute, func(ctx context.Context) taskRun {
		return runTasks(ctx, transport.HTTP, server.ReferenceOptions{Variant: server.CancelsOwnTasks}, scenarios.Env{},
			"tasks-result", "tasks-isolation", "tasks-failing", "tasks-cancel-terminal")
	})
	It(cancelsOwn, func(ctx SpecContext) {
		// Old verdict: every check passed or was skipped; in particular
		// tasks-cancel-terminal/rejected passed (a cancelled task is terminal).
		v := cancelsOwnRun.Get().judged()
		Expect(v["tasks-result/completes-uncancelled"].Outcome).To(Equal(scenarios.Fail))
		Expect(v["tasks-result/completes-uncancelled"].Message).To(ContainSubstring("status cancelled"))
		for id, verdict := range v {
			if id != "tasks-result/completes-uncancelled" {
				Expect(verdict.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s", id, verdict.Message)
			}
		}
		Expect(v["tasks-isolation/foreign-cancel-no-effect"].Message).To(ContainSubstring("a task nobody cancelled ended cancelled too"))
	}, SpecTimeout(time.Minute))

	const afterCancel = "judges a response after notifications/cancelled on a plain long-running call"
	afterCancelRuns := runAhead(correctedCatches+" "+afterCancel, time.Minute, func(ctx context.Context) [][2]taskRun {
		var runs [][2]taskRun
		// A response after the cancellation is seen only within the quiet
		// window: a busy machine is slow to send it.
		watch := scenarios.Env{Timing: scenarios.Timing{QuietWindow: time.Second}}
		for _, tr := range transports {
			runs = append(runs, [2]taskRun{
				runTasks(ctx, tr, server.ReferenceOptions{Variant: server.RespondsAfterCancel}, watch, "tools-cancel-long-running"),
				runTasks(ctx, tr, server.ReferenceOptions{}, watch, "tools-cancel-long-running"),
			})
		}
		return runs
	})
	It(afterCancel, func(ctx SpecContext) {
		// Old verdict: only tools-cancel-during-elicitation judged it, so a
		// target without an elicitation fixture was never judged.
		runs := afterCancelRuns.Get()
		for i, tr := range transports {
			v := runs[i][0].judged()
			Expect(v["tools-cancel-long-running/no-response-after-cancel"].Outcome).To(Equal(scenarios.Fail), "over %s", tr)
			ok := runs[i][1].judged()
			Expect(ok["tools-cancel-long-running/no-response-after-cancel"].Outcome).To(Equal(scenarios.Pass), "over %s: %s", tr, ok["tools-cancel-long-running/no-response-after-cancel"].Message)
		}
	}, SpecTimeout(time.Minute))
})

func checkByID(id string) *scenarios.Check {
	for _, c := range catalogue.All().Checks() {
		if c.ID == id {
			return c
		}
	}
	Fail(fmt.Sprintf("no check %s", id))
	return nil
}
