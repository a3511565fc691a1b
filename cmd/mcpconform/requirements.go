package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// maxRequirementLines bounds each list the required-set summary prints.
const maxRequirementLines = 15

// applyRequirements narrows the plan to the official required set of
// --requirements REV on the plan's side: the revision as the only version,
// and as the scenarios the mcpconform counterparts of the official
// scenarios REV's list scores.
func (p *plan) applyRequirements() error {
	rev := p.flags.requirements
	if rev == "" {
		return nil
	}
	if !slices.Contains(catalogue.OfficialVersions(), rev) {
		return fmt.Errorf("--requirements %q: the official suite %s has requirement lists for %s", rev, catalogue.OfficialRelease(),
			strings.Join(catalogue.OfficialVersions(), " and "))
	}
	if p.flags.specVersion != "" {
		return fmt.Errorf("--requirements %s sets the version judged: leave out --spec-version", rev)
	}
	if len(p.flags.scenarioIDs) > 0 {
		return fmt.Errorf("--requirements %s sets the scenarios judged: leave out --scenario", rev)
	}
	var ids []string
	for _, c := range catalogue.CoverageOf(rev) {
		if c.Side == p.side && c.Scored() {
			for _, id := range c.Scenarios {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("--requirements %s: the official list scores no %s scenario mcpconform judges", rev, p.side)
	}
	p.versions = []string{rev}
	p.flags.scenarioIDs = ids
	return nil
}

// requirementOutcome is an official scenario's verdict from its
// counterparts' checks at the revision.
type requirementOutcome int

const (
	requirementPassed    requirementOutcome = iota
	requirementFailed                       // a check failed or could not be judged
	requirementNotJudged                    // nothing judged: every check skipped
)

// printRequirements prints the pass rate of the official required set the
// way the official suite counts it (a scenario passes when none of its
// checks fails), then the scored scenarios mcpconform judges only in part
// or not at all, then those the revision's list runs without scoring.
func printRequirements(w io.Writer, run *reports.Run, side scenarios.Side, rev string) {
	statuses := map[string][]reports.Status{} // mcpconform scenario id → its checks' final statuses at rev
	for i := range run.Scenarios {
		s := &run.Scenarios[i]
		if s.SpecVersion != rev {
			continue
		}
		for j := range s.Checks {
			statuses[s.ID] = append(statuses[s.ID], s.Checks[j].Final())
		}
	}
	var passed, failed, notJudged, partial, absent, unscored []string
	for _, c := range catalogue.CoverageOf(rev) {
		if c.Side != side {
			continue
		}
		switch {
		case !c.Scored():
			unscored = append(unscored, c.Official+" ("+c.List+")")
			continue
		case c.Status == catalogue.Absent:
			absent = append(absent, c.Official+": "+c.Why)
			continue
		case c.Status == catalogue.Partial:
			partial = append(partial, c.Official+": "+c.Why)
		}
		switch outcomeOf(c.Scenarios, statuses) {
		case requirementPassed:
			passed = append(passed, c.Official)
		case requirementFailed:
			failed = append(failed, c.Official+" ("+strings.Join(c.Scenarios, ", ")+")")
		default:
			notJudged = append(notJudged, c.Official)
		}
	}
	judged := len(passed) + len(failed)
	rate := "no scored scenario judged"
	if judged > 0 {
		rate = fmt.Sprintf("%d of %d scored %s scenarios pass (%.0f%%)", len(passed), judged, side, 100*float64(len(passed))/float64(judged))
	}
	fmt.Fprintf(w, "\nofficial required set %s (official suite %s): %s\n", rev, catalogue.OfficialRelease(), rate)
	printList(w, "failed", failed)
	printList(w, "not judged (every check skipped: what they need is not offered)", notJudged)
	printList(w, "judged in part by mcpconform (the rest is not judged)", partial)
	printList(w, "scored, but mcpconform cannot judge them yet", absent)
	printList(w, "run by the official list without scoring (not run here)", unscored)
}

func outcomeOf(ids []string, statuses map[string][]reports.Status) requirementOutcome {
	judged := false
	for _, id := range ids {
		for _, st := range statuses[id] {
			switch st {
			case reports.Failed, reports.Errored:
				return requirementFailed
			case reports.Passed, reports.Warning, reports.ExpectedFailure:
				judged = true
			}
		}
	}
	if !judged {
		return requirementNotJudged
	}
	return requirementPassed
}

func printList(w io.Writer, what string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "  %d %s:\n", len(items), what)
	for i, it := range items {
		if i == maxRequirementLines {
			fmt.Fprintf(w, "    … %d more\n", len(items)-i)
			break
		}
		if r := []rune(it); len(r) > 160 {
			it = string(r[:159]) + "…"
		}
		fmt.Fprintf(w, "    %s\n", it)
	}
}
