package conform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// Server judges the server at target, reporting every check as a subtest
// of t, and returns what it judged. A target or options that cannot run
// end the test at once (t.Fatal).
func Server(t *testing.T, target ServerTarget, opts Options) *Result {
	t.Helper()
	st, err := serverTarget(t, target, opts.AuthTokens)
	if err != nil {
		t.Fatalf("conform.Server: %v", err)
	}
	targets := map[transport.Kind]scenarios.Target{st.Kind: st}
	return judge(t, scenarios.ServerSide, st.String(), []transport.Kind{st.Kind}, targets, opts)
}

// Client judges the client target starts, over opts.Transports (default
// every transport; stdio only when TestMain calls Main), reporting every
// check as a subtest of t, and returns what it judged.
func Client(t *testing.T, target ClientTarget, opts Options) *Result {
	t.Helper()
	if len(target.Command) == 0 {
		t.Fatalf("conform.Client: give the client's Command")
	}
	if _, err := exec.LookPath(target.Command[0]); err != nil {
		t.Fatalf("conform.Client: client command %q not found: %v", target.Command[0], err)
	}
	kinds, err := opts.transports()
	if err != nil {
		t.Fatalf("conform.Client: %v", err)
	}
	ct := clientside.Target{Argv: target.Command, Env: target.Env}
	if relayReady {
		if ct.RelayExe, err = os.Executable(); err != nil {
			t.Fatalf("conform.Client: locating the test binary (it relays a stdio client's server): %v", err)
		}
	} else if slices.Contains(kinds, transport.Stdio) {
		if len(opts.Transports) > 0 {
			t.Fatalf("conform.Client: a stdio client needs a relay process: call conform.Main(m) from TestMain")
		}
		kinds = slices.DeleteFunc(kinds, func(k transport.Kind) bool { return k == transport.Stdio })
		t.Logf("conform.Client: stdio not judged: it needs conform.Main(m) in TestMain")
	}
	targets := map[transport.Kind]scenarios.Target{}
	for _, k := range kinds {
		targets[k] = ct
	}
	if opts.MaxRounds == 0 {
		opts.MaxRounds = 10
	}
	return judge(t, scenarios.ClientSide, ct.String(), kinds, targets, opts)
}

// publicHeaders are the header names whose values are no secret.
var publicHeaders = []string{"Accept", "Content-Type", "User-Agent", "Origin"}

// serverTarget resolves target into what the client fakes dial; a Handler
// is served on loopback until the test ends.
func serverTarget(t *testing.T, target ServerTarget, tokens []string) (client.Target, error) {
	given := 0
	for _, set := range []bool{len(target.Command) > 0, target.URL != "", target.Handler != nil} {
		if set {
			given++
		}
	}
	if given != 1 {
		return client.Target{}, errors.New("give exactly one of Command, URL and Handler")
	}
	header := target.Header.Clone()
	for name, values := range header {
		if !slices.Contains(publicHeaders, http.CanonicalHeaderKey(name)) {
			reports.AddSecrets(values...)
		}
	}
	reports.AddSecrets(tokens...)
	if len(tokens) > 2 {
		return client.Target{}, fmt.Errorf("give one bearer token (every session's) or two (sessions A and B); got %d", len(tokens))
	}
	if len(tokens) > 0 {
		if header == nil {
			header = http.Header{}
		}
		header.Set("Authorization", "Bearer "+tokens[0])
	}
	switch {
	case len(target.Command) > 0:
		if _, err := exec.LookPath(target.Command[0]); err != nil {
			return client.Target{}, fmt.Errorf("server command %q not found: %v", target.Command[0], err)
		}
		return client.Target{Kind: transport.Stdio, Argv: target.Command, Env: target.Env}, nil
	case target.Handler != nil:
		srv := httptest.NewServer(target.Handler)
		t.Cleanup(srv.Close)
		path := target.Path
		if path == "" {
			path = "/mcp"
		}
		if target.WebSocket {
			return client.Target{Kind: transport.WS, URL: "ws" + strings.TrimPrefix(srv.URL, "http") + path, Header: header}, nil
		}
		return client.Target{Kind: transport.HTTP, URL: srv.URL + path, Header: header}, nil
	}
	u, err := url.Parse(target.URL)
	if err != nil || u.Host == "" {
		return client.Target{}, fmt.Errorf("URL %q is no endpoint (e.g. http://127.0.0.1:3000/mcp)", target.URL)
	}
	switch u.Scheme {
	case "http", "https":
		return client.Target{Kind: transport.HTTP, URL: target.URL, Header: header}, nil
	case "ws", "wss":
		return client.Target{Kind: transport.WS, URL: target.URL, Header: header}, nil
	}
	return client.Target{}, fmt.Errorf("URL %q: the scheme must be http, https, ws or wss", target.URL)
}

// judge runs the plan the options describe and reports it on t.
func judge(t *testing.T, side scenarios.Side, describe string, kinds []transport.Kind, targets map[transport.Kind]scenarios.Target, opts Options) *Result {
	t.Helper()
	configs, baseline, err := plan(side, kinds, targets, opts)
	if err != nil {
		t.Fatalf("conform: %v", err)
	}
	started := time.Now()
	col := suites.NewCollector()
	col.Baseline = baseline
	exec := suites.Plan(configs, col, suites.Limits(opts.Parallel))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if deadline, ok := t.Deadline(); ok {
		// Stopped before go test's own deadline, so the verdicts so far are
		// reported rather than lost in its panic.
		var stopAt context.CancelFunc
		ctx, stopAt = context.WithDeadline(ctx, deadline.Add(-time.Until(deadline)/20))
		defer stopAt()
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		exec.Stop()
	}()
	exec.Begin()
	exec.Collect()
	cancel()
	<-stopped
	scenarioResults := col.Scenarios()
	interrupted := ""
	if exec.Stopped() && ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.Canceled) {
		interrupted = "the test's deadline"
		scenarioResults = col.Interrupted(interrupted)
	}
	run := &reports.Run{Tool: "mcpconform", ToolVersion: "conform", Side: string(side), Target: describe,
		Transport: joinKinds(kinds), SpecVersion: strings.Join(configVersions(configs), ","), Strict: opts.Strict,
		Started: started, Duration: time.Since(started), Scenarios: scenarioResults, Interrupted: interrupted}
	var stale []reports.StaleEntry
	if baseline != nil {
		stale = baseline.Apply(run).Stale
	}
	if opts.ReportDir != "" {
		if _, err := reports.WriteAll(opts.ReportDir, run); err != nil {
			t.Errorf("conform: writing the reports to %s: %v", opts.ReportDir, err)
		}
	}
	report(t, run)
	for _, s := range stale {
		t.Errorf("conform: %s", s.Message())
	}
	return run
}

// plan checks the options and builds the run's configs, one per transport
// and version, as the command line does.
func plan(side scenarios.Side, kinds []transport.Kind, targets map[transport.Kind]scenarios.Target, opts Options) ([]suites.Config, *reports.Baseline, error) {
	versions, err := opts.versions()
	if err != nil {
		return nil, nil, err
	}
	timing := opts.timing()
	if opts.Parallel < 0 {
		return nil, nil, fmt.Errorf("Parallel must not be negative, got %d", opts.Parallel)
	}
	if opts.LabelFilter != "" {
		if _, err := types.ParseLabelFilter(opts.LabelFilter); err != nil {
			return nil, nil, fmt.Errorf("LabelFilter: %v", err)
		}
	}
	for _, name := range opts.Profiles {
		if !slices.Contains(catalogue.All().Profiles(), name) {
			return nil, nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(catalogue.All().Profiles(), ", "))
		}
	}
	for _, id := range opts.Scenarios {
		s, ok := catalogue.All().Find(id)
		if !ok {
			return nil, nil, fmt.Errorf("unknown scenario %q (see `mcpconform list`)", id)
		}
		if s.Side != side {
			return nil, nil, fmt.Errorf("scenario %q judges a %s, not a %s", id, s.Side, side)
		}
	}
	var baseline *reports.Baseline
	if opts.ExpectedFailures != "" {
		if baseline, err = suites.LoadBaseline(opts.ExpectedFailures); err != nil {
			return nil, nil, fmt.Errorf("ExpectedFailures: %v", err)
		}
	}
	var configs []suites.Config
	for _, k := range kinds {
		for _, v := range versions {
			cfg := suites.Config{
				Name: string(side) + " " + string(k) + " " + v,
				Side: side,
				Env: scenarios.Env{Target: targets[k], Version: v, Transport: k, VersionExplicit: len(opts.SpecVersions) > 0,
					Fixtures: opts.Fixtures, AuthTokens: opts.AuthTokens, Profiles: opts.Profiles, Timing: timing, MaxRounds: opts.MaxRounds},
				Strict:      opts.Strict,
				LabelFilter: opts.LabelFilter,
			}
			if ids := opts.Scenarios; len(ids) > 0 {
				cfg.Select = func(s *scenarios.Scenario) bool { return slices.Contains(ids, s.ID) }
			}
			configs = append(configs, cfg)
		}
	}
	return configs, baseline, nil
}

// report makes a subtest of every transport, version, scenario and check.
func report(t *testing.T, run *reports.Run) {
	t.Helper()
	type group struct{ transport, version string }
	var groups []group
	byGroup := map[group][]reports.Scenario{}
	for _, s := range run.Scenarios {
		g := group{s.Transport, s.SpecVersion}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], s)
	}
	for _, g := range groups {
		t.Run(g.transport, func(t *testing.T) {
			t.Run(g.version, func(t *testing.T) {
				for _, s := range byGroup[g] {
					t.Run(s.ID, func(t *testing.T) {
						for _, c := range s.Checks {
							t.Run(strings.TrimPrefix(c.ID, s.ID+"/"), func(t *testing.T) { reportCheck(t, s, c) })
						}
						if t.Failed() && s.Transcript != "" {
							t.Logf("transcript of %s:\n%s", s.ID, s.Transcript)
						}
					})
				}
			})
		})
	}
}

// reportCheck says one check's verdict the way go test does.
func reportCheck(t *testing.T, s reports.Scenario, c reports.Check) {
	t.Helper()
	what := fmt.Sprintf("%s (%s, %s)", c.Title, c.Level, c.SpecRef)
	if c.Quote != "" {
		what += "\n  " + c.Quote
	}
	switch c.Final() {
	case reports.Passed:
	case reports.ExpectedFailure:
		t.Logf("expected failure (%s): %s\n%s", c.ExpectedBy, what, c.Message)
	case reports.Failed:
		t.Errorf("%s\n%s", what, c.Message)
	case reports.Warning:
		t.Logf("warning (a SHOULD; an error with Strict): %s\n%s", what, c.Message)
	case reports.Skipped:
		t.Skip(c.Message)
	default:
		t.Errorf("not judged: %s\n%s", what, c.Message)
	}
}

func joinKinds(kinds []transport.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ",")
}

func configVersions(configs []suites.Config) []string {
	var out []string
	for _, c := range configs {
		if !slices.Contains(out, c.Env.Version) {
			out = append(out, c.Env.Version)
		}
	}
	return out
}
