// Package reports holds the result model of an mcpconform run and renders it
// as JUnit XML (for CI test panels), JSON (for machines), Markdown (for
// humans, e.g. a GitHub job summary) and a self-contained HTML page (for a
// developer opening the results of a CI run).
package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is the outcome of one check.
type Status string

const (
	Passed  Status = "passed"
	Failed  Status = "failed"  // a MUST violated (or a SHOULD under --strict)
	Warning Status = "warning" // a SHOULD violated, not strict
	Skipped Status = "skipped" // capability/fixture missing; Message says why
	Errored Status = "error"   // harness problem: could not start/connect target, deadline of the harness, panic
)

// Valid reports whether s is one of the five known statuses.
func (s Status) Valid() bool {
	switch s {
	case Passed, Failed, Warning, Skipped, Errored:
		return true
	}
	return false
}

// ReasonKind is the kind of reason a skipped or errored check gives, so a
// reader tells "the target gave nothing to judge" from "the run was
// stopped" without reading Message, whose text stays as it was (for
// people, and for readers of results written before the kind was).
type ReasonKind string

const (
	// ReasonNotJudged: what the check judges never happened (the target
	// refused the version, failed a prerequisite, was lost, or answered
	// without what the check needs).
	ReasonNotJudged ReasonKind = "not-judged"
	// ReasonProfile: the check is of an opt-in profile the run did not
	// enable (--profile).
	ReasonProfile ReasonKind = "profile-not-enabled"
	// ReasonInterrupted: a signal stopped the run before the check was
	// judged.
	ReasonInterrupted ReasonKind = "interrupted"
	// ReasonHarness: the harness could not do its part (start or reach
	// the target) or was at fault itself.
	ReasonHarness ReasonKind = "harness-error"
	// ReasonDeadline: the scenario's deadline passed before the check was
	// judged.
	ReasonDeadline ReasonKind = "deadline"
)

// Valid reports whether k is one of the known kinds ("" is none).
func (k ReasonKind) Valid() bool {
	switch k {
	case ReasonNotJudged, ReasonProfile, ReasonInterrupted, ReasonHarness, ReasonDeadline:
		return true
	}
	return false
}

// Word is the status as every report and the progress print it: PASS,
// FAIL, WARN, SKIP, XFAIL; ERROR for an error and for a status no writer
// knows.
func (s Status) Word() string {
	switch s {
	case Passed:
		return "PASS"
	case Failed:
		return "FAIL"
	case Warning:
		return "WARN"
	case Skipped:
		return "SKIP"
	case ExpectedFailure:
		return "XFAIL"
	}
	return "ERROR"
}

// Run is one invocation of the suite against one target.
type Run struct {
	Tool        string // "mcpconform"
	ToolVersion string
	Side        string // "server" or "client" (which side is under test)
	Target      string // human description: "stdio: ./srv --flag", "http://127.0.0.1:1234/mcp"
	Transport   string // stdio|http|ws
	SpecVersion string // e.g. 2025-11-25
	Strict      bool
	Started     time.Time
	Duration    time.Duration
	// Interrupted names what stopped the run before it had judged every
	// check ("SIGINT", "SIGTERM"); empty for a run that finished. The checks
	// it never judged are in Scenarios, as errors saying so.
	Interrupted string
	// Shard is "K/N" for shard K of N of a run (--shard), empty for a whole
	// run: what lets a merge tell a run's shards from unrelated runs.
	Shard     string
	Scenarios []Scenario
}

// Scenario is one exchange with the target, verified by several checks.
type Scenario struct {
	ID          string // kebab-case, e.g. "lifecycle-initialize"
	Title       string
	Family      string    // e.g. "lifecycle"
	Side        string    // "server" or "client"
	Transport   string    // stdio|http|ws; empty when unknown (Normalize fills it from the run when it can)
	SpecVersion string    // empty when unknown (Normalize fills it from the run when it can)
	Started     time.Time // optional; zero means Run.Started is used where a time is needed
	Duration    time.Duration
	Checks      []Check
	Transcript  string // formatted frames exchanged (may be long); goes to JUnit system-out
	Stderr      string // target stderr captured, optional
}

// Check is one requirement of the specification, verified once.
type Check struct {
	ID      string // e.g. "lifecycle-initialize/version-echoed"
	Title   string // the requirement in one line
	Level   string // "MUST", "SHOULD", "MAY"
	SpecRef string // e.g. "2025-11-25/basic/lifecycle.mdx#version-negotiation"
	// Quote is the sentence the check rests on; Source names a design note
	// when that, not the spec page, is where the sentence comes from.
	Quote  string
	Source string
	Status Status
	// Reason is the kind of reason of a skip or an error; "" for a plain
	// skip (a capability or fixture missing) and for the other statuses.
	Reason   ReasonKind
	Message  string // for failures: "Expected: …\nActual: …"; for skips: the reason
	Duration time.Duration
	// Expected marks a failed check that an expected-failures baseline
	// lists (Baseline.Apply): it stays Failed but does not fail the run.
	// ExpectedBy names the entry and where it is written.
	Expected   bool
	ExpectedBy string
}

// Counts are per-status totals over checks. Failed counts the failures a
// baseline did not expect; Expected those it did (both have status Failed).
type Counts struct{ Passed, Failed, Warning, Skipped, Errored, Expected, Total int }

// Counts returns per-status totals over all checks of all scenarios.
// A check with an unknown status counts as Errored: it is a harness bug and
// must not disappear from the totals.
func (r *Run) Counts() Counts {
	var c Counts
	if r == nil {
		return c
	}
	for i := range r.Scenarios {
		c = c.plus(r.Scenarios[i].Counts())
	}
	return c
}

// Outcome is the run's overall status: that of its counts, but never better
// than Errored for an interrupted run (not everything was judged).
func (r *Run) Outcome() Status {
	o := r.Counts().Outcome()
	if r != nil && r.Interrupted != "" && o != Failed {
		return Errored
	}
	return o
}

// InterruptedNote is the sentence every format shows for an interrupted run.
func (r *Run) InterruptedNote() string {
	if r == nil || r.Interrupted == "" {
		return ""
	}
	return fmt.Sprintf("Interrupted by %s: the run stopped before judging every check; %d checks were not judged and are reported as errors.",
		r.Interrupted, r.Counts().Errored)
}

// Counts returns per-status totals over the scenario's checks.
func (s *Scenario) Counts() Counts {
	var c Counts
	for i := range s.Checks {
		c.add(s.Checks[i].Final())
	}
	return c
}

// Outcome folds the counts into one status, worst first:
// Failed, Errored, ExpectedFailure, Warning, Passed; Skipped when nothing ran
// (including no checks). A failure outranks what could not be judged, as in
// the exit code: a target that crashed fails the check it crashed on, and the
// checks after it are errors. An expected failure is a MUST still violated,
// so it outranks a SHOULD warning, though neither fails the run.
func (c Counts) Outcome() Status {
	switch {
	case c.Failed > 0:
		return Failed
	case c.Errored > 0:
		return Errored
	case c.Expected > 0:
		return ExpectedFailure
	case c.Warning > 0:
		return Warning
	case c.Passed > 0:
		return Passed
	}
	return Skipped
}

func (c *Counts) add(s Status) {
	c.Total++
	switch s {
	case Passed:
		c.Passed++
	case Failed:
		c.Failed++
	case Warning:
		c.Warning++
	case Skipped:
		c.Skipped++
	case ExpectedFailure:
		c.Expected++
	default:
		c.Errored++
	}
}

func (c Counts) plus(o Counts) Counts {
	return Counts{
		Passed:   c.Passed + o.Passed,
		Failed:   c.Failed + o.Failed,
		Warning:  c.Warning + o.Warning,
		Skipped:  c.Skipped + o.Skipped,
		Errored:  c.Errored + o.Errored,
		Expected: c.Expected + o.Expected,
		Total:    c.Total + o.Total,
	}
}

// Final is the status the reports show and count: the check's, except a
// failure the baseline expected, which is ExpectedFailure, and a status no
// writer knows, which is Errored (a harness bug must not vanish from the
// totals; Normalize says so in the message).
func (c *Check) Final() Status {
	switch {
	case !c.Status.Valid():
		return Errored
	case c.Status == Failed && c.Expected:
		return ExpectedFailure
	}
	return c.Status
}

// Normalize completes r in place, once, so that its readers read and never
// decide:
//   - a scenario's empty Side, Transport or SpecVersion becomes the run's
//     when the run names exactly one (a run over "stdio,http" cannot say
//     which one a scenario used: it stays empty, and the reports leave it
//     out);
//   - a check with a status no writer knows becomes an error saying so, of
//     the harness (it is a bug of whatever produced it);
//   - a kind of reason this build does not know, or on a check neither
//     skipped nor an error, is dropped; so is an expected mark (and the
//     entry it names) on a check that did not fail.
//
// The collector's runs are complete already; ReadJSON normalises what it
// reads (files from before scenarios carried side and transport), Merge
// and BaselineFrom their inputs, Apply the run it marks. The writers render
// a normalised copy of a run given them that is not (normalized).
func (r *Run) Normalize() { normalize(r, true) }

// normalized is r when it is normal, otherwise a normalised copy (r itself
// is left as it was).
func normalized(r *Run) *Run { return normalize(r, false) }

func normalize(r *Run, inPlace bool) *Run {
	sole := func(list string) string {
		if list = strings.TrimSpace(list); strings.Contains(list, ",") {
			return ""
		}
		return list
	}
	side, kind, version := sole(r.Side), sole(r.Transport), sole(r.SpecVersion)
	out := r
	for i := range r.Scenarios {
		s := r.Scenarios[i]
		changed := false
		for _, f := range []struct {
			field *string
			run   string
		}{{&s.Side, side}, {&s.Transport, kind}, {&s.SpecVersion, version}} {
			if *f.field == "" && f.run != "" {
				*f.field, changed = f.run, true
			}
		}
		if slices.ContainsFunc(s.Checks, func(c Check) bool { return normalCheck(c) != c }) {
			if !inPlace {
				s.Checks = slices.Clone(s.Checks)
			}
			for j := range s.Checks {
				s.Checks[j] = normalCheck(s.Checks[j])
			}
			changed = true
		}
		if !changed {
			continue
		}
		if out == r && !inPlace {
			cp := *r
			cp.Scenarios = slices.Clone(r.Scenarios)
			out = &cp
		}
		out.Scenarios[i] = s
	}
	return out
}

// normalCheck is c as Normalize leaves it.
func normalCheck(c Check) Check {
	if !c.Status.Valid() {
		msg := fmt.Sprintf("reports: check has unknown status %q", string(c.Status))
		if c.Message != "" {
			msg += "\n" + c.Message
		}
		c.Status, c.Reason, c.Message = Errored, ReasonHarness, msg
	}
	if !c.Reason.Valid() || (c.Status != Skipped && c.Status != Errored) {
		c.Reason = ""
	}
	if c.Status != Failed || !c.Expected {
		c.Expected, c.ExpectedBy = false, ""
	}
	return c
}

// axis is the transport × spec version cell a scenario ran in.
type axis struct{ transport, specVersion string }

func (s *Scenario) axis() axis {
	return axis{s.Transport, s.SpecVersion}
}

// label names the cell for humans ("http · 2025-11-25"), leaving out an
// unknown part; "" when both are unknown.
func (a axis) label() string {
	return joinNonEmpty(" · ", a.transport, a.specVersion)
}

// runAxes returns the cells that occur in r, grouped by transport: transports
// and versions each in order of first appearance, so the layout follows the
// order the run used.
func runAxes(r *Run) []axis {
	var transports, versions []string
	seen := map[axis]bool{}
	for i := range r.Scenarios {
		a := r.Scenarios[i].axis()
		// Unlike appendNew, an unknown ("") transport or version is a cell too.
		if !slices.Contains(transports, a.transport) {
			transports = append(transports, a.transport)
		}
		if !slices.Contains(versions, a.specVersion) {
			versions = append(versions, a.specVersion)
		}
		seen[a] = true
	}
	var out []axis
	for _, t := range transports {
		for _, v := range versions {
			if a := (axis{t, v}); seen[a] {
				out = append(out, a)
			}
		}
	}
	return out
}

// runTransports and runSpecVersions list what the run declared followed by
// anything else its scenarios report, for the headers of the reports.
func runTransports(r *Run) []string {
	out := splitList(r.Transport)
	for i := range r.Scenarios {
		out = appendNew(out, r.Scenarios[i].Transport)
	}
	return out
}

func runSpecVersions(r *Run) []string {
	out := splitList(r.SpecVersion)
	for i := range r.Scenarios {
		out = appendNew(out, r.Scenarios[i].SpecVersion)
	}
	return out
}

func splitList(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		out = appendNew(out, strings.TrimSpace(f))
	}
	return out
}

// appendNew appends the values not yet in list, trimmed, leaving out
// empty ones.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

func (r *Run) tool() string {
	if r.Tool != "" {
		return r.Tool
	}
	return "mcpconform"
}

var errNilRun = fmt.Errorf("reports: nil Run")
