// Package suites turns the scenario catalogue into Ginkgo specs: one ordered
// container per scenario, one spec per check, labels derived from the
// catalogue's metadata, Skip for checks the target cannot be judged on, a
// deadline per scenario, and the transcript attached to failures. The same
// specs run inside the mcpconform binary and under `go test ./suites/...`.
package suites

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/transport"
)

// Config is one run: a target, on one side, at one version, over one transport.
type Config struct {
	Name string // container text, e.g. "server stdio 2025-11-25"
	Side scenarios.Side
	Env  scenarios.Env
	// Resolve, if set, completes Env when the scenario runs (for targets
	// started in BeforeSuite, after the spec tree was built).
	Resolve func(env *scenarios.Env)
	Strict  bool
	// Select picks scenarios (--scenario); nil takes all that apply.
	Select func(*scenarios.Scenario) bool
	// Progress receives one line per scenario; nil for none.
	Progress io.Writer
	// LabelFilter is the run's Ginkgo label filter: Plan runs the checks
	// it keeps, and only those are reported (unjudged, when interrupted).
	LabelFilter string
}

// Applicable lists the scenarios this config runs.
func (c Config) Applicable() []*scenarios.Scenario {
	var out []*scenarios.Scenario
	for _, s := range catalogue.All().Side(c.side()) {
		if !s.AppliesTo(c.Env.Version, c.Env.Transport) {
			continue
		}
		if c.Select != nil && !c.Select(s) {
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b *scenarios.Scenario) int { return Phase(a) - Phase(b) })
	return out
}

// Phase orders a transport and version's scenarios in a run: the
// handshake's own scenario first (0: a target that cannot start fails
// there, once, and the gate spares the rest), the scenarios that judge what
// the others saw last (2), the rest between (1).
func Phase(s *scenarios.Scenario) int {
	switch {
	case s.Handshake:
		return 0
	case s.Last:
		return 2
	}
	return 1
}

func (c Config) side() scenarios.Side {
	if c.Side == "" {
		return scenarios.ServerSide
	}
	return c.Side
}

// Collector gathers what the specs concluded, for the report files. It also
// knows every scenario and check the plan selected, so that an interrupted
// run reports the ones it never judged (Interrupted).
type Collector struct {
	// Baseline, when set, marks each failed check it expects as it is
	// collected (the progress shows it as XFAIL).
	Baseline *reports.Baseline

	mu        sync.Mutex
	scenarios map[string]*reports.Scenario
	order     []string
	noticed   map[string]bool
	planned   []plannedScenario
	plannedAt map[string]int // key → index in planned
}

// plannedScenario is a scenario the run selected, with the checks it would
// judge (their statuses unset).
type plannedScenario struct {
	key      string
	scenario reports.Scenario
}

// plan records a scenario the run selected, before anything runs.
func (c *Collector) plan(key string, s reports.Scenario) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plannedAt == nil {
		c.plannedAt = map[string]int{}
	}
	c.plannedAt[key] = len(c.planned)
	c.planned = append(c.planned, plannedScenario{key: key, scenario: s})
}

// InterruptedReason is the message of a check an interrupt left unjudged.
func InterruptedReason(signal string) string {
	return fmt.Sprintf("interrupted by %s before this check was judged", signal)
}

// Interrupted returns every scenario the plan selected, in plan order, for
// a run that signal stopped: what was judged as it was judged, and every
// check that was not (in the scenario in flight and in those never reached)
// as an error giving InterruptedReason.
func (c *Collector) Interrupted(signal string) []reports.Scenario {
	c.mu.Lock()
	defer c.mu.Unlock()
	reason := InterruptedReason(signal)
	out := make([]reports.Scenario, 0, len(c.planned))
	for _, p := range c.planned {
		s := p.scenario
		s.Checks = nil
		var judged map[string]reports.Check
		if got := c.scenarios[p.key]; got != nil {
			s = *got
			judged = map[string]reports.Check{}
			for _, ch := range got.Checks {
				judged[ch.ID] = ch
			}
			s.Checks = nil
		}
		for _, ch := range p.scenario.Checks {
			if j, ok := judged[ch.ID]; ok {
				s.Checks = append(s.Checks, j)
				continue
			}
			ch.Status, ch.Reason, ch.Message = reports.Errored, reports.ReasonInterrupted, reason
			s.Checks = append(s.Checks, ch)
		}
		out = append(out, s)
	}
	return out
}

// NewCollector makes an empty collector.
func NewCollector() *Collector { return &Collector{scenarios: map[string]*reports.Scenario{}} }

func (c *Collector) scenario(key string, make func() *reports.Scenario) *reports.Scenario {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.scenarios[key]; ok {
		return s
	}
	s := make()
	c.scenarios[key] = s
	c.order = append(c.order, key)
	c.trimLocked()
	return s
}

func (c *Collector) addCheck(key string, check reports.Check) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.scenarios[key]
	c.Baseline.Mark(s, &check)
	s.Checks = append(s.Checks, check)
	if check.Message != "" {
		c.trimLocked()
	}
}

// CollectorTextBudget bounds the target text (transcripts, stderr, check
// messages) a collector holds for the whole run: hundreds of scenarios of
// a flooding target, each with a transcript of up to 4 MiB, would
// otherwise be held until the reports are written, which trim them to
// reports.RunTextBudget anyway.
const CollectorTextBudget = 2 * reports.RunTextBudget

// trimLocked trims the collected text to CollectorTextBudget, the largest
// texts first (reports.TrimToBudget); c.mu is held.
func (c *Collector) trimLocked() {
	held := 0
	for _, k := range c.order {
		s := c.scenarios[k]
		held += len(s.Transcript) + len(s.Stderr)
		for i := range s.Checks {
			held += len(s.Checks[i].Message)
		}
	}
	if held <= CollectorTextBudget {
		return
	}
	all := make([]*reports.Scenario, 0, len(c.order))
	for _, k := range c.order {
		all = append(all, c.scenarios[k])
	}
	reports.TrimToBudget(CollectorTextBudget, all...)
}

// failed reports whether a scenario has a failed check.
func (c *Collector) failed(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.scenarios[key]; s != nil {
		return s.Counts().Failed > 0
	}
	return false
}

// firstNotice reports whether this is the first notice for a config.
func (c *Collector) firstNotice(config string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noticed == nil {
		c.noticed = map[string]bool{}
	}
	if c.noticed[config] {
		return false
	}
	c.noticed[config] = true
	return true
}

// Scenarios returns the collected scenarios in run order.
func (c *Collector) Scenarios() []reports.Scenario {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]reports.Scenario, 0, len(c.order))
	for _, k := range c.order {
		s := *c.scenarios[k]
		// A copy of the checks: trimming (trimLocked) changes the
		// collector's own in place.
		s.Checks = slices.Clone(s.Checks)
		out = append(out, s)
	}
	return out
}

// Status converts a verdict to a report status: a SHOULD or MAY that fails is
// a warning unless strict. It is the one place --strict is decided: the
// collector (judgedReport) and the specs call it with their config's Strict;
// the reports and the baseline read the status it gave.
func Status(v scenarios.Verdict, strict bool) reports.Status {
	switch v.Outcome {
	case scenarios.Pass:
		return reports.Passed
	case scenarios.Skip:
		return reports.Skipped
	case scenarios.Errored:
		return reports.Errored
	}
	if v.Check.Level == scenarios.Must || strict {
		return reports.Failed
	}
	return reports.Warning
}

// reasonKind is the reports' name of a verdict's kind of reason.
func reasonKind(w scenarios.Why) reports.ReasonKind {
	switch w {
	case scenarios.NotJudged:
		return reports.ReasonNotJudged
	case scenarios.ProfileOff:
		return reports.ReasonProfile
	case scenarios.Deadline:
		return reports.ReasonDeadline
	case scenarios.Harness:
		return reports.ReasonHarness
	}
	return ""
}

// CheckLabels derives the Ginkgo labels of a check from catalogue data.
func CheckLabels(s *scenarios.Scenario, c *scenarios.Check, version string, kind transport.Kind) Labels {
	// origin says whether the scenario is one of the official suite's (a
	// client harness knows it by its official id) or mcpconform's own.
	origin := "origin:mcpconform"
	if s.Official != "" {
		origin = "origin:official"
	}
	return Label(
		"side:"+string(s.Side),
		origin,
		"family:"+s.Family,
		"scenario:"+s.ID,
		"level:"+string(c.Level),
		"spec:"+version,
		"transport:"+string(kind),
	)
}

// Define shows the execution's scenario runs as Ginkgo specs: one
// container per scenario, one spec per check the plan selected, Skip for
// checks the target cannot be judged on, the transcript attached to
// failures. The specs schedule nothing: each container reads its
// scenario's run from the execution (waiting for it, or running it then
// when the run has not begun). Call it at tree-construction time.
func (e *Execution) Define() {
	e.viewing()
	// Ordered, so Ginkgo keeps the plan's order (it sorts specs defined on
	// the same lines by their text otherwise); ContinueOnFailure, so a
	// failed check does not skip the checks after it.
	Describe("mcpconform", Ordered, ContinueOnFailure, func() {
		for i := 0; i < len(e.planned); {
			cfg := e.planned[i].cfg
			j := i
			for j < len(e.planned) && e.planned[j].cfg.Name == cfg.Name {
				j++
			}
			runs := e.planned[i:j]
			Describe(cfg.Name, func() {
				for _, p := range runs {
					e.defineScenario(p)
				}
			})
			i = j
		}
	})
}

// FirstSpec is the text of the first spec Define registers, below the
// caller's containers ("mcpconform <config> <scenario> <check>"); empty
// when the plan holds none.
func (e *Execution) FirstSpec() string {
	if len(e.planned) == 0 {
		return ""
	}
	p := e.planned[0]
	return strings.Join([]string{"mcpconform", p.cfg.Name, p.scenario.ID, e.col.plannedChecks(p.key)[0]}, " ")
}

// defineScenario defines one scenario's specs.
func (e *Execution) defineScenario(p plannedRun) {
	s, cfg, key := p.scenario, p.cfg, p.key
	Describe(s.ID, func() {
		var run runner.Result[scenarioRun]
		transcriptShown := "" // the check whose failure shows the transcript
		BeforeAll(func(ctx SpecContext) {
			run = e.result(ctx, key)
			for _, text := range run.Steps {
				By(text)
			}
		})
		for _, id := range e.col.plannedChecks(key) {
			i := slices.IndexFunc(s.Checks, func(c *scenarios.Check) bool { return c.ID == id })
			c := s.Checks[i]
			It(c.ID, CheckLabels(s, c, cfg.Env.Version, cfg.Env.Transport), func() {
				if !run.Ran || run.Value.interrupted {
					Skip("the run was stopped before this check was judged")
				}
				res := run.Value.result
				v := res.Verdicts[i]
				status := Status(v, cfg.Strict)
				msg := ReportText(v.Message) // Ginkgo's report holds it for the whole run
				switch status {
				case reports.Passed:
				case reports.Warning:
					AddReportEntry("warning", fmt.Sprintf("%s (%s %s)\n%s", c.Title, c.Level, c.Spec, msg))
				case reports.Skipped:
					Skip(msg)
				case reports.Errored:
					addTranscriptEntry(res.Transcript, c.ID, &transcriptShown)
					Fail(fmt.Sprintf("harness error, check not judged: %s", msg))
				default:
					addTranscriptEntry(res.Transcript, c.ID, &transcriptShown)
					Fail(fmt.Sprintf("%s [%s %s]\n%s", c.Title, c.Level, c.Spec, msg))
				}
			})
		}
		AfterAll(func() {
			// This closure lives as long as the spec tree: it lets go of
			// the result, and tells the execution it may too.
			run = runner.Result[scenarioRun]{}
			e.release(key)
		})
	})
}

// checkReport is what the reports say of check c of a scenario run by cfg,
// before its verdict.
func checkReport(cfg Config, c *scenarios.Check) reports.Check {
	return reports.Check{
		ID: c.ID, Title: c.Title, Level: string(c.Level), SpecRef: protocol.PageFor(c.Spec, cfg.Env.Version),
		Quote: c.Quote, Source: c.Source,
	}
}

// judgedReport is what the reports say of check c of a scenario run by
// cfg, judged v: the one place a verdict becomes a report's check, its
// status (Status, strict as cfg says), its kind of reason and its level
// as judged.
func judgedReport(cfg Config, c *scenarios.Check, v scenarios.Verdict) reports.Check {
	rc := checkReport(cfg, c)
	rc.Level, rc.Status, rc.Reason, rc.Message, rc.Duration = string(v.Check.Level), Status(v, cfg.Strict), reasonKind(v.Why), v.Message, v.At
	return rc
}

// planScenario tells the collector which of the scenario's checks the run
// will judge: those the label filter selects. It reports whether any is.
func planScenario(cfg Config, s *scenarios.Scenario, col *Collector, filter types.LabelFilter) bool {
	p := reports.Scenario{
		ID: s.ID, Title: s.Title, Family: s.Family, Side: string(s.Side),
		Transport: string(cfg.Env.Transport), SpecVersion: cfg.Env.Version,
	}
	for _, c := range s.Checks {
		if filter != nil && !filter(CheckLabels(s, c, cfg.Env.Version, cfg.Env.Transport)) {
			continue
		}
		p.Checks = append(p.Checks, checkReport(cfg, c))
	}
	if len(p.Checks) == 0 {
		return false
	}
	col.plan(scenarioKey(cfg, s), p)
	return true
}

// TranscriptEntryBytes bounds the transcript a failing check attaches to
// Ginkgo's report (shown with -v and on failure): Ginkgo holds every entry
// for the whole run, and a scenario's transcript may have 4 MiB.
const TranscriptEntryBytes = 64 << 10

// addTranscriptEntry attaches the end of a scenario's transcript to the
// report of the first of its checks that fails (*shown names it then);
// the checks that fail after it point to it.
func addTranscriptEntry(transcript, check string, shown *string) {
	if *shown != "" {
		AddReportEntry("transcript", "attached to "+*shown+" above",
			ReportEntryVisibilityFailureOrVerbose)
		return
	}
	*shown = check
	AddReportEntry("transcript", TranscriptTail(transcript, TranscriptEntryBytes), ReportEntryVisibilityFailureOrVerbose)
}

// ReportText is a check's message as Ginkgo's report holds it: its first
// TranscriptEntryBytes, with a note of its length when it is longer (a
// message may quote what the target sent; the report files keep more).
func ReportText(msg string) string {
	if len(msg) <= TranscriptEntryBytes {
		return msg
	}
	return string(jsonrpc.CutEntry([]byte(msg), TranscriptEntryBytes)) + " (the report files (-o) hold more of this message)"
}

// TranscriptTail returns the end of a transcript in about limit bytes,
// from the start of a line, after a line saying how much was left out and
// where the whole is; a transcript that fits is returned as it is.
func TranscriptTail(t string, limit int) string {
	if len(t) <= limit {
		return t
	}
	start := len(t) - limit
	if i := strings.IndexByte(t[start:], '\n'); i >= 0 && i < limit/4 {
		start += i + 1
	} else {
		for start < len(t) && !utf8.RuneStart(t[start]) {
			start++
		}
	}
	return fmt.Sprintf("… [the first %s of %s bytes of this transcript are left out here; the report files (-o) hold its beginning as well]\n",
		jsonrpc.Thousands(start), jsonrpc.Thousands(len(t))) + t[start:]
}

func printProgress(w io.Writer, col *Collector, key, config string) {
	col.mu.Lock()
	s := col.scenarios[key]
	planned := 0
	for _, p := range col.planned {
		if p.key == key {
			planned = len(p.scenario.Checks)
		}
	}
	col.mu.Unlock()
	if s == nil {
		return
	}
	counts := s.Counts()
	word := counts.Outcome().Word()
	if counts.Total < planned {
		// Only an interrupt leaves a selected check without its spec run.
		word = "STOP"
	}
	// The config ("server stdio 2025-11-25") padded to its longest form
	// with a five-letter transport, so the columns hold over transports.
	fmt.Fprintf(w, "%-5s %-23s %-34s %d/%d passed", word, config, s.ID, counts.Passed, max(counts.Total, planned))
	if counts.Warning > 0 {
		fmt.Fprintf(w, ", %d warning", counts.Warning)
	}
	if counts.Skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", counts.Skipped)
	}
	if word == "STOP" {
		fmt.Fprintf(w, ", %d not judged: interrupted", planned-counts.Total)
	}
	fmt.Fprintf(w, "  (%s)\n", s.Duration.Round(time.Millisecond))
}

// plannedChecks are the ids of the checks of the scenario run under key
// that the plan selected, in the scenario's order.
func (c *Collector) plannedChecks(key string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.plannedAt[key]
	if !ok {
		return nil
	}
	ids := make([]string, len(c.planned[i].scenario.Checks))
	for j, ch := range c.planned[i].scenario.Checks {
		ids[j] = ch.ID
	}
	return ids
}
