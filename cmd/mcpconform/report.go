package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

func reportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with the reports of finished runs",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(reportMergeCmd())
	return cmd
}

func reportMergeCmd() *cobra.Command {
	var outDir, expected string
	cmd := &cobra.Command{
		Use:   "merge [-o DIR] [--expected-failures FILE] DIR...",
		Short: "Combine the results.json of a run's shards (--shard K/N) into one set of reports, with a run's exit code",
		Long: "Read DIR/results.json of every shard of one run (--shard 1/N … N/N), check they judged the same side, and write\n" +
			"one set of reports (junit.xml, results.json, summary.md, report.html) as one run would have: scenarios in the run's\n" +
			"order, transports and versions combined, the earliest start, and as duration the span from the first shard's start\n" +
			"to the last one's end. The exit code is a run's: 1 when a check failed (one --expected-failures does not expect).\n" +
			"A scenario may appear in one input only, except the handshake's and the ledger scenarios (wire-*), which every\n" +
			"shard runs: their copies are folded into one verdict per check, the worst.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("report merge: name the shards' report directories (each with a results.json)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, dirs []string) error {
			return exitWith(runMerge(cmd, outDir, expected, dirs))
		},
	}
	cmd.Flags().StringVarP(&outDir, "output", "o", "mcpconform-results", "directory for the merged junit.xml, results.json, summary.md and report.html")
	cmd.Flags().StringVar(&expected, "expected-failures", "", "YAML file of failures to expect, as for a run (the shards' own marks are not kept: give the merge the shards' file)")
	return cmd
}

// runMerge reads every shard's results, merges them and ends as a run does.
func runMerge(cmd *cobra.Command, outDir, expected string, dirs []string) (int, error) {
	var baseline *reports.Baseline
	if expected != "" {
		b, err := loadBaseline(expected)
		if err != nil {
			return exitUsage, usageErr("%v", err)
		}
		baseline = b
	}
	inputs := make([]mergeInput, 0, len(dirs))
	for _, dir := range dirs {
		run, err := readShardResults(dir)
		if err != nil {
			return exitUsage, usageErr("report merge: %v", err)
		}
		inputs = append(inputs, mergeInput{dir: dir, run: run})
	}
	run, err := mergeRuns(inputs)
	if err != nil {
		return exitUsage, usageErr("report merge: %v", err)
	}
	if err := reports.CheckOutDir(outDir); err != nil {
		return exitUsage, usageErr("-o: %v", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "mcpconform %s: merged %d reports of %s at %s\n", toolVersion, len(inputs), run.Target, strings.ReplaceAll(run.SpecVersion, ",", ", "))
	return finish(cmd, run, outDir, baseline)
}

// readShardResults reads DIR/results.json.
func readShardResults(dir string) (*reports.Run, error) {
	run, err := readResults(filepath.Join(dir, "results.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no results.json (is it a report directory, -o of a run?)", dir)
	}
	return run, err
}

// mergeInput is one shard's results and where they came from.
type mergeInput struct {
	dir string
	run *reports.Run
}

// unitKey names one scenario run: a scenario on a transport at a version.
type unitKey struct{ id, transport, version string }

// mergeRuns combines the shards of one run into the run it would have been.
func mergeRuns(inputs []mergeInput) (*reports.Run, error) {
	first := inputs[0]
	merged := &reports.Run{Tool: first.run.Tool, ToolVersion: first.run.ToolVersion, Side: first.run.Side, Strict: first.run.Strict}
	var targets, kinds, versions, interrupts []string
	var end time.Time
	for _, in := range inputs {
		r := in.run
		switch {
		case r.Side != merged.Side:
			return nil, fmt.Errorf("%s judged a %s and %s a %s: shards of one run judge one side", first.dir, merged.Side, in.dir, r.Side)
		case r.ToolVersion != merged.ToolVersion:
			return nil, fmt.Errorf("%s was written by mcpconform %s and %s by %s: shards of one run come from one build", first.dir, merged.ToolVersion, in.dir, r.ToolVersion)
		case r.Strict != merged.Strict:
			return nil, fmt.Errorf("%s and %s differ in --strict: shards of one run judge with the same flags", first.dir, in.dir)
		}
		targets = appendNew(targets, r.Target)
		kinds = appendNew(kinds, strings.Split(r.Transport, ",")...)
		versions = appendNew(versions, strings.Split(r.SpecVersion, ",")...)
		interrupts = appendNew(interrupts, r.Interrupted)
		if !r.Started.IsZero() {
			if merged.Started.IsZero() || r.Started.Before(merged.Started) {
				merged.Started = r.Started
			}
			if e := r.Started.Add(r.Duration); e.After(end) {
				end = e
			}
		}
	}
	// The duration is the span from the first shard's start to the last
	// one's end: how long the gate took, however the shards overlapped.
	if !merged.Started.IsZero() {
		merged.Duration = end.Sub(merged.Started)
	}
	merged.Target = strings.Join(targets, "; ")
	merged.Transport = strings.Join(ordered(kinds, kindNames(transport.Kinds())), ",")
	merged.SpecVersion = strings.Join(ordered(versions, protocol.Judged()), ",")
	merged.Interrupted = strings.Join(interrupts, ", ")

	var units []unitKey
	byUnit := map[unitKey][]copyOf{}
	for _, in := range inputs {
		for _, s := range in.run.Scenarios {
			s.Side = cmp.Or(s.Side, in.run.Side)
			s.Transport, s.SpecVersion = s.Where(in.run)
			// The merge's --expected-failures decides, as for a run.
			for i := range s.Checks {
				s.Checks[i].Expected, s.Checks[i].ExpectedBy = false, ""
			}
			k := unitKey{s.ID, s.Transport, s.SpecVersion}
			if _, seen := byUnit[k]; !seen {
				units = append(units, k)
			}
			byUnit[k] = append(byUnit[k], copyOf{dir: in.dir, s: s})
		}
	}
	sortUnits(units, kinds, versions)
	for _, k := range units {
		s, err := mergeCopies(k, byUnit[k])
		if err != nil {
			return nil, err
		}
		merged.Scenarios = append(merged.Scenarios, s)
	}
	return merged, nil
}

// copyOf is one input's record of a scenario run.
type copyOf struct {
	dir string
	s   reports.Scenario
}

// mergeCopies makes one record of a scenario run the inputs hold: the one
// copy; identical copies (a report given twice) once; the copies of a
// scenario every shard runs (the handshake's, a ledger judge) folded.
func mergeCopies(k unitKey, copies []copyOf) (reports.Scenario, error) {
	s := copies[0].s
	distinct := []copyOf{copies[0]}
	for _, c := range copies[1:] {
		if !slices.ContainsFunc(distinct, func(d copyOf) bool { return reflect.DeepEqual(d.s, c.s) }) {
			distinct = append(distinct, c)
		}
	}
	if len(distinct) == 1 {
		return s, nil
	}
	if sc, ok := catalogue.All().Find(k.id); !ok || !suites.InEveryShard(sc) {
		return s, fmt.Errorf("%s over %s at %s is in %s and in %s with different results: each scenario runs in one shard "+
			"(are these the shards of one run, each given once?)", k.id, k.transport, k.version, distinct[0].dir, distinct[1].dir)
	}
	return foldCopies(distinct), nil
}

// foldCopies folds the copies of a scenario every shard runs into the
// verdict of one run: each check gets the worst status a copy gave it (a
// ledger judge's copies judged disjoint traffic, so a breach any copy saw
// is a breach of the whole run's; a check passes when every copy that
// judged it passed), with the messages of the copies that gave that status.
// Transcripts and stderr are kept, each under the name of its input.
func foldCopies(copies []copyOf) reports.Scenario {
	s := copies[0].s
	s.Checks = nil
	s.Transcript, s.Stderr = "", ""
	index := map[string]int{}
	from := map[string][]string{} // check → the inputs whose message it carries
	for _, c := range copies {
		if !c.s.Started.IsZero() && (s.Started.IsZero() || c.s.Started.Before(s.Started)) {
			s.Started = c.s.Started
		}
		s.Duration = max(s.Duration, c.s.Duration)
		if c.s.Transcript != "" {
			s.Transcript += fmt.Sprintf("=== in %s ===\n%s", c.dir, c.s.Transcript)
		}
		if c.s.Stderr != "" {
			s.Stderr += fmt.Sprintf("=== in %s ===\n%s", c.dir, c.s.Stderr)
		}
		for _, ch := range c.s.Checks {
			i, ok := index[ch.ID]
			if !ok {
				index[ch.ID] = len(s.Checks)
				s.Checks = append(s.Checks, ch)
				from[ch.ID] = []string{c.dir}
				continue
			}
			got := &s.Checks[i]
			got.Duration = max(got.Duration, ch.Duration)
			switch w, o := severity(ch.Status), severity(got.Status); {
			case w > o:
				d := got.Duration
				*got = ch
				got.Duration = d
				from[ch.ID] = []string{c.dir}
			case w == o && ch.Message != "" && ch.Message != got.Message:
				if len(from[ch.ID]) == 1 && got.Message != "" {
					got.Message = fmt.Sprintf("in %s: %s", from[ch.ID][0], got.Message)
				}
				got.Message += fmt.Sprintf("\n\nin %s: %s", c.dir, ch.Message)
				from[ch.ID] = append(from[ch.ID], c.dir)
			}
		}
	}
	return s
}

// severity orders statuses as a run's outcome does, worst highest; a pass
// outranks a skip (a copy that had nothing to judge).
func severity(st reports.Status) int {
	switch st {
	case reports.Skipped:
		return 0
	case reports.Passed:
		return 1
	case reports.Warning:
		return 2
	case reports.Failed:
		return 4
	}
	return 3 // errors, and statuses no writer knows
}

// sortUnits orders scenario runs as one run reports them: transport by
// transport, version by version, the handshake's scenario first, the
// ledger judges last, the rest in the catalogue's order; what the
// catalogue does not know (a newer build's scenarios) after, as read.
func sortUnits(units []unitKey, kinds, versions []string) {
	kindOrder := ordered(kinds, kindNames(transport.Kinds()))
	versionOrder := ordered(versions, protocol.Judged())
	position := map[string]int{}
	for i, s := range catalogue.All() {
		position[s.ID] = i
	}
	rank := func(id string) (int, int) {
		if s, ok := catalogue.All().Find(id); ok {
			return suites.Phase(s), position[id]
		}
		return 3, 0
	}
	slices.SortStableFunc(units, func(a, b unitKey) int {
		if c := cmp.Compare(slices.Index(kindOrder, a.transport), slices.Index(kindOrder, b.transport)); c != 0 {
			return c
		}
		if c := cmp.Compare(slices.Index(versionOrder, a.version), slices.Index(versionOrder, b.version)); c != 0 {
			return c
		}
		ra, pa := rank(a.id)
		rb, pb := rank(b.id)
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(pa, pb))
	})
}

// ordered lists the values of have in the order of known, then the rest
// as they came.
func ordered(have, known []string) []string {
	var out []string
	for _, k := range known {
		if slices.Contains(have, k) {
			out = append(out, k)
		}
	}
	for _, h := range have {
		if !slices.Contains(known, h) {
			out = append(out, h)
		}
	}
	return out
}

// appendNew appends the values not yet in list, leaving out empty ones.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list

}
