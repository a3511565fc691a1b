package suites

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/authref"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/asside"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// SelfTestOptions configure a self-test: the suite against the reference
// server and against every fault.
type SelfTestOptions struct {
	// Exe is the mcpconform binary, for the stdio reference.
	Exe           string
	Transports    []transport.Kind
	Versions      []string
	Faults        []string // empty: every fault
	SkipReference bool     // judge only the faults
	// Parallel bounds the scenarios running at once, over every run.
	Parallel int
	// Sweep runs the whole catalogue against every variant, proving a fault
	// fails nothing but its own checks anywhere and a liberty passes every
	// check. Without it a variant's run holds the scenarios of the checks
	// that name it (all of them when one is a ledger judge, which judges the
	// others' traffic): that proves each fault fails exactly its checks
	// among its scenarios' checks, in a fraction of the time.
	Sweep bool
	// Timing is the run's; a zero ScenarioTimeout means 30s here.
	Timing   scenarios.Timing
	Progress io.Writer
	// Durations orders the scenarios of the runs, longest first; nil: the
	// recorded table.
	Durations *Durations
}

// Run identifies one pass of the catalogue.
type Run struct {
	Side      scenarios.Side
	Fault     *fault.Fault // a fault or a liberty; nil for the reference itself
	Transport transport.Kind
	Version   string
}

func (r Run) String() string {
	name := "reference"
	if r.Fault != nil {
		name = r.Fault.Name
	}
	return fmt.Sprintf("%s %s over %s at %s", r.Side.Peer(), name, r.Transport, r.Version)
}

// RunOutcome is what one pass concluded.
type RunOutcome struct {
	Run
	Failed   []string // check ids that failed (MUST or SHOULD)
	Passed   []string
	Errored  []string // check ids that could not be judged, with reasons
	Skipped  []string
	Problems []string
	Duration time.Duration // from the target's start to its stop
}

// SelfTestReport is the kill matrix.
type SelfTestReport struct {
	Outcomes []RunOutcome
	Problems []string
}

// OK reports whether the reference passed everything and every fault killed
// exactly its own check wherever it is observable.
func (r *SelfTestReport) OK() bool { return len(r.Problems) == 0 }

// SelfTest runs the catalogue against the reference and each fault.
func SelfTest(ctx context.Context, opts SelfTestOptions) (*SelfTestReport, error) {
	if err := catalogue.Validate(); err != nil {
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 4
	}
	var runs []Run
	for _, side := range []scenarios.Side{scenarios.ServerSide, scenarios.ClientSide, scenarios.AuthServerSide} {
		faults := append(append(fault.Set(nil), catalogue.Faults()[side]...), catalogue.Liberties()[side]...)
		for _, tr := range opts.Transports {
			for _, v := range opts.Versions {
				if len(catalogue.All().Side(side)) == 0 || !appliesSomewhere(side, tr, v) {
					continue
				}
				if !opts.SkipReference && len(opts.Faults) == 0 {
					runs = append(runs, Run{Side: side, Transport: tr, Version: v})
				}
				for _, f := range faults {
					if len(opts.Faults) > 0 && !slices.Contains(opts.Faults, f.Name) {
						continue
					}
					if f.ObservableOn(tr, v) {
						runs = append(runs, Run{Side: side, Fault: f, Transport: tr, Version: v})
					}
				}
			}
		}
	}
	if !opts.SkipReference && len(opts.Faults) > 0 {
		// The reference runs only where the selected faults run.
		var refs []Run
		seen := map[Run]bool{}
		for _, r := range runs {
			ref := Run{Side: r.Side, Transport: r.Transport, Version: r.Version}
			if !seen[ref] {
				seen[ref] = true
				refs = append(refs, ref)
			}
		}
		runs = append(refs, runs...)
	}
	table := opts.Durations
	if table == nil {
		recorded := RecordedDurations()
		table = &recorded
	}
	// One runner for every run's scenarios: they mostly wait on their
	// reference (answer deadlines, poll intervals, quiet windows), so many
	// go at once, the longest first; each run keeps its handshake first and
	// its ledger judges last, and its reference lives from its first
	// scenario to its last.
	passes := make([]*selfTestPass, len(runs))
	var jobs []runner.Job[struct{}]
	var progressMu sync.Mutex
	for i, run := range runs {
		p := newSelfTestPass(run, opts, *table)
		passes[i] = p
		p.done = func(out RunOutcome) {
			if opts.Progress == nil {
				return
			}
			progressMu.Lock()
			defer progressMu.Unlock()
			word := "ok"
			if len(out.Problems) > 0 {
				word = "PROBLEM"
			}
			fmt.Fprintf(opts.Progress, "%-7s %s\n", word, run)
		}
		own := p.jobs(fmt.Sprint(i))
		afterReaders(own, func(k int) (string, *scenarios.Scenario) { return "", p.scenarios[k] })
		jobs = append(jobs, own...)
	}
	r := runner.Start(jobs, runner.Limits{Width: opts.Parallel})
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.Stop()
		case <-stopped:
		}
	}()
	r.Wait()
	close(stopped)
	report := &SelfTestReport{Outcomes: make([]RunOutcome, len(runs))}
	for i, p := range passes {
		report.Outcomes[i] = p.finish()
	}
	for _, o := range report.Outcomes {
		report.Problems = append(report.Problems, o.Problems...)
	}
	report.Problems = append(report.Problems, unprovenLiberties(report.Outcomes)...)
	// A fault that no transport and version at all can show is a defect of
	// the catalogue; one merely outside this selection is not run.
	var every fault.Set
	for _, side := range []scenarios.Side{scenarios.ServerSide, scenarios.ClientSide, scenarios.AuthServerSide} {
		every = append(append(every, catalogue.Faults()[side]...), catalogue.Liberties()[side]...)
	}
	for _, f := range every {
		seen := false
		for _, tr := range transport.Kinds() {
			for _, v := range protocol.Supported() {
				seen = seen || f.ObservableOn(tr, v)
			}
		}
		if !seen {
			report.Problems = append(report.Problems, fmt.Sprintf("fault %s is observable on no transport and version", f.Name))
		}
		for _, id := range f.ShownBy {
			if _, ok := catalogue.All().Find(id); !ok {
				report.Problems = append(report.Problems, fmt.Sprintf("%s %s: ShownBy names %q, no scenario of the catalogue", f.Kind(), f.Name, id))
			}
		}
	}
	return report, nil
}

// selfTestPass is one run of the self-test: its reference, started by its
// first scenario and stopped after its last, and its scenarios' results.
type selfTestPass struct {
	run       Run
	opts      SelfTestOptions
	cfg       Config
	scenarios []*scenarios.Scenario
	estimate  time.Duration
	done      func(RunOutcome) // told the outcome when the last scenario ends

	mu       sync.Mutex
	started  bool
	startErr error
	stop     func()
	own      func() []string
	results  [][]scenarios.Verdict // per scenario; nil until it ran
	left     int
	began    time.Time
	ended    time.Time
	outcome  *RunOutcome
	stopOnce sync.Once
}

func newSelfTestPass(run Run, opts SelfTestOptions, table Durations) *selfTestPass {
	p := &selfTestPass{run: run, opts: opts, cfg: run.config(opts.Sweep)}
	p.scenarios = p.cfg.Applicable()
	p.results = make([][]scenarios.Verdict, len(p.scenarios))
	p.left = len(p.scenarios)
	// Every scenario of a run carries the run's estimate: the runs go
	// longest first, and a run's scenarios together, so its reference
	// lives no longer than they take.
	p.estimate = table.Estimate(run, opts.Sweep)
	return p
}

// jobs are the run's scenarios as jobs of group key.
func (p *selfTestPass) jobs(key string) []runner.Job[struct{}] {
	var out []runner.Job[struct{}]
	for i, s := range p.scenarios {
		out = append(out, runner.Job[struct{}]{
			Key: key + "|" + s.ID, Group: key, Phase: phaseOf(s), Estimate: p.estimate,
			Process: p.run.Transport == transport.Stdio || p.run.Side == scenarios.ClientSide,
			Run: func(ctx context.Context, _ func(string)) struct{} {
				p.runScenario(ctx, i)
				return struct{}{}
			},
		})
	}
	return out
}

// runScenario runs the run's scenario i, starting the reference first if
// it is the run's first.
func (p *selfTestPass) runScenario(ctx context.Context, i int) {
	if env, ok := p.begin(ctx); ok {
		timeout := env.Timing.OrDefaults().ScenarioTimeout
		sctx, cancel := context.WithTimeout(ctx, timeout)
		res := scenarios.Execute(sctx, p.scenarios[i], env)
		cancel()
		p.mu.Lock()
		p.results[i] = res.Verdicts // the transcript is let go at once
		p.mu.Unlock()
	}
	p.mu.Lock()
	p.left--
	last := p.left == 0
	p.mu.Unlock()
	if last {
		p.done(p.finish())
	}
}

// begin starts the run's reference once, and returns the environment its
// scenarios run in; ok is false when it could not start.
func (p *selfTestPass) begin(ctx context.Context) (scenarios.Env, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		p.started, p.began = true, time.Now()
		var target scenarios.Target
		var auth *Reference
		target, p.stop, p.own, auth, p.startErr = referenceTarget(ctx, p.run, p.opts.Exe)
		if p.startErr == nil {
			p.configure(target, auth)
		}
	}
	return p.cfg.Env, p.startErr == nil
}

// configure completes the run's environment once its reference runs.
func (p *selfTestPass) configure(target scenarios.Target, auth *Reference) {
	run, cfg := p.run, &p.cfg
	timing := p.opts.Timing
	if timing.ScenarioTimeout == 0 {
		timing.ScenarioTimeout = 30 * time.Second
	}
	cfg.Env.Target, cfg.Env.Timing, cfg.Env.Gate, cfg.Env.Wire = target, timing, &scenarios.Gate{}, &scenarios.WireLedger{}
	if run.Side == scenarios.ServerSide && protocol.IsStateless(run.Version) && run.Transport != transport.Stdio {
		// Two authorization contexts, so the tasks extension's binding
		// checks are judged (without them a stateless server has nothing to
		// bind a task to); at stateless versions nothing else reads them.
		cfg.Env.AuthTokens = []string{"selftest-token-a", "selftest-token-b"}
	}
	if auth != nil {
		// A protected variant: its issuer's tokens, session A's on every
		// request, and the issuer for the authorization family to mint.
		cfg.Env.Auth, cfg.Env.AuthTokens = auth.Auth, auth.Tokens
	}
	if run.Fault == nil || !run.Fault.Liberty {
		// The reference and the faults are judged with every opt-in profile
		// and at versions named explicitly, so profile and version checks
		// are proven too; a liberty is judged as a user's default run
		// judges a server.
		cfg.Env.Profiles = catalogue.All().Profiles()
		cfg.Env.VersionExplicit = true
	} else {
		// A liberty of an opt-in extension is judged with the profiles of
		// the checks that must pass it: without them it proves nothing.
		for _, c := range catalogue.All().Exercisers()[run.Fault] {
			if c.Profile != "" && !slices.Contains(cfg.Env.Profiles, c.Profile) {
				cfg.Env.Profiles = append(cfg.Env.Profiles, c.Profile)
			}
		}
	}
}

// finish stops the run's reference (once) and judges what its scenarios
// concluded, once.
func (p *selfTestPass) finish() RunOutcome {
	p.stopOnce.Do(func() {
		p.mu.Lock()
		stop := p.stop
		p.ended = time.Now()
		p.mu.Unlock()
		if stop != nil {
			stop()
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.outcome == nil {
		out := p.judge()
		p.outcome, p.results = &out, nil
	}
	return *p.outcome
}

// judge is the run's outcome from its scenarios' results; p.mu is held.
func (p *selfTestPass) judge() RunOutcome {
	run := p.run
	out := RunOutcome{Run: run}
	if !p.began.IsZero() {
		out.Duration = p.ended.Sub(p.began)
	}
	if p.startErr != nil {
		out.Problems = append(out.Problems, fmt.Sprintf("%s: could not start: %v", run, p.startErr))
		return out
	}
	why := map[string]string{}     // the reference's failures, for the report
	skipped := map[string]string{} // why a check was skipped, for a fault that did not fail it
	for i, verdicts := range p.results {
		if verdicts == nil {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: %s did not run: the self-test was stopped", run, p.scenarios[i].ID))
			continue
		}
		for _, v := range verdicts {
			switch v.Outcome {
			case scenarios.Pass:
				out.Passed = append(out.Passed, v.Check.ID)
			case scenarios.Fail:
				out.Failed = append(out.Failed, v.Check.ID)
				if run.Fault == nil || run.Fault.Liberty {
					why[v.Check.ID] = strings.ReplaceAll(v.Message, "\n", " / ")
				}
			case scenarios.Errored:
				out.Errored = append(out.Errored, v.Check.ID+": "+firstLine(v.Message))
			case scenarios.Skip:
				// The reference may skip by design (it binds tasks to the
				// session, so id entropy is not judged); the fault that
				// kills such a check proves it still works.
				out.Skipped = append(out.Skipped, v.Check.ID)
				skipped[v.Check.ID] = firstLine(v.Message)
			}
		}
	}
	sort.Strings(out.Failed)
	for _, e := range out.Errored {
		out.Problems = append(out.Problems, fmt.Sprintf("%s: %s", run, e))
	}
	if p.own != nil {
		for _, o := range p.own() {
			// An in-process reference's own invalid message (fakes/peer's
			// guard); a reference process's is a harness error, above.
			out.Problems = append(out.Problems, fmt.Sprintf("%s: harness error: %s", run, o))
		}
	}
	if run.Fault == nil || run.Fault.Liberty {
		what := "the reference"
		if run.Fault != nil {
			what = "liberty " + run.Fault.Name
		}
		for _, id := range out.Failed {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: %s fails or warns on %s (%s)", run, what, id, why[id]))
		}
		return out
	}
	kills := KillsOn(run.Fault, run.Transport, run.Version)
	for _, want := range kills {
		if !slices.Contains(out.Failed, want) {
			problem := fmt.Sprintf("%s: does not fail %s, its check", run, want)
			switch msg, ok := skipped[want]; {
			case ok:
				problem += " (skipped: " + msg + ")"
			case slices.Contains(out.Passed, want):
				problem += " (it passed)"
			}
			out.Problems = append(out.Problems, problem)
		}
	}
	for _, id := range out.Failed {
		if !slices.Contains(kills, id) {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: also fails %s, which is not its check", run, id))
		}
	}
	return out
}

// KillsOn are the ids of the checks that name fault among the scenarios
// that run over kind at version: a check of a scenario of other versions
// (a family's common checks at 2025-03-26 and at 2026-07-28) cannot fail
// there.
func KillsOn(f *fault.Fault, kind transport.Kind, version string) []string {
	var out []string
	for _, c := range catalogue.All().KillersOn(version, kind)[f] {
		out = append(out, c.ID)
	}
	return out
}

// config is the run's transport, version and selection of scenarios: the
// whole catalogue for the reference or a sweep, else the variant's own.
func (r Run) config(sweep bool) Config {
	cfg := Config{Side: r.Side, Env: scenarios.Env{Version: r.Version, Transport: r.Transport}}
	if !sweep && r.Fault != nil {
		cfg.Select = variantScenarios(r.Fault)
	}
	return cfg
}

// variantScenarios selects the scenarios whose checks name the variant (as
// a fault they kill or a liberty they exercise). When one of them is a
// ledger judge, which judges the traffic of the others, the handshake's, the
// other judges and the scenarios whose traffic shows the variant
// (fault.ShownBy) run too.
func variantScenarios(v *fault.Fault) func(*scenarios.Scenario) bool {
	checks := catalogue.All().Killers()[v]
	if v.Liberty {
		checks = catalogue.All().Exercisers()[v]
	}
	ids, judged := map[string]bool{}, false
	for _, c := range checks {
		scenarioID, _, _ := strings.Cut(c.ID, "/")
		s, ok := catalogue.All().Find(scenarioID)
		if !ok {
			continue
		}
		ids[s.ID] = true
		judged = judged || s.Last
	}
	if !judged {
		return func(s *scenarios.Scenario) bool { return ids[s.ID] }
	}
	for _, id := range v.ShownBy {
		ids[id] = true
	}
	return func(s *scenarios.Scenario) bool { return ids[s.ID] || s.Last || s.Handshake }
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Print writes the kill matrix: variant → the checks it failed, per run.
func (r *SelfTestReport) Print(w io.Writer) {
	fmt.Fprintf(w, "\n%-6s %-8s %-34s %-6s %-11s %s\n", "PEER", "KIND", "VARIANT", "VIA", "VERSION", "CHECKS FAILED")
	for _, o := range r.Outcomes {
		kind, name := "-", "(reference)"
		if o.Fault != nil {
			kind, name = o.Fault.Kind(), o.Fault.Name
		}
		failed := strings.Join(o.Failed, ", ")
		if failed == "" {
			failed = "-"
		}
		fmt.Fprintf(w, "%-6s %-8s %-34s %-6s %-11s %s\n", o.Side.Peer(), kind, name, o.Transport, o.Version, failed)
	}
	if len(r.Problems) == 0 {
		fmt.Fprintf(w, "\nself-test passed: %d runs, the reference and every liberty pass every check and each fault fails exactly its own checks.\n", len(r.Outcomes))
		return
	}
	fmt.Fprintf(w, "\nself-test FAILED: %d problem(s)\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", p)
	}
}

// appliesSomewhere reports whether any scenario of side runs on tr at v.
func appliesSomewhere(side scenarios.Side, tr transport.Kind, v string) bool {
	return len(Config{Side: side, Env: scenarios.Env{Transport: tr, Version: v}}.Applicable()) > 0
}

// referenceTarget is the reference peer of a run, and how to stop it: the
// reference server (or a fault of it) for the server side, the reference
// client's command for the client side; own lists the invalid messages of
// its own an in-process reference server sent (fakes/peer's guard).
func referenceTarget(ctx context.Context, run Run, exe string) (target scenarios.Target, stop func(), own func() []string, protected *Reference, err error) {
	if run.Side == scenarios.AuthServerSide {
		as, err := authref.Start(run.Fault)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		// The login form's credentials, which a server that approves at
		// once never asks for.
		target := asside.Target{Issuer: as.Issuer(), Approval: authref.LoginFields}
		return target, func() { _ = as.Close() }, func() []string { return nil }, nil, nil
	}
	if run.Side == scenarios.ClientSide {
		if exe == "" {
			return nil, nil, nil, nil, fmt.Errorf("the reference client needs the mcpconform binary")
		}
		argv := []string{exe, "fake-client"}
		if v := run.Fault; v != nil {
			argv = append(argv, "--"+v.Kind(), v.Name)
		}
		return clientside.Target{Argv: argv, RelayExe: exe}, func() {}, func() []string { return nil }, nil, nil
	}
	ref, err := StartReference(ctx, run.Transport, server.ReferenceOptions{Variant: run.Fault}, exe)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if ref.Auth != nil {
		protected = ref
	}
	return ref.Target, ref.Stop, ref.OwnInvalid, protected, nil
}

// unprovenLiberties names the checks a liberty exercises that passed in
// none of its runs: a liberty proves something only where they were judged.
func unprovenLiberties(outcomes []RunOutcome) []string {
	passed := map[*fault.Fault]map[string]bool{}
	judged := map[*fault.Fault]map[string]bool{} // checks judged at some run's version and transport
	for _, o := range outcomes {
		if o.Fault == nil || !o.Fault.Liberty {
			continue
		}
		if passed[o.Fault] == nil {
			passed[o.Fault], judged[o.Fault] = map[string]bool{}, map[string]bool{}
		}
		for _, id := range o.Passed {
			passed[o.Fault][id] = true
		}
		for _, s := range catalogue.All() {
			if !s.AppliesTo(o.Version, o.Transport) {
				continue
			}
			for _, c := range s.Checks {
				if c.JudgedAt(o.Version) {
					judged[o.Fault][c.ID] = true
				}
			}
		}
	}
	var problems []string
	for l, ids := range passed {
		for _, c := range catalogue.All().Exercisers()[l] {
			if judged[l][c.ID] && !ids[c.ID] {
				problems = append(problems, fmt.Sprintf("liberty %s: %s passed in none of its runs, so the liberty proved nothing there", l.Name, c.ID))
			}
		}
	}
	sort.Strings(problems)
	return problems
}
