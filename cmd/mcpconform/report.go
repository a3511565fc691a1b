package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

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
	cmd.AddCommand(reportMergeCmd(), reportAnnotateCmd())
	return cmd
}

func reportMergeCmd() *cobra.Command {
	var outDir, expected string
	var rules reports.MergeRules
	cmd := &cobra.Command{
		Use:   "merge [-o DIR] [--expected-failures FILE] DIR...",
		Short: "Combine the results.json of a run's shards (--shard K/N) into one set of reports, with a run's exit code",
		Long: "Read DIR/results.json of every shard of one run (--shard 1/N … N/N), check they judged the same side, and write\n" +
			"one set of reports (junit.xml, results.json, summary.md, report.html) as one run would have: scenarios in the run's\n" +
			"order, transports and versions combined, the earliest start, and as duration the span from the first shard's start\n" +
			"to the last one's end. The exit code is a run's: 1 when a check failed (one --expected-failures does not expect).\n" +
			"A scenario may appear in one input only, except the handshake's and the ledger scenarios (wire-*), which every\n" +
			"shard runs: their copies are folded into one verdict per check, the worst.\n\n" +
			"The inputs must be one run's: every shard of it once (each results.json says which shard of how many it was),\n" +
			"or whole runs of one target (--any-target: of several, e.g. one server's runs over stdio and over HTTP started\n" +
			"by separate commands). Anything else is refused with exit 2 before a report is written.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("report merge: name the shards' report directories (each with a results.json)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, dirs []string) error {
			return exitWith(runMerge(cmd, outDir, expected, dirs, rules))
		},
	}
	cmd.Flags().StringVarP(&outDir, "output", "o", "mcpconform-results", "directory for the merged junit.xml, results.json, summary.md and report.html")
	cmd.Flags().BoolVar(&rules.AnyTarget, "any-target", false, "merge whole runs of different targets")
	cmd.Flags().StringVar(&expected, "expected-failures", "", "YAML file of failures to expect, as for a run (the shards' own marks are not kept: give the merge the shards' file)")
	return cmd
}

// runMerge reads every shard's results, merges them and ends as a run does.
func runMerge(cmd *cobra.Command, outDir, expected string, dirs []string, rules reports.MergeRules) (int, error) {
	var baseline *reports.Baseline
	if expected != "" {
		b, err := loadBaseline(expected)
		if err != nil {
			return exitUsage, usageErr("%v", err)
		}
		baseline = b
	}
	inputs := make([]reports.Shard, 0, len(dirs))
	for _, dir := range dirs {
		run, err := readShardResults(dir)
		if err != nil {
			return exitUsage, usageErr("report merge: %v", err)
		}
		inputs = append(inputs, reports.Shard{Dir: dir, Run: run})
	}
	run, err := reports.Merge(inputs, mergeOrder(), rules)
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

// mergeOrder is what the merge needs of the catalogue: the orders of a
// run, the scenarios every shard runs, each scenario's place.
func mergeOrder() reports.MergeOrder {
	position := map[string]int{}
	for i, s := range catalogue.All() {
		position[s.ID] = i
	}
	return reports.MergeOrder{
		Transports: kindNames(transport.Kinds()),
		Versions:   protocol.Judged(),
		InEveryShard: func(id string) bool {
			s, ok := catalogue.All().Find(id)
			return ok && suites.InEveryShard(s)
		},
		Rank: func(id string) (int, int, bool) {
			s, ok := catalogue.All().Find(id)
			if !ok {
				return 0, 0, false
			}
			return suites.Phase(s), position[id], true
		},
	}
}
