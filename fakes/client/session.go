// Package client is the scripted fake MCP client that drives a server under
// test: it opens sessions, performs the handshake of each protocol version,
// correlates responses, keeps an inbox of everything else the server sends,
// and answers server-to-client requests from scripted handlers.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// RequestHandler answers a server-to-client request (elicitation, sampling,
// roots). It returns a result, a JSON-RPC error, or peer.NoAnswer to leave the
// request unanswered. Handlers run concurrently; ctx ends when the server
// cancels the request or the connection ends.
type RequestHandler func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error)

// Options configure a session.
type Options struct {
	Transcript *jsonrpc.Transcript
	// Label names the session in transcripts ("A", "B").
	Label string
	// Version is the protocol version the session speaks.
	Version string
	// ClientInfo and Capabilities are what the fake client declares.
	ClientInfo   map[string]any
	Capabilities map[string]any
	// Handlers answer server-to-client requests by method.
	Handlers map[string]RequestHandler
	// Header is added to the target's headers for this session only (a
	// bearer token of its own authorization context).
	Header http.Header
	// InboxLimit bounds the inbox (and the list of garbage frames): beyond
	// it the oldest are dropped. Zero means peer.DefaultInboxLimit.
	InboxLimit int
	// Poll is how often to poll a task whose server suggests no
	// pollInterval; zero means DefaultPoll.
	Poll time.Duration
	// OnWireNote, if set, is told what the connection saw on the wire that
	// its frames cannot show (transport.WireNote); the session keeps them
	// as wire breaches (WireBreaches) either way.
	OnWireNote func(transport.WireNote)
	// OnOwnInvalid, if set, is told of every message the session sends
	// that the schema of its version refuses (peer.Guard): a harness error
	// unless it is marked deliberate. Without it they are only noted in
	// the transcript.
	OnOwnInvalid func(peer.OwnInvalid)
	// Exempt, if set, may mark an invalid message as a deliberate
	// deviation (a fault of the reference client's: peer.Guard.Exempt).
	Exempt func(peer.Outbound) *peer.Deviation
}

// DefaultPoll is the task poll interval when neither the server nor the
// options name one.
const DefaultPoll = protocol.DefaultPollInterval

// DefaultClientInfo is what the fake client calls itself.
var DefaultClientInfo = map[string]any{"name": "mcpconform", "version": "0.1.0"}

// Session is one connection to the target: one process for stdio, one HTTP
// session (or a series of stateless POSTs), one WebSocket. It is a
// peer.Peer with numeric ids, the client's schema checks, task log and
// garbage list.
type Session struct {
	opts  Options
	conn  transport.Conn // recorded
	peer  *peer.Peer
	inbox *Inbox

	garbageMu sync.Mutex
	garbage   [][]byte // frames that were not JSON-RPC objects, the newest up to min(inbox limit, maxKept), each cut to keptFrameBytes

	tasks taskLog

	violationsMu      sync.Mutex
	violations        []SchemaViolation // the first maxKept, each message cut to keptFrameBytes
	violationsDropped int               // violations seen beyond maxKept, counted only

	kind transport.Kind
	wire wireLog // what broke the wire rules (wire.go)

	// rawMethods maps the ids of the requests sent with SendRaw to their
	// methods, so that their answers, which reach the inbox and not a
	// waiting Do, are held to the schema too (at most maxKept at once).
	rawMu      sync.Mutex
	rawMethods map[string]string

	// Negotiated after Initialize.
	ServerVersion      string
	ServerCapabilities map[string]any
}

// Connect dials the target; no handshake yet.
func Connect(ctx context.Context, target Target, opts Options) (*Session, error) {
	if opts.Version == "" {
		opts.Version = protocol.LatestStateful
	}
	if opts.ClientInfo == nil {
		opts.ClientInfo = DefaultClientInfo
	}
	if opts.Capabilities == nil {
		opts.Capabilities = map[string]any{}
	}
	if opts.InboxLimit <= 0 {
		opts.InboxLimit = peer.DefaultInboxLimit
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	s := &Session{kind: target.Kind}
	user := opts.OnWireNote
	opts.OnWireNote = func(n transport.WireNote) {
		s.wire.note(n)
		if user != nil {
			user(n)
		}
	}
	s.opts = opts
	conn, err := target.Dial(ctx, opts)
	if err != nil {
		return nil, err
	}
	s.conn = watchSends(transport.Record(conn, opts.Transcript, opts.Label), &s.wire)
	handlers := map[string]peer.Handler{}
	for m, h := range opts.Handlers {
		handlers[m] = peer.Handler(h)
	}
	s.peer = peer.New(context.Background(), s.conn, peer.Options{
		Classify:  s.classify,
		OnInvalid: s.keepGarbage,
		OnMessage: s.observe,
		Handlers:  handlers,
		NotFound: func(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			return nil, &jsonrpc.Error{Code: codes.MethodNotFound, Message: "mcpconform: no handler for " + req.Method}
		},
		// A scripted client answers what its script says, even after the
		// server cancelled the request (a late answer is what some checks
		// send on purpose); the handler's context ends all the same.
		AfterCancel: peer.SendAnswer,
		InboxLimit:  opts.InboxLimit,
		OnInboxDrop: inboxDropNote(opts.Transcript, opts.Label),
		OnServeLimit: func(limit int) {
			opts.Transcript.Eventf(opts.Label, "more than %d requests from the server at once; the rest are left unanswered", limit)
		},
		Guard: &peer.Guard{
			Version: func(peer.Outbound) string { return opts.Version },
			Exempt:  opts.Exempt,
			Report:  ownInvalidNote(opts.Transcript, opts.Label, opts.OnOwnInvalid),
		},
	})
	s.inbox = s.peer.Inbox()
	s.peer.Start()
	return s, nil
}

// ownInvalidNote notes each invalid message of our own in the transcript
// and hands it on.
func ownInvalidNote(tr *jsonrpc.Transcript, label string, then func(peer.OwnInvalid)) func(peer.OwnInvalid) {
	return func(o peer.OwnInvalid) {
		tr.Eventf(label, "guard: %v", o)
		if then != nil {
			then(o)
		}
	}
}

// Label names the session in transcripts.
func (s *Session) Label() string { return s.opts.Label }

// Inbox gives access to everything unsolicited the server sent.
func (s *Session) Inbox() *Inbox { return s.inbox }

// Conn is the underlying (recorded) transport connection.
func (s *Session) Conn() transport.Conn { return s.conn }

// Version is the protocol version this session speaks.
func (s *Session) Version() string { return s.opts.Version }

// Stateless reports whether requests carry per-request _meta instead of a session.
func (s *Session) Stateless() bool { return protocol.IsStateless(s.opts.Version) }

// Handle installs or replaces the handler for a server-to-client method.
func (s *Session) Handle(method string, h RequestHandler) {
	s.peer.Handle(method, peer.Handler(h))
}

// Garbage returns frames the server sent that were not JSON-RPC objects.
func (s *Session) Garbage() [][]byte {
	s.garbageMu.Lock()
	defer s.garbageMu.Unlock()
	return append([][]byte(nil), s.garbage...)
}

// Done is closed when the connection is gone (EOF, crash, close).
func (s *Session) Done() <-chan struct{} { return s.peer.Done() }

// Err is why the read loop ended, once Done is closed.
func (s *Session) Err() error { return s.peer.Err() }

// Close ends the session (DELETE for HTTP, shutdown sequence for stdio).
func (s *Session) Close() error { return s.conn.Close() }

// What a session keeps apart from its inbox (garbage frames, schema
// violations) is bounded by count and by size, so that a target flooding
// either costs a bounded amount of memory: the first lines of a report say
// all there is to say, and the transcript and the wire notes keep the rest.
const (
	// maxKept bounds the garbage frames (with the inbox limit, if lower)
	// and the schema violations a session keeps.
	maxKept = 1000
	// keptFrameBytes bounds each frame kept (jsonrpc.CutEntry notes the
	// length of what was cut).
	keptFrameBytes = 4 << 10
	// keptErrBytes bounds the error kept with a schema violation, which may
	// quote what the server sent (a member's name in its JSON path, a value).
	keptErrBytes = 1 << 10
)

// MaxKeptViolations is how many schema violations a session keeps
// (SchemaViolations); SchemaViolationsDropped counts the rest.
const MaxKeptViolations = maxKept

// keepGarbage keeps a frame that is not a JSON-RPC object, the newest up to
// min(InboxLimit, maxKept), each cut to keptFrameBytes.
func (s *Session) keepGarbage(_ context.Context, frame []byte, _ int) {
	kept := jsonrpc.CutEntry(frame, keptFrameBytes)
	if len(kept) == len(frame) {
		// The reader may reuse what it handed us: keep a copy of our own,
		// never more than keptFrameBytes of it.
		kept = append([]byte(nil), frame...)
	}
	s.garbageMu.Lock()
	defer s.garbageMu.Unlock()
	if len(s.garbage) >= min(s.opts.InboxLimit, maxKept) {
		s.garbage[0] = nil
		s.garbage = s.garbage[1:]
	}
	s.garbage = append(s.garbage, kept)
}

// observe sees every message that is not the answer to one of our requests,
// before it is filed in the inbox: task status notifications go to the task
// log, and what the server sends is checked against the schema.
func (s *Session) observe(msg *jsonrpc.Message) {
	if msg.Method == protocol.NotificationTasksStatus {
		s.tasks.add("notification", msg.Params)
	}
	if msg.Method != "" {
		s.checkSchema(string(msg.Kind())+" "+msg.Method, msg.Raw, func(v string) error { return protocol.ValidateParams(v, msg.Method, msg.Params) })
		return
	}
	if method := s.rawMethod(msg.ID); method != "" && msg.Error == nil {
		// The answer to a request sent with SendRaw: a "result": null, an
		// array or a string is as invalid here as in answer to Do.
		s.checkSchema("result of "+method, msg.Raw, func(v string) error { return protocol.ValidateResult(v, method, msg.Result) })
	}
}

// rawMethod is the method of the raw request id answers, forgotten once
// answered; "" when id answers none.
func (s *Session) rawMethod(id jsonrpc.ID) string {
	if id.IsZero() || id.IsNull() {
		return ""
	}
	s.rawMu.Lock()
	defer s.rawMu.Unlock()
	method := s.rawMethods[id.Key()]
	delete(s.rawMethods, id.Key())
	return method
}

// Call describes one request in detail; Request covers the common case.
type Call struct {
	ID     jsonrpc.ID // zero: allocate the next number
	Method string
	Params any
	// NoMeta leaves out the per-request _meta of stateless versions.
	NoMeta bool
	// Meta entries are merged into (and override) the per-request _meta.
	Meta map[string]any
	// Header overrides HTTP headers for this request (stateless HTTP only);
	// an empty value removes the header.
	Header http.Header
	// Deviation marks a request invalid on purpose (a probe of how the
	// server handles it), so the guard notes it instead of raising a
	// harness error.
	Deviation *peer.Deviation
}

// Request sends a request and waits for its response. A JSON-RPC error is
// not a Go error: it is in the returned message; the error is for transport
// failures, HTTP-level rejections (*transport.HTTPStatusError) and ctx.
func (s *Session) Request(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	return s.Do(ctx, Call{Method: method, Params: params})
}

// Do sends a request described by c and waits for its response.
func (s *Session) Do(ctx context.Context, c Call) (*jsonrpc.Message, error) {
	resp, _, err := s.doTimed(ctx, c)
	return resp, err
}

// doTimed is Do, saying too how long the answer took to arrive (the
// schema check of the result after it is ours, not the server's).
func (s *Session) doTimed(ctx context.Context, c Call) (*jsonrpc.Message, time.Duration, error) {
	params, err := s.paramsWithMeta(c)
	if err != nil {
		return nil, 0, err
	}
	s.noteDeclared(c.Method, params)
	start := time.Now()
	resp, err := s.peer.Do(ctx, peer.Call{ID: c.ID, Method: c.Method, Params: params, Send: s.sender(c.Header), Deviation: c.Deviation})
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("%s: %w", c.Method, err)
	}
	if resp.Error == nil {
		s.checkSchema("result of "+c.Method, resp.Raw, func(v string) error { return protocol.ValidateResult(v, c.Method, resp.Result) })
	}
	return resp, took, nil
}

// Notify sends a notification.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	p, err := s.paramsWithMeta(Call{Method: method, Params: params, NoMeta: true})
	if err != nil {
		return err
	}
	return s.peer.Notify(ctx, method, p)
}

// SendRaw writes a frame exactly as given (malformed input on purpose).
// When the frame is a request at the session's version, its answer is held
// to the schema like that of Do.
func (s *Session) SendRaw(ctx context.Context, frame []byte) error {
	if msg, err := jsonrpc.Decode(frame); err == nil && msg.IsRequest() && msg.ID.Valid() && !s.otherVersion(msg) {
		s.rawMu.Lock()
		if s.rawMethods == nil {
			s.rawMethods = map[string]string{}
		}
		if len(s.rawMethods) < maxKept {
			s.rawMethods[msg.ID.Key()] = msg.Method
		}
		s.rawMu.Unlock()
	}
	return s.peer.SendRaw(ctx, frame)
}

// otherVersion reports whether a raw request names, in its _meta, another
// protocol version than the session's (a probe of an unsupported one): its
// answer is not a message of the version in use, so it is not held to that
// schema (lifecycle-unsupported-version judges what comes back).
func (s *Session) otherVersion(msg *jsonrpc.Message) bool {
	var params protocol.Meta
	if json.Unmarshal(msg.Params, &params) != nil {
		return false
	}
	raw, ok := params.Meta[protocol.MetaProtocolVersion]
	if !ok {
		return false
	}
	var v string
	return json.Unmarshal(raw, &v) != nil || v != s.opts.Version
}

// Status is the HTTP status of the POST that carried request id, if known.
func (s *Session) Status(id jsonrpc.ID) (int, bool) {
	if sr, ok := transport.As[transport.StatusReporter](s.conn); ok {
		return sr.ResponseStatus(id)
	}
	return 0, false
}

// sender writes a request with header overrides where the transport takes
// them (HTTP); nil sends as usual.
func (s *Session) sender(header http.Header) func(ctx context.Context, frame []byte) error {
	if len(header) == 0 {
		return nil
	}
	hs, ok := transport.As[headerSender](s.conn)
	if !ok {
		return nil
	}
	return func(ctx context.Context, frame []byte) error {
		// hs is the session's watchSentHeaders: the frame is noted there.
		s.opts.Transcript.Record(jsonrpc.Sent, s.opts.Label, frame)
		return hs.SendWithHeaders(ctx, frame, header)
	}
}

type headerSender interface {
	SendWithHeaders(ctx context.Context, frame []byte, h http.Header) error
}

// RequestFrame is the frame of request c as the session would send it
// (with the per-request _meta of its version), for SendRaw: a scenario
// that sends a request itself speaks the session's era all the same.
func (s *Session) RequestFrame(c Call) ([]byte, error) {
	params, err := s.paramsWithMeta(c)
	if err != nil {
		return nil, err
	}
	req, err := jsonrpc.NewRequest(c.ID, c.Method, params)
	if err != nil {
		return nil, err
	}
	return req.Encode()
}

// RequestMeta is the per-request _meta a stateless session sends.
func (s *Session) RequestMeta() map[string]any {
	return map[string]any{
		protocol.MetaProtocolVersion:    s.opts.Version,
		protocol.MetaClientInfo:         s.opts.ClientInfo,
		protocol.MetaClientCapabilities: s.opts.Capabilities,
	}
}

func (s *Session) paramsWithMeta(c Call) (json.RawMessage, error) {
	var params map[string]any
	switch p := c.Params.(type) {
	case nil:
	case json.RawMessage:
		if !s.Stateless() && c.Meta == nil {
			return p, nil
		}
		if err := json.Unmarshal(p, &params); err != nil {
			return p, nil // not an object: sent as is, on purpose
		}
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("params of %s: %w", c.Method, err)
		}
		if err := json.Unmarshal(b, &params); err != nil {
			return b, nil
		}
	}
	meta := map[string]any{}
	if s.Stateless() && !c.NoMeta {
		meta = s.RequestMeta()
	}
	for k, v := range c.Meta {
		meta[k] = v
	}
	if len(meta) > 0 {
		if params == nil {
			params = map[string]any{}
		}
		if existing, ok := params["_meta"].(map[string]any); ok {
			for k, v := range existing {
				if _, set := meta[k]; !set {
					meta[k] = v
				}
			}
		}
		params["_meta"] = meta
	}
	if params == nil {
		return nil, nil
	}
	return json.Marshal(params)
}

// SchemaViolation is a message from the server that does not validate
// against the schema of the session's version.
type SchemaViolation struct {
	What string // "result of tools/list", "notification notifications/progress"
	Err  error
	Raw  []byte
}

// SchemaViolations lists what the server sent that failed schema
// validation: the first maxKept, each message cut to keptFrameBytes and
// each error to keptErrBytes.
// SchemaViolationsDropped counts the rest.
func (s *Session) SchemaViolations() []SchemaViolation {
	s.violationsMu.Lock()
	defer s.violationsMu.Unlock()
	return append([]SchemaViolation(nil), s.violations...)
}

// SchemaViolationsDropped is how many schema violations the session saw
// beyond those SchemaViolations keeps: counted, not kept.
func (s *Session) SchemaViolationsDropped() int {
	s.violationsMu.Lock()
	defer s.violationsMu.Unlock()
	return s.violationsDropped
}

// checkSchema validates one message against the schema of the session's
// version (protocol.SchemaFor: every judged version has its own; an only
// recognised one is read with the newest of its era). A method that
// version's schema does not know is not judged here.
func (s *Session) checkSchema(what string, raw []byte, validate func(version string) error) {
	err := validate(protocol.SchemaFor(s.opts.Version))
	if err == nil || errors.Is(err, protocol.ErrUnknownMethod) || errors.Is(err, protocol.ErrUnknownVersion) {
		return
	}
	if msg := err.Error(); len(msg) > keptErrBytes {
		err = errors.New(string(jsonrpc.CutEntry([]byte(msg), keptErrBytes)))
	}
	s.violationsMu.Lock()
	if len(s.violations) < maxKept {
		s.violations = append(s.violations, SchemaViolation{What: what, Err: err, Raw: jsonrpc.CutEntry(raw, keptFrameBytes)})
	} else {
		s.violationsDropped++
	}
	s.violationsMu.Unlock()
	s.opts.Transcript.Eventf(s.opts.Label, "schema: the %s is invalid: %v", what, err)
}

// ErrNotInitialized is returned by helpers that need a handshake first.
var ErrNotInitialized = errors.New("session not initialized")

// CloseRequestStream closes the response stream of the POST that carried
// the request with this id: at 2026-07-28 over Streamable HTTP, the way a
// client cancels it (basic/patterns/cancellation.mdx). It reports whether
// such a stream was open; other transports have none.
func (s *Session) CloseRequestStream(id jsonrpc.ID) bool {
	if c, ok := transport.As[requestCanceller](s.conn); ok {
		return c.CancelRequest(id)
	}
	return false
}
