package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suites"
)

// loadBaseline reads --expected-failures and checks every entry against the
// catalogue, so a typo is a usage error before anything runs rather than an
// entry that silently never matches.
func loadBaseline(path string) (*reports.Baseline, error) {
	b, err := suites.LoadBaseline(path)
	if err != nil {
		return nil, fmt.Errorf("--expected-failures: %v", err)
	}
	return b, nil
}

// shardBaseline is the baseline for this run: under --shard, told which
// entries also cover scenario runs of the other shards, which this shard
// cannot find stale (a check passing here may fail there; the merged run
// judges it).
func (p *plan) shardBaseline() *reports.Baseline {
	b := p.flags.baseline
	if b == nil || p.flags.shard.Whole() {
		return b
	}
	type unit struct{ scenario, transport, version string }
	var elsewhere []unit
	whole, mine := p.wholeConfigs(nil), p.configs(nil)
	for i := range whole {
		here := map[string]bool{}
		for _, s := range mine[i].Planned() {
			here[s.ID] = true
		}
		for _, s := range whole[i].Planned() {
			// A ledger judge runs in every shard but judges only its own
			// shard's traffic: the others may fail it where this one passes.
			if !here[s.ID] || s.Last {
				elsewhere = append(elsewhere, unit{s.ID, string(whole[i].Env.Transport), whole[i].Env.Version})
			}
		}
	}
	side := string(p.side)
	sb := *b
	sb.Elsewhere = func(e *reports.BaselineEntry) bool {
		return slices.ContainsFunc(elsewhere, func(u unit) bool { return e.Covers(side, u.scenario, u.transport, u.version) })
	}
	return &sb
}

// applyBaseline marks the run's expected failures and reports what the
// baseline did: one line for the expected failures, one per stale entry.
// It returns the stale entries' messages.
func applyBaseline(cmd *cobra.Command, run *reports.Run, b *reports.Baseline) []string {
	if b == nil {
		return nil
	}
	applied := b.Apply(run)
	if applied.Expected > 0 {
		what := fmt.Sprintf("%d failed checks are expected failures", applied.Expected)
		if applied.Expected == 1 {
			what = "1 failed check is an expected failure"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s (listed in %s); they do not fail the run\n", what, b.Path)
	}
	var stale []string
	for _, s := range applied.Stale {
		stale = append(stale, s.Message())
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpconform: %s\n", s.Message())
	}
	return stale
}

func baselineCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "baseline [-o FILE] RESULTS.json|DIR...",
		Short: "Write an expected-failures file (--expected-failures) from the results.json of one or more runs",
		Long: "Write an expected-failures file listing every check that failed in the given runs, under server: and client:,\n" +
			"as scenario/check ids, limited to transports or spec versions only where the check did not fail everywhere it ran.\n" +
			"A directory stands for every results.json under it (the shards of a CI matrix, say). Without -o the file goes to stdout.",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBaseline(cmd, output, args)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default: stdout)")
	return cmd
}

func runBaseline(cmd *cobra.Command, output string, args []string) error {
	if len(args) == 0 {
		return usageErr("baseline: name at least one results.json or a directory holding some")
	}
	files, err := resultFiles(args)
	if err != nil {
		return usageErr("baseline: %v", err)
	}
	var runs []*reports.Run
	var sources []string
	for _, path := range files {
		r, err := readResults(path)
		if err != nil {
			return usageErr("baseline: %v", err)
		}
		if r.Interrupted != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpconform: %s is of a run interrupted by %s: checks it did not judge are not in the baseline\n", path, r.Interrupted)
		}
		runs = append(runs, r)
		sources = append(sources, fmt.Sprintf("%s (%s %s; %s; %s)", path, r.Side, r.Target, r.Transport, r.SpecVersion))
	}
	b := reports.BaselineFrom(runs...)
	header := []string{
		"Expected failures for mcpconform --expected-failures, written by 'mcpconform baseline' (mcpconform " + toolVersion + ")",
		"from every check that failed in:",
	}
	for _, s := range sources {
		header = append(header, "  "+strings.Join(strings.Fields(s), " "))
	}
	header = append(header,
		"An entry with transport: or specVersion: failed only there. Remove an entry once its check passes:",
		"a run fails on an entry whose checks ran and none failed.",
	)
	var buf bytes.Buffer
	if err := b.WriteYAML(&buf, header, reports.Sides(runs...)); err != nil {
		return err
	}
	if output == "" || output == "-" {
		_, err := cmd.OutOrStdout().Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(output, buf.Bytes(), 0o644); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("baseline: %v", err)}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "baseline: %d entries from %d runs written to %s\n", len(b.Entries), len(runs), output)
	return nil
}

// resultFiles expands the arguments: a file as is, a directory to every
// results.json under it, in path order.
func resultFiles(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, arg)
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == "results.json" {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no results.json under %s", arg)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}

// readResults reads one results.json; an error names the file.
func readResults(path string) (*reports.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // names the path
	}
	defer f.Close()
	run, err := reports.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// staleCount is "1 entry" or "N entries".
func staleCount(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
