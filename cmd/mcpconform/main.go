// Command mcpconform is a conformance test suite and fake peer for the Model
// Context Protocol. See README.md for the commands and exit codes.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/reports"
)

// Exit codes (documented in README.md).
const (
	exitPass     = 0 // every judged check passed (warnings allowed unless --strict)
	exitFail     = 1 // at least one check failed
	exitUsage    = 2 // bad flags, missing target, or the run could not be set up
	exitUnjudged = 3 // no failure, but some checks could not be judged (target unreachable, timeouts)
)

// toolVersion is set at build time with -ldflags "-X main.toolVersion=…".
var toolVersion = devVersion

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// newRoot is the command tree, flags and all.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpconform",
		Short:         "Conformance test suite and fake peer for the Model Context Protocol",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: exitUsage, err: err} })
	root.AddCommand(serverCmd(), clientCmd(), listCmd(), fakeServerCmd(), selftestCmd(), versionCmd())
	root.AddCommand(fakeClientCmd(), relayCmd())
	root.AddCommand(baselineCmd(), authServerCmd(), authserverJudgeCmd())
	root.AddCommand(reportCmd())
	return root
}

func main() {
	root := newRoot()
	// Every line of the console goes through a cleaning writer: target text
	// (names, messages, stderr, transcripts with -v) reaches it in many
	// ways, and a terminal obeys the escape sequences in it. The protocol
	// streams of fake-server --stdio and relay use os.Stdout themselves.
	stdout, stderr := reports.NewTerminalWriter(os.Stdout), reports.NewTerminalWriter(os.Stderr)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "mcpconform:", ee.err)
		}
		os.Exit(ee.code)
	}
	// cobra's own errors (unknown command, bad flag) are usage errors.
	fmt.Fprintln(stderr, "mcpconform:", err)
	os.Exit(exitUsage)
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpconform version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "mcpconform %s\n", toolVersion)
		},
	}
}
