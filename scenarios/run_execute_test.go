package scenarios

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transport"
	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gs "github.com/onsi/gomega/gstruct"
)

// synthetic builds a scenario "synthetic" whose checks are
// synthetic/<name>, all at SHOULD, with the given body.
func synthetic(run func(t *T), names ...string) *Scenario {
	s := &Scenario{
		ID:       "synthetic",
		Title:    "a synthetic scenario",
		Family:   "synthetic",
		Side:     ServerSide,
		Versions: []string{"2025-11-25"},
		Run:      run,
	}
	for _, n := range names {
		s.Checks = append(s.Checks, &Check{
			ID:    "synthetic/" + n,
			Title: "the " + n + " requirement",
			Level: Should,
			Spec:  "2025-11-25/basic/index.mdx",
		})
	}
	return s
}

// named is the scenario's check synthetic/<name>; a name it lacks gives a
// check of no scenario, as a misuse would.
func named(t *T, name string) *Check {
	for _, c := range t.Scenario().Checks {
		if c.ID == "synthetic/"+name {
			return c
		}
	}
	return &Check{ID: "synthetic/" + name}
}

// outcomes maps check ids to their outcome, and messages to their message.
func outcomes(r *Result) map[string]Outcome {
	out := map[string]Outcome{}
	for _, v := range r.Verdicts {
		out[v.Check.ID] = v.Outcome
	}
	return out
}

func messages(r *Result) map[string]string {
	out := map[string]string{}
	for _, v := range r.Verdicts {
		out[v.Check.ID] = v.Message
	}
	return out
}

func ids(r *Result) []string {
	var out []string
	for _, v := range r.Verdicts {
		out = append(out, v.Check.ID)
	}
	return out
}

const (
	endedWithout = "the scenario ended without judging this check (a defect in mcpconform)"
	pastDeadline = "the scenario deadline passed before this check was judged (raise --timeout?)"
)

var _ = g.Describe("Execute", func() {
	var ctx context.Context

	g.BeforeEach(func() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		g.DeferCleanup(cancel)
	})

	g.It("gives every check a verdict, in catalogue order, whatever order the body judged them in", func() {
		s := synthetic(func(t *T) {
			t.Skip(named(t, "c"), "the target lacks the fixture")
			t.Fail(named(t, "b"), "error -32602", "result {}")
			t.Pass(named(t, "a"))
		}, "a", "b", "c")
		r := Execute(ctx, s, Env{})
		Expect(r.Scenario).To(BeIdenticalTo(s))
		Expect(ids(r)).To(Equal([]string{"synthetic/a", "synthetic/b", "synthetic/c"}))
		Expect(r.Verdicts[0]).To(gs.MatchFields(gs.IgnoreExtras, gs.Fields{
			"Check":   Equal(*s.Checks[0]),
			"Outcome": Equal(Pass),
			"Message": BeEmpty(),
		}))
		Expect(r.Verdicts[1]).To(gs.MatchFields(gs.IgnoreExtras, gs.Fields{
			"Check":   Equal(*s.Checks[1]),
			"Outcome": Equal(Fail),
			"Message": Equal("Expected: error -32602\nActual:   result {}"),
		}))
		Expect(r.Verdicts[2]).To(gs.MatchFields(gs.IgnoreExtras, gs.Fields{
			"Check":   Equal(*s.Checks[2]),
			"Outcome": Equal(Skip),
			"Message": Equal("the target lacks the fixture"),
		}))
		for _, v := range r.Verdicts {
			Expect(v.At).To(BeNumerically(">=", 0))
			Expect(v.At).To(BeNumerically("<=", r.Duration))
		}
		Expect(r.Stderr).To(BeEmpty(), "no session was opened")
	})

	g.It("gives a verdict to a scenario without checks: none", func() {
		ran := false
		r := Execute(ctx, synthetic(func(*T) { ran = true }), Env{})
		Expect(ran).To(BeTrue())
		Expect(r.Verdicts).To(BeEmpty())
	})

	g.It("passes or fails with Judge and reports which", func() {
		var yes, no bool
		r := Execute(ctx, synthetic(func(t *T) {
			yes = t.Judge(named(t, "a"), true, "x", "x")
			no = t.Judge(named(t, "b"), false, "status working", "status completed")
		}, "a", "b"), Env{})
		Expect(yes).To(BeTrue())
		Expect(no).To(BeFalse())
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Fail}))
		Expect(messages(r)["synthetic/a"]).To(BeEmpty())
		Expect(messages(r)["synthetic/b"]).To(Equal("Expected: status working\nActual:   status completed"))
	})

	g.Context("judging the same check twice", func() {
		g.It("keeps the first failure over a later pass", func() {
			r := Execute(ctx, synthetic(func(t *T) {
				t.Fail(named(t, "a"), "first", "one")
				t.Pass(named(t, "a"))
				t.Judge(named(t, "a"), true, "", "")
			}, "a"), Env{})
			Expect(r.Verdicts).To(HaveLen(1))
			Expect(r.Verdicts[0].Outcome).To(Equal(Fail))
			Expect(r.Verdicts[0].Message).To(Equal("Expected: first\nActual:   one"))
		})

		g.It("keeps the first failure over a later failure or skip", func() {
			r := Execute(ctx, synthetic(func(t *T) {
				t.Fail(named(t, "a"), "first", "one")
				t.Fail(named(t, "a"), "second", "two")
				t.Skip(named(t, "a"), "never mind")
			}, "a"), Env{})
			Expect(r.Verdicts[0].Outcome).To(Equal(Fail))
			Expect(r.Verdicts[0].Message).To(Equal("Expected: first\nActual:   one"))
		})

		g.It("lets a later failure override a pass", func() {
			r := Execute(ctx, synthetic(func(t *T) {
				t.Pass(named(t, "a"))
				t.Fail(named(t, "a"), "no error", "error -32603")
			}, "a"), Env{})
			Expect(r.Verdicts[0].Outcome).To(Equal(Fail))
			Expect(r.Verdicts[0].Message).To(Equal("Expected: no error\nActual:   error -32603"))
		})
	})

	g.It("skips the checks not yet judged with \"not judged: …\" when the body is Blocked", func() {
		after := false
		r := Execute(ctx, synthetic(func(t *T) {
			t.Fail(named(t, "a"), "an InitializeResult", "error -32600")
			t.Pass(named(t, "c"))
			t.Blocked("the %s handshake failed: %v", "initialize", errors.New("error -32600"))
			after = true
			t.Pass(named(t, "b"))
		}, "a", "b", "c", "d"), Env{})
		Expect(after).To(BeFalse(), "Blocked stops the body")
		Expect(outcomes(r)).To(Equal(map[string]Outcome{
			"synthetic/a": Fail, "synthetic/b": Skip, "synthetic/c": Pass, "synthetic/d": Skip,
		}))
		Expect(messages(r)["synthetic/b"]).To(Equal("not judged: the initialize handshake failed: error -32600"))
		Expect(messages(r)["synthetic/d"]).To(Equal("not judged: the initialize handshake failed: error -32600"))
	})

	g.It("abandons a body still stuck after the deadline and its grace, and reports without it", func() {
		stuck := make(chan struct{})
		defer close(stuck)
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		r := Execute(short, synthetic(func(t *T) {
			t.Pass(named(t, "a"))
			t.Step("wait on a target that never lets go")
			<-stuck // ignores t.Ctx, as a read no deadline bounds would
			t.Pass(named(t, "b"))
		}, "a", "b"), Env{})
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Errored}))
		Expect(messages(r)["synthetic/b"]).To(ContainSubstring("still running 2s after its deadline"))
		Expect(messages(r)["synthetic/b"]).To(ContainSubstring("step: wait on a target that never lets go"))
	})

	g.Describe("Lost", func() {
		g.It("fails the check that was running and leaves the rest not judged", func() {
			r := Execute(ctx, synthetic(func(t *T) {
				t.Pass(named(t, "a"))
				t.Lost("an answer to tools/list", "the target exited with status 1")
			}, "a", "b", "c"), Env{})
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Fail, "synthetic/c": Errored}))
			Expect(messages(r)["synthetic/b"]).To(Equal("Expected: an answer to tools/list\nActual:   the target exited with status 1"))
			Expect(messages(r)["synthetic/c"]).To(Equal("not judged: the target exited with status 1"))
		})
		g.It("adds no second failure when a check already carries one", func() {
			r := Execute(ctx, synthetic(func(t *T) {
				t.Fail(named(t, "a"), "an InitializeResult", "no answer")
				t.Lost("an answer", "no answer")
			}, "a", "b"), Env{})
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Fail, "synthetic/b": Errored}))
		})
		g.It("passes over opt-in checks whose profile is off, which the run does not report", func() {
			r := Execute(ctx, synthetic(func(t *T) {
				t.Lost("an answer", "no answer")
			}, "a", "b"), Env{})
			Expect(outcomes(r)["synthetic/a"]).To(Equal(Fail))
			c := synthetic(func(t *T) { t.Lost("an answer", "no answer") }, "a", "b")
			c.Checks[0].Profile = "strict-x"
			r = Execute(ctx, c, Env{})
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Skip, "synthetic/b": Fail}))
		})
		g.It("is not judged, not failed, once the scenario deadline has passed", func() {
			past, cancel := context.WithCancel(ctx)
			cancel()
			r := Execute(past, synthetic(func(t *T) { t.Lost("an answer", "no answer") }, "a"), Env{})
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Errored}))
		})
	})

	g.It("skips the checks not yet judged with the reason when the body calls SkipRest", func() {
		after := false
		r := Execute(ctx, synthetic(func(t *T) {
			t.Pass(named(t, "a"))
			t.SkipRest("the server does not declare capabilities.tasks")
			after = true
		}, "a", "b", "c"), Env{})
		Expect(after).To(BeFalse())
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Skip, "synthetic/c": Skip}))
		Expect(messages(r)["synthetic/c"]).To(Equal("the server does not declare capabilities.tasks"))
	})

	g.It("makes the checks not yet judged errors when the body Aborts", func() {
		after := false
		r := Execute(ctx, synthetic(func(t *T) {
			t.Skip(named(t, "a"), "not applicable")
			t.Abort("could not reach the target (%s): %v", "http: http://example.invalid/mcp", "refused")
			after = true
		}, "a", "b", "c"), Env{})
		Expect(after).To(BeFalse())
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Skip, "synthetic/b": Errored, "synthetic/c": Errored}))
		Expect(messages(r)["synthetic/b"]).To(Equal("could not reach the target (http: http://example.invalid/mcp): refused"))
	})

	g.DescribeTable("turns a panic in the body into errors carrying the panic text, and does not panic itself",
		func(value any, text string) {
			var r *Result
			Expect(func() {
				r = Execute(ctx, synthetic(func(t *T) {
					t.Pass(named(t, "a"))
					panic(value)
				}, "a", "b", "c"), Env{})
			}).NotTo(Panic())
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Errored, "synthetic/c": Errored}))
			for _, id := range []string{"synthetic/b", "synthetic/c"} {
				Expect(messages(r)[id]).To(HavePrefix("panic in scenario: " + text + "\n"))
				Expect(messages(r)[id]).To(ContainSubstring("goroutine"), "the stack is attached")
			}
		},
		g.Entry("a string", "boom", "boom"),
		g.Entry("an error", errors.New("kaput"), "kaput"),
		g.Entry("nil (a *runtime.PanicNilError)", nil, "panic called with nil argument"),
	)

	g.It("turns a runtime fault in the body into errors", func() {
		r := Execute(ctx, synthetic(func(t *T) {
			var m map[string]int
			m["x"] = 1
		}, "a"), Env{})
		Expect(r.Verdicts[0].Outcome).To(Equal(Errored))
		Expect(r.Verdicts[0].Message).To(HavePrefix("panic in scenario: assignment to entry in nil map"))
	})

	g.It("makes a check the body forgot an error: it ended without judging", func() {
		r := Execute(ctx, synthetic(func(t *T) {
			t.Pass(named(t, "a"))
		}, "a", "b"), Env{})
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Errored}))
		Expect(messages(r)["synthetic/b"]).To(Equal(endedWithout))
	})

	g.Context("past the context's deadline", func() {
		g.It("turns a failure recorded after it into an error, keeping the first failure before it", func() {
			run, cancel := context.WithCancel(ctx)
			defer cancel()
			r := Execute(run, synthetic(func(t *T) {
				t.Fail(named(t, "a"), "a response", "no response")
				cancel()
				Expect(t.Ctx.Err()).To(HaveOccurred())
				t.Fail(named(t, "a"), "ignored", "ignored")
				t.Fail(named(t, "b"), "a response", "no response: context canceled")
				t.Pass(named(t, "c"))
				t.Skip(named(t, "d"), "no fixture")
			}, "a", "b", "c", "d", "e"), Env{})
			Expect(outcomes(r)).To(Equal(map[string]Outcome{
				"synthetic/a": Fail, "synthetic/b": Errored, "synthetic/c": Pass, "synthetic/d": Skip, "synthetic/e": Errored,
			}))
			Expect(messages(r)["synthetic/a"]).To(Equal("Expected: a response\nActual:   no response"))
			Expect(messages(r)["synthetic/b"]).To(Equal(
				"the scenario deadline passed before this check was judged (Expected: a response\nActual:   no response: context canceled)"))
			Expect(messages(r)["synthetic/e"]).To(Equal(pastDeadline), "an unjudged check blames the deadline, not mcpconform")
		})

		g.It("applies to a context that was already done when Execute began", func() {
			done, cancel := context.WithCancel(ctx)
			cancel()
			r := Execute(done, synthetic(func(t *T) {
				t.Judge(named(t, "a"), false, "x", "y")
			}, "a", "b"), Env{})
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Errored, "synthetic/b": Errored}))
			Expect(messages(r)["synthetic/b"]).To(Equal(pastDeadline))
		})

		g.It("turns an Abort into the deadline error", func() {
			done, cancel := context.WithCancel(ctx)
			cancel()
			r := Execute(done, synthetic(func(t *T) { t.Abort("lost") }, "a"), Env{})
			Expect(r.Verdicts[0].Outcome).To(Equal(Errored))
			Expect(r.Verdicts[0].Message).To(Equal(pastDeadline))
		})

		g.It("keeps the skips of Blocked and SkipRest", func() {
			done, cancel := context.WithCancel(ctx)
			cancel()
			r := Execute(done, synthetic(func(t *T) { t.Blocked("ping failed") }, "a"), Env{})
			Expect(r.Verdicts[0].Outcome).To(Equal(Skip))
			Expect(r.Verdicts[0].Message).To(Equal("not judged: ping failed"))

			r = Execute(done, synthetic(func(t *T) { t.SkipRest("no capability") }, "a"), Env{})
			Expect(r.Verdicts[0].Outcome).To(Equal(Skip))
			Expect(r.Verdicts[0].Message).To(Equal("no capability"))
		})
	})

	g.It("raises the level of an escalated check in its verdict, judged or not, and says why in the transcript", func() {
		s := synthetic(func(t *T) {
			t.Escalate(named(t, "a"), Must, "two authorization contexts were given")
			t.Escalate(named(t, "b"), Must, "two authorization contexts were given")
			t.Fail(named(t, "a"), "error -32602", "the foreign task")
			t.Pass(named(t, "c"))
			// synthetic/b is left unjudged.
		}, "a", "b", "c")
		r := Execute(ctx, s, Env{})
		levels := map[string]Level{}
		for _, v := range r.Verdicts {
			levels[v.Check.ID] = v.Check.Level
		}
		Expect(levels).To(Equal(map[string]Level{"synthetic/a": Must, "synthetic/b": Must, "synthetic/c": Should}))
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Fail, "synthetic/b": Errored, "synthetic/c": Pass}))
		Expect(r.Transcript).To(ContainSubstring("synthetic/a judged at MUST: two authorization contexts were given"))
		Expect(s.Checks[0].Level).To(Equal(Should), "the catalogue itself is not changed")
	})

	g.DescribeTable("makes judging a check of another scenario a defect: the rest are errors",
		func(judge func(t *T)) {
			after := false
			r := Execute(ctx, synthetic(func(t *T) {
				t.Pass(named(t, "a"))
				judge(t)
				after = true
			}, "a", "b"), Env{})
			Expect(after).To(BeFalse())
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Errored}))
			Expect(messages(r)["synthetic/b"]).To(Equal(`scenario synthetic judged check synthetic/nope, which is not its own (a defect in mcpconform)`))
			Expect(ids(r)).NotTo(ContainElement("synthetic/nope"))
		},
		g.Entry("Pass", func(t *T) { t.Pass(named(t, "nope")) }),
		g.Entry("Fail", func(t *T) { t.Fail(named(t, "nope"), "x", "y") }),
		g.Entry("Judge", func(t *T) { t.Judge(named(t, "nope"), true, "x", "y") }),
		g.Entry("Skip", func(t *T) { t.Skip(named(t, "nope"), "why") }),
		g.Entry("Escalate", func(t *T) { t.Escalate(named(t, "nope"), Must, "why") }),
	)

	g.It("accepts verdicts from several goroutines of the body", func() {
		names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
		r := Execute(ctx, synthetic(func(t *T) {
			var wg sync.WaitGroup
			for i, n := range names {
				wg.Go(func() {
					id := named(t, n)
					t.Step("judge %s", id.ID)
					if i%2 == 0 {
						t.Escalate(id, Must, "even")
						t.Pass(id)
					} else {
						t.Fail(id, "x", "y")
					}
				})
			}
			wg.Wait()
		}, names...), Env{})
		Expect(r.Verdicts).To(HaveLen(len(names)))
		for i, v := range r.Verdicts {
			Expect(v.Check.ID).To(Equal("synthetic/" + names[i]))
			if i%2 == 0 {
				Expect(v.Outcome).To(Equal(Pass))
				Expect(v.Check.Level).To(Equal(Must))
			} else {
				Expect(v.Outcome).To(Equal(Fail))
				Expect(v.Check.Level).To(Equal(Should))
			}
			Expect(r.Transcript).To(ContainSubstring("step: judge synthetic/" + names[i]))
		}
	})

	g.It("closes the gate on Unreachable, and judges nothing behind a closed gate", func() {
		gate := &Gate{}
		ran := false
		r := Execute(ctx, synthetic(func(t *T) {
			t.Pass(named(t, "a"))
			t.Unreachable("initialize was not answered")
		}, "a", "b", "c"), Env{Gate: gate, Transport: "stdio", Version: "2025-11-25"})
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Pass, "synthetic/b": Fail, "synthetic/c": Errored}),
			"the check that was running fails: a target that cannot be reached must not pass")
		Expect(messages(r)["synthetic/b"]).To(Equal("Expected: the handshake to complete\nActual:   initialize was not answered"))
		Expect(messages(r)["synthetic/c"]).To(Equal("not judged: initialize was not answered"))
		reason, closed := gate.Closed()
		Expect(closed).To(BeTrue())
		Expect(reason).To(Equal("the target could not complete the handshake in synthetic over stdio at 2025-11-25: initialize was not answered"))

		r = Execute(ctx, synthetic(func(t *T) { ran = true }, "c"), Env{Gate: gate})
		Expect(ran).To(BeFalse(), "no body runs behind a closed gate")
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/c": Errored}))
		Expect(messages(r)["synthetic/c"]).To(Equal("not judged: " + reason))

		gate.Close("a later reason")
		again, _ := gate.Closed()
		Expect(again).To(Equal(reason), "the first reason stays")
	})

	g.DescribeTable("reports a version the target does not implement: one failure where it was asked for by name, information otherwise",
		func(explicit bool, want Outcome) {
			gate := &Gate{}
			env := Env{Gate: gate, Version: "2026-07-28", VersionExplicit: explicit}
			r := Execute(ctx, synthetic(func(t *T) {
				t.NotImplemented(named(t, "a"), "server/discover answered -32022")
			}, "a", "b"), env)
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": want, "synthetic/b": Skip}))
			Expect(messages(r)["synthetic/a"]).To(ContainSubstring("the target does not implement 2026-07-28"))
			Expect(messages(r)["synthetic/b"]).To(Equal("not judged: the target does not implement 2026-07-28 (server/discover answered -32022)"))
			Expect(gate.Unsupported()).To(BeTrue())

			ran := false
			r = Execute(ctx, synthetic(func(t *T) { ran = true }, "c"), env)
			Expect(ran).To(BeFalse())
			Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/c": Skip}), "the rest of the version is skipped, not errored")
		},
		g.Entry("named by --spec-version", true, Fail),
		g.Entry("under all or a default", false, Skip),
	)

	g.It("reports an opt-in check as skipped unless its profile is enabled", func() {
		s := synthetic(func(t *T) {
			t.Fail(named(t, "a"), "identical errors", "distinct errors")
			t.Pass(named(t, "b"))
		}, "a", "b")
		s.Checks[0].Profile = "strict-thing"
		r := Execute(ctx, s, Env{})
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Skip, "synthetic/b": Pass}))
		Expect(messages(r)["synthetic/a"]).To(ContainSubstring("opt-in profile strict-thing is not enabled (--profile strict-thing)"))
		r = Execute(ctx, s, Env{Profiles: []string{"strict-thing"}})
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Fail, "synthetic/b": Pass}))
	})

	g.It("runs the cleanups a driver registered, last first, even when the body aborts", func() {
		var order []string
		Execute(ctx, synthetic(func(t *T) {
			t.Cleanup(func() { order = append(order, "first") })
			t.Cleanup(func() { order = append(order, "second") })
			t.AddStderr("target said goodbye\n")
			t.Abort("cannot reach the target")
		}, "a"), Env{})
		Expect(order).To(Equal([]string{"second", "first"}))
	})

	g.It("keeps what the driver saw on stderr", func() {
		r := Execute(ctx, synthetic(func(t *T) {
			t.AddStderr("one\n")
			t.AddStderr("")
			t.AddStderr("two\n")
			t.Pass(named(t, "a"))
		}, "a"), Env{})
		Expect(r.Stderr).To(Equal("one\ntwo\n"))
	})

	g.It("announces steps to Env.Step and records them in the transcript", func() {
		var steps []string
		r := Execute(ctx, synthetic(func(t *T) {
			t.Step("call %s as a task on session %s", "test_task_working", "A")
			t.Step("no arguments")
			t.Pass(named(t, "a"))
		}, "a"), Env{Step: func(text string) { steps = append(steps, text) }})
		Expect(steps).To(Equal([]string{"call test_task_working as a task on session A", "no arguments"}))
		Expect(r.Transcript).To(ContainSubstring("step: call test_task_working as a task on session A\n"))
		Expect(r.Transcript).To(ContainSubstring("step: no arguments\n"))
	})

	g.It("records steps without an Env.Step", func() {
		r := Execute(ctx, synthetic(func(t *T) {
			t.Step("alone")
			Expect(t.Transcript().String()).To(ContainSubstring("step: alone"))
			t.Pass(named(t, "a"))
		}, "a"), Env{})
		Expect(r.Transcript).To(ContainSubstring("step: alone"))
	})

	g.Context("the environment handed to the body", func() {
		g.It("defaults the response timeout to 5s and the quiet window to 250ms", func() {
			var env Env
			var got context.Context
			Execute(ctx, synthetic(func(t *T) { env, got = t.Env, t.Ctx }), Env{Version: "2025-11-25", Transport: "stdio"})
			Expect(got).To(BeIdenticalTo(ctx))
			Expect(env.Timing.ResponseTimeout).To(Equal(5 * time.Second))
			Expect(env.Timing.QuietWindow).To(Equal(250 * time.Millisecond))
			Expect(env.Version).To(Equal("2025-11-25"))
			Expect(env.Transport).To(Equal(transport.Stdio))
		})

		g.It("keeps the timeouts it was given", func() {
			var env Env
			Execute(ctx, synthetic(func(t *T) { env = t.Env }), Env{Timing: Timing{ResponseTimeout: time.Minute, QuietWindow: time.Second}})
			Expect(env.Timing.ResponseTimeout).To(Equal(time.Minute))
			Expect(env.Timing.QuietWindow).To(Equal(time.Second))
		})

		g.It("bounds each Wait by the response timeout and by the scenario's context", func() {
			run, cancel := context.WithCancel(ctx)
			defer cancel()
			Execute(run, synthetic(func(t *T) {
				before := time.Now()
				w, wcancel := t.Wait()
				defer wcancel()
				deadline, ok := w.Deadline()
				Expect(ok).To(BeTrue())
				Expect(deadline).To(BeTemporally("<=", time.Now().Add(3*time.Second)))
				Expect(deadline).To(BeTemporally(">=", before.Add(3*time.Second)))
				Expect(w.Err()).NotTo(HaveOccurred())
				cancel()
				Expect(w.Done()).To(BeClosed())
			}), Env{Timing: Timing{ResponseTimeout: 3 * time.Second}})
		})
	})
})

var _ = g.Describe("Env.Fixture", func() {
	defaults := map[string]any{"ms": 1000}

	g.It("defaults the tool to the fixture name and the arguments to the defaults", func() {
		f := Env{}.Fixture("test_task_working", defaults)
		Expect(f.Tool).To(Equal("test_task_working"))
		Expect(f.Arguments).To(Equal(map[string]any{"ms": 1000}))
	})

	g.It("defaults to empty (not nil) arguments when there are no defaults", func() {
		f := Env{}.Fixture("test_simple_text", nil)
		Expect(f.Tool).To(Equal("test_simple_text"))
		Expect(f.Arguments).NotTo(BeNil())
		Expect(f.Arguments).To(BeEmpty())
	})

	g.It("uses the defaults for fixtures other than the mapped ones", func() {
		env := Env{Fixtures: map[string]Fixture{"test_other": {Tool: "other"}}}
		Expect(env.Fixture("test_task_working", defaults)).To(Equal(Fixture{Tool: "test_task_working", Arguments: defaults}))
	})

	g.It("overrides the tool and keeps the default arguments", func() {
		env := Env{Fixtures: map[string]Fixture{"test_task_working": {Tool: "slow_job"}}}
		Expect(env.Fixture("test_task_working", defaults)).To(Equal(Fixture{Tool: "slow_job", Arguments: map[string]any{"ms": 1000}}))
	})

	g.It("overrides the arguments and keeps the fixture name as the tool", func() {
		env := Env{Fixtures: map[string]Fixture{"test_task_working": {Arguments: map[string]any{"seconds": 2}}}}
		Expect(env.Fixture("test_task_working", defaults)).To(Equal(Fixture{Tool: "test_task_working", Arguments: map[string]any{"seconds": 2}}))
	})

	g.It("overrides both", func() {
		env := Env{Fixtures: map[string]Fixture{"test_task_working": {Tool: "slow_job", Arguments: map[string]any{"seconds": 2}}}}
		Expect(env.Fixture("test_task_working", defaults)).To(Equal(Fixture{Tool: "slow_job", Arguments: map[string]any{"seconds": 2}}))
	})

	g.It("takes an explicitly empty argument map as no arguments, not as the defaults", func() {
		env := Env{Fixtures: map[string]Fixture{"test_task_working": {Tool: "slow_job", Arguments: map[string]any{}}}}
		Expect(env.Fixture("test_task_working", defaults).Arguments).To(BeEmpty())
	})

	g.It("leaves the configured fixtures untouched", func() {
		env := Env{Fixtures: map[string]Fixture{"test_task_working": {}}}
		env.Fixture("test_task_working", defaults)
		Expect(env.Fixtures).To(Equal(map[string]Fixture{"test_task_working": {}}))
	})
})

var _ = g.Describe("Harness errors", func() {
	g.It("turn every verdict of the scenario into an error naming our message, whatever the body judged", func() {
		s := synthetic(func(t *T) {
			t.Pass(named(t, "a"))
			t.Fail(named(t, "b"), "x", "y")
			done := make(chan struct{})
			go func() { // from another goroutine, as the guard reports
				defer close(done)
				t.HarnessError("mcpconform's own result of tools/list at 2026-07-28 is invalid: $.result.ttlMs: required property is missing")
			}()
			<-done
		}, "a", "b", "c")
		r := Execute(context.Background(), s, Env{})
		Expect(outcomes(r)).To(Equal(map[string]Outcome{"synthetic/a": Errored, "synthetic/b": Errored, "synthetic/c": Errored}))
		for _, m := range messages(r) {
			Expect(m).To(HavePrefix("harness error (a defect in mcpconform, not a verdict on the target): mcpconform's own result of tools/list"))
			Expect(m).To(ContainSubstring("$.result.ttlMs"))
		}
		Expect(r.Transcript).To(ContainSubstring("harness error: mcpconform's own result of tools/list"))
	})
})

var _ = g.Describe("the kind of a reason", func() {
	g.It("marks a check whose subject never happened NotJudged, and a plain skip not", func(ctx g.SpecContext) {
		a := &Check{ID: "why/a", Level: Must}
		b := &Check{ID: "why/b", Level: Must}
		rest := &Check{ID: "why/rest", Level: Must}
		res := Execute(ctx, &Scenario{ID: "why", Checks: []*Check{a, b, rest}, Run: func(t *T) {
			t.NotJudged(a, "the target answered without a task")
			t.Skip(b, "the target lists no such fixture")
			t.Blocked("the prerequisite failed")
		}}, Env{})
		Expect(res.Verdicts[0].Why).To(Equal(NotJudged))
		Expect(res.Verdicts[0].Message).To(Equal("not judged: the target answered without a task"))
		Expect(res.Verdicts[1].Why).To(BeEmpty())
		Expect(res.Verdicts[2].Why).To(Equal(NotJudged))
		Expect(res.Verdicts[2].Outcome).To(Equal(Skip))
	})

	// Each kind is set where its reason arises, so no reader recognises it
	// in the message.
	whys := func(r *Result) map[string]Why {
		out := map[string]Why{}
		for _, v := range r.Verdicts {
			out[v.Check.ID] = v.Why
		}
		return out
	}
	g.It("marks an opt-in check whose profile is off ProfileOff", func(ctx g.SpecContext) {
		s := synthetic(func(t *T) { t.Fail(named(t, "a"), "x", "y") }, "a")
		s.Checks[0].Profile = "strict-thing"
		Expect(whys(Execute(ctx, s, Env{}))).To(Equal(map[string]Why{"synthetic/a": ProfileOff}))
		Expect(whys(Execute(ctx, s, Env{Profiles: []string{"strict-thing"}}))).To(Equal(map[string]Why{"synthetic/a": ""}))
	})

	g.It("marks a check the deadline left unjudged, or whose failure came after it, Deadline", func(ctx g.SpecContext) {
		run, cancel := context.WithCancel(ctx)
		defer cancel()
		r := Execute(run, synthetic(func(t *T) {
			t.Fail(named(t, "a"), "a response", "none")
			cancel()
			t.Fail(named(t, "b"), "a response", "none")
		}, "a", "b", "c"), Env{})
		Expect(whys(r)).To(Equal(map[string]Why{"synthetic/a": "", "synthetic/b": Deadline, "synthetic/c": Deadline}))
	})

	g.DescribeTable("marks what the harness could not do, or did wrong, Harness",
		func(body func(t *T)) {
			r := Execute(context.Background(), synthetic(body, "a", "b"), Env{})
			Expect(outcomes(r)["synthetic/b"]).To(Equal(Errored))
			Expect(whys(r)["synthetic/b"]).To(Equal(Harness))
		},
		g.Entry("an Abort", func(t *T) { t.Abort("could not start the target") }),
		g.Entry("a panic", func(t *T) { panic("boom") }),
		g.Entry("a check the body forgot", func(t *T) { t.Pass(named(t, "a")) }),
		g.Entry("a check of another scenario", func(t *T) { t.Pass(named(t, "other")) }),
		g.Entry("a harness error", func(t *T) { t.HarnessError("our own message was invalid"); t.Pass(named(t, "b")) }),
	)
})
