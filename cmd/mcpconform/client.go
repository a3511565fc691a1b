package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

type clientFlags struct {
	runFlags
	command   string
	reference bool
	fault     string
	liberty   string
	transport string
	maxRounds int
}

func clientCmd() *cobra.Command {
	f := &clientFlags{}
	cmd := &cobra.Command{
		Use:   "client (-- CMD ARGS... | --command \"CMD ARGS\" | --reference)",
		Short: "Judge an MCP client: mcpconform plays the server",
		Long: `Judge an MCP client. mcpconform serves a scripted fake server, launches the
client once per scenario with the fake server's address as its last argument
(an http:// or ws:// URL, or over stdio a command line that starts the server)
and MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_PROTOCOL_VERSION in its
environment, as the official conformance runner does, and judges what the
client sends. Reports and exit codes are those of the server command.`,
		Example: `  mcpconform client --reference
  mcpconform client --transport http -- node build/client.js
  mcpconform client --command "python client.py"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runClient(cmd, f, args))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.command, "command", "", "the client's command line, split on spaces (the official runner's form); or give argv after --")
	fl.BoolVar(&f.reference, "reference", false, "judge the built-in reference client (a conformant target)")
	fl.StringVar(&f.fault, "fault", "", "with --reference: run this fault instead (see 'mcpconform fake-client --list-faults')")
	fl.StringVar(&f.liberty, "liberty", "", "with --reference: run this liberty, a conformant variant (see 'mcpconform fake-client --list-faults')")
	fl.StringVar(&f.transport, "transport", "all", "stdio, http, ws, a comma-separated list of them, or all")
	fl.IntVar(&f.maxRounds, "max-rounds", scenarios.DefaultMaxRounds, "the bound a client's MRTR loop is judged against: more retries warn, ten times as many fail")
	f.runFlags.register(fl)
	return cmd
}

func runClient(cmd *cobra.Command, f *clientFlags, args []string) (int, error) {
	if f.maxRounds < 1 {
		return exitUsage, usageErr("--max-rounds must be at least 1, got %d", f.maxRounds)
	}
	versions, err := f.versions(protocol.From(protocol.DefaultVersion))
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return exitUsage, usageErr("locating the mcpconform binary (it relays a stdio client's server): %v", err)
	}
	target, err := f.target(exe, args)
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	transports, err := selectKinds(f.transport)
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	if f.fault != "" {
		// A fault exists only where it can be performed: judge it there.
		flt, _ := client.Faults().Find(f.fault) // target() has checked the name
		if len(flt.Versions) > 0 {
			var kept []string
			for _, v := range versions {
				if slices.Contains(flt.Versions, v) {
					kept = append(kept, v)
				}
			}
			if len(kept) == 0 {
				return exitUsage, usageErr("fault %s applies only to protocol versions %s", flt.Name, strings.Join(flt.Versions, ", "))
			}
			versions = kept
		}
	}
	p := &plan{side: scenarios.ClientSide, versions: versions, transports: transports, flags: &f.runFlags,
		targets: map[transport.Kind]scenarios.Target{}, describe: target.String()}
	p.env.MaxRounds = f.maxRounds
	for _, tr := range transports {
		p.targets[tr] = target
	}
	if f.reference {
		p.describe = "built-in reference client"
		if f.fault != "" {
			p.describe += " with fault " + f.fault
		}
		if f.liberty != "" {
			p.describe += " with liberty " + f.liberty
		}
	}
	if err := p.check(); err != nil {
		return exitUsage, usageErr("%v", err)
	}
	return p.execute(cmd)
}

// target resolves the client command: argv after --, --command split on
// spaces, or the reference client.
func (f *clientFlags) target(exe string, args []string) (clientside.Target, error) {
	chosen := 0
	for _, b := range []bool{len(args) > 0, f.command != "", f.reference} {
		if b {
			chosen++
		}
	}
	if chosen != 1 {
		return clientside.Target{}, fmt.Errorf("name exactly one client: -- CMD ARGS..., --command \"CMD ARGS\", or --reference")
	}
	if (f.fault != "" || f.liberty != "") && !f.reference {
		return clientside.Target{}, fmt.Errorf("--fault and --liberty go with --reference")
	}
	if f.fault != "" && f.liberty != "" {
		return clientside.Target{}, fmt.Errorf("give --fault or --liberty, not both")
	}
	argv := args
	switch {
	case f.command != "":
		argv = strings.Fields(f.command)
	case f.reference:
		argv = []string{exe, "fake-client"}
		if f.fault != "" {
			if _, err := client.Faults().Find(f.fault); err != nil {
				return clientside.Target{}, err
			}
			argv = append(argv, "--fault", f.fault)
		}
		if f.liberty != "" {
			if _, err := client.Liberties().Find(f.liberty); err != nil {
				return clientside.Target{}, err
			}
			argv = append(argv, "--liberty", f.liberty)
		}
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return clientside.Target{}, fmt.Errorf("client command %q not found: %v", argv[0], err)
	}
	return clientside.Target{Argv: argv, RelayExe: exe}, nil
}
