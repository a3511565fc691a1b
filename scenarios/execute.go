package scenarios

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Outcome is a verdict on one check.
type Outcome string

const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"
	Skip    Outcome = "skip"
	Errored Outcome = "error"
)

// Verdict is what a scenario concluded about one check.
type Verdict struct {
	// Check as judged: its level may have been raised for this run.
	Check   Check
	Outcome Outcome
	// Why is the kind of reason of a skip or an error (NotJudged,
	// ProfileOff, Deadline, Harness), set where the reason arises so that
	// no reader has to recognise it in Message; "" for a pass, a failure
	// and a plain skip (a capability or fixture missing).
	Why Why
	// Message: "Expected: …\nActual: …" for failures, the reason otherwise.
	Message string
	At      time.Duration
}

// Result is one execution of a scenario.
type Result struct {
	Scenario   *Scenario
	Verdicts   []Verdict // in catalogue order
	Transcript string
	Stderr     string
	Duration   time.Duration
}

// T is handed to a scenario body: the verdicts, the transcript and the
// deadlines. Side drivers embed it and add the peer.
type T struct {
	Ctx context.Context
	Env Env

	scenario   *Scenario
	transcript *jsonrpc.Transcript
	start      time.Time

	mu       sync.Mutex
	verdicts map[*Check]Verdict
	levels   map[*Check]Level
	cleanups []func()
	stderr   []string
	lastStep string
	sealed   bool
	// harness holds the harness errors raised while the body ran (our own
	// message invalid); they override every verdict.
	harness []string
}

// abort unwinds a body; reason says why the rest was not judged.
type abort struct {
	outcome Outcome
	reason  string
	why     Why
}

// Why is the kind of reason a verdict that is no pass or fail gives.
type Why string

const (
	// NotJudged: what the check judges never happened (the target refused
	// the version, blocked on a prerequisite, was lost, or answered without
	// what the check needs), so it was not judged. Its message starts
	// "not judged: ".
	NotJudged Why = "not judged"
	// ProfileOff: the check belongs to an opt-in profile the run did not
	// enable; the body judged it, the run does not report the verdict.
	ProfileOff Why = "profile not enabled"
	// Deadline: the scenario's deadline passed before the check was judged.
	Deadline Why = "deadline"
	// Harness: a problem of the harness, not a verdict on the target: it
	// could not start or reach what the scenario needs, or mcpconform
	// itself was at fault (a panic, an invalid message of its own).
	Harness Why = "harness"
)

// notJudged is the message of a check NotJudged for reason.
func notJudged(reason string) string { return string(NotJudged) + ": " + reason }

// Execute runs one scenario body and returns a verdict for every check. It
// never panics and never outlives ctx by more than its cleanups.
func Execute(ctx context.Context, s *Scenario, env Env) *Result {
	env.Timing = env.Timing.OrDefaults()
	t := &T{
		Ctx:        ctx,
		Env:        env,
		scenario:   s,
		transcript: jsonrpc.NewTranscript(),
		start:      time.Now(),
		verdicts:   map[*Check]Verdict{},
	}
	rest := abort{outcome: Errored, reason: "the scenario ended without judging this check (a defect in mcpconform)", why: Harness}
	if reason, closed := env.Gate.Closed(); closed {
		rest = abort{Errored, notJudged(reason), NotJudged}
		if env.Gate.Unsupported() {
			rest.outcome = Skip
		}
	} else {
		rest = t.runBounded(rest)
	}
	if ctx.Err() != nil && rest.outcome != Skip && rest.why != NotJudged {
		rest = abort{outcome: Errored, reason: "the scenario deadline passed before this check was judged (raise --timeout?)", why: Deadline}
	}
	res := &Result{Scenario: s, Duration: time.Since(t.start)}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sealed = true // an abandoned body judges nothing from here on
	for _, c := range s.Checks {
		v, ok := t.verdicts[c]
		judged := *c
		if l, raised := t.levels[c]; raised {
			judged.Level = l
			v.Check.Level = l
		}
		if !ok {
			v = Verdict{Check: judged, Outcome: rest.outcome, Message: rest.reason, Why: rest.why, At: time.Since(t.start)}
		}
		if len(t.harness) > 0 {
			v = Verdict{Check: judged, Outcome: Errored, Why: Harness, At: v.At, Message: t.harnessMessage(v)}
		}
		if c.Profile != "" && !slices.Contains(env.Profiles, c.Profile) {
			// Opt-in: judged by the body like any other, reported only when asked for.
			v = Verdict{Check: judged, Outcome: Skip, Why: ProfileOff, At: v.At,
				Message: fmt.Sprintf("opt-in profile %s is not enabled (--profile %s); no spec sentence asks this of every server", c.Profile, c.Profile)}
		}
		res.Verdicts = append(res.Verdicts, v)
	}
	res.Transcript = t.transcript.String()
	res.Stderr = strings.Join(t.stderr, "")
	return res
}

// OverrunGrace is how long past the scenario's deadline a body and its
// cleanups are given to stop before the scenario is reported without them:
// every wait in mcpconform is bounded by the deadline, so a body still
// running then is stuck in something a target controls, and a stuck body
// must not hold up the run (it is left behind; its later verdicts are not
// reported).
const OverrunGrace = 2 * time.Second

// runBounded runs the body and then the cleanups, and returns by the
// scenario's deadline plus OverrunGrace for each, whatever they do.
func (t *T) runBounded(rest abort) abort {
	body := make(chan abort, 1)
	go func() { body <- t.runBody(rest) }()
	out, finished := waitBounded(t.Ctx, body)
	if !finished {
		out = abort{Errored, notJudged(fmt.Sprintf("the scenario was still running %s after its deadline, stuck waiting on the target "+
			"(step: %s); it was abandoned", OverrunGrace, t.LastStep())), NotJudged}
	}
	cleaned := make(chan abort, 1)
	go func() { t.runCleanups(); cleaned <- abort{} }()
	if _, ok := waitBounded(t.Ctx, cleaned); !ok {
		t.transcript.Eventf("", "the scenario's cleanup (closing sessions, stopping processes) was still running %s after the deadline; abandoned", OverrunGrace)
	}
	return out
}

// waitBounded waits for ch until ctx ends and then for OverrunGrace more.
func waitBounded(ctx context.Context, ch <-chan abort) (abort, bool) {
	select {
	case a := <-ch:
		return a, true
	case <-ctx.Done():
	}
	grace := time.NewTimer(OverrunGrace)
	defer grace.Stop()
	select {
	case a := <-ch:
		return a, true
	case <-grace.C:
		return abort{}, false
	}
}

func (t *T) runBody(rest abort) (out abort) {
	out = rest
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(abort); ok {
				out = a
				return
			}
			out = abort{outcome: Errored, reason: fmt.Sprintf("panic in scenario: %v\n%s", r, debug.Stack()), why: Harness}
		}
	}()
	t.scenario.Run(t)
	return out
}

// HarnessError records a defect of mcpconform found while the body runs,
// from any goroutine: one of our own messages was invalid (the guard of
// fakes/peer). Every check of the scenario is then reported as an error
// naming it, never as a verdict on the target, whatever the body judged:
// what the target did with an invalid message proves nothing about it.
func (t *T) HarnessError(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	t.transcript.Eventf("", "harness error: %s", text)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sealed {
		return
	}
	switch {
	case len(t.harness) < maxHarnessKept:
		t.harness = append(t.harness, text)
	case len(t.harness) == maxHarnessKept:
		t.harness = append(t.harness, "and more (the transcript lists them all)")
	}
}

// maxHarnessKept bounds the harness errors a scenario keeps for its verdicts.
const maxHarnessKept = 5

// HarnessErrors are the harness errors recorded so far.
func (t *T) HarnessErrors() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.harness)
}

// harnessMessage is the message of a verdict a harness error overrides;
// called with t.mu held.
func (t *T) harnessMessage(v Verdict) string {
	msg := "harness error (a defect in mcpconform, not a verdict on the target): " + strings.Join(t.harness, "; ")
	if v.Outcome != "" {
		msg += fmt.Sprintf(" [the body's verdict, not reported: %s]", v.Outcome)
	}
	return msg
}

// Cleanup registers f to run when the body has ended, last first (a driver
// closes its sessions or stops its fake server here).
func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	t.cleanups = append(t.cleanups, f)
	t.mu.Unlock()
}

func (t *T) runCleanups() {
	t.mu.Lock()
	cleanups := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for _, f := range slices.Backward(cleanups) {
		f()
	}
}

// AddStderr keeps what a target process wrote to stderr, for the report.
func (t *T) AddStderr(text string) {
	if text == "" {
		return
	}
	t.mu.Lock()
	t.stderr = append(t.stderr, text)
	t.mu.Unlock()
}

// Step announces what the body does next.
func (t *T) Step(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	t.mu.Lock()
	t.lastStep = text
	t.mu.Unlock()
	t.transcript.Eventf("", "step: %s", text)
	if t.Env.Step != nil {
		t.Env.Step(text)
	}
}

// LastStep is what the body announced last with Step ("" before any).
func (t *T) LastStep() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastStep
}

// Transcript is the scenario's transcript (shared by its sessions).
func (t *T) Transcript() *jsonrpc.Transcript { return t.transcript }

// Scenario is the scenario being run.
func (t *T) Scenario() *Scenario { return t.scenario }

func (t *T) own(c *Check) {
	if !slices.Contains(t.scenario.Checks, c) {
		panic(abort{outcome: Errored, reason: fmt.Sprintf("scenario %s judged check %s, which is not its own (a defect in mcpconform)", t.scenario.ID, c.ID), why: Harness})
	}
}

// Escalate raises a check's level for this run (a SHOULD that becomes a
// MUST when two authorization contexts are given), saying why.
func (t *T) Escalate(c *Check, level Level, why string) {
	t.own(c)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.levels == nil {
		t.levels = map[*Check]Level{}
	}
	t.levels[c] = level
	t.transcript.Eventf("", "%s judged at %s: %s", c.ID, level, why)
}

func (t *T) record(c *Check, o Outcome, msg string) { t.recordWhy(c, o, msg, "") }

// recordWhy is record with the kind of reason of a skip or an error.
func (t *T) recordWhy(c *Check, o Outcome, msg string, why Why) {
	t.own(c)
	if o == Fail && t.Ctx.Err() != nil {
		// Past the scenario's deadline a missing answer proves nothing.
		o, msg, why = Errored, "the scenario deadline passed before this check was judged ("+msg+")", Deadline
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sealed {
		return
	}
	judged := *c
	if l, ok := t.levels[c]; ok {
		judged.Level = l
	}
	if prev, ok := t.verdicts[c]; ok && prev.Outcome == Fail {
		return // the first failure stands
	}
	t.verdicts[c] = Verdict{Check: judged, Outcome: o, Message: msg, Why: why, At: time.Since(t.start)}
}

// Pass records that the check held.
func (t *T) Pass(c *Check) { t.record(c, Pass, "") }

// PassWith records that the check held, with what was measured (the
// reports show it).
func (t *T) PassWith(c *Check, note string) { t.record(c, Pass, note) }

// Fail records a violation with expected and actual, in that order.
func (t *T) Fail(c *Check, expected, actual string) {
	t.record(c, Fail, fmt.Sprintf("Expected: %s\nActual:   %s", expected, actual))
}

// Judge passes or fails the check.
func (t *T) Judge(c *Check, ok bool, expected, actual string) bool {
	if ok {
		t.Pass(c)
	} else {
		t.Fail(c, expected, actual)
	}
	return ok
}

// Skip records why the check could not apply (missing fixture/capability).
func (t *T) Skip(c *Check, reason string) { t.record(c, Skip, reason) }

// SkipRest stops the body: every check not yet judged is skipped with reason.
func (t *T) SkipRest(reason string) { panic(abort{outcome: Skip, reason: reason}) }

// NotJudged skips c because what it judges never happened: the target
// answered without what the check needs (NotJudged, "not judged: reason").
func (t *T) NotJudged(c *Check, reason string) { t.recordWhy(c, Skip, notJudged(reason), NotJudged) }

// NotJudgedRest stops the body as NotJudged does for every check not yet
// judged.
func (t *T) NotJudgedRest(reason string) { panic(abort{Skip, notJudged(reason), NotJudged}) }

// Blocked stops the body because the target failed a prerequisite: the
// checks not yet judged cannot be judged and are skipped, saying why. (The
// prerequisite's own check carries the failure.)
func (t *T) Blocked(format string, args ...any) { t.NotJudgedRest(fmt.Sprintf(format, args...)) }

// Unreachable stops the body because the target could not complete even
// the handshake: the check that was running fails (see Lost), and the rest
// of this scenario and every later scenario on the same transport and
// version are not judged, saying why. They are errors, not skips: a target
// that cannot be judged must not pass a gate.
func (t *T) Unreachable(format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	t.Env.Gate.Close(fmt.Sprintf("the target could not complete the handshake in %s over %s at %s: %s",
		t.scenario.ID, t.Env.Transport, t.Env.Version, reason))
	t.Lost("the handshake to complete", reason)
}

// Lost stops the body because the target stopped taking part in a step the
// body needed: it crashed, closed the connection, did not answer in time,
// or failed the handshake. That is a failure of the check that was running
// — the first of the scenario's checks not yet judged, unless one of its
// checks already carries a failure — and the checks not yet judged are not
// judged (errors, with the reason), so a target that dies cannot pass.
func (t *T) Lost(expected, actual string) {
	if c := t.running(); c != nil {
		t.Fail(c, expected, actual)
	}
	panic(abort{Errored, notJudged(actual), NotJudged})
}

// running is the check a body was working towards when it stopped: the
// first not yet judged (bodies judge in the order of Checks) among those
// the run reports. It is nil when a check already failed: that failure is
// the one the stop caused or followed.
func (t *T) running() *Check {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, v := range t.verdicts {
		if v.Outcome == Fail {
			return nil
		}
	}
	for _, c := range t.scenario.Checks {
		if _, judged := t.verdicts[c]; judged {
			continue
		}
		if c.Profile != "" && !slices.Contains(t.Env.Profiles, c.Profile) {
			continue
		}
		return c
	}
	return nil
}

// NotImplemented stops the body because the target does not implement the
// version being judged (it negotiated another, refused it with -32022, or
// has no server/discover). Where the user named the version, the check
// given fails, once; otherwise it is skipped as information. Either way
// every other check of this version and transport is not judged.
func (t *T) NotImplemented(c *Check, evidence string) {
	what := fmt.Sprintf("the target does not implement %s", t.Env.Version)
	if t.Env.VersionExplicit {
		t.Fail(c, t.Env.Version+" implemented, as --spec-version asks", what+": "+evidence)
	} else {
		t.Skip(c, what+" ("+evidence+"); judged only when --spec-version names it")
	}
	t.Env.Gate.CloseUnsupported(what + " (" + evidence + ")")
	t.NotJudgedRest(what + " (" + evidence + ")")
}

// Abort stops the body on a harness problem (could not start or reach the
// target): the checks not yet judged are errors, not failures.
func (t *T) Abort(format string, args ...any) {
	panic(abort{outcome: Errored, reason: fmt.Sprintf(format, args...), why: Harness})
}

// Wait is a context for one wait on the target.
func (t *T) Wait() (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Ctx, t.Env.Timing.ResponseTimeout)
}

// QuietWindow bounds a wait for something that must not arrive.
func (t *T) QuietWindow() time.Duration { return t.Env.Timing.QuietWindow }
