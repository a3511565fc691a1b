package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/internal/suggest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// timingFlags set the one timing configuration of a run.
type timingFlags struct{ t scenarios.Timing }

func (f *timingFlags) register(fl *pflag.FlagSet, scenarioTimeout time.Duration) {
	d := scenarios.DefaultTiming()
	fl.DurationVar(&f.t.ScenarioTimeout, "timeout", scenarioTimeout, "deadline for one scenario")
	fl.DurationVar(&f.t.ResponseTimeout, "response-timeout", d.ResponseTimeout, "deadline for each single answer from the target")
	fl.DurationVar(&f.t.StartTimeout, "start-timeout", d.StartTimeout, "deadline for a target process started over stdio to answer its handshake (its start-up included)")
	fl.DurationVar(&f.t.QuietWindow, "quiet-window", d.QuietWindow, "how long to watch for something that must not arrive (a response after a cancel, a notification to another session)")
	fl.DurationVar(&f.t.Poll, "poll-interval", d.Poll, "interval to poll a task at when the target suggests none")
}

func (f *timingFlags) get() scenarios.Timing { return f.t }

func (f *timingFlags) validate() error {
	for name, d := range map[string]time.Duration{"--timeout": f.t.ScenarioTimeout, "--response-timeout": f.t.ResponseTimeout, "--start-timeout": f.t.StartTimeout,
		"--quiet-window": f.t.QuietWindow, "--poll-interval": f.t.Poll} {
		if d <= 0 {
			return fmt.Errorf("%s must be positive, got %s", name, d)
		}
	}
	return nil
}

// runFlags are the flags every judging command (server, client) shares.
type runFlags struct {
	specVersion string
	scenarioIDs []string

	// expectedFailures is the baseline file; baseline is it, loaded and
	// checked against the catalogue by check().
	expectedFailures string
	baseline         *reports.Baseline

	// requirements is --requirements: an official revision whose required
	// set the run judges (applyRequirements).
	requirements string

	labelFilter string
	outDir      string
	verbose     bool
	strict      bool
	profiles    []string
	timing      timingFlags
	parallel    int
	shard       suites.Shard
	progress    progressMode
}

func (f *runFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.specVersion, "spec-version", "", "protocol version(s) to judge, comma-separated, or all (default "+protocol.DefaultVersion+"; with --reference "+strings.Join(protocol.From(protocol.DefaultVersion), ",")+")")
	fl.StringSliceVar(&f.scenarioIDs, "scenario", nil, "run only these scenario ids (repeatable)")
	fl.StringVar(&f.requirements, "requirements", "", "run the official suite's required set of this revision (2025-11-25 or 2026-07-28): the mcpconform counterparts of the scenarios its list scores on this side, at that version, and print the pass rate as the official suite counts it")
	fl.StringVar(&f.labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'family: containsAny lifecycle && level: containsAny MUST'")
	fl.StringVarP(&f.outDir, "output", "o", "mcpconform-results", "directory for junit.xml, results.json, summary.md and report.html")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print the run spec by spec to stderr: each check, the steps, and for a failure its Expected/Actual and the transcript")
	fl.BoolVar(&f.strict, "strict", false, "count failed SHOULD checks as failures, not warnings")
	fl.StringVar(&f.expectedFailures, "expected-failures", "", "YAML file of failures to expect (server:/client: lists of scenario or scenario/check ids, "+
		"optionally per transport and specVersion; 'mcpconform baseline' writes one): they do not fail the run, an entry whose checks now pass does")
	fl.StringSliceVar(&f.profiles, "profile", nil, "enable an opt-in profile of checks no spec sentence asks of every peer (repeatable; 'mcpconform list' names them)")
	f.timing.register(fl, scenarios.DefaultTiming().ScenarioTimeout)
	fl.IntVar(&f.parallel, "parallel", runner.DefaultWidth, "scenarios that run at once, across transports and versions (1: one at a time; they mostly wait on the target); "+
		"those that start target processes (stdio, the client side) are held to fewer; on each transport and version "+
		"the handshake's scenario runs first, those judging the others' traffic last, and the reports keep the catalogue's order")
	fl.Var(&f.shard, "shard", "run shard K of N: a slice of the run's scenarios × transports × versions, balanced by their recorded durations (combine the shards with 'mcpconform report merge')")
	f.progress = progressAuto
	fl.Var(&f.progress, "progress", "auto: a live line on a terminal (plain lines when NO_COLOR is set or TERM=dumb); line: the live line wherever stdout goes (not with -v); plain: one line per scenario")
}

// versions resolves --spec-version against the version table.
func (f *runFlags) versions(defaults []string) ([]string, error) {
	return parseVersions(f.specVersion, defaults)
}

func parseVersions(spec string, defaults []string) ([]string, error) {
	if spec == "" {
		return defaults, nil
	}
	known := protocol.Judged()
	if spec == "all" {
		return known, nil
	}
	var out []string
	for _, v := range strings.Split(spec, ",") {
		v = strings.TrimSpace(v)
		if !slices.Contains(known, v) {
			return nil, fmt.Errorf("unknown --spec-version %q (known: %s, or all)", v, strings.Join(known, ", "))
		}
		out = append(out, v)
	}
	return out, nil
}

// selectKinds resolves a --transport value: one kind, or all of them.
func selectKinds(name string) ([]transport.Kind, error) {
	if name == "all" {
		return transport.Kinds(), nil
	}
	var kinds []transport.Kind
	for _, part := range strings.Split(name, ",") {
		k, err := transport.ParseKind(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("--transport: %w (or all)", err)
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

func kindNames(kinds []transport.Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// plan is one judging run, whatever the side: the targets per transport,
// the versions, the selection and what every scenario's Env starts from.
type plan struct {
	side       scenarios.Side
	transports []transport.Kind
	versions   []string
	targets    map[transport.Kind]scenarios.Target
	describe   string // the target, for the header line and reports
	env        scenarios.Env
	// auth is the issuer and tokens of a protected target, by transport.
	auth  map[transport.Kind]runAuth
	flags *runFlags
}

// check validates the selection before anything starts.
func (p *plan) check() error {
	if err := p.flags.timing.validate(); err != nil {
		return err
	}
	if err := p.applyRequirements(); err != nil {
		return err
	}
	for _, id := range p.flags.scenarioIDs {
		s, ok := catalogue.All().Find(id)
		if !ok {
			return fmt.Errorf("unknown --scenario %q%s (see `mcpconform list`)", id, suggest.DidYouMean(id, suites.KnownIDs(false)))
		}
		if s.Side != p.side {
			return fmt.Errorf("--scenario %q judges a %s; this command judges a %s", id, s.Side, p.side)
		}
	}
	for _, name := range p.flags.profiles {
		if !slices.Contains(catalogue.All().Profiles(), name) {
			return fmt.Errorf("unknown --profile %q (known: %s)", name, strings.Join(catalogue.All().Profiles(), ", "))
		}
	}
	if p.flags.parallel < 1 {
		return fmt.Errorf("--parallel must be at least 1, got %d", p.flags.parallel)
	}
	if p.flags.labelFilter != "" {
		if _, err := types.ParseLabelFilter(p.flags.labelFilter); err != nil {
			return fmt.Errorf("--label-filter: %v", err)
		}
	}
	if p.flags.expectedFailures != "" {
		b, err := loadBaseline(p.flags.expectedFailures)
		if err != nil {
			return err
		}
		p.flags.baseline = b
	}
	// Last, once the rest is known to be valid: it creates the directory.
	if err := reports.CheckOutDir(p.flags.outDir); err != nil {
		return fmt.Errorf("-o: %v", err)
	}
	return nil
}

// configs are the run's configs, narrowed to the shard of --shard.
func (p *plan) configs(progress io.Writer) []suites.Config {
	return suites.ApplyShard(p.wholeConfigs(progress), p.flags.shard, suites.RecordedDurations())
}

// wholeConfigs are the configs of the whole run, every shard together.
func (p *plan) wholeConfigs(progress io.Writer) []suites.Config {
	var configs []suites.Config
	for _, tr := range p.transports {
		for _, v := range p.versions {
			env := p.env
			env.Target, env.Version, env.Transport = p.targets[tr], v, tr
			if a, ok := p.auth[tr]; ok {
				env.Auth, env.AuthTokens = a.auth, a.tokens
			}
			env.Timing = p.flags.timing.get()
			env.VersionExplicit = p.flags.specVersion != "" && p.flags.specVersion != "all"
			env.Profiles = p.flags.profiles
			cfg := suites.Config{
				Name:        string(p.side) + " " + string(tr) + " " + v,
				Side:        p.side,
				Env:         env,
				Strict:      p.flags.strict,
				Progress:    progress,
				LabelFilter: p.flags.labelFilter,
			}
			if ids := p.flags.scenarioIDs; len(ids) > 0 {
				cfg.Select = func(s *scenarios.Scenario) bool { return slices.Contains(ids, s.ID) }
			}
			configs = append(configs, cfg)
		}
	}
	return configs
}

// execute runs the plan, writes every report and returns the exit code.
func (p *plan) execute(cmd *cobra.Command) (int, error) {
	out := cmd.OutOrStdout()
	if err := suites.CheckShard(p.wholeConfigs(nil), p.flags.shard); err != nil { // the transports are known only now
		return exitUsage, usageErr("--shard %v", err)
	}
	fmt.Fprintf(out, "mcpconform %s: judging %s at %s\n", toolVersion, p.describe, strings.Join(p.versions, ", "))
	started := time.Now()
	col := suites.NewCollector()
	col.Baseline = p.flags.baseline
	progress, messages, progressDone := runProgress(out, cmd.ErrOrStderr(), p.flags.progress, p.flags.verbose, col)
	sigs := catchSignals(messages)
	limits := suites.Limits(p.flags.parallel)
	limits.Grace = runGrace
	exec := suites.Plan(p.configs(progress), col, limits)
	sigs.stops(exec.Stop, exec.GiveUp)
	exec.Begin()
	if p.flags.verbose {
		// Ginkgo shows the run spec by spec while the collector takes it.
		collected := make(chan struct{})
		go func() {
			defer close(collected)
			exec.Collect()
		}()
		runView(exec, cmd.ErrOrStderr())
		<-collected
	} else {
		exec.Collect()
	}
	progressDone()
	interruptedBy := sigs.interruptedBy(exec.Stopped())
	// Whatever a scenario left running (one abandoned by a second signal,
	// or one that never closed its target) is stopped before the report.
	if n := transport.StopAll(sigs.stopGrace()); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpconform: stopped %d target processes still running at the end of the run\n", n)
	}
	scenarios := col.Scenarios()
	if interruptedBy != "" {
		scenarios = col.Interrupted(interruptedBy)
	}
	run := &reports.Run{
		Tool: "mcpconform", ToolVersion: toolVersion, Side: string(p.side), Target: p.describe,
		Transport: strings.Join(kindNames(p.transports), ","), SpecVersion: strings.Join(p.versions, ","),
		Strict: p.flags.strict, Started: started, Duration: time.Since(started), Scenarios: scenarios,
		Interrupted: interruptedBy,
	}
	if !p.flags.shard.Whole() {
		run.Shard = p.flags.shard.String()
	}
	if p.flags.requirements != "" {
		printRequirements(cmd.OutOrStdout(), run, p.side, p.flags.requirements)
	}
	return finish(cmd, run, p.flags.outDir, p.shardBaseline())
}

// finish writes every report of a judged run (a fresh one, or shards
// merged), prints the counts and the reasons, and returns the exit code.
// One rule for every command that ends in a verdict. A baseline (nil for
// none) marks the failures it expects, which then do not fail the run; a
// stale entry of it does.
func finish(cmd *cobra.Command, run *reports.Run, outDir string, baseline *reports.Baseline) (int, error) {
	out := cmd.OutOrStdout()
	interruptedBy := run.Interrupted
	stale := applyBaseline(cmd, run, baseline)
	paths, werr := reports.WriteAll(outDir, run)
	counts := run.Counts()
	expected := ""
	if counts.Expected > 0 {
		expected = fmt.Sprintf(" (+%d expected)", counts.Expected)
	}
	printFailures(out, run)
	fmt.Fprintf(out, "\n%d checks: %d passed, %d failed%s, %d warnings, %d skipped, %d errors (%s)\n",
		counts.Total, counts.Passed, counts.Failed, expected, counts.Warning, counts.Skipped, counts.Errored, run.Duration.Round(time.Millisecond))
	printReasons(out, run)
	if werr != nil {
		// -o was writable when the run started; a verdict of failure
		// still stands.
		code := exitUsage
		if counts.Failed > 0 || len(stale) > 0 {
			code = exitFail
		}
		return code, &exitError{code: code, err: fmt.Errorf("writing reports to %s: %w", outDir, werr)}
	}
	fmt.Fprintf(out, "reports: %s\n", strings.Join(paths, ", "))
	if counts.Errored > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpconform: %d checks could not be judged; the first reason: %s\n", counts.Errored, firstError(run))
	}
	interrupted := interruptedBy != ""
	switch {
	case counts.Failed > 0:
		return exitFail, nil
	case len(stale) > 0:
		return exitFail, &exitError{code: exitFail, err: fmt.Errorf("the baseline is stale (%s): remove what passes now from %s", staleCount(len(stale)), baseline.Path)}
	case interrupted:
		return exitUnjudged, &exitError{code: exitUnjudged, err: fmt.Errorf("interrupted by %s: the report holds what was judged so far", interruptedBy)}
	case counts.Errored > 0:
		return exitUnjudged, nil
	case counts.Total == 0:
		return exitUsage, usageErr("no check applies: the selection (--scenario, --label-filter, --spec-version, transport) matches nothing")
	case counts.Passed+counts.Warning+counts.Expected == 0:
		// A gate must not pass a target nothing was judged on.
		return exitUnjudged, &exitError{code: exitUnjudged, err: fmt.Errorf(
			"nothing could be judged: all %d selected checks were skipped; the first reason: %s", counts.Total, firstOf(run, reports.Skipped))}
	}
	return exitPass, nil
}

// findVariant resolves --fault or --liberty against one peer's variants.
func findVariant(faultName, libertyName string, faults, liberties fault.Set) (*fault.Fault, error) {
	switch {
	case faultName != "":
		return faults.Find(faultName)
	case libertyName != "":
		return liberties.Find(libertyName)
	}
	return nil, nil
}

// exitWith turns a run's exit code into cobra's error: nil for a pass.
func exitWith(code int, err error) error {
	if err != nil {
		return err
	}
	if code != exitPass {
		return &exitError{code: code, err: fmt.Errorf("")}
	}
	return nil
}

// ginkgoT satisfies ginkgo.GinkgoTestingT outside `go test`.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

// runView shows a run through Ginkgo (--verbose): its steps, its checks
// and the transcripts of failures, on stderr (which cleans what it prints:
// they quote the target). The specs read the execution's results; the
// label filter was applied when the run was planned.
func runView(exec *suites.Execution, stderr io.Writer) {
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.Timeout = 24 * time.Hour // scenarios carry their own deadlines
	// Ginkgo's default of 30 s is how long an interrupted view would hold a
	// SIGTERM; the run stops the targets itself.
	suiteConfig.GracePeriod = runGrace
	reporterConfig.NoColor = true
	reporterConfig.Verbose = true
	view := newSourcePaths(stderr, moduleRoot())
	defer view.Flush()
	formatter.ColorableStdOut = view
	exec.Define()
	ginkgo.RunSpecs(&ginkgoT{}, "mcpconform", suiteConfig, reporterConfig)
}

func firstError(run *reports.Run) string { return firstOf(run, reports.Errored) }

// firstOf is the message of the first check with the given status.
func firstOf(run *reports.Run, status reports.Status) string {
	for _, s := range run.Scenarios {
		for _, c := range s.Checks {
			if c.Status == status {
				return c.Message
			}
		}
	}
	return ""
}

// runAuth is what a run knows of a protected target on one transport: the
// issuer it trusts and the tokens of sessions A and B.
type runAuth struct {
	auth   *scenarios.Auth
	tokens []string
}
