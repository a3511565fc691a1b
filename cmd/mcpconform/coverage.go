package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// Widths at which the long cells of the coverage map wrap onto lines of
// their own, so that one long row does not widen every other.
const (
	coverageScenariosWidth = 60
	coverageWhyWidth       = 80
)

// printCoverage prints the coverage map of the official suite: per
// revision, the scenarios its list scores, then those it runs without
// scoring, each full, partial or absent, with counts per side.
func printCoverage(out io.Writer, version string) error {
	versions := catalogue.OfficialVersions()
	if version != "" {
		if !slices.Contains(versions, version) {
			return usageErr("--spec-version with --coverage: the official lists exist for %s, not %q", strings.Join(versions, " and "), version)
		}
		versions = []string{version}
	}
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	reasons := catalogue.NotScoredReasons()
	for _, v := range versions {
		var scored, unscored []catalogue.Coverage
		for _, c := range catalogue.CoverageOf(v) {
			if c.Scored() {
				scored = append(scored, c)
			} else {
				unscored = append(unscored, c)
			}
		}
		fmt.Fprintf(w, "OFFICIAL %s, SCORED AT %s\tSIDE\tCOVERAGE\tMCPCONFORM SCENARIOS\tCHECKS\tMISSING OR WHY\n", catalogue.OfficialRelease(), v)
		for _, c := range scored {
			writeCoverageRow(w, c, false)
		}
		writeCoverageCounts(w, v, scored, "scored")
		fmt.Fprintln(w)

		fmt.Fprintf(w, "NOT SCORED AT %s\tSIDE\tLIST\tCOVERAGE\tMCPCONFORM SCENARIOS\tCHECKS\tMISSING OR WHY\n", v)
		var lists []string
		for _, c := range unscored {
			writeCoverageRow(w, c, true)
			if !slices.Contains(lists, c.List) {
				lists = append(lists, c.List)
			}
		}
		writeCoverageCounts(w, v, unscored, "not scored")
		for _, l := range lists {
			fmt.Fprintf(w, "  %s: %s\n", l, reasons[l])
		}
		fmt.Fprintln(w)
	}
	if version == "" {
		if outside := catalogue.OutsideRevisions(); len(outside) > 0 {
			fmt.Fprintf(w, "AT NO REVISION WITH A LIST\tSIDE\tVERSIONS\tTAKEN BY\n")
			for _, o := range outside {
				by := strings.Join(o.By, ", ")
				if by == "" {
					by = "-"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", o.Name, o.Side, strings.Join(o.Versions, ", "), by)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	// Every row has all its cells, so that the columns stay aligned; the
	// padding of an empty last cell goes.
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	_, err := io.WriteString(out, strings.Join(lines, "\n")+"\n")
	return err
}

// writeCoverageRow writes one official scenario, its long cells wrapped
// onto continuation lines.
func writeCoverageRow(w io.Writer, c catalogue.Coverage, withList bool) {
	by, checks := []string{"-"}, "-"
	if len(c.Scenarios) > 0 {
		listed := slices.Clone(c.Scenarios)
		for i := range listed[:len(listed)-1] {
			listed[i] += ","
		}
		by, checks = wrapWords(listed, coverageScenariosWidth), fmt.Sprint(c.Checks)
	}
	why := wrapWords(strings.Fields(c.Why), coverageWhyWidth)
	head := []string{c.Official, string(c.Side)}
	if withList {
		head = append(head, c.List)
	}
	head = append(head, string(c.Status))
	for i := 0; i < max(len(by), len(why)); i++ {
		cells := make([]string, len(head)) // a continuation line leaves them empty
		if i == 0 {
			copy(cells, head)
		}
		cells = append(cells, at(by, i), at([]string{checks}, i), at(why, i))
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// wrapWords joins words with spaces into lines of at most width
// characters (a longer word stands alone).
func wrapWords(words []string, width int) []string {
	var lines []string
	line := ""
	for _, word := range words {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) > width:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// writeCoverageCounts writes, per side, how many of the official
// scenarios (scored or not) at version are full, partial and absent.
func writeCoverageCounts(w io.Writer, version string, of []catalogue.Coverage, kind string) {
	for _, side := range []scenarios.Side{scenarios.ServerSide, scenarios.ClientSide, scenarios.AuthServerSide} {
		n := map[catalogue.Status]int{}
		total := 0
		for _, c := range of {
			if c.Side == side {
				n[c.Status]++
				total++
			}
		}
		if total > 0 {
			fmt.Fprintf(w, "%s %s: %d full, %d partial, %d absent of %d %s\n", version, side,
				n[catalogue.Full], n[catalogue.Partial], n[catalogue.Absent], total, kind)
		}
	}
}
