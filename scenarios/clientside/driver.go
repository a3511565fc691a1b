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
	"fmt"
	"strings"
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

// Launch serves the fake server on the scenario's transport and starts the
// client under test. Requests for the methods in hold are held on every
// connection for the body to answer (Conn.Held); ping and the list methods
// are answered with empty results, anything else with -32601.
func (t *T) Launch(hold ...string) {
	ctx, cancel := context.WithCancel(context.Background())
	t.stop = cancel
	l, address, err := t.listen(ctx)
	if err != nil {
		t.Abort("could not start the fake server over %s: %v", t.Env.Transport, err)
	}
	t.listener = l
	t.conns = make(chan *Conn, 8)
	t.served = make(chan struct{})
	go func() {
		defer close(t.served)
		t.serve(ctx, hold)
	}()
	argv := append(append([]string(nil), t.target.Argv...), address)
	env := append([]string{
		"MCP_CONFORMANCE_SCENARIO=" + t.officialName(),
		"MCP_CONFORMANCE_PROTOCOL_VERSION=" + t.Env.Version,
	}, t.target.Env...)
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
func (t *T) listen(ctx context.Context) (transport.Listener, string, error) {
	if t.Env.Transport.ProcessesPerSession() > 0 {
		if t.target.RelayExe == "" {
			return nil, "", fmt.Errorf("a stdio client needs the mcpconform binary to relay its server")
		}
		l, err := transport.ListenRelay(ctx)
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
func (t *T) serve(ctx context.Context, hold []string) {
	engine := &server.Engine{
		Transcript: t.Transcript(),
		Requests:   defaultHandlers(),
		OnPeer: func(p *server.Peer) {
			c := &Conn{Peer: p, held: map[string]*peer.HeldRequests{}}
			for _, m := range hold {
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
		t.Unreachable("the client exited with code %d without connecting to the fake server%s", t.proc.ExitCode(), t.outputNote())
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
	}
	if t.stop != nil {
		t.stop()
	}
	if t.listener != nil {
		_ = t.listener.Close()
		<-t.served
	}
}
