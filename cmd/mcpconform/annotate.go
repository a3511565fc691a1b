package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/reports"
)

// maxAnnotations bounds the workflow commands printed: GitHub shows at
// most 10 errors and 10 warnings per step anyway, and the reports hold all.
const maxAnnotations = 50

func reportAnnotateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "annotate DIR",
		Short: "Print GitHub workflow annotations (::error, ::warning) for the failed and warning checks of DIR/results.json",
		Long: "Read DIR/results.json and print one GitHub workflow command per check that failed (::error) or warned\n" +
			"(::warning), titled with the check id, transport and version, with the start of its Expected/Actual as the\n" +
			"message; at most 50, then a notice of how many more. A failure an expected-failures baseline expects is\n" +
			"left out. The GitHub Action runs it after mcpconform.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := readShardResults(args[0])
			if err != nil {
				return exitWith(exitUsage, usageErr("report annotate: %v", err))
			}
			writeAnnotations(cmd.OutOrStdout(), run)
			return nil
		},
	}
}

// writeAnnotations prints the workflow commands of a run's failures and
// warnings, bounded, their text escaped as the workflow command syntax asks.
func writeAnnotations(w io.Writer, run *reports.Run) {
	n, more := 0, 0
	for i := range run.Scenarios {
		s := &run.Scenarios[i]
		for j := range s.Checks {
			c := &s.Checks[j]
			kind := ""
			switch c.Final() {
			case reports.Failed:
				kind = "error"
			case reports.Warning:
				kind = "warning"
			default:
				continue
			}
			if n == maxAnnotations {
				more++
				continue
			}
			n++
			title := fmt.Sprintf("%s %s (%s %s %s)", c.Level, c.ID, s.Side, s.Transport, s.SpecVersion)
			msg := strings.Join(messageLines(c.Message), "\n")
			if url := reports.SpecURL(c.SpecRef); url != "" {
				msg += "\n" + url
			}
			fmt.Fprintf(w, "::%s title=%s::%s\n", kind, escapeProperty(title), escapeData(msg))
		}
	}
	if more > 0 {
		fmt.Fprintf(w, "::notice title=mcpconform::%d more failed or warning checks; the reports list every one\n", more)
	}
}

// escapeData and escapeProperty escape a workflow command's message and
// property values, so a target's text cannot end the command or start
// another.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
