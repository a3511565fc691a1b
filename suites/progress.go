package suites

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// ScenarioDone is what a run's progress learns when every check of one
// scenario has been reported (in plan order).
type ScenarioDone struct {
	Config    string // e.g. "server stdio 2025-11-25"
	Transport transport.Kind
	Version   string
	Scenario  string
	Counts    reports.Counts
	Failed    []string // the ids of its failed checks the baseline does not expect
	// Word is the scenario's verdict as the plain line starts with it:
	// PASS, FAIL, WARN, SKIP, ERROR, or STOP (interrupted).
	Word string
	// NotJudged: the target does not implement the version, so the
	// scenario was not judged; only the version's first such scenario
	// carries a Line.
	NotJudged bool
	// Line is the plain progress line, without its newline; empty when
	// there is nothing to print.
	Line string
}

// ProgressSink receives a run's progress scenario by scenario. A
// Config.Progress writer that implements it is given these events in
// place of the plain lines (a terminal's live line is drawn from them).
type ProgressSink interface {
	ScenarioDone(ScenarioDone)
}

// ScenarioStarted is a scenario that began to run.
type ScenarioStarted struct {
	Config    string
	Transport transport.Kind
	Version   string
	Scenario  string
}

// StartSink is a ProgressSink that is also told when each scenario starts
// (the live line names the one it has waited on longest).
type StartSink interface {
	ScenarioStarted(ScenarioStarted)
}

// progressStarted tells cfg.Progress that s began, when it listens.
func progressStarted(cfg Config, s *scenarios.Scenario) {
	if sink, ok := cfg.Progress.(StartSink); ok {
		sink.ScenarioStarted(ScenarioStarted{Config: cfg.Name, Transport: cfg.Env.Transport, Version: cfg.Env.Version, Scenario: s.ID})
	}
}

// PlannedScenarios is how many scenarios the run selected: those with a
// check the label filter keeps, over every transport and version. It is
// known once Define has built the spec tree.
func (c *Collector) PlannedScenarios() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.planned)
}

// progressDone reports scenario key of cfg to cfg.Progress, as an event to
// a ProgressSink or as a plain line to any other writer.
func progressDone(cfg Config, col *Collector, key string) {
	ev := ScenarioDone{Config: cfg.Name, Transport: cfg.Env.Transport, Version: cfg.Env.Version}
	col.mu.Lock()
	if s := col.scenarios[key]; s != nil {
		ev.Scenario, ev.Counts = s.ID, s.Counts()
		for _, c := range s.Checks {
			if c.Final() == reports.Failed {
				ev.Failed = append(ev.Failed, c.ID)
			}
		}
	}
	col.mu.Unlock()
	if reason, closed := cfg.Env.Gate.Closed(); closed && cfg.Env.Gate.Unsupported() && !col.failed(key) {
		// One line for the version, not one per scenario.
		ev.NotJudged, ev.Word = true, "SKIP"
		if col.firstNotice(cfg.Name) {
			ev.Line = fmt.Sprintf("%-5s %-24s %s: not judged", "SKIP", cfg.Name, reason)
		}
	} else {
		var b strings.Builder
		printProgress(&b, col, key, cfg.Name)
		ev.Line = strings.TrimSuffix(b.String(), "\n")
		ev.Word, _, _ = strings.Cut(ev.Line, " ")
	}
	if sink, ok := cfg.Progress.(ProgressSink); ok {
		sink.ScenarioDone(ev)
		return
	}
	if ev.Line != "" {
		fmt.Fprintln(cfg.Progress, ev.Line)
	}
}
