package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
)

var (
	allTransports = []string{client.KindStdio, client.KindHTTP, client.KindWS}
	knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"}
)

type serverFlags struct {
	url, ws         string
	stdio           bool
	reference       bool
	fault           string
	transport       string
	specVersion     string
	scenarioIDs     []string
	labelFilter     string
	outDir          string
	timeout         time.Duration
	responseTimeout time.Duration
	verbose         bool
	strict          bool
	fixtures        []string
	headers         []string
	configPath      string
	authTokens      []string
}

func serverCmd() *cobra.Command {
	f := &serverFlags{}
	cmd := &cobra.Command{
		Use:   "server (--url URL | --ws URL | --stdio -- CMD ARGS... | --reference)",
		Short: "Judge an MCP server: mcpconform plays the client",
		Long: `Judge an MCP server. mcpconform plays the client from a script, checks every
requirement the spec states, prints a line per scenario and writes junit.xml,
results.json, summary.md and report.html to the output directory.

Exit codes: 0 every judged check passed (SHOULD warnings allowed unless --strict),
1 a check failed, 2 usage or setup error, 3 some checks could not be judged.`,
		Example: `  mcpconform server --reference
  mcpconform server --stdio -- node build/index.js
  mcpconform server --url http://127.0.0.1:3000/mcp --spec-version 2025-11-25
  mcpconform server --ws ws://127.0.0.1:8080/mcp --label-filter 'level: containsAny MUST'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			code, err := runServer(cmd, f, args)
			if err != nil {
				return err
			}
			if code != exitPass {
				return &exitError{code: code, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "Streamable HTTP endpoint of the server under test")
	fl.StringVar(&f.ws, "ws", "", "WebSocket endpoint of the server under test")
	fl.BoolVar(&f.stdio, "stdio", false, "spawn the server under test: the command follows --")
	fl.BoolVar(&f.reference, "reference", false, "judge the built-in reference server (a conformant target)")
	fl.StringVar(&f.fault, "fault", "", "with --reference: serve this fault instead (see `fake-server --list-faults`)")
	fl.StringVar(&f.transport, "transport", "all", "with --reference: stdio, http, ws or all")
	fl.StringVar(&f.specVersion, "spec-version", "", "protocol version(s) to judge, comma-separated, or all (default 2025-11-25; with --reference 2025-11-25,2026-07-28)")
	fl.StringSliceVar(&f.scenarioIDs, "scenario", nil, "run only these scenario ids (repeatable)")
	fl.StringVar(&f.labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'family: containsAny lifecycle && level: containsAny MUST'")
	fl.StringVarP(&f.outDir, "output", "o", "mcpconform-results", "directory for junit.xml, results.json, summary.md and report.html")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "deadline for one scenario")
	fl.DurationVar(&f.responseTimeout, "response-timeout", 5*time.Second, "deadline for each single answer from the target")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print Ginkgo's spec-by-spec output (steps, transcripts of failures) to stderr")
	fl.BoolVar(&f.strict, "strict", false, "count failed SHOULD checks as failures, not warnings")
	fl.StringArrayVar(&f.fixtures, "fixture", nil, "map a fixture to the target's own name: NAME=TARGET_NAME (repeatable)")
	fl.StringArrayVar(&f.headers, "header", nil, "extra HTTP header for every request, 'Name: value' (repeatable)")
	fl.StringVar(&f.configPath, "config", "", "YAML file mapping fixtures to the target's tools and arguments (see README)")
	fl.StringArrayVar(&f.authTokens, "auth-token", nil, "bearer token of a session; give two for two authorization contexts (HTTP, WebSocket)")
	return cmd
}

func (f *serverFlags) versions() ([]string, error) {
	spec := f.specVersion
	if spec == "" {
		spec = "2025-11-25"
		if f.reference {
			spec = "2025-11-25,2026-07-28"
		}
	}
	if spec == "all" {
		return knownVersions, nil
	}
	var out []string
	for _, v := range strings.Split(spec, ",") {
		v = strings.TrimSpace(v)
		if !slices.Contains(knownVersions, v) {
			return nil, fmt.Errorf("unknown --spec-version %q (known: %s, or all)", v, strings.Join(knownVersions, ", "))
		}
		out = append(out, v)
	}
	return out, nil
}

// targets resolves the flags into the transports and targets to judge.
func (f *serverFlags) targets(ctx context.Context, args []string) ([]string, map[string]client.Target, func(), error) {
	chosen := 0
	for _, b := range []bool{f.url != "", f.ws != "", f.stdio, f.reference} {
		if b {
			chosen++
		}
	}
	if chosen != 1 {
		return nil, nil, nil, fmt.Errorf("name exactly one target: --url URL, --ws URL, --stdio -- CMD ARGS..., or --reference")
	}
	if f.fault != "" && !f.reference {
		return nil, nil, nil, fmt.Errorf("--fault goes with --reference")
	}
	if len(args) > 0 && !f.stdio {
		return nil, nil, nil, fmt.Errorf("unexpected arguments %q (a command to spawn goes after --stdio --)", args)
	}
	header, err := parseHeaders(f.headers)
	if err != nil {
		return nil, nil, nil, err
	}
	noop := func() {}
	switch {
	case f.url != "":
		return []string{client.KindHTTP}, map[string]client.Target{client.KindHTTP: {Kind: client.KindHTTP, URL: f.url, Header: header}}, noop, nil
	case f.ws != "":
		return []string{client.KindWS}, map[string]client.Target{client.KindWS: {Kind: client.KindWS, URL: f.ws, Header: header}}, noop, nil
	case f.stdio:
		if len(args) == 0 {
			return nil, nil, nil, fmt.Errorf("--stdio needs the server's command after --, e.g. --stdio -- node server.js")
		}
		if _, err := exec.LookPath(args[0]); err != nil {
			return nil, nil, nil, fmt.Errorf("target command %q not found: %v", args[0], err)
		}
		return []string{client.KindStdio}, map[string]client.Target{client.KindStdio: {Kind: client.KindStdio, Argv: args}}, noop, nil
	}
	transports := allTransports
	if f.transport != "all" {
		if !slices.Contains(allTransports, f.transport) {
			return nil, nil, nil, fmt.Errorf("unknown --transport %q (stdio, http, ws or all)", f.transport)
		}
		transports = []string{f.transport}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("locating the mcpconform binary for the stdio reference: %w", err)
	}
	targets := map[string]client.Target{}
	var refs []*suites.Reference
	stop := func() {
		for _, r := range refs {
			r.Stop()
		}
	}
	for _, tr := range transports {
		ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{Fault: f.fault}, exe)
		if err != nil {
			stop()
			return nil, nil, nil, fmt.Errorf("starting the reference server over %s: %w", tr, err)
		}
		refs = append(refs, ref)
		targets[tr] = ref.Target
	}
	return transports, targets, stop, nil
}

func parseHeaders(lines []string) (http.Header, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("--header %q: want 'Name: value'", l)
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return h, nil
}

func parseFixtures(pairs []string, into map[string]scenarios.Fixture) (map[string]scenarios.Fixture, error) {
	if into == nil {
		into = map[string]scenarios.Fixture{}
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--fixture %q: want NAME=TARGET_NAME", p)
		}
		f := into[k]
		f.Tool = v
		into[k] = f
	}
	return into, nil
}

func runServer(cmd *cobra.Command, f *serverFlags, args []string) (int, error) {
	out := cmd.OutOrStdout()
	versions, err := f.versions()
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	cfgFile, err := loadConfig(f.configPath)
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	fixtures, err := parseFixtures(f.fixtures, cfgFile.Fixtures)
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	tokens := append(append([]string(nil), cfgFile.Auth.Tokens...), f.authTokens...)
	if len(tokens) != 0 && len(tokens) != 2 {
		return exitUsage, usageErr("give two bearer tokens (--auth-token twice, or auth.tokens in the config), one per authorization context; got %d", len(tokens))
	}
	for _, id := range f.scenarioIDs {
		if _, ok := scenarios.Find(id); !ok {
			return exitUsage, usageErr("unknown --scenario %q (see `mcpconform list`)", id)
		}
	}
	if f.labelFilter != "" {
		if _, err := types.ParseLabelFilter(f.labelFilter); err != nil {
			return exitUsage, usageErr("--label-filter: %v", err)
		}
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	transports, targets, stop, err := f.targets(ctx, args)
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	defer stop()

	var configs []suites.Config
	for _, tr := range transports {
		for _, v := range versions {
			cfg := suites.Config{
				Name: tr + " " + v,
				Env: scenarios.Env{Target: targets[tr], Version: v, Transport: tr,
					Fixtures: fixtures, AuthTokens: tokens, ResponseTimeout: f.responseTimeout},
				ScenarioTimeout: f.timeout,
				Strict:          f.strict,
				Progress:        out,
			}
			if len(f.scenarioIDs) > 0 {
				ids := f.scenarioIDs
				cfg.Select = func(s *scenarios.Scenario) bool { return slices.Contains(ids, s.ID) }
			}
			configs = append(configs, cfg)
		}
	}
	targetDesc := describeTargets(transports, targets)
	if f.reference {
		targetDesc = "built-in reference server"
		if f.fault != "" {
			targetDesc += " with fault " + f.fault
		}
	}
	fmt.Fprintf(out, "mcpconform %s: judging %s at %s\n", toolVersion, targetDesc, strings.Join(versions, ", "))

	started := time.Now()
	col := suites.NewCollector()
	interrupted := runGinkgo(configs, col, f.labelFilter, f.verbose)
	run := &reports.Run{
		Tool: "mcpconform", ToolVersion: toolVersion, Side: "server", Target: targetDesc,
		Transport: strings.Join(transports, ","), SpecVersion: strings.Join(versions, ","),
		Strict: f.strict, Started: started, Duration: time.Since(started), Scenarios: col.Scenarios(),
	}
	paths, werr := reports.WriteAll(f.outDir, run)
	counts := run.Counts()
	fmt.Fprintf(out, "\n%d checks: %d passed, %d failed, %d warnings, %d skipped, %d errors (%s)\n",
		counts.Total, counts.Passed, counts.Failed, counts.Warning, counts.Skipped, counts.Errored, run.Duration.Round(time.Millisecond))
	if werr != nil {
		return exitUsage, &exitError{code: exitUsage, err: fmt.Errorf("writing reports to %s: %w", f.outDir, werr)}
	}
	fmt.Fprintf(out, "reports: %s\n", strings.Join(paths, ", "))
	if counts.Errored > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpconform: %d checks could not be judged; the first reason: %s\n", counts.Errored, firstError(run))
	}
	switch {
	case counts.Failed > 0:
		return exitFail, nil
	case interrupted:
		return exitUnjudged, &exitError{code: exitUnjudged, err: fmt.Errorf("interrupted: the report holds what was judged so far")}
	case counts.Errored > 0:
		return exitUnjudged, nil
	case counts.Total == 0:
		return exitUsage, usageErr("no check applies: the selection (--scenario, --label-filter, --spec-version, transport) matches nothing")
	}
	return exitPass, nil
}

func describeTargets(transports []string, targets map[string]client.Target) string {
	var parts []string
	for _, tr := range transports {
		parts = append(parts, targets[tr].String())
	}
	return strings.Join(parts, "; ")
}

// ginkgoT satisfies ginkgo.GinkgoTestingT outside `go test`.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

// runGinkgo runs the specs in-process. Ginkgo's own console reporter is
// silenced unless --verbose (then it goes to stderr); mcpconform prints its
// own progress lines. It reports whether the run was interrupted.
func runGinkgo(configs []suites.Config, col *suites.Collector, labelFilter string, verbose bool) bool {
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = labelFilter
	suiteConfig.Timeout = 24 * time.Hour // scenarios carry their own deadlines
	reporterConfig.NoColor = true
	if verbose {
		formatter.ColorableStdOut = os.Stderr
		reporterConfig.Verbose = true
	} else {
		formatter.ColorableStdOut = io.Discard
		reporterConfig.Succinct = true
	}
	suites.Define(configs, col)
	var interrupted bool
	ginkgo.ReportAfterSuite("mcpconform", func(r ginkgo.Report) {
		interrupted = r.SpecialSuiteFailureReasons != nil && slices.ContainsFunc(r.SpecialSuiteFailureReasons, func(s string) bool {
			return strings.Contains(strings.ToLower(s), "interrupt")
		})
	})
	ginkgo.RunSpecs(&ginkgoT{}, "mcpconform", suiteConfig, reporterConfig)
	return interrupted
}

func firstError(run *reports.Run) string {
	for _, s := range run.Scenarios {
		for _, c := range s.Checks {
			if c.Status == reports.Errored {
				return c.Message
			}
		}
	}
	return ""
}
