// Package conform runs mcpconform's catalogue inside a Go test: a Go MCP
// server or client project judges its own implementation with `go test`,
// one subtest per transport, version, scenario and check.
//
//	func TestConformance(t *testing.T) {
//		conform.Server(t, conform.ServerTarget{Handler: mcpHandler()}, conform.Options{
//			SpecVersions: []string{"2025-11-25"},
//		})
//	}
//
// A failed check is t.Error with the check's Expected and Actual; a failed
// SHOULD is logged (an error with Strict); a check that does not apply is
// skipped with its reason; a check mcpconform could not judge (the target
// never answered its handshake, a deadline) is an error. The options are the
// command line's (mcpconform server and mcpconform client).
//
// Judging a client over stdio needs a relay process: call Main from the
// package's TestMain so the test binary can be it.
package conform

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// ServerTarget is the server to judge: exactly one of Command, URL and
// Handler.
type ServerTarget struct {
	// Command starts the server over stdio, once per session.
	Command []string
	// Env is added to the environment of Command.
	Env []string
	// URL is a running server's endpoint: http:// or https:// for
	// Streamable HTTP, ws:// or wss:// for WebSocket.
	URL string
	// Handler is served on a loopback port for the run's length, at Path
	// (default /mcp), over Streamable HTTP, or WebSocket when set.
	Handler   http.Handler
	Path      string
	WebSocket bool
	// Header goes on every HTTP request or WebSocket handshake (an API key,
	// a bearer token: their values never reach a report).
	Header http.Header
}

// ClientTarget is the client to judge: a command the official suite's
// launch contract starts, with the fake server's URL (or, over stdio, the
// command that relays to it) as its last argument and the scenario in
// MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT.
type ClientTarget struct {
	Command []string
	// Env is added to the client's environment.
	Env []string
}

// Fixture maps one of the suite's fixtures onto a tool of the target.
type Fixture = scenarios.Fixture

// Options are the command line's: what to judge and how.
type Options struct {
	// SpecVersions to judge; default the newest released version the suite
	// judges by default (mcpconform server's default).
	SpecVersions []string
	// Transports judges a client over these (default every one); a
	// server's transport follows from its target.
	Transports []string
	// Scenarios runs only these scenario ids.
	Scenarios []string
	// LabelFilter is a Ginkgo label filter, as --label-filter.
	LabelFilter string
	// Strict counts a failed SHOULD as an error.
	Strict bool
	// Profiles enables opt-in profiles of checks.
	Profiles []string
	// ExpectedFailures is an expected-failures file: the failures it
	// lists are logged, not errors; an entry whose checks now pass is one.
	ExpectedFailures string
	// Fixtures map the suite's fixtures onto the target's own tools.
	Fixtures map[string]Fixture
	// AuthTokens are the bearer tokens of sessions A and B (one: every
	// session's).
	AuthTokens []string
	// Timeouts; zero takes the command line's default.
	ScenarioTimeout, ResponseTimeout, StartTimeout, QuietWindow, PollInterval time.Duration
	// Parallel bounds the scenarios that run at once (default the command
	// line's).
	Parallel int
	// MaxRounds is the bound a client's MRTR loop is judged against
	// (default 10).
	MaxRounds int
	// ReportDir, when set, receives the run's reports (junit.xml,
	// results.json, summary.md, report.html, results.sarif).
	ReportDir string
}

// timing is the options' timing over the defaults.
func (o Options) timing() scenarios.Timing {
	t := scenarios.DefaultTiming()
	for _, set := range []struct {
		to   *time.Duration
		from time.Duration
	}{{&t.ScenarioTimeout, o.ScenarioTimeout}, {&t.ResponseTimeout, o.ResponseTimeout}, {&t.StartTimeout, o.StartTimeout},
		{&t.QuietWindow, o.QuietWindow}, {&t.Poll, o.PollInterval}} {
		if set.from > 0 {
			*set.to = set.from
		}
	}
	return t
}

// versions are the versions to judge, checked against the version table.
func (o Options) versions() ([]string, error) {
	if len(o.SpecVersions) == 0 {
		return []string{protocol.DefaultVersion}, nil
	}
	for _, v := range o.SpecVersions {
		if !slices.Contains(protocol.Judged(), v) {
			return nil, fmt.Errorf("unknown spec version %q (known: %s)", v, strings.Join(protocol.Judged(), ", "))
		}
	}
	return o.SpecVersions, nil
}

// transports are the client transports to judge.
func (o Options) transports() ([]transport.Kind, error) {
	if len(o.Transports) == 0 {
		return transport.Kinds(), nil
	}
	var kinds []transport.Kind
	for _, name := range o.Transports {
		k, err := transport.ParseKind(name)
		if err != nil {
			return nil, err
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}

// Result is what a run judged, as results.json holds it.
type Result = reports.Run
