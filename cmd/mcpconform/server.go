package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

type serverFlags struct {
	runFlags
	url, ws string
	// waitForTarget retries the first connection to --url or --ws until
	// it; 0: no retry (a started target: defaultSpawnWait).
	waitForTarget time.Duration
	stdio         bool
	reference     bool
	fault         string
	liberty       string
	transport     string
	fixtures      []string
	headers       []string
	configPath    string
	authTokens    []string
	// bearer is the token every session carries (the first of authTokens).
	bearer string
	issuer issuerFlags
	// protectedRefs are the references of a protected variant, by
	// transport: each runs an issuer of its own.
	protectedRefs map[transport.Kind]*suites.Reference
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
  mcpconform server --url http://127.0.0.1:3000/mcp -- node build/http-server.js
  mcpconform server --ws ws://127.0.0.1:8080/mcp --label-filter 'level: containsAny MUST'`,
		PreRunE: func(_ *cobra.Command, args []string) error {
			if err := f.checkTarget(args); err != nil {
				return usageErr("%v", err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runServer(cmd, f, args))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "Streamable HTTP endpoint of the server under test; a command after -- is started to serve it, waited for and stopped with all it started")
	fl.StringVar(&f.ws, "ws", "", "WebSocket endpoint of the server under test; a command after -- is started to serve it (like --url)")
	fl.DurationVar(&f.waitForTarget, "wait-for-target", 0, "with --url or --ws: retry the first connection until this long (a target started with -- CMD: 30s when not given)")
	fl.BoolVar(&f.stdio, "stdio", false, "spawn the server under test: the command follows --")
	fl.BoolVar(&f.reference, "reference", false, "judge the built-in reference server (a conformant target)")
	fl.StringVar(&f.fault, "fault", "", "with --reference: serve this fault instead (see 'mcpconform list --faults')")
	fl.StringVar(&f.liberty, "liberty", "", "with --reference: serve this conformant variant instead (see 'mcpconform list --liberties')")
	fl.StringVar(&f.transport, "transport", "all", "with --reference: stdio, http, ws or all")
	f.runFlags.register(fl)
	fl.StringArrayVar(&f.fixtures, "fixture", nil, "map a fixture to the target's own name: NAME=TARGET_NAME (repeatable)")
	fl.StringArrayVar(&f.headers, "header", nil, "extra HTTP header for every request, 'Name: value' (repeatable)")
	fl.StringVar(&f.configPath, "config", "", "YAML file mapping fixtures to the target's tools and arguments (see README)")
	fl.StringArrayVar(&f.authTokens, "auth-token", nil, "bearer token of every session (HTTP, WebSocket); give two for two authorization contexts: the second is session B's")
	f.issuer.register(fl)
	return cmd
}

func (f *serverFlags) versions() ([]string, error) {
	defaults := []string{protocol.DefaultVersion}
	if f.reference {
		defaults = protocol.From(protocol.DefaultVersion)
	}
	return f.runFlags.versions(defaults)
}

// targets resolves the flags into the transports and targets to judge.
func (f *serverFlags) targets(ctx context.Context, args []string) ([]transport.Kind, map[transport.Kind]client.Target, func(), error) {
	if err := f.checkTarget(args); err != nil {
		return nil, nil, nil, err
	}
	header, err := parseHeaders(f.headers)
	if err != nil {
		return nil, nil, nil, err
	}
	if f.bearer != "" {
		if header == nil {
			header = http.Header{}
		}
		header.Set("Authorization", "Bearer "+f.bearer)
	}
	switch {
	case f.url != "":
		return f.served(ctx, client.Target{Kind: transport.HTTP, URL: f.url, Header: header}, args)
	case f.ws != "":
		return f.served(ctx, client.Target{Kind: transport.WS, URL: f.ws, Header: header}, args)
	case f.stdio:
		if _, err := exec.LookPath(args[0]); err != nil {
			return nil, nil, nil, fmt.Errorf("target command %q not found: %v", args[0], err)
		}
		return oneTarget(client.Target{Kind: transport.Stdio, Argv: args})
	}
	transports, err := selectKinds(f.transport)
	if err != nil {
		return nil, nil, nil, err
	}
	flt, err := findVariant(f.fault, f.liberty, server.Faults(), server.Liberties())
	if err != nil {
		return nil, nil, nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("locating the mcpconform binary for the stdio reference: %w", err)
	}
	targets := map[transport.Kind]client.Target{}
	var refs []*suites.Reference
	stop := func() {
		for _, r := range refs {
			r.Stop()
			// The reference's own invalid messages (fakes/peer's guard) are
			// defects of mcpconform: said, never hidden.
			for _, o := range r.OwnInvalid() {
				fmt.Fprintln(os.Stderr, peer.HarnessMarker+o)
			}
		}
	}
	for _, tr := range transports {
		ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{Variant: flt}, exe)
		if err != nil {
			stop()
			return nil, nil, nil, fmt.Errorf("starting the reference server over %s: %w", tr, err)
		}
		refs = append(refs, ref)
		targets[tr] = ref.Target
		if ref.Auth != nil {
			if f.protectedRefs == nil {
				f.protectedRefs = map[transport.Kind]*suites.Reference{}
			}
			f.protectedRefs[tr] = ref
		}
	}
	return transports, targets, stop, nil
}

func oneTarget(t client.Target) ([]transport.Kind, map[transport.Kind]client.Target, func(), error) {
	return []transport.Kind{t.Kind}, map[transport.Kind]client.Target{t.Kind: t}, func() {}, nil
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
		if !publicHeaders[http.CanonicalHeaderKey(strings.TrimSpace(name))] {
			reports.AddSecrets(strings.TrimSpace(value))
		}
	}
	return h, nil
}

// publicHeaders are the headers whose values are no secret; the value of
// any other --header (Authorization, an API key, a cookie, a tenant id) is
// redacted wherever a target echoes it into a report or onto the console.
var publicHeaders = map[string]bool{"Accept": true, "Content-Type": true, "User-Agent": true, "Origin": true,
	"Mcp-Protocol-Version": true, "Mcp-Method": true, "Mcp-Name": true}

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
	reports.AddSecrets(tokens...)
	if len(tokens) > 2 {
		return exitUsage, usageErr("give one bearer token (every session's) or two (--auth-token twice, or auth.tokens in the config: sessions A and B, two authorization contexts); got %d", len(tokens))
	}
	if len(tokens) > 0 && hasHeader(f.headers, "Authorization") {
		return exitUsage, usageErr("--auth-token and --header 'Authorization: …' both give the bearer token: give it once")
	}
	f.bearer = ""
	if len(tokens) > 0 {
		// The first token is every session's (the handshake's too); the
		// second, when given, is session B's (the isolation scenarios).
		f.bearer = tokens[0]
	}
	p := &plan{side: scenarios.ServerSide, versions: versions, flags: &f.runFlags,
		env: scenarios.Env{Fixtures: fixtures, AuthTokens: tokens}}
	if err := p.check(); err != nil {
		return exitUsage, usageErr("%v", err)
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	transports, targets, stop, err := f.targets(ctx, args)
	if errors.Is(err, errNotReady) {
		return exitUnjudged, &exitError{code: exitUnjudged, err: err}
	}
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	defer stop()
	p.transports = transports
	p.auth = map[transport.Kind]runAuth{}
	for tr, ref := range f.protectedRefs {
		p.auth[tr] = runAuth{auth: ref.Auth, tokens: ref.Tokens}
	}
	if f.issuer.set() {
		if f.reference {
			return exitUsage, usageErr("--auth-listen and --auth-state go with a target of your own: a protected reference (--liberty protected, or an authorization fault) runs an issuer of its own")
		}
		iss, stopIssuer, err := f.issuer.start(cmd.ErrOrStderr())
		if err != nil {
			return exitUsage, usageErr("%v", err)
		}
		defer stopIssuer()
		for _, tr := range transports {
			t := targets[tr]
			if tr == transport.Stdio {
				continue // credentials come from the environment there
			}
			a, minted, err := f.issuer.tokensFor(ctx, iss, t)
			if err != nil {
				return exitUsage, usageErr("minting the run's tokens: %v", err)
			}
			ra := runAuth{auth: a, tokens: tokens}
			if len(tokens) == 0 {
				// No token of the user's: sessions A and B carry two the
				// issuer minted for two subjects.
				ra.tokens = minted
				if t.Header == nil {
					t.Header = http.Header{}
				}
				t.Header = t.Header.Clone()
				t.Header.Set("Authorization", "Bearer "+minted[0])
				targets[tr] = t
			}
			p.auth[tr] = ra
		}
	}
	p.targets = map[transport.Kind]scenarios.Target{}
	var parts []string
	for _, tr := range transports {
		p.targets[tr] = targets[tr]
		parts = append(parts, targets[tr].String())
	}
	p.describe = strings.Join(parts, "; ")
	if f.reference {
		p.describe = "built-in reference server"
		if f.fault != "" {
			p.describe += " with fault " + f.fault
		}
		if f.liberty != "" {
			p.describe += " with liberty " + f.liberty
		}
	}
	return p.execute(cmd)
}

// hasHeader reports whether the --header lines give name.
func hasHeader(lines []string, name string) bool {
	for _, l := range lines {
		if k, _, ok := strings.Cut(l, ":"); ok && http.CanonicalHeaderKey(strings.TrimSpace(k)) == http.CanonicalHeaderKey(name) {
			return true
		}
	}
	return false
}

// checkEndpoint refuses, before anything runs, an endpoint that no
// connection could reach: no URL, another scheme, or no host.
func checkEndpoint(flag, raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	switch {
	case !strings.Contains(raw, "://"):
		return fmt.Errorf("%s %q has no scheme: write %s://%s", flag, raw, schemes[0], raw)
	case err != nil:
		return fmt.Errorf("%s %q is no URL: %v", flag, raw, err)
	case !slices.Contains(schemes, u.Scheme):
		return fmt.Errorf("%s %q: the scheme must be %s (e.g. %s://127.0.0.1:3000/mcp)", flag, raw, strings.Join(schemes, " or "), schemes[0])
	case u.Host == "":
		return fmt.Errorf("%s %q names no host", flag, raw)
	}
	return nil
}

// served is the target at an endpoint: started by mcpconform when a
// command follows (and stopped, with whatever it started, when the run
// ends), waited for when --wait-for-target says so, or dialled as it is.
func (f *serverFlags) served(ctx context.Context, t client.Target, argv []string) ([]transport.Kind, map[transport.Kind]client.Target, func(), error) {
	wait := f.waitForTarget
	stop := func() {}
	switch {
	case len(argv) > 0:
		if wait == 0 {
			wait = defaultSpawnWait
		}
		var err error
		if stop, err = startTarget(ctx, t.URL, argv, wait); err != nil {
			return nil, nil, nil, err
		}
	case wait > 0:
		if err := awaitEndpoint(ctx, t.URL, wait, nil); err != nil {
			return nil, nil, nil, err
		}
	}
	kinds, targets, _, err := oneTarget(t)
	return kinds, targets, stop, err
}

// checkTarget holds the target flags to one another, before anything
// starts (cobra runs it as PreRunE, and the docs' test runs it on every
// example): exactly one target, a command where one may go, endpoints a
// connection could reach.
func (f *serverFlags) checkTarget(args []string) error {
	chosen := 0
	for _, b := range []bool{f.url != "", f.ws != "", f.stdio, f.reference} {
		if b {
			chosen++
		}
	}
	if chosen != 1 {
		return fmt.Errorf("name exactly one target: --url URL, --ws URL, --stdio -- CMD ARGS..., or --reference")
	}
	if (f.fault != "" || f.liberty != "") && !f.reference {
		return fmt.Errorf("--fault and --liberty go with --reference")
	}
	if f.fault != "" && f.liberty != "" {
		return fmt.Errorf("name a --fault or a --liberty, not both")
	}
	if len(args) > 0 && !f.stdio && f.url == "" && f.ws == "" {
		return fmt.Errorf("unexpected arguments %q (a command to spawn goes after --stdio --, or after --url URL -- to serve URL)", args)
	}
	if f.waitForTarget < 0 {
		return fmt.Errorf("--wait-for-target must not be negative, got %s", f.waitForTarget)
	}
	if f.waitForTarget > 0 && f.url == "" && f.ws == "" {
		return fmt.Errorf("--wait-for-target goes with --url or --ws")
	}
	if f.url != "" {
		if err := checkEndpoint("--url", f.url, "http", "https"); err != nil {
			return err
		}
	}
	if f.ws != "" {
		if err := checkEndpoint("--ws", f.ws, "ws", "wss"); err != nil {
			return err
		}
	}
	if f.stdio && len(args) == 0 {
		return fmt.Errorf("--stdio needs the server's command after --, e.g. --stdio -- node server.js")
	}
	return nil
}
