// Package clientside is the driver of scenarios that judge a client: it
// serves a scripted fake server on the scenario's transport, launches the
// client under test with the official runner's contract (the server's
// address as the last argument, MCP_CONFORMANCE_SCENARIO and
// MCP_CONFORMANCE_PROTOCOL_VERSION in its environment) and lets the body
// expect, hold and answer what the client sends. Over stdio the client is
// given a command that relays its pipes back to this process, so every
// verdict is reached here, never in a grandchild.
package clientside

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// Target is the client under test.
type Target struct {
	// Argv starts the client; the fake server's address is appended.
	Argv []string
	// Env is added to the client's environment.
	Env []string
	// RelayExe is the mcpconform binary, whose `relay` command a stdio
	// client is given as its server.
	RelayExe string
}

// String describes the target for reports.
func (t Target) String() string { return "client: " + strings.Join(t.Argv, " ") }

// exitWait bounds how long a client that has done its part may take to exit
// by itself before it is stopped.
const exitWait = 2 * time.Second

// T is handed to a client-side body.
type T struct {
	*scenarios.T
	target   Target
	listener transport.Listener
	conns    chan *Conn
	proc     *transport.Process
	stop     context.CancelFunc
	served   chan struct{}
	log      *Log

	protected *Protected

	skippedMu sync.Mutex
	skipped   []string // the relay's notes of client lines it skipped
}

// Conn is one connection the client under test opened to the fake server.
type Conn struct {
	*server.Peer
	held map[string]*peer.HeldRequests
}

// Held is the queue of held requests of method (see Launch).
func (c *Conn) Held(method string) *peer.HeldRequests { return c.held[method] }

// Body adapts a client-side body to the verdict core.
func Body(body func(t *T)) func(*scenarios.T) {
	return func(core *scenarios.T) {
		target, ok := core.Env.Target.(Target)
		if !ok {
			core.Abort("a client-side scenario needs a client to launch, not %T (a defect in mcpconform)", core.Env.Target)
		}
		t := &T{T: core, target: target}
		core.Cleanup(t.shutdown)
		body(t)
	}
}

// Launch serves a fake server with nothing to offer and starts the client
// under test. Requests for the methods in hold are held on every
// connection for the body to answer (Conn.Held); ping and the list methods
// are answered with empty results, anything else with -32601.
func (t *T) Launch(hold ...string) { t.Serve(Script{Hold: hold}) }

// Serve serves the script's fake server on the scenario's transport and
// starts the client under test. A script that offers a fixture of the
// contract its scenario's needs do not name, or lacks one they name, is a
// harness error (FixtureProblems).
func (t *T) Serve(s Script) {
	if sc := t.Scenario(); sc != nil {
		for _, problem := range FixtureProblems(sc, s) {
			t.HarnessError("%s (a defect in mcpconform)", problem)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.stop = cancel
	l, address, err := t.listen(ctx, s)
	if err != nil {
		t.Abort("could not start the fake server over %s: %v", t.Env.Transport, err)
	}
	ctxEnv, err := t.contextEnv(s)
	if err != nil {
		t.Abort("%v (a defect in mcpconform)", err)
	}
	t.listener = l
	t.conns = make(chan *Conn, 8)
	t.served = make(chan struct{})
	t.log = newLog()
	t.log.onFirstDrop = func(LogDrop) {
		t.Transcript().Eventf("fake-server", "log: more than %s notifications or %s bytes of one method, %s messages or %s bytes from the client; "+
			"the rest are only counted (requests are kept up to twice the bounds)",
			jsonrpc.Thousands(LogPerMethod), jsonrpc.Thousands(LogMethodBytes), jsonrpc.Thousands(LogLimit), jsonrpc.Thousands(LogBytes))
	}
	go func() {
		defer close(t.served)
		t.serve(ctx, s)
	}()
	argv := append(append([]string(nil), t.target.Argv...), address)
	env := append([]string{
		"MCP_CONFORMANCE_SCENARIO=" + t.told(s),
		"MCP_CONFORMANCE_PROTOCOL_VERSION=" + t.Env.Version,
	}, t.target.Env...)
	if ctxEnv != "" {
		env = append(env, ctxEnv)
	}
	t.Step("launch the client: %s", strings.Join(argv, " "))
	proc, err := transport.Launch(argv, transport.LaunchOptions{Env: env, Transcript: t.Transcript(), Label: "client"})
	if err != nil {
		t.Abort("could not start the client under test: %v", err)
	}
	t.proc = proc
}

func (t *T) officialName() string {
	if s := t.Scenario(); s.Official != "" {
		return s.Official
	}
	return t.Scenario().ID
}

// listen opens the fake server's endpoint and says what to hand the
// client: its URL, or over stdio the command that relays to it.
func (t *T) listen(ctx context.Context, s Script) (transport.Listener, string, error) {
	if s.Protect != nil {
		return t.listenProtected(ctx, s.Protect)
	}
	if t.Env.Transport.ProcessesPerSession() > 0 {
		if t.target.RelayExe == "" {
			return nil, "", fmt.Errorf("a stdio client needs the mcpconform binary to relay its server")
		}
		l, err := transport.ListenRelayWith(ctx, transport.Options{Transcript: t.Transcript(), Session: "client",
			OnWireNote: t.noteSkipped})
		if err != nil {
			return nil, "", err
		}
		return l, strings.Join(l.Command(t.target.RelayExe), " "), nil
	}
	l, err := t.Env.Transport.Listen(ctx, "127.0.0.1:0", transport.Options{})
	if err != nil {
		return nil, "", err
	}
	return l, l.Addr(), nil
}

// serve runs the fake server on the listener: the engine answers JSON-RPC
// hygiene (-32700, -32600, -32601) and the defaults; each new connection
// gets its holds before anything is read and is handed to the body.
func (t *T) serve(ctx context.Context, s Script) {
	engine := &server.Engine{
		Transcript: t.Transcript(),
		Requests:   t.handlers(s),
		Middleware: t.completeResult,
		OnMessage:  t.logMessage(s.Hold),
		Guard: func(p *server.Peer) *peer.Guard {
			return &peer.Guard{
				// The fake server speaks the scenario's version only.
				Version: func(peer.Outbound) string { return t.Env.Version },
				Report: func(o peer.OwnInvalid) {
					if o.Deviation != nil {
						t.Transcript().Eventf(p.ID, "guard: %v", o)
						return
					}
					t.HarnessError("%v", o)
				},
			}
		},
		OnPeer: func(p *server.Peer) {
			c := &Conn{Peer: p, held: map[string]*peer.HeldRequests{}}
			for _, m := range s.Hold {
				c.held[m] = p.Hold(m)
			}
			select {
			case t.conns <- c:
			default: // more connections than the body will take: served, not judged
			}
		},
	}
	_ = engine.Serve(ctx, t.listener)
}

// defaultHandlers answer what a fake server with no tools, prompts or
// resources answers.
func defaultHandlers() map[string]server.Handler {
	empty := func(key string) server.Handler {
		return func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			if key == "" {
				return map[string]any{}, nil
			}
			return map[string]any{key: []any{}}, nil
		}
	}
	return map[string]server.Handler{
		protocol.MethodPing:                   empty(""),
		protocol.MethodToolsList:              empty("tools"),
		protocol.MethodPromptsList:            empty("prompts"),
		protocol.MethodResourcesList:          empty("resources"),
		protocol.MethodResourcesTemplatesList: empty("resourceTemplates"),
	}
}

// Accept waits for the client's next connection. A client that never
// connects (or exits first) cannot be judged on this transport and version.
func (t *T) Accept() *Conn {
	ctx, cancel := t.Wait()
	defer cancel()
	select {
	case c := <-t.conns:
		return c
	case <-t.proc.Exited():
		select {
		case c := <-t.conns:
			return c
		default:
		}
		t.Unreachable("%sthe client exited with code %d without connecting to the fake server%s", t.skippedNote(), t.proc.ExitCode(), t.outputNote())
	case <-ctx.Done():
		t.Unreachable("the client did not connect to the fake server within %s%s", t.Env.Timing.ResponseTimeout, t.outputNote())
	}
	return nil
}

func (t *T) outputNote() string {
	out := strings.TrimSpace(t.proc.Output())
	if out == "" {
		return ""
	}
	if len(out) > 500 {
		out = "…" + out[len(out)-500:]
	}
	return "; its output: " + out
}

// Next waits for the next message the client sends on c from mark on that
// satisfies pred (nil: any), with the response timeout.
func (t *T) Next(c *Conn, mark int, pred func(*jsonrpc.Message) bool) (*jsonrpc.Message, error) {
	if pred == nil {
		pred = func(*jsonrpc.Message) bool { return true }
	}
	ctx, cancel := t.Wait()
	defer cancel()
	return c.Inbox().WaitFrom(ctx, mark, pred)
}

// Quiet watches c for the quiet window and returns the first message from
// mark on that satisfies pred, or nil when none came.
func (t *T) Quiet(c *Conn, mark int, pred func(*jsonrpc.Message) bool) *jsonrpc.Message {
	ctx, cancel := context.WithTimeout(t.Ctx, t.QuietWindow())
	defer cancel()
	m, _ := c.Inbox().WaitFrom(ctx, mark, pred)
	return m
}

// Finish lets the client end by itself for a moment; it is stopped after.
func (t *T) Finish() {
	if t.proc != nil && !t.proc.Wait(exitWait) {
		t.Transcript().Eventf("client", "the client was still running after the scenario; stopping it")
	}
}

func (t *T) shutdown() {
	if t.proc != nil {
		t.proc.Stop(exitWait)
		if code := t.proc.ExitCode(); code != 0 {
			t.Transcript().Eventf("client", "the client exited with code %d", code)
		}
		t.AddStderr(t.proc.Output())
		// The reference client reports its own invalid messages on its
		// output (peer.HarnessMarker).
		for _, line := range peer.HarnessLines(t.proc.Output()) {
			t.HarnessError("the client process: %s", line)
		}
	}
	if t.stop != nil {
		t.stop()
	}
	if t.listener != nil {
		_ = t.listener.Close()
		<-t.served
	}
}

// Outcome says how a wait on the client ended.
type Outcome int

const (
	// Done: the condition held.
	Done Outcome = iota
	// Exited: the client exited before it held.
	Exited
	// TimedOut: ctx ended before it held.
	TimedOut
)

// Await waits until done holds over everything the client sent, the client
// exits, or ctx ends.
func (t *T) Await(ctx context.Context, done func([]Received) bool) Outcome {
	exitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-t.proc.Exited():
			cancel()
		case <-exitCtx.Done():
		}
	}()
	if t.log.WaitFor(exitCtx, done) {
		return Done
	}
	if ctx.Err() == nil {
		// The client exited: what it sent just before may still be on its
		// way (a relay's pipe, an HTTP request in flight), so the condition
		// gets the quiet window to come true.
		late, cancel := context.WithTimeout(ctx, t.QuietWindow())
		defer cancel()
		if t.log.WaitFor(late, done) {
			return Done
		}
		return Exited
	}
	return TimedOut
}

// Exited is closed once the client under test has exited.
func (t *T) Exited() <-chan struct{} { return t.proc.Exited() }

// WaitExit waits up to d for the client to exit by itself and reports
// whether it did; ExitCode is then its status.
func (t *T) WaitExit(d time.Duration) bool { return t.proc.Wait(d) }

// ExitCode is the client's exit status (-1 while it runs).
func (t *T) ExitCode() int { return t.proc.ExitCode() }

// Output is the tail of the client's stdout and stderr, for evidence.
func (t *T) Output() string { return strings.TrimPrefix(t.outputNote(), "; its output: ") }

// Silent is how Settle ends when the client sent nothing for the response
// timeout and did not exit.
const Silent Outcome = TimedOut + 1

// Settle waits for the client to finish its moves: until done holds over
// what it sent (then it has exitWait to exit by itself), until it exits,
// until it stays silent for the response timeout, or until the scenario's
// deadline (TimedOut). A client that keeps sending keeps the wait going, so
// a long exchange is not cut short, but the deadline bounds it.
func (t *T) Settle(done func([]Received) bool) Outcome {
	out := t.SettleUntil(done)
	if out == Done {
		t.proc.Wait(exitWait)
	}
	return out
}

// SettleUntil is Settle without the moment to exit once done holds: for a
// condition that means the client must be stopped at once (a loop without
// end), followed by StopClient.
func (t *T) SettleUntil(done func([]Received) bool) Outcome {
	out := t.settle(done)
	if out != Done {
		t.skipIfLegacyOnly(out)
	}
	return out
}

// skipIfLegacyOnly stops a 2026-07-28 scenario whose client only tried the
// initialize handshake: nothing it sent can be judged at that version.
func (t *T) skipIfLegacyOnly(out Outcome) {
	if protocol.IsStateless(t.Env.Version) && t.legacyOnly() {
		t.SkipRest(fmt.Sprintf("the client does not implement %s: it sent initialize, was refused, and sent no %s request (%s)",
			t.Env.Version, t.Env.Version, t.DescribeEnd(out)+t.outputNote()))
	}
}

func (t *T) settle(done func([]Received) bool) Outcome {
	for {
		seen, total := len(t.log.Entries()), t.log.Total()
		ctx, cancel := t.Wait()
		out := t.Await(ctx, func(r []Received) bool { return len(r) > seen || (done != nil && done(r)) })
		cancel()
		switch {
		case out == Exited:
			return Exited
		case out == TimedOut && t.Ctx.Err() != nil:
			return TimedOut
		case out == TimedOut && t.log.Total() > total:
			// The client kept sending what a full log only counts.
			continue
		case out == TimedOut:
			return Silent
		case done != nil && done(t.log.Entries()):
			return Done
		}
	}
}

// legacyOnly reports whether the client tried the initialize handshake
// and never sent a request carrying 2026-07-28's per-request _meta.
func (t *T) legacyOnly() bool {
	tried := false
	for _, r := range t.log.Entries() {
		if !r.Msg.IsRequest() {
			continue
		}
		if r.Msg.Method == protocol.MethodInitialize {
			tried = true
			continue
		}
		var p protocol.Meta
		if json.Unmarshal(r.Msg.Params, &p) == nil && p.Meta[protocol.MetaProtocolVersion] != nil {
			return false
		}
	}
	return tried
}

// StopClient stops the client under test now (its output stays in the
// report).
func (t *T) StopClient() { t.proc.Stop(0) }

// ToolCalls are the tools/call requests for tool among entries, in order.
func ToolCalls(entries []Received, tool string) []Received {
	var out []Received
	for _, r := range entries {
		if r.Msg.IsRequest() && r.Msg.Method == protocol.MethodToolsCall && ReadCall(r.Msg).Name == tool {
			out = append(out, r)
		}
	}
	return out
}

// Requests are the requests of method among entries whose params name
// (name, or uri for resources) is key; "" matches any.
func Requests(entries []Received, method, key string) []Received {
	var out []Received
	for _, r := range entries {
		if !r.Msg.IsRequest() || r.Msg.Method != method {
			continue
		}
		c := ReadCall(r.Msg)
		var uri string
		_ = json.Unmarshal(c.Params["uri"], &uri)
		if key == "" || c.Name == key || uri == key {
			out = append(out, r)
		}
	}
	return out
}

// Missed stops the body when the client never made the request the
// scenario is built around. A client told to by an official scenario id
// fails the check it was working towards; for an mcpconform scenario the
// request comes from MCP_CONFORMANCE_CONTEXT, and a harness that does not
// make the context's calls cannot be judged on it, so the rest is skipped.
func (t *T) Missed(what string, out Outcome) {
	why := map[Outcome]string{
		Exited:   fmt.Sprintf("the client exited with code %d before sending it", t.proc.ExitCode()),
		Silent:   fmt.Sprintf("the client sent nothing more for %s", t.Env.Timing.ResponseTimeout),
		TimedOut: "the scenario's deadline passed first",
		Done:     "it never came",
	}[out] + t.outputNote()
	why = t.skippedNote() + why
	t.skipIfLegacyOnly(out)
	if t.Scenario().Official != "" {
		t.Lost(what, why)
	}
	t.SkipRest(fmt.Sprintf("the client did not send %s (%s); a client harness must make the calls $MCP_CONFORMANCE_CONTEXT lists (toolCalls, promptGets, resourceReads) to be judged here", what, why))
}

// noteSkipped keeps what the relay says of a client line it skipped.
func (t *T) noteSkipped(n transport.WireNote) {
	if n.Kind != transport.NoteOverlongLine {
		return
	}
	t.skippedMu.Lock()
	defer t.skippedMu.Unlock()
	t.skipped = append(t.skipped, n.Detail)
}

// skippedNote names the client lines the relay skipped, before how a wait
// ended: what such a line carried was never read, so the client's exit or
// silence after it is not the whole story. "" when none was skipped.
func (t *T) skippedNote() string {
	t.skippedMu.Lock()
	defer t.skippedMu.Unlock()
	switch len(t.skipped) {
	case 0:
		return ""
	case 1:
		return "mcpconform skipped " + t.skipped[0] + " (what it carried was never read); then "
	}
	return fmt.Sprintf("mcpconform skipped %d lines the client sent, each over the limit of a relayed line (the first: %s; what they carried was never read); then ",
		len(t.skipped), t.skipped[0])
}

// DescribeEnd says how a wait on the client ended, for a failure message.
func (t *T) DescribeEnd(out Outcome) string { return t.skippedNote() + t.describeEnd(out) }

func (t *T) describeEnd(out Outcome) string {
	end := "the client had finished"
	switch out {
	case Exited:
		end = fmt.Sprintf("the client exited with code %d", t.proc.ExitCode())
	case Silent:
		end = fmt.Sprintf("the client sent nothing more for %s", t.Env.Timing.ResponseTimeout)
	case TimedOut:
		end = "the scenario's deadline passed"
	}
	if d := t.log.Dropped(); d.Total() > 0 {
		end += " (" + d.String() + ")"
	}
	return end
}
