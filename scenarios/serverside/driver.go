// Package serverside is the driver of scenarios that judge a server: the
// fake client opens sessions to the server under test, sends what the body
// scripts and waits for answers with the step's deadline. Bodies get a *T,
// which embeds the side-neutral verdict core.
package serverside

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// T is handed to a server-side body.
type T struct {
	*scenarios.T
	target   client.Target
	sessions []*client.Session
	// gated: the scenario's capability needs were held to a session's
	// handshake (the first Open that completed one).
	gated bool
	// started: a stdio Connect started a process whose first answer is
	// not yet waited for; that wait allows for its start-up.
	started atomic.Bool
}

// Wait is a context for one wait on the target; the first after a stdio
// Connect also allows for the process's start-up (Timing.StartTimeout).
func (t *T) Wait() (context.Context, context.CancelFunc) {
	ctx, cancel, _ := t.wait()
	return ctx, cancel
}

func (t *T) wait() (context.Context, context.CancelFunc, time.Duration) {
	d := t.Env.Timing.ResponseTimeout
	if t.started.Swap(false) {
		d = t.Env.Timing.HandshakeWait(t.target.Kind)
	}
	ctx, cancel := context.WithTimeout(t.Ctx, d)
	return ctx, cancel, d
}

// Body adapts a server-side body to the verdict core.
func Body(body func(t *T)) func(*scenarios.T) {
	return func(core *scenarios.T) {
		target, ok := core.Env.Target.(client.Target)
		if !ok {
			core.Abort("a server-side scenario needs a server to dial, not %T (a defect in mcpconform)", core.Env.Target)
		}
		t := &T{T: core, target: target}
		core.Cleanup(t.closeSessions)
		body(t)
	}
}

// Version is the protocol version the scenario speaks.
func (t *T) Version() protocol.Version {
	v, _ := protocol.Lookup(t.Env.Version)
	return v
}

// Connect opens a session without a handshake. A failure to connect is a
// harness error (Abort).
func (t *T) Connect(label string, opts client.Options) *client.Session {
	opts.Transcript = t.Transcript()
	opts.Label = label
	if opts.Version == "" {
		opts.Version = t.Env.Version
	}
	if opts.Poll == 0 {
		opts.Poll = t.Env.Timing.Poll
	}
	opts.OnOwnInvalid = t.ownInvalid
	ctx, cancel := t.Wait()
	defer cancel()
	s, err := client.Connect(ctx, t.target, opts)
	if err != nil {
		var stall *transport.StallError
		if errors.As(err, &stall) {
			// It accepted the connection and then stopped (a WebSocket
			// upgrade never completed): a hang, judged like an unanswered
			// handshake, once per transport and version.
			t.Unreachable("%v", err)
		}
		t.Abort("could not connect to the target (%s): %v", t.target, err)
	}
	t.sessions = append(t.sessions, s)
	if t.target.Kind == transport.Stdio {
		t.started.Store(true)
	}
	return s
}

// Open connects and performs the version's handshake. If the target fails
// the handshake, the scenario's remaining checks are blocked; if it sent
// no answer at all, the later scenarios on this transport and version too.
func (t *T) Open(label string, opts client.Options) *client.Session {
	s := t.Connect(label, opts)
	ctx, cancel, wait := t.wait()
	defer cancel()
	if resp, err := s.Open(ctx); err != nil {
		t.abortIfUnreachable(err)
		if evidence := NotImplementedAnswer(s, t.Version(), resp, err); evidence != "" {
			// Not a failure: the version is not the target's. The handshake's
			// own scenario judges that (lifecycle-initialize/-discover); here
			// and in later scenarios nothing of the version is judged.
			what := fmt.Sprintf("the target does not implement %s (%s)", t.Env.Version, evidence)
			t.Env.Gate.CloseUnsupported(what)
			t.T.Blocked("%s", what)
		}
		if Unanswered(s, err) {
			why := fmt.Sprintf("the %s handshake was not answered within %s (%v)", t.Version().Handshake, wait, err)
			if gone := t.goneNote(); gone != "" {
				why = fmt.Sprintf("%s before answering the %s handshake (%v)", gone, t.Version().Handshake, err)
			}
			t.Unreachable("%s", why)
		}
		// A handshake refused in a scenario other than the handshake's own
		// is a failure here too: the target cannot be judged past it.
		t.lose(fmt.Sprintf("the %s handshake failed: %v", t.Version().Handshake, err), "the handshake failed")
	}
	if !t.gated {
		t.gated = true
		t.gateCapabilities(s)
	}
	return s
}

// gateCapabilities skips the scenario, before its body judged anything,
// when the target's handshake declares none of a capability the scenario
// needs: what the check judges is the target's to offer or not.
func (t *T) gateCapabilities(s *client.Session) {
	for _, path := range t.Scenario().Capabilities() {
		if !Declares(s.ServerCapabilities, path) {
			t.SkipRest(fmt.Sprintf("the target does not declare the %s capability, which this scenario needs", path))
		}
	}
}

// Declares reports whether the capabilities hold the dotted path ("tools",
// "tasks.list"): each part present, whatever its value.
func Declares(caps map[string]any, path string) bool {
	var at any = caps
	for part := range strings.SplitSeq(path, ".") {
		m, ok := at.(map[string]any)
		if !ok {
			return false
		}
		if at, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

// ownInvalid turns a message of the fake client's own that its schema
// refuses into a harness error of the scenario, unless the body marked it
// deliberate (a probe of invalid input).
func (t *T) ownInvalid(o peer.OwnInvalid) {
	if o.Deviation == nil {
		t.HarnessError("%v", o)
	}
}

// Unanswered reports a request that got no answer at all: the wait timed out
// or the connection ended. (An error response or an HTTP refusal is an answer.)
func Unanswered(s *client.Session, err error) bool {
	if err == nil {
		return false
	}
	var hs *transport.HTTPStatusError
	if errors.As(err, &hs) {
		return false
	}
	var stall *transport.StallError
	if errors.As(err, &stall) {
		return true // the stream that had to carry the answer stalled or ended without it
	}
	select {
	case <-s.Done():
		return true
	default:
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// Request sends a request and waits; a timeout or lost connection is
// returned as an error for the body to judge. A target that cannot be
// reached at all is a harness error (Abort), not a verdict.
func (t *T) Request(s *client.Session, method string, params any) (*jsonrpc.Message, error) {
	return t.Do(s, client.Call{Method: method, Params: params})
}

// Do is Request with a full call description.
func (t *T) Do(s *client.Session, c client.Call) (*jsonrpc.Message, error) {
	ctx, cancel := t.Wait()
	defer cancel()
	resp, err := s.Do(ctx, c)
	t.abortIfUnreachable(err)
	return resp, err
}

// abortIfUnreachable turns a failure to connect into a harness error.
func (t *T) abortIfUnreachable(err error) {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		t.Abort("could not reach the target (%s): %v", t.target, err)
	}
}

func (t *T) closeSessions() {
	for _, s := range t.sessions {
		_ = s.Close()
		if c, ok := transport.As[transport.StderrHolder](s.Conn()); ok {
			t.AddStderr(c.Stderr())
			// A reference server of ours in a process of its own reports
			// its own invalid messages there (peer.HarnessMarker).
			for _, line := range peer.HarnessLines(c.Stderr()) {
				t.HarnessError("the server process: %s", line)
			}
		}
	}
	t.recordWire()
	t.sessions = nil
}

// recordWire adds what each closed session received that the schema of its
// version refuses, and the wire rules it broke, to the ledger of this
// transport and version, under the scenario's id, for wire-schema and
// wire-rules, which run last there and judge it all.
// A session's read loop is given up to one answer timeout to end, so that
// every message it read has been checked. The results of the handshake
// (initialize, server/discover) are left out: the handshake's own scenario
// judges them (lifecycle-initialize, lifecycle-discover).
func (t *T) recordWire() {
	if t.Env.Wire == nil || len(t.sessions) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.Env.Timing.ResponseTimeout)
	defer cancel()
	id := t.Scenario().ID
	for _, s := range t.sessions {
		select {
		case <-s.Done():
		case <-ctx.Done():
		}
		v, _ := protocol.Lookup(s.Version())
		handshake := "result of " + v.Handshake
		for _, sv := range s.SchemaViolations() {
			if v.Handshake != "" && sv.What == handshake {
				continue
			}
			t.Env.Wire.Add(scenarios.WireViolation{Scenario: id, What: sv.What, Err: sv.Err.Error(), Raw: sv.Raw})
		}
		t.Env.Wire.Count(s.SchemaViolationsDropped())
		t.Env.Wire.AddBreach(Breaches(id, s)...)
	}
}

// Barrier sends the version's probe request and waits for its answer:
// frames the server sent on the same ordered connection before it are in by
// then. A probe left unanswered stops the body (Lost when the target has
// gone or hangs).
func (t *T) Barrier(s *client.Session) { t.barrier(s, false) }

// BarrierOrEnd is Barrier for a body that only needs to know that nothing
// more will come before it judges: a connection that has ended is as good
// a barrier (nothing can arrive on it any more), so it does not stop the
// body. A target that ended the connection there is judged where its
// survival is the question, not here.
func (t *T) BarrierOrEnd(s *client.Session) { t.barrier(s, true) }

func (t *T) barrier(s *client.Session, endIsEnough bool) {
	method := t.Version().Probe
	_, err := t.Request(s, method, map[string]any{})
	if err == nil {
		return
	}
	ended := s.Done()
	var refused *transport.HTTPStatusError
	if !errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &refused) {
		// A write that failed (a broken pipe) says the connection is
		// ending before its read side has noticed: wait for that.
		ctx, cancel := t.Wait()
		defer cancel()
		select {
		case <-ended:
		case <-ctx.Done():
		}
	}
	select {
	case <-ended:
		if endIsEnough {
			t.Step("the connection ended before %s was answered: nothing more can arrive", method)
			return
		}
	default:
	}
	t.needAnswer(s, method+" (used as a barrier)", err)
	t.Blocked("%s (used as a barrier) was not answered: %v", method, err)
}

// StatusNote describes the HTTP status of a request, when there is one.
func StatusNote(s *client.Session, id jsonrpc.ID) (int, string) {
	if st, ok := s.Status(id); ok {
		return st, fmt.Sprintf(" (HTTP %d)", st)
	}
	return 0, ""
}

// Gone reports a session that has ended: the connection failed, or an HTTP
// session answered 404 (Streamable HTTP session management).
func Gone(s *client.Session, err error) bool {
	if err != nil {
		return true
	}
	select {
	case <-s.Done():
		return true
	default:
	}
	if ls, ok := transport.As[transport.LastStatusReporter](s.Conn()); ok {
		return ls.LastStatus() == 404
	}
	return false
}

// RawRefusal reports the HTTP status of the POST that carried the last raw
// frame, when it refused it (4xx/5xx): over Streamable HTTP that status is
// the required answer and a JSON-RPC error body is optional
// (2025-11-25/basic/transports.mdx#sending-messages-to-the-server).
func RawRefusal(s *client.Session) (int, bool) {
	if ls, ok := transport.As[transport.LastStatusReporter](s.Conn()); ok {
		if st := ls.LastStatus(); st >= 400 {
			return st, true
		}
	}
	return 0, false
}

// Deviation names a request the body sends invalid on purpose, a probe of
// how the server handles it (client.Call.Deviation): the guard notes it in
// the transcript instead of raising a harness error.
func (t *T) Deviation(what string) *peer.Deviation {
	return &peer.Deviation{By: "scenario " + t.Scenario().ID + ": " + what}
}

// Deliberately marks what is sent with ctx (a raw frame, a notification)
// as invalid on purpose, named like Deviation.
func (t *T) Deliberately(ctx context.Context, what string) context.Context {
	return peer.Deliberately(ctx, "scenario "+t.Scenario().ID+": "+what)
}
