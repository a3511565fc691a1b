package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The environment the official conformance runner gives a client under test
// (fixtures.md, "Client scenarios").
const (
	EnvScenario        = "MCP_CONFORMANCE_SCENARIO"
	EnvProtocolVersion = "MCP_CONFORMANCE_PROTOCOL_VERSION"
)

// Reference client identity, sent as clientInfo.
const (
	ReferenceClientName    = "mcpconform-reference-client"
	ReferenceClientVersion = "0.1.0"
)

// DefaultReferenceResponseTimeout bounds each answer the reference client
// waits for, so a silent server ends the run with a message, not a hang.
const DefaultReferenceResponseTimeout = 10 * time.Second

// ReferenceClientOptions configure one run of the reference client.
type ReferenceClientOptions struct {
	// Server is the server to talk to, given as the official runner gives
	// it, as the client's last command-line argument: an http:// or
	// https:// URL (Streamable HTTP), a ws:// or wss:// URL (WebSocket), or
	// else a command line that starts a stdio server. The command line is
	// split on spaces without any quoting, so no argument of it may
	// contain a space.
	Server string
	// Version is the protocol version to speak; empty means
	// $MCP_CONFORMANCE_PROTOCOL_VERSION, else 2025-11-25.
	Version string
	// Scenario is the scenario id; empty means $MCP_CONFORMANCE_SCENARIO.
	// It selects the client's moves (see act).
	Scenario string
	// Context is the scenario's JSON context; empty means
	// $MCP_CONFORMANCE_CONTEXT.
	Context string
	// Fault is one of Faults(), or nil for the conformant client.
	Fault *fault.Fault
	// ResponseTimeout bounds each answer; default
	// DefaultReferenceResponseTimeout.
	ResponseTimeout time.Duration
	// Log receives a line per step; nil discards them.
	Log io.Writer
	// Transcript, if set, records every frame.
	Transcript *jsonrpc.Transcript
	// OnOwnInvalid is told of every message the client sends that the
	// schema of its version refuses and its variant does not send invalid
	// on purpose (fault.Fault.Invalid); nil writes them to stderr
	// (peer.HarnessMarker).
	OnOwnInvalid func(peer.OwnInvalid)
}

// RunReference runs the reference client once: for a stateful version it
// sends initialize (with its clientInfo, empty capabilities and the
// requested version), notifications/initialized and tools/list; for a
// stateless one server/discover and tools/list. Then it closes the
// connection. It returns an error when the server cannot be reached,
// answers with an error, or negotiates a version the client does not speak.
func RunReference(ctx context.Context, opts ReferenceClientOptions) error {
	if opts.Version == "" {
		opts.Version = os.Getenv(EnvProtocolVersion)
	}
	if opts.Version == "" {
		opts.Version = protocol.V20251125
	}
	if opts.Scenario == "" {
		opts.Scenario = os.Getenv(EnvScenario)
	}
	if opts.Context == "" {
		opts.Context = os.Getenv(EnvContext)
	}
	if opts.ResponseTimeout <= 0 {
		opts.ResponseTimeout = DefaultReferenceResponseTimeout
	}
	if !protocol.IsKnown(opts.Version) {
		return fmt.Errorf("unknown protocol version %q (known: %s)", opts.Version, strings.Join(protocol.Supported(), ", "))
	}
	target, err := referenceTarget(opts.Server)
	if err != nil {
		return err
	}
	if opts.Fault != nil {
		if !slices.Contains(Faults(), opts.Fault) && !slices.Contains(Liberties(), opts.Fault) {
			return fmt.Errorf("%s %q is not one of the reference client's", opts.Fault.Kind(), opts.Fault.Name)
		}
		// Only the version decides whether a fault can be performed (it
		// needs the initialize handshake); whether a judge can observe it on
		// this transport is the judge's affair, so every transport runs it.
		// A liberty is conformant everywhere: where it has nothing to vary,
		// it is the reference.
		if !opts.Fault.Liberty && len(opts.Fault.Versions) > 0 && !slices.Contains(opts.Fault.Versions, opts.Version) {
			return fmt.Errorf("fault %s applies only to protocol versions %s", opts.Fault.Name, strings.Join(opts.Fault.Versions, ", "))
		}
	}
	rc := &referenceRun{opts: opts, target: target}
	if target.Kind == transport.HTTP && isAuthScenario(opts.Scenario) {
		a, err := newAuthorizer(rc)
		if err != nil {
			return err
		}
		rc.target.WrapHTTP = a.wrap
	}
	rc.logf("scenario %q, protocol version %s, server %s", opts.Scenario, opts.Version, target)
	if opts.Fault != nil {
		rc.logf("fault %s: %s", opts.Fault.Name, opts.Fault.Description)
	}
	return rc.run(ctx)
}

// referenceTarget reads the server argument (see ReferenceClientOptions.Server).
func referenceTarget(server string) (Target, error) {
	lower := strings.ToLower(server)
	switch {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		return Target{Kind: transport.HTTP, URL: server}, nil
	case strings.HasPrefix(lower, "ws://"), strings.HasPrefix(lower, "wss://"):
		return Target{Kind: transport.WS, URL: server}, nil
	}
	argv := strings.Fields(server)
	if len(argv) == 0 {
		return Target{}, errors.New("no server given: pass a URL or a stdio server command as the last argument")
	}
	return Target{Kind: transport.Stdio, Argv: argv}, nil
}

type referenceRun struct {
	opts    ReferenceClientOptions
	target  Target
	session *Session
	// capabilities are what the client declared.
	capabilities map[string]any
	// extendCapabilities, when set, adds to the declared capabilities
	// (client-hosted tasks).
	extendCapabilities func(caps map[string]any)
	// leaked is what the last MRTR retry carried (for MRTRLeaksState).
	leaked map[string]any
	// tasks is the receiver of task-augmented requests (2025-11-25), nil
	// where the client declares none.
	tasks *taskReceiver
	// openAt is the context's firstProtocolVersion, the version of the
	// first request (reference_headers.go, opening); opened is set once
	// the first request has gone.
	openAt string
	opened bool
}

func (rc *referenceRun) is(f *fault.Fault) bool { return rc.opts.Fault != nil && rc.opts.Fault == f }

func (rc *referenceRun) logf(format string, args ...any) {
	if rc.opts.Log != nil {
		fmt.Fprintf(rc.opts.Log, format+"\n", args...)
	}
}

// ownInvalid reports an invalid message of the reference client's own that
// its variant does not send on purpose: to OnOwnInvalid, or else on stderr
// (peer.HarnessMarker), which the run that judges the client keeps and
// turns into a harness error.
func (rc *referenceRun) ownInvalid(o peer.OwnInvalid) {
	if o.Deviation != nil {
		return
	}
	if rc.opts.OnOwnInvalid != nil {
		rc.opts.OnOwnInvalid(o)
		return
	}
	fmt.Fprintln(os.Stderr, o.Line())
}

// step bounds one exchange by the response timeout.
func (rc *referenceRun) step(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, rc.opts.ResponseTimeout)
}

func (rc *referenceRun) run(ctx context.Context) error {
	rc.capabilities = rc.referenceCapabilities()
	sctx, cancel := rc.step(ctx)
	s, err := Connect(sctx, rc.target, Options{
		Transcript:   rc.opts.Transcript,
		Label:        "client",
		Version:      rc.opts.Version,
		ClientInfo:   map[string]any{"name": ReferenceClientName, "version": ReferenceClientVersion},
		Capabilities: rc.capabilities,
		Handlers:     rc.serverRequestHandlers(),
		Exempt:       func(o peer.Outbound) *peer.Deviation { return deviation(rc.opts.Fault, o.What()) },
		OnOwnInvalid: rc.ownInvalid,
	})
	cancel()
	if err != nil {
		return fmt.Errorf("cannot reach the server at %s: %w", rc.opts.Server, err)
	}
	rc.session = s
	defer func() {
		// A server that ends badly once the client is done is its own
		// affair, not the client's failure.
		if err := s.Close(); err != nil {
			rc.logf("closing the connection: %v", err)
		}
	}()

	if err := rc.readOpeningVersion(); err != nil {
		return err
	}
	if s.Stateless() {
		err = rc.discover(ctx)
	} else {
		err = rc.initialize(ctx)
	}
	if err != nil {
		return err
	}
	if err := rc.act(ctx); err != nil {
		return err
	}
	rc.logf("done; closing the connection")
	return nil
}

// request sends one request and turns a JSON-RPC error into a Go error.
func (rc *referenceRun) request(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	sctx, cancel := rc.step(ctx)
	defer cancel()
	resp, err := rc.session.Request(sctx, method, params)
	if err != nil {
		return nil, fmt.Errorf("the server at %s did not answer: %w", rc.opts.Server, err)
	}
	if resp.Error != nil {
		return resp, fmt.Errorf("the server answered %s with error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	rc.logf("%s: ok", method)
	return resp, nil
}

// initialize is the handshake of Session.Initialize, written out so that
// the client can check the negotiated version before it goes on, and so
// that each fault can break its one rule.
func (rc *referenceRun) initialize(ctx context.Context) error {
	s := rc.session
	if rc.opts.Fault == RequestBeforeInitialize {
		// Whatever the answer, the fault is in having asked.
		sctx, cancel := rc.step(ctx)
		resp, err := s.Request(sctx, protocol.MethodPing, nil)
		cancel()
		switch {
		case err != nil:
			rc.logf("ping before initialize: %v", err)
		case resp.Error != nil:
			rc.logf("ping before initialize: error %d: %s", resp.Error.Code, resp.Error.Message)
		default:
			rc.logf("ping before initialize: answered")
		}
	}
	if rc.is(ProbesDiscoverFirst) {
		sctx, cancel := rc.step(ctx)
		resp, err := s.Do(sctx, Call{Method: protocol.MethodServerDiscover, Params: map[string]any{}, Meta: map[string]any{
			protocol.MetaProtocolVersion:    protocol.V20260728,
			protocol.MetaClientInfo:         map[string]any{"name": ReferenceClientName, "version": ReferenceClientVersion},
			protocol.MetaClientCapabilities: rc.capabilities,
		}})
		cancel()
		switch {
		case err != nil:
			rc.logf("server/discover probe: %v; falling back to initialize", err)
		case resp.Error != nil:
			rc.logf("server/discover probe: error %d; falling back to initialize", resp.Error.Code)
		default:
			rc.logf("server/discover probe answered; this client still speaks %s, so it goes on with initialize", rc.opts.Version)
		}
	}
	params := s.InitializeParams(rc.opts.Version)
	switch rc.opts.Fault {
	case InitUnsupportedVersion:
		params["protocolVersion"] = unsupportedVersion
	case InitNoClientInfo:
		delete(params, "clientInfo")
	}
	resp, err := rc.request(ctx, protocol.MethodInitialize, params)
	if err != nil {
		return err
	}
	var result protocol.InitializeReply
	caps, err := readReply(resp.Result, &result, &result.Capabilities)
	if err != nil {
		return fmt.Errorf("the initialize result is not an object: %w", err)
	}
	// A version the client does not speak ends the session before
	// notifications/initialized (lifecycle.mdx#version-negotiation: the
	// client SHOULD disconnect).
	if !protocol.IsStateful(result.ProtocolVersion) {
		return fmt.Errorf("the server answered initialize with protocol version %q, which this client does not support", result.ProtocolVersion)
	}
	if result.ProtocolVersion != rc.opts.Version {
		rc.logf("the server chose protocol version %s", result.ProtocolVersion)
	}
	s.ServerVersion, s.ServerCapabilities = result.ProtocolVersion, caps
	if vs, ok := transport.As[transport.VersionSetter](s.Conn()); ok {
		vs.SetProtocolVersion(result.ProtocolVersion)
	}
	if rc.opts.Fault != SkipsInitialized {
		sctx, cancel := rc.step(ctx)
		err := s.Notify(sctx, protocol.NotificationInitialized, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("the server at %s is gone: %s: %w", rc.opts.Server, protocol.NotificationInitialized, err)
		}
	}
	if rc.opts.Fault == NewerMetaAfterNegotiation {
		meta := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": protocol.V20260728}}
		if _, err := rc.request(ctx, protocol.MethodToolsList, meta); err != nil {
			return err
		}
	}
	// As Session.Initialize does: the GET stream is where an HTTP server
	// sends requests outside any POST; a server without one answers 405.
	if hc, ok := transport.As[*transport.HTTPClientConn](s.Conn()); ok {
		sctx, cancel := rc.step(ctx)
		if err := hc.OpenStream(sctx); err != nil {
			rc.logf("no GET stream: %v", err)
		}
		cancel()
	}
	return nil
}

func (rc *referenceRun) discover(ctx context.Context) error {
	if !rc.prepareRequests() { // reference_headers.go: x-mcp-header mirroring, the family's variants
		return nil // server/discover skipped (liberty skips-discover)
	}
	sctx, cancel := rc.step(ctx)
	defer cancel()
	var resp *jsonrpc.Message
	var err error
	if call, ok := rc.opening(Call{Method: protocol.MethodServerDiscover, Params: map[string]any{}}); ok {
		resp, err = rc.session.Do(sctx, call)
		if err == nil && resp.Error == nil {
			rc.logf("the server accepted protocol version %s, which this client does not speak; opening at %s", rc.openAt, rc.opts.Version)
			resp = nil
		}
	}
	switch {
	case resp == nil && err == nil:
		resp, err = rc.session.Open(sctx) // server/discover
		if rc.retryVersion(resp) {        // -32022 listing this client's version
			resp, err = rc.session.Open(sctx)
		}
	case rc.retryVersion(resp): // the opening version refused
		resp, err = rc.session.Open(sctx)
	}
	switch {
	case resp != nil && resp.Error != nil:
		return fmt.Errorf("the server answered %s with error %d: %s", protocol.MethodServerDiscover, resp.Error.Code, resp.Error.Message)
	case err != nil:
		return fmt.Errorf("the server at %s did not answer: %w", rc.opts.Server, err)
	}
	var result protocol.DiscoverResult
	_ = json.Unmarshal(resp.Result, &result) // Open has checked it is an object
	if !slices.Contains(result.SupportedVersions, rc.opts.Version) {
		return fmt.Errorf("the server does not support protocol version %s (it supports %s)",
			rc.opts.Version, strings.Join(result.SupportedVersions, ", "))
	}
	rc.logf("%s: ok", protocol.MethodServerDiscover)
	return nil
}

func (rc *referenceRun) listTools(ctx context.Context) error {
	resp, err := rc.request(ctx, protocol.MethodToolsList, map[string]any{})
	if err != nil {
		return err
	}
	var result protocol.ListedTools
	if err := json.Unmarshal(resp.Result, &result); err != nil {
		return fmt.Errorf("the tools/list result is not an object: %w", err)
	}
	rc.logf("the server lists %d tools", len(result.Tools))
	return nil
}
