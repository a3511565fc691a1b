package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

// Bounds of the failure list on the console; the reports hold every one.
const (
	maxFailuresShown  = 20  // checks listed
	maxMessageLines   = 4   // lines of each one's Expected/Actual
	maxMessageLineLen = 200 // characters of each such line
)

// printFailures lists, after the scenario lines, each check that fails the
// run (and, with --strict, each warning) with its id, transport, version,
// level and the first lines of its Expected/Actual, so the console says
// why without opening a report. A failure a baseline expects is left out:
// it does not fail the run.
func printFailures(w io.Writer, run *reports.Run) {
	type failed struct {
		s *reports.Scenario
		c *reports.Check
	}
	var list []failed
	for i := range run.Scenarios {
		s := &run.Scenarios[i]
		for j := range s.Checks {
			c := &s.Checks[j]
			if st := c.Final(); st == reports.Failed || (run.Strict && st == reports.Warning) {
				list = append(list, failed{s, c})
			}
		}
	}
	if len(list) == 0 {
		return
	}
	word := "failed"
	if run.Strict {
		word = "failed (warnings fail under --strict)"
	}
	fmt.Fprintf(w, "\n%d %s:\n", len(list), word)
	for i, f := range list {
		if i == maxFailuresShown {
			fmt.Fprintf(w, "… %d more (summary.md and report.html list every one)\n", len(list)-i)
			break
		}
		fmt.Fprintf(w, "%s %s  %s %s %s  %s\n", f.c.Final().Word(), f.c.ID, f.s.Side, f.s.Transport, f.s.SpecVersion, f.c.Level)
		for _, line := range messageLines(f.c.Message) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}

// messageLines are a check's message cut for the console: its first
// non-empty lines, each shortened.
func messageLines(msg string) []string {
	var out []string
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for i, line := range lines {
		if len(out) == maxMessageLines {
			out = append(out, fmt.Sprintf("… (%d more lines)", len(lines)-i))
			break
		}
		line = strings.TrimRight(line, " \t")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if r := []rune(line); len(r) > maxMessageLineLen {
			line = string(r[:maxMessageLineLen-1]) + "…"
		}
		out = append(out, line)
	}
	return out
}
