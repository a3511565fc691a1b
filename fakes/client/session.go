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
	"sync/atomic"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// RequestHandler answers a server-to-client request (elicitation, sampling,
// roots). It returns a result, or a JSON-RPC error.
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
}

// DefaultClientInfo is what the fake client calls itself.
var DefaultClientInfo = map[string]any{"name": "mcpconform", "version": "0.1.0"}

// Session is one connection to the target: one process for stdio, one HTTP
// session (or a series of stateless POSTs), one WebSocket.
type Session struct {
	opts  Options
	conn  transport.Conn
	inbox *Inbox

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message
	garbage [][]byte // frames that were not JSON-RPC objects
	done    chan struct{}
	readErr error

	handlersMu sync.RWMutex
	handlers   map[string]RequestHandler

	tasks taskLog

	violationsMu sync.Mutex
	violations   []SchemaViolation

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
	conn, err := target.Dial(ctx, opts)
	if err != nil {
		return nil, err
	}
	s := &Session{
		opts:     opts,
		conn:     transport.Record(conn, opts.Transcript, opts.Label),
		inbox:    newInbox(),
		pending:  map[string]chan *jsonrpc.Message{},
		done:     make(chan struct{}),
		handlers: map[string]RequestHandler{},
	}
	for m, h := range opts.Handlers {
		s.handlers[m] = h
	}
	go s.readLoop()
	return s, nil
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
	s.handlersMu.Lock()
	s.handlers[method] = h
	s.handlersMu.Unlock()
}

// Garbage returns frames the server sent that were not JSON-RPC objects.
func (s *Session) Garbage() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.garbage...)
}

// Done is closed when the connection is gone (EOF, crash, close).
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is why the read loop ended, once Done is closed.
func (s *Session) Err() error {
	select {
	case <-s.done:
		return s.readErr
	default:
		return nil
	}
}

// Close ends the session (DELETE for HTTP, shutdown sequence for stdio).
func (s *Session) Close() error { return s.conn.Close() }

func (s *Session) readLoop() {
	defer close(s.done)
	ctx := context.Background()
	for {
		frame, err := s.conn.Recv(ctx)
		if err != nil {
			s.readErr = err
			s.inbox.close(err)
			s.mu.Lock()
			for k, ch := range s.pending {
				close(ch)
				delete(s.pending, k)
			}
			s.mu.Unlock()
			return
		}
		msg, err := jsonrpc.Decode(frame)
		if err != nil {
			s.mu.Lock()
			s.garbage = append(s.garbage, frame)
			s.mu.Unlock()
			continue
		}
		s.dispatch(msg)
	}
}

func (s *Session) dispatch(msg *jsonrpc.Message) {
	if msg.Method == "" && !msg.ID.IsZero() && !msg.ID.IsNull() {
		s.mu.Lock()
		ch, ok := s.pending[msg.ID.Key()]
		if ok {
			delete(s.pending, msg.ID.Key())
		}
		s.mu.Unlock()
		if ok {
			ch <- msg
			return
		}
	}
	if msg.Method == protocol.NotificationTasksStatus {
		s.tasks.add("notification", msg.Params)
	}
	if msg.Method != "" {
		s.checkSchema(string(msg.Kind())+" "+msg.Method, msg.Raw, func(v string) error { return protocol.ValidateParams(v, msg.Method, msg.Params) })
	}
	s.inbox.add(msg)
	if msg.IsRequest() {
		go s.answer(msg)
	}
}

func (s *Session) answer(req *jsonrpc.Message) {
	s.handlersMu.RLock()
	h := s.handlers[req.Method]
	s.handlersMu.RUnlock()
	// written is closed once the answer is on the wire (or given up), so a
	// held request's Answer can return only then.
	written := make(chan struct{})
	defer close(written)
	ctx := context.WithValue(context.Background(), writtenKey{}, written)
	var resp *jsonrpc.Message
	if h == nil {
		resp = jsonrpc.NewError(req.ID, codes.MethodNotFound, "mcpconform: no handler for "+req.Method, nil)
	} else if result, rpcErr := h(ctx, req); result == NoAnswer && rpcErr == nil {
		return // scripted silence: the request is never answered
	} else if rpcErr != nil {
		resp = jsonrpc.NewError(req.ID, rpcErr.Code, rpcErr.Message, rpcErr.Data)
	} else if r, err := jsonrpc.NewResult(req.ID, result); err != nil {
		resp = jsonrpc.NewError(req.ID, codes.InternalError, err.Error(), nil)
	} else {
		resp = r
	}
	if b, err := resp.Encode(); err == nil {
		_ = s.conn.Send(ctx, b)
	}
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
}

// Request sends a request and waits for its response. A JSON-RPC error is
// not a Go error: it is in the returned message; the error is for transport
// failures, HTTP-level rejections (*transport.HTTPStatusError) and ctx.
func (s *Session) Request(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	return s.Do(ctx, Call{Method: method, Params: params})
}

// Do sends a request described by c and waits for its response.
func (s *Session) Do(ctx context.Context, c Call) (*jsonrpc.Message, error) {
	id := c.ID
	if id.IsZero() {
		id = jsonrpc.NumberID(s.nextID.Add(1))
	}
	params, err := s.paramsWithMeta(c)
	if err != nil {
		return nil, err
	}
	req := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: id, Method: c.Method, Params: params}
	frame, err := req.Encode()
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Message, 1)
	s.mu.Lock()
	s.pending[id.Key()] = ch
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		delete(s.pending, id.Key())
		s.mu.Unlock()
	}
	if err := s.send(ctx, frame, c.Header); err != nil {
		forget()
		return nil, fmt.Errorf("%s: %w", c.Method, err)
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: connection closed before the response: %w", c.Method, s.readErr)
		}
		if resp.Error == nil {
			s.checkSchema("result of "+c.Method, resp.Raw, func(v string) error { return protocol.ValidateResult(v, c.Method, resp.Result) })
		}
		return resp, nil
	case <-ctx.Done():
		forget()
		return nil, fmt.Errorf("%s: no response: %w", c.Method, ctx.Err())
	}
}

// Notify sends a notification.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	p, err := s.paramsWithMeta(Call{Method: method, Params: params, NoMeta: true})
	if err != nil {
		return err
	}
	msg := &jsonrpc.Message{JSONRPC: jsonrpc.Version, Method: method, Params: p}
	frame, err := msg.Encode()
	if err != nil {
		return err
	}
	return s.send(ctx, frame, nil)
}

// SendRaw writes a frame exactly as given (malformed input on purpose).
func (s *Session) SendRaw(ctx context.Context, frame []byte) error {
	return s.send(ctx, frame, nil)
}

// Status is the HTTP status of the POST that carried request id, if known.
func (s *Session) Status(id jsonrpc.ID) (int, bool) {
	if sr, ok := transport.As[transport.StatusReporter](s.conn); ok {
		return sr.ResponseStatus(id)
	}
	return 0, false
}

func (s *Session) send(ctx context.Context, frame []byte, header http.Header) error {
	if len(header) > 0 {
		if hs, ok := transport.As[headerSender](s.conn); ok {
			s.opts.Transcript.Record(jsonrpc.Sent, s.opts.Label, frame)
			return hs.SendWithHeaders(ctx, frame, header)
		}
	}
	return s.conn.Send(ctx, frame)
}

type headerSender interface {
	SendWithHeaders(ctx context.Context, frame []byte, h http.Header) error
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

type writtenKey struct{}

// noAnswer marks a handler result that sends nothing.
type noAnswer struct{}

// NoAnswer, returned by a RequestHandler, leaves the request unanswered.
var NoAnswer any = noAnswer{}

// SchemaViolation is a message from the server that does not validate
// against the schema of the session's version.
type SchemaViolation struct {
	What string // "result of tools/list", "notification notifications/progress"
	Err  error
	Raw  []byte
}

// SchemaViolations lists what the server sent that failed schema validation.
func (s *Session) SchemaViolations() []SchemaViolation {
	s.violationsMu.Lock()
	defer s.violationsMu.Unlock()
	return append([]SchemaViolation(nil), s.violations...)
}

// checkSchema validates one message against the session's version. Versions
// without a schema of their own are read with the newest of their era; a
// method the schema does not know is not judged.
func (s *Session) checkSchema(what string, raw []byte, validate func(version string) error) {
	v := s.opts.Version
	if !protocol.HasSchema(v) && protocol.IsStateful(v) {
		v = protocol.LatestStateful
	}
	err := validate(v)
	if err == nil || errors.Is(err, protocol.ErrUnknownMethod) || errors.Is(err, protocol.ErrUnknownVersion) {
		return
	}
	s.violationsMu.Lock()
	s.violations = append(s.violations, SchemaViolation{What: what, Err: err, Raw: raw})
	s.violationsMu.Unlock()
	s.opts.Transcript.Eventf(s.opts.Label, "schema: the %s is invalid: %v", what, err)
}

// ErrNotInitialized is returned by helpers that need a handshake first.
var ErrNotInitialized = errors.New("session not initialized")
