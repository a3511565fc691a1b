package suites

import (
	"context"
	"slices"
	"sync"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// An Execution is a judging run planned: for every config, the scenarios
// with a check the label filter keeps, as jobs of one runner. The runner
// runs them (a config's handshake first, its ledger judges last, the rest
// side by side); Collect hands their verdicts to the collector and the
// progress in plan order; Define shows them as Ginkgo specs.
type Execution struct {
	col     *Collector
	planned []plannedRun
	byKey   map[string]*plannedRun
	run     *runner.Run[scenarioRun]

	mu sync.Mutex
	// readers counts, per key, who still reads its result (Collect, the
	// specs); the runner lets it go when none is left.
	readers map[string]int
}

// plannedRun is one scenario of one config the run judges.
type plannedRun struct {
	cfg      Config
	scenario *scenarios.Scenario
	key      string
}

// scenarioRun is one scenario's run: its result, and whether the run was
// stopped under it (then its verdicts are not the target's).
type scenarioRun struct {
	result      *scenarios.Result
	interrupted bool
}

// Limits are a run's bounds when none are asked for (runner.DefaultWidth).
func Limits(width int) runner.Limits {
	if width <= 0 {
		width = runner.DefaultWidth
	}
	return runner.Limits{Width: width, Processes: min(width, runner.DefaultProcesses())}
}

// Plan plans the configs' scenarios: the label filter is evaluated here,
// once, and the collector learns which checks the run will judge. Nothing
// runs before Begin (or a spec's read).
func Plan(configs []Config, col *Collector, limits runner.Limits) *Execution {
	e := &Execution{col: col, byKey: map[string]*plannedRun{}, readers: map[string]int{}}
	filters := map[string]types.LabelFilter{}
	durations := RecordedDurations()
	var jobs []runner.Job[scenarioRun]
	for _, cfg := range configs {
		if cfg.Env.Gate == nil {
			// One gate per transport and version: a target that cannot
			// complete the handshake there is given up on once.
			cfg.Env.Gate = &scenarios.Gate{}
		}
		if cfg.Env.Wire == nil {
			cfg.Env.Wire = &scenarios.WireLedger{}
		}
		filter, ok := filters[cfg.LabelFilter]
		if !ok {
			// A filter that does not parse was refused before the run.
			filter, _ = types.ParseLabelFilter(cfg.LabelFilter)
			filters[cfg.LabelFilter] = filter
		}
		for _, s := range cfg.Applicable() {
			if !planScenario(cfg, s, col, filter) {
				continue
			}
			p := plannedRun{cfg: cfg, scenario: s, key: scenarioKey(cfg, s)}
			e.planned = append(e.planned, p)
			jobs = append(jobs, runner.Job[scenarioRun]{
				Key: p.key, Group: cfg.Name, Phase: phaseOf(s),
				// A stdio target starts a process per session, the client
				// side the client's command per scenario.
				Process:  cfg.Env.Transport == transport.Stdio || cfg.side() == scenarios.ClientSide,
				Estimate: durations.Of(Unit{Scenario: s.ID, Transport: cfg.Env.Transport, Version: cfg.Env.Version}),
				Run: func(ctx context.Context, step func(string)) scenarioRun {
					progressStarted(cfg, s)
					res := runScenario(ctx, cfg, s, step)
					return scenarioRun{result: res, interrupted: ctx.Err() != nil}
				},
			})
		}
	}
	for i := range e.planned {
		e.byKey[e.planned[i].key] = &e.planned[i]
		e.readers[e.planned[i].key] = 1 // Collect
	}
	afterReaders(jobs, func(i int) (string, *scenarios.Scenario) {
		p := e.planned[i]
		return string(p.cfg.Env.Transport), p.scenario
	})
	e.run = runner.New(jobs, limits)
	return e
}

func phaseOf(s *scenarios.Scenario) runner.Phase {
	switch Phase(s) {
	case 0:
		return runner.First
	case 2:
		return runner.Last
	}
	return runner.Middle
}

// Begin starts the run.
func (e *Execution) Begin() { e.run.Begin() }

// Stop stops the run: the scenarios in flight see their context end, the
// others never start. It returns when the ones in flight have returned.
func (e *Execution) Stop() { e.run.Stop() }

// GiveUp stops the run and stops waiting for the scenarios in flight.
func (e *Execution) GiveUp() { e.run.GiveUp() }

// Stopped reports whether the run was stopped.
func (e *Execution) Stopped() bool { return e.run.Stopped() }

// Collect hands each scenario's verdicts to the collector, and its line to
// its config's progress, in plan order as the runs finish; it returns when
// every run has finished or the run was stopped. A scenario the stop cut
// short is recorded without verdicts (Collector.Interrupted says what
// became of its checks); one never started, not at all. Each config's
// Strict decides its verdicts' statuses, as it does the specs'.
func (e *Execution) Collect() {
	e.run.InOrder(func(key string, res runner.Result[scenarioRun]) bool {
		p := e.byKey[key]
		if res.Ran {
			e.record(p, res)
		}
		e.release(key)
		if res.Ran && p.cfg.Progress != nil {
			progressDone(p.cfg, e.col, key)
		}
		return true
	})
}

// record puts a finished run in the collector.
func (e *Execution) record(p *plannedRun, res runner.Result[scenarioRun]) {
	s, cfg, r := p.scenario, p.cfg, res.Value.result
	e.col.scenario(p.key, func() *reports.Scenario {
		return &reports.Scenario{
			ID: s.ID, Title: s.Title, Family: s.Family, Side: string(s.Side),
			Transport: string(cfg.Env.Transport), SpecVersion: cfg.Env.Version,
			Started: res.Started, Duration: r.Duration, Transcript: r.Transcript, Stderr: r.Stderr,
		}
	})
	if res.Value.interrupted {
		return
	}
	for _, planned := range e.col.plannedChecks(p.key) {
		i := slices.IndexFunc(s.Checks, func(c *scenarios.Check) bool { return c.ID == planned })
		e.col.addCheck(p.key, judgedReport(cfg, s.Checks[i], r.Verdicts[i]))
	}
}

// result is the run of the scenario under key, for a spec; ctx bounds the
// wait (an interrupted spec stops the run).
func (e *Execution) result(ctx context.Context, key string) runner.Result[scenarioRun] {
	res, _ := e.run.Result(ctx, key)
	return res
}

// viewing registers the specs as readers of every result.
func (e *Execution) viewing() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := range e.readers {
		e.readers[k]++
	}
}

// release tells the run one reader is done with key's result; the last
// lets it go (a scenario's transcript may hold megabytes).
func (e *Execution) release(key string) {
	e.mu.Lock()
	e.readers[key]--
	last := e.readers[key] == 0
	e.mu.Unlock()
	if last {
		e.run.Forget(key)
	}
}

// scenarioKey names one scenario run in the collector.
func scenarioKey(cfg Config, s *scenarios.Scenario) string { return cfg.Name + "|" + s.ID }

// runScenario runs s with cfg's environment under the scenario's deadline.
func runScenario(ctx context.Context, cfg Config, s *scenarios.Scenario, step func(string)) *scenarios.Result {
	env := cfg.Env
	env.Step = step
	if cfg.Resolve != nil {
		cfg.Resolve(&env)
	}
	// The deadline is the scenario's own, so a slow target yields error
	// verdicts in the report rather than an abandoned run.
	runCtx, cancel := context.WithTimeout(ctx, cfg.Env.Timing.OrDefaults().ScenarioTimeout)
	defer cancel()
	return scenarios.Execute(runCtx, s, env)
}

// Wait waits until every scenario run has finished (or will never run),
// or ctx ends.
func (e *Execution) Wait(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.run.Wait()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// afterReaders makes each job of a scenario that changes its target start
// after the other jobs of that target (every version of one transport's
// target) that are neither ledger judges nor such scenarios themselves,
// one after another. of gives job i's target and scenario.
func afterReaders[T any](jobs []runner.Job[T], of func(i int) (target string, s *scenarios.Scenario)) {
	readers := map[string][]string{}
	var changers []int
	for i := range jobs {
		target, s := of(i)
		switch {
		case s.ChangesTarget:
			changers = append(changers, i)
		case !s.Last:
			readers[target] = append(readers[target], jobs[i].Key)
		}
	}
	previous := map[string]string{}
	for _, i := range changers {
		target, _ := of(i)
		jobs[i].After = append(jobs[i].After, readers[target]...)
		if p, ok := previous[target]; ok {
			jobs[i].After = append(jobs[i].After, p)
		}
		previous[target] = jobs[i].Key
	}
}
