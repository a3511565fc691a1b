// Package suites turns the scenario catalogue into Ginkgo specs: one ordered
// container per scenario, one spec per check, labels derived from the
// catalogue's metadata, Skip for checks the target cannot be judged on, a
// deadline per scenario, and the transcript attached to failures. The same
// specs run inside the mcpconform binary and under `go test ./suites/...`.
package suites

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

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
	// The handshake's own scenario first: a target that cannot start fails
	// there, once, and the gate spares the rest.
	// The scenarios that judge what the others saw, last.
	rank := func(s *scenarios.Scenario) int {
		switch {
		case s.Handshake:
			return 0
		case s.Last:
			return 2
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b *scenarios.Scenario) int { return rank(a) - rank(b) })
	return out
}

func (c Config) side() scenarios.Side {
	if c.Side == "" {
		return scenarios.ServerSide
	}
	return c.Side
}

// Collector gathers what the specs concluded, for the report files.
type Collector struct {
	mu        sync.Mutex
	scenarios map[string]*reports.Scenario
	order     []string
	noticed   map[string]bool
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
	return s
}

func (c *Collector) addCheck(key string, check reports.Check) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.scenarios[key]
	s.Checks = append(s.Checks, check)
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
		out = append(out, *c.scenarios[k])
	}
	return out
}

// Status converts a verdict to a report status: a SHOULD or MAY that fails is
// a warning unless strict.
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

// CheckLabels derives the Ginkgo labels of a check from catalogue data.
func CheckLabels(s *scenarios.Scenario, c *scenarios.Check, version string, kind transport.Kind) Labels {
	return Label(
		"side:"+string(s.Side),
		"family:"+s.Family,
		"scenario:"+s.ID,
		"level:"+string(c.Level),
		"spec:"+version,
		"transport:"+string(kind),
	)
}

// Define registers the specs of every config. Call it at tree-construction
// time (top level of a _test file, or before RunSpecs).
func Define(configs []Config, col *Collector) bool {
	// One top-level container: Ginkgo shuffles only top-level containers,
	// so runs keep the catalogue's order and reports compare across runs.
	order := 0
	Describe("mcpconform", func() {
		for _, cfg := range configs {
			if cfg.Env.Gate == nil {
				// One gate per transport and version: a target that cannot
				// complete the handshake there is given up on once.
				cfg.Env.Gate = &scenarios.Gate{}
			}
			if cfg.Env.Wire == nil {
				cfg.Env.Wire = &scenarios.WireLedger{}
			}
			Describe(cfg.Name, func() {
				for _, s := range cfg.Applicable() {
					order++
					defineScenario(cfg, s, col, order)
				}
			})
		}
	})
	return true
}

// defineScenario defines one scenario's specs. Ginkgo orders specs by code
// location, and every scenario is defined on the same lines here, so each
// gets a location of its own, numbered in plan order: the handshake's
// scenario must run first on its transport and version.
func defineScenario(cfg Config, s *scenarios.Scenario, col *Collector, order int) {
	at := types.CodeLocation{FileName: "mcpconform plan", LineNumber: order}
	key := cfg.Name + "|" + s.ID
	timeout := cfg.Env.Timing.OrDefaults().ScenarioTimeout
	Describe(s.ID, Ordered, ContinueOnFailure, at, func() {
		var res *scenarios.Result
		var started time.Time
		BeforeAll(func(ctx SpecContext) {
			env := cfg.Env
			env.Step = func(text string) { By(text) }
			if cfg.Resolve != nil {
				cfg.Resolve(&env)
			}
			started = time.Now()
			// The deadline is the scenario's own, so a slow target yields
			// error verdicts in the report rather than an abandoned node.
			runCtx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			res = scenarios.Execute(runCtx, s, env)
			col.scenario(key, func() *reports.Scenario {
				return &reports.Scenario{
					ID: s.ID, Title: s.Title, Family: s.Family, Side: string(s.Side),
					Transport: string(cfg.Env.Transport), SpecVersion: cfg.Env.Version,
					Started: started, Duration: res.Duration, Transcript: res.Transcript, Stderr: res.Stderr,
				}
			})
		})

		for i, c := range s.Checks {
			It(c.ID, CheckLabels(s, c, cfg.Env.Version, cfg.Env.Transport), at, func() {
				v := res.Verdicts[i]
				status := Status(v, cfg.Strict)
				col.addCheck(key, reports.Check{
					ID: c.ID, Title: c.Title, Level: string(v.Check.Level), SpecRef: protocol.PageFor(c.Spec, cfg.Env.Version),
					Quote: c.Quote, Source: c.Source,
					Status: status, Message: v.Message, Duration: v.At,
				})
				switch status {
				case reports.Passed:
				case reports.Warning:
					AddReportEntry("warning", fmt.Sprintf("%s (%s %s)\n%s", c.Title, c.Level, c.Spec, v.Message))
				case reports.Skipped:
					Skip(v.Message)
				case reports.Errored:
					AddReportEntry("transcript", res.Transcript, ReportEntryVisibilityFailureOrVerbose)
					Fail(fmt.Sprintf("harness error, check not judged: %s", v.Message))
				default:
					AddReportEntry("transcript", res.Transcript, ReportEntryVisibilityFailureOrVerbose)
					Fail(fmt.Sprintf("%s [%s %s]\n%s", c.Title, c.Level, c.Spec, v.Message))
				}
			})
		}

		AfterAll(func() {
			if cfg.Progress == nil {
				return
			}
			if reason, closed := cfg.Env.Gate.Closed(); closed && cfg.Env.Gate.Unsupported() && !col.failed(key) {
				// One line for the version, not one per scenario.
				if col.firstNotice(cfg.Name) {
					fmt.Fprintf(cfg.Progress, "%-5s %-24s %s: not judged\n", "SKIP", cfg.Name, reason)
				}
				return
			}
			printProgress(cfg.Progress, col, key, cfg.Name)
		})
	})
}

func printProgress(w io.Writer, col *Collector, key, config string) {
	col.mu.Lock()
	s := col.scenarios[key]
	col.mu.Unlock()
	if s == nil {
		return
	}
	counts := s.Counts()
	fmt.Fprintf(w, "%-5s %-16s %-34s %d/%d passed", statusWord(counts.Outcome()), config, s.ID, counts.Passed, counts.Total)
	if counts.Warning > 0 {
		fmt.Fprintf(w, ", %d warning", counts.Warning)
	}
	if counts.Skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", counts.Skipped)
	}
	fmt.Fprintf(w, "  (%s)\n", s.Duration.Round(time.Millisecond))
}

func statusWord(s reports.Status) string {
	switch s {
	case reports.Passed:
		return "PASS"
	case reports.Failed:
		return "FAIL"
	case reports.Warning:
		return "WARN"
	case reports.Skipped:
		return "SKIP"
	default:
		return "ERROR"
	}
}
