package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

// maxReasonGroups bounds the reasons printed per status; the reports hold
// every one.
const maxReasonGroups = 8

// printReasons prints, after a run's counts, why checks were skipped or not
// judged: one line per distinct reason with how many checks it covers, the
// most frequent first, so a reader sees at once what the target lacks.
func printReasons(w io.Writer, run *reports.Run) {
	for _, group := range []struct {
		status reports.Status
		word   string
	}{{reports.Skipped, "skipped"}, {reports.Errored, "not judged"}} {
		counts := map[string]int{}
		total := 0
		for _, s := range run.Scenarios {
			for _, c := range s.Checks {
				if c.Status == group.status {
					counts[reasonOf(&c)]++
					total++
				}
			}
		}
		if total == 0 {
			continue
		}
		reasons := make([]string, 0, len(counts))
		for r := range counts {
			reasons = append(reasons, r)
		}
		slices.SortFunc(reasons, func(a, b string) int {
			return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
		})
		fmt.Fprintf(w, "%d %s:\n", total, group.word)
		for i, r := range reasons {
			if i == maxReasonGroups {
				fmt.Fprintf(w, "  … %d more reasons (summary.md lists every check)\n", len(reasons)-i)
				break
			}
			fmt.Fprintf(w, "  %4d  %s\n", counts[r], r)
		}
	}
}

// reasonOf is a check's message as one short line; that of a check not
// judged (its kind says so) without the "not judged: " it starts with,
// which would repeat on every line.
func reasonOf(c *reports.Check) string {
	msg := strings.Join(strings.Fields(c.Message), " ")
	if c.Reason == reports.ReasonNotJudged {
		msg = strings.TrimPrefix(msg, "not judged: ")
	}
	if msg == "" {
		return "(no reason given)"
	}
	if r := []rune(msg); len(r) > 160 {
		msg = string(r[:159]) + "…"
	}
	return msg
}
