package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
)

func fakeClientCmd() *cobra.Command {
	var (
		faultName   string
		libertyName string
		specVersion string
		listFaults  bool
	)
	cmd := &cobra.Command{
		Use:   "fake-client [--fault NAME | --liberty NAME] [--spec-version V] TARGET",
		Short: "Run the reference MCP client (or one of its faults) against a server",
		Long: `Run the conformant reference client, or a fault that breaks exactly one rule,
against TARGET, which it takes as the official conformance runner gives it, as
the last argument: an http:// or https:// URL (Streamable HTTP), a ws:// URL
(WebSocket), or else a command line that starts a stdio server, split on spaces
(no quoting: no argument of it may contain a space).

At 2025-11-25 and earlier it sends initialize, notifications/initialized and
tools/list; at 2026-07-28 server/discover and tools/list; then it closes the
connection. The version is --spec-version, else $` + client.EnvProtocolVersion + `,
else 2025-11-25; $` + client.EnvScenario + ` is logged. Progress goes to stderr.
Exit status: 0 when the server answered everything, 1 otherwise.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if listFaults {
				return cobra.NoArgs(cmd, args)
			}
			if len(args) != 1 {
				return usageErr("fake-client needs exactly one TARGET (a URL, or a stdio server command line as one argument), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if listFaults {
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintf(w, "FAULT\tVERSIONS\tDESCRIPTION\n")
				for _, f := range append(client.Faults().Sorted(), client.Liberties().Sorted()...) {
					fmt.Fprintf(w, "%s\t%s\t%s\n", f.Name, strings.Join(f.Versions, ","), f.Kind()+": "+f.Description)
				}
				return w.Flush()
			}
			var f *fault.Fault
			if faultName != "" {
				var err error
				if f, err = client.Faults().Find(faultName); err != nil {
					return usageErr("%v", err)
				}
			}
			if libertyName != "" {
				if faultName != "" {
					return usageErr("give --fault or --liberty, not both")
				}
				var err error
				if f, err = client.Liberties().Find(libertyName); err != nil {
					return usageErr("%v", err)
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := client.RunReference(ctx, client.ReferenceClientOptions{
				Server:  args[len(args)-1],
				Version: specVersion,
				Fault:   f,
				Log:     prefixedLines{w: cmd.ErrOrStderr(), prefix: "mcpconform fake-client: "},
			})
			if err != nil {
				return &exitError{code: exitFail, err: fmt.Errorf("fake-client: %w", err)}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&faultName, "fault", "", "run this fault instead of the conformant client")
	fl.StringVar(&libertyName, "liberty", "", "run this liberty (a conformant variant) instead of the reference")
	fl.StringVar(&specVersion, "spec-version", "", "protocol version to speak (default $"+client.EnvProtocolVersion+", else 2025-11-25)")
	fl.BoolVar(&listFaults, "list-faults", false, "list the faults and exit")
	return cmd
}

// relayCmd is the stdio server command mcpconform hands a client under test
// when it judges that client over stdio: it connects back to the judging
// mcpconform process and copies bytes both ways.
func relayCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "relay ADDR TOKEN",
		Short:  "Relay stdin and stdout to the mcpconform process that judges a client (internal)",
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			// A termination signal ends the process at once; the judging
			// side sees the connection drop, as it would with a real server.
			if err := transport.RunRelay(context.Background(), args[0], args[1], os.Stdin, os.Stdout); err != nil {
				return &exitError{code: exitFail, err: err}
			}
			return nil
		},
	}
}

// prefixedLines writes each log line with a prefix, so the reference
// client's progress stands out in a harness's combined output.
type prefixedLines struct {
	w      io.Writer
	prefix string
}

func (p prefixedLines) Write(b []byte) (int, error) {
	if _, err := fmt.Fprint(p.w, p.prefix+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
