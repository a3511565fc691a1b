// Package reports holds the result model of an mcpconform run and renders it
// as JUnit XML (for CI test panels), JSON (for machines), Markdown (for
// humans, e.g. a GitHub job summary) and a self-contained HTML page (for a
// developer opening the results of a CI run).
package reports

import (
	"fmt"
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
	Scenarios   []Scenario
}

// Scenario is one exchange with the target, verified by several checks.
type Scenario struct {
	ID          string // kebab-case, e.g. "lifecycle-initialize"
	Title       string
	Family      string    // e.g. "lifecycle"
	SpecVersion string    // empty means Run.SpecVersion
	Started     time.Time // optional; zero means Run.Started is used where a time is needed
	Duration    time.Duration
	Checks      []Check
	Transcript  string // formatted frames exchanged (may be long); goes to JUnit system-out
	Stderr      string // target stderr captured, optional
}

// Check is one requirement of the specification, verified once.
type Check struct {
	ID       string // e.g. "lifecycle-initialize/version-echoed"
	Title    string // the requirement in one line
	Level    string // "MUST", "SHOULD", "MAY"
	SpecRef  string // e.g. "2025-11-25/basic/lifecycle.mdx#version-negotiation"
	Status   Status
	Message  string // for failures: "Expected: …\nActual: …"; for skips: the reason
	Duration time.Duration
}

// Counts are per-status totals over checks.
type Counts struct{ Passed, Failed, Warning, Skipped, Errored, Total int }

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

// Counts returns per-status totals over the scenario's checks.
func (s *Scenario) Counts() Counts {
	var c Counts
	for i := range s.Checks {
		st, _ := s.Checks[i].effective()
		c.add(st)
	}
	return c
}

// Outcome folds the counts into one status, worst first:
// Errored, Failed, Warning, Passed; Skipped when nothing ran (including no checks).
func (c Counts) Outcome() Status {
	switch {
	case c.Errored > 0:
		return Errored
	case c.Failed > 0:
		return Failed
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
	default:
		c.Errored++
	}
}

func (c Counts) plus(o Counts) Counts {
	return Counts{
		Passed:  c.Passed + o.Passed,
		Failed:  c.Failed + o.Failed,
		Warning: c.Warning + o.Warning,
		Skipped: c.Skipped + o.Skipped,
		Errored: c.Errored + o.Errored,
		Total:   c.Total + o.Total,
	}
}

// effective returns the status and message every writer renders, so that all
// three formats agree with Counts even when a producer set a bogus status.
func (c *Check) effective() (Status, string) {
	if c.Status.Valid() {
		return c.Status, c.Message
	}
	msg := fmt.Sprintf("reports: check has unknown status %q", string(c.Status))
	if c.Message != "" {
		msg += "\n" + c.Message
	}
	return Errored, msg
}

// specVersion is the scenario's spec version, falling back to the run's.
func (s *Scenario) specVersion(r *Run) string {
	if s.SpecVersion != "" {
		return s.SpecVersion
	}
	return r.SpecVersion
}

func (r *Run) tool() string {
	if r.Tool != "" {
		return r.Tool
	}
	return "mcpconform"
}

var errNilRun = fmt.Errorf("reports: nil Run")
