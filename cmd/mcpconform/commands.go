package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/fakes/authref"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

func listCmd() *cobra.Command {
	var faults, liberties, coverage bool
	var coverageVersion, format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List scenarios and their checks (or the reference peers' faults or liberties)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch format {
			case "text":
			case "json", "yaml":
				if coverage || faults || liberties {
					return usageErr("--format %s exports the catalogue; it does not combine with --coverage, --faults or --liberties", format)
				}
				return catalogue.WriteExport(cmd.OutOrStdout(), format)
			default:
				return usageErr("--format must be text, json or yaml, got %q", format)
			}
			if coverage {
				return printCoverage(cmd.OutOrStdout(), coverageVersion)
			}
			if faults || liberties {
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				if faults {
					printVariants(w, server.Faults(), catalogue.All().Killers(), "KILLS")
					fmt.Fprintln(w)
					printVariants(w, client.Faults(), catalogue.All().Killers(), "KILLS")
					fmt.Fprintln(w)
					printVariants(w, authref.Faults(), catalogue.All().Killers(), "KILLS")
				}
				if liberties {
					printVariants(w, append(append(server.Liberties(), client.Liberties()...), authref.Liberties()...), catalogue.All().Exercisers(), "MUST PASS")
				}
				return w.Flush()
			}
			out := cmd.OutOrStdout()
			for _, s := range catalogue.All() {
				fmt.Fprintf(out, "%s  (%s side; %s", s.ID, s.Side, strings.Join(s.Versions, ", "))
				if len(s.Transports) > 0 {
					fmt.Fprintf(out, "; %s only", strings.Join(kindNames(s.Transports), ", "))
				}
				fmt.Fprintf(out, ")\n  %s\n", s.Title)
				for _, n := range s.Needs {
					fmt.Fprintf(out, "  needs: %s\n", n)
				}
				for _, c := range s.Checks {
					fmt.Fprintf(out, "  %-6s %s\n         %s\n         %s\n", c.Level, c.ID, c.Title, c.Spec)
					if c.Source != "" {
						fmt.Fprintf(out, "         source: %s (a design note, not the spec page)\n", c.Source)
					}
					if c.Profile != "" {
						fmt.Fprintf(out, "         opt-in: --profile %s\n", c.Profile)
					}
				}
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&faults, "faults", false, "list the reference peers' faults and the checks each must kill")
	cmd.Flags().BoolVar(&liberties, "liberties", false, "list the reference peers' conformant variants, the freedom each uses and the checks each must pass")
	cmd.Flags().BoolVar(&coverage, "coverage", false, "map every scenario of the official suite, at each revision with a requirement list, to the mcpconform scenarios that judge it: full, partial (with what is missing) or absent (with why)")
	cmd.Flags().StringVar(&coverageVersion, "spec-version", "", "with --coverage: the revision whose official list to map (2025-11-25 or 2026-07-28; default both)")
	cmd.Flags().StringVar(&format, "format", "text", "text, or json or yaml: the whole catalogue as data, check by check (id, scenario, side, family, versions, level, page and sentence, faults, liberties)")
	return cmd
}

func printVariants(w *tabwriter.Writer, variants fault.Set, checks map[*fault.Fault][]*scenarios.Check, heading string) {
	fmt.Fprintf(w, "%s\t%s\tDESCRIPTION\n", strings.ToUpper(kindOf(variants)), heading)
	for _, v := range variants.Sorted() {
		var ids []string
		for _, c := range checks[v] {
			ids = append(ids, c.ID)
		}
		desc := v.Description
		if v.Freedom != "" {
			desc += " (spec: " + v.Freedom + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", v.Name, strings.Join(ids, ", "), desc)
	}
}

func kindOf(variants fault.Set) string {
	if len(variants) > 0 && variants[0].Liberty {
		return "liberty"
	}
	return "fault"
}

func fakeServerCmd() *cobra.Command {
	var (
		stdio       bool
		httpAddr    string
		wsAddr      string
		faultName   string
		libertyName string
		listFaults  bool
		hold        bool
		trustIssuer string
	)
	cmd := &cobra.Command{
		Use:   "fake-server (--stdio | --http ADDR | --ws ADDR) [--fault NAME]",
		Short: "Serve the reference server (or one of its faults) for manual use",
		Long: `Serve the conformant reference server, or a fault that breaks exactly one rule.
--stdio serves on this process's stdin/stdout and exits when stdin closes;
--http and --ws listen on ADDR (use 127.0.0.1:PORT) at the path /mcp until interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listFaults {
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				printVariants(w, server.Faults(), catalogue.All().Killers(), "KILLS")
				fmt.Fprintln(w)
				printVariants(w, server.Liberties(), catalogue.All().Exercisers(), "MUST PASS")
				return w.Flush()
			}
			modes := 0
			for _, b := range []bool{stdio, httpAddr != "", wsAddr != ""} {
				if b {
					modes++
				}
			}
			if modes != 1 {
				return usageErr("choose exactly one of --stdio, --http ADDR, --ws ADDR")
			}
			if faultName != "" && libertyName != "" {
				return usageErr("name a --fault or a --liberty, not both")
			}
			f, err := findVariant(faultName, libertyName, server.Faults(), server.Liberties())
			if err != nil {
				return usageErr("%v", err)
			}
			engine, err := server.NewReference(server.ReferenceOptions{Variant: f, HoldTaskRequests: hold})
			if err != nil {
				return usageErr("%v", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if stdio {
				// Logs go to stderr: stdout carries nothing but JSON-RPC.
				conn := transport.NewStdioServerConn(os.Stdin, os.Stdout, transport.Options{})
				return engine.ServeConn(ctx, conn)
			}
			kind, addr := transport.HTTP, httpAddr
			if wsAddr != "" {
				kind, addr = transport.WS, wsAddr
			}
			var l transport.Listener
			switch {
			case server.IsProtected(f) && trustIssuer == "":
				return usageErr("%s %s is a protected server: name the issuer it trusts with --trust-issuer URL (e.g. 'mcpconform auth-server')", f.Kind(), f.Name)
			case server.IsProtected(f):
				l, err = server.ListenProtected(ctx, kind, addr, f, server.TrustIssuer(trustIssuer), transport.Options{})
			case trustIssuer != "":
				return usageErr("--trust-issuer goes with a protected variant (--liberty protected, or an authorization fault)")
			default:
				l, err = server.Listen(ctx, kind, addr, f, transport.Options{})
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			defer l.Close()
			name := "reference server"
			if f != nil {
				name += " with " + f.Kind() + " " + f.Name
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpconform: serving the %s at %s (Ctrl-C to stop)\n", name, l.Addr())
			return engine.Serve(ctx, l)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&stdio, "stdio", false, "serve on stdin/stdout")
	fl.StringVar(&httpAddr, "http", "", "serve Streamable HTTP on ADDR, e.g. 127.0.0.1:8080")
	fl.StringVar(&wsAddr, "ws", "", "serve WebSocket on ADDR, e.g. 127.0.0.1:8081")
	fl.StringVar(&faultName, "fault", "", "serve this fault instead of the conformant server")
	fl.StringVar(&libertyName, "liberty", "", "serve this conformant variant instead of the reference")
	fl.BoolVar(&listFaults, "list-faults", false, "list the faults and exit")
	fl.StringVar(&trustIssuer, "trust-issuer", "", "with a protected variant: the issuer whose tokens it serves (its JWKS is fetched at the first token)")
	fl.BoolVar(&hold, "hold-task-requests", false, "send a task's elicitation only on a pending tasks/result (as the TypeScript SDK does)")
	return cmd
}

func selftestCmd() *cobra.Command {
	var (
		transports []string
		versions   string
		faultNames []string
		parallel   int
		quiet      bool
		sweep      bool
		timing     timingFlags
	)
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Run the suite against the reference server and every fault; print the kill matrix",
		Long: `Run every scenario against the conformant reference peers, and against each
fault and liberty the scenarios of the checks that name it. Exits 0 when the
references pass everything, each fault fails exactly the checks that name it
among its scenarios' checks (wherever it is observable) and each liberty passes
them all; 1 otherwise. --sweep runs every scenario against every variant too,
proving a fault fails nothing else anywhere (many times longer).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return usageErr("locating the mcpconform binary: %v", err)
			}
			vs, err := parseVersions(versions, protocol.Judged())
			if err != nil {
				return usageErr("%v", err)
			}
			var kinds []transport.Kind
			for _, t := range transports {
				k, err := transport.ParseKind(t)
				if err != nil {
					return usageErr("--transport: %v", err)
				}
				kinds = append(kinds, k)
			}
			all := append(append(append(append(server.Variants(), client.Faults()...), client.Liberties()...), authref.Faults()...), authref.Liberties()...)
			for _, n := range faultNames {
				if _, err := all.Find(n); err != nil {
					return usageErr("%v", err)
				}
			}
			if sweep && !cmd.Flags().Changed("parallel") {
				// A sweep runs the whole catalogue in every run: its scenarios
				// keep the cores busy, where a targeted run's mostly wait.
				parallel = sweepParallel()
			}
			opts := suites.SelfTestOptions{Exe: exe, Transports: kinds, Versions: vs, Faults: faultNames,
				Parallel: parallel, Timing: timing.get(), Sweep: sweep}
			if !quiet {
				opts.Progress = cmd.OutOrStdout()
			}
			report, err := suites.SelfTest(cmd.Context(), opts)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			report.Print(cmd.OutOrStdout())
			if !report.OK() {
				return &exitError{code: exitFail, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&transports, "transport", kindNames(transport.Kinds()), "transports to test over")
	timing.register(fl, 30*time.Second)
	fl.StringVar(&versions, "spec-version", "", "versions, comma-separated (default all)")
	fl.StringSliceVar(&faultNames, "fault", nil, "only these faults or liberties")
	// Runs mostly wait on the reference (answer deadlines, poll intervals,
	// quiet windows): many go at once per core.
	fl.IntVar(&parallel, "parallel", min(32*runtime.NumCPU(), 128), "scenarios that run at once, over every run (with --sweep the default is 6 per core)")
	fl.BoolVar(&sweep, "sweep", false, "run every scenario against every fault and liberty, not only the scenarios of the checks that name it")
	fl.BoolVarP(&quiet, "quiet", "q", false, "print only the matrix")
	return cmd
}

// sweepParallel is the width of a sweep when none is asked for: 6 scenarios
// per core. A sweep keeps the cores busy: at 64 on two cores its answers came
// late enough to fail checks.
func sweepParallel() int { return 6 * runtime.NumCPU() }
