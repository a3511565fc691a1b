// Package peer is the JSON-RPC peer both fakes are built on: the fake client
// (fakes/client) and the fake server (fakes/server) are each one Peer on one
// transport.Conn, with their own options.
//
// A Peer allocates the ids of its own requests and correlates the answers;
// runs one read loop; serves incoming requests concurrently from handlers by
// method (a handler answers with a result, a *jsonrpc.Error, or NoAnswer),
// and notifications from notification handlers; ends a handler's context when
// the other side cancels its request with notifications/cancelled; lets a
// script hold requests and answer them later (Hold); and keeps an Inbox of
// every incoming message that is not the answer to one of its own requests.
package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// Handler answers one incoming request. It returns a result, a non-nil
// *jsonrpc.Error for an error response, or NoAnswer to send nothing at all.
// Handlers run concurrently, each on a goroutine of its own; ctx ends when
// the other side cancels the request (see AfterCancel) or the read loop ends.
type Handler func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error)

// NotificationHandler receives one incoming notification, in the read loop:
// the next message is read once it returns.
type NotificationHandler func(ctx context.Context, msg *jsonrpc.Message)

// noAnswer marks a handler result that sends nothing.
type noAnswer struct{}

// NoAnswer, returned by a Handler (with a nil error), leaves the request
// unanswered: nothing is written. It is the one "send nothing" marker of
// both fakes.
var NoAnswer any = noAnswer{}

func isNoAnswer(v any) bool { _, ok := v.(noAnswer); return ok }

// AfterCancel says what becomes of a request we serve once the other side
// cancels it with notifications/cancelled while its handler runs.
type AfterCancel int

const (
	// DropAnswer ends the handler's context and sends nothing, whatever the
	// handler returns (2025-11-25/basic/utilities/cancellation.mdx: the
	// receiver SHOULD NOT respond to a cancelled request). The default.
	DropAnswer AfterCancel = iota
	// SendAnswer ends the handler's context but still sends what the
	// handler returns: a script that answers late on purpose.
	SendAnswer
	// IgnoreCancel leaves the handler's context alone and sends its answer:
	// the cancellation has no effect at all (a fault).
	IgnoreCancel
)

// DefaultInboxLimit is how many messages an Inbox keeps unless told otherwise.
const DefaultInboxLimit = 10000

// DefaultInboxBytes is how many bytes of messages an Inbox keeps unless told
// otherwise. A count alone does not bound memory: 10,000 notifications of
// 16 KiB held 350 MB while a target flooded (issue 8).
const DefaultInboxBytes = 8 << 20

// Options configure a Peer; every field is optional.
type Options struct {
	// IDPrefix styles the ids of our own requests: "" numbers them 1, 2,
	// 3…; otherwise they are strings IDPrefix+"1", IDPrefix+"2"….
	IDPrefix string
	// Classify decodes one frame into a message, or reports a JSON-RPC error
	// code (-32700, -32600) for a frame that is not one; such frames go to
	// OnInvalid and nowhere else. The default is Decode.
	Classify func(frame []byte) (*jsonrpc.Message, int)
	// OnInvalid receives every frame Classify rejected, in the read loop.
	// The default ignores them.
	OnInvalid func(ctx context.Context, frame []byte, code int)
	// OnMessage sees every message that is not the answer to one of our
	// requests, in the read loop, before it is filed in the inbox and
	// dispatched.
	OnMessage func(msg *jsonrpc.Message)
	// Handlers serve requests by method (Handle adds and replaces them).
	Handlers map[string]Handler
	// NotFound serves requests for methods without a handler; the default
	// answers -32601.
	NotFound Handler
	// Notifications receive notifications by method (HandleNotification
	// adds and replaces them); OtherNotifications receives the rest.
	Notifications      map[string]NotificationHandler
	OtherNotifications NotificationHandler
	// OnStrayResponse receives, in the read loop, responses that answer no
	// pending request of ours (a late answer to an abandoned request, an
	// error with id null after a malformed frame). They are in the inbox too.
	OnStrayResponse func(msg *jsonrpc.Message)
	// Outgoing may rewrite every message the peer encodes before it is sent
	// (requests, notifications, answers; not SendRaw); nil drops it.
	Outgoing func(msg *jsonrpc.Message) *jsonrpc.Message
	// AfterCancel says what notifications/cancelled does to a request we
	// serve; the default is DropAnswer.
	AfterCancel AfterCancel
	// SerializeSends writes one frame at a time, so the order the frames are
	// recorded in is the order they go out. Leave it off where a Send can
	// block for a while (an HTTP client's POST waits for its response).
	SerializeSends bool
	// InboxLimit and InboxBytes bound the inbox by count and by bytes:
	// beyond either the oldest messages are dropped (Inbox.Dropped counts
	// them). Zero or less means DefaultInboxLimit, DefaultInboxBytes.
	InboxLimit int
	InboxBytes int
	// OnInboxDrop is called once, when the inbox drops its first message;
	// its String is the line for a transcript. Without it OnInboxFull is.
	OnInboxDrop func(InboxDrop)
	// OnInboxFull is called once, when the inbox drops its first message
	// (and OnInboxDrop is nil).
	OnInboxFull func(limit int)
	// MaxServing bounds the incoming requests served at once (their
	// handlers, and their answers waiting to be written). A request beyond
	// it is filed in the inbox but not served: a target that floods
	// requests and never reads the answers would otherwise hold a goroutine
	// and a message per request for ever. Zero or less means
	// DefaultMaxServing.
	MaxServing int
	// OnServeLimit is called once, when a request is first left unserved
	// because MaxServing requests are being served.
	OnServeLimit func(limit int)
	// Guard, if set, validates every message the peer writes (after
	// Outgoing, SendRaw's frames included) against the schema of the
	// version in use, and reports those it refuses.
	Guard *Guard
}

// DefaultMaxServing is how many incoming requests a peer serves at once
// unless told otherwise: far more than any scenario has outstanding.
const DefaultMaxServing = 1024

// Peer is one JSON-RPC peer on one connection.
type Peer struct {
	conn  transport.Conn
	opts  Options
	inbox *Inbox

	ctx    context.Context // handlers' base; ends when the read loop ends
	cancel context.CancelFunc

	nextID atomic.Int64
	sendMu sync.Mutex // with SerializeSends

	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message

	handlersMu    sync.RWMutex
	handlers      map[string]Handler
	notifications map[string]NotificationHandler

	inflightMu sync.Mutex
	inflight   map[string]*inflight

	// tooDeep counts frames refused for nesting deeper than the decoder
	// reads (jsonrpc.ErrTooDeep): a wait that ends after one came says so,
	// as the answer may have been that frame.
	tooDeep atomic.Int64

	started   atomic.Bool
	running   sync.WaitGroup // request handlers
	serving   atomic.Int64   // request handlers running or writing
	unserved  atomic.Int64   // requests left unserved (MaxServing)
	limitOnce sync.Once
	done      chan struct{}
	err       error // why the read loop ended; read after done
}

// New makes a peer on conn. Nothing is read until Run (or Start). ctx is the
// peer's lifetime: the read loop ends when it does, and every handler's
// context derives from it.
func New(ctx context.Context, conn transport.Conn, opts Options) *Peer {
	if opts.InboxLimit <= 0 {
		opts.InboxLimit = DefaultInboxLimit
	}
	if opts.Classify == nil {
		opts.Classify = Decode
	}
	if opts.MaxServing <= 0 {
		opts.MaxServing = DefaultMaxServing
	}
	p := &Peer{
		conn:          conn,
		opts:          opts,
		inbox:         newInbox(opts.InboxLimit, opts.InboxBytes, inboxDropHook(opts)),
		pending:       map[string]chan *jsonrpc.Message{},
		handlers:      map[string]Handler{},
		notifications: map[string]NotificationHandler{},
		inflight:      map[string]*inflight{},
		done:          make(chan struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	for m, h := range opts.Handlers {
		p.handlers[m] = h
	}
	for m, h := range opts.Notifications {
		p.notifications[m] = h
	}
	return p
}

// inboxDropHook is OnInboxDrop, or OnInboxFull in its place.
func inboxDropHook(opts Options) func(InboxDrop) {
	if opts.OnInboxDrop != nil {
		return opts.OnInboxDrop
	}
	if opts.OnInboxFull != nil {
		return func(d InboxDrop) { opts.OnInboxFull(d.Limit) }
	}
	return nil
}

// Decode is the default Classify: whatever jsonrpc.Decode reads is a
// message; text that is not JSON is -32700, other JSON -32600.
func Decode(frame []byte) (*jsonrpc.Message, int) {
	msg, err := jsonrpc.Decode(frame)
	if err == nil {
		return msg, 0
	}
	if !json.Valid(bytes.TrimSpace(frame)) {
		return nil, codes.ParseError
	}
	return nil, codes.InvalidRequest
}

// Conn is the connection the peer reads and writes.
func (p *Peer) Conn() transport.Conn { return p.conn }

// Inbox holds every incoming message that was not the answer to one of our
// requests.
func (p *Peer) Inbox() *Inbox { return p.inbox }

// Unserved is how many incoming requests were left unserved because
// MaxServing requests were being served.
func (p *Peer) Unserved() int { return int(p.unserved.Load()) }

// Context ends when the read loop ends (or the ctx given to New ends).
func (p *Peer) Context() context.Context { return p.ctx }

// Done is closed when the read loop has ended (EOF, crash, close).
func (p *Peer) Done() <-chan struct{} { return p.done }

// Err is why the read loop ended, once Done is closed; nil before.
func (p *Peer) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Close closes the connection; the read loop ends with the connection's error.
func (p *Peer) Close() error { return p.conn.Close() }

// Handle installs or replaces the handler for a method; nil removes it.
func (p *Peer) Handle(method string, h Handler) {
	p.handlersMu.Lock()
	defer p.handlersMu.Unlock()
	if h == nil {
		delete(p.handlers, method)
		return
	}
	p.handlers[method] = h
}

// HandleNotification installs or replaces the handler for a notification
// method; nil removes it.
func (p *Peer) HandleNotification(method string, h NotificationHandler) {
	p.handlersMu.Lock()
	defer p.handlersMu.Unlock()
	if h == nil {
		delete(p.notifications, method)
		return
	}
	p.notifications[method] = h
}

// Start runs the read loop on a goroutine of its own.
func (p *Peer) Start() { go func() { _ = p.Run() }() }

// Run reads until the connection ends or the peer's context does. Then it
// ends the handlers' contexts first (a handler waiting for an answer from
// the departed peer returns), closes the inbox and Done, and waits for the
// handlers to return. It returns why reading ended (io.EOF at a clean end of
// input). Run may be called once.
func (p *Peer) Run() error {
	if !p.started.CompareAndSwap(false, true) {
		return errors.New("peer: Run called twice")
	}
	var err error
	for {
		frame, rerr := p.conn.Recv(p.ctx)
		if rerr != nil {
			err = rerr
			break
		}
		p.receive(frame)
	}
	p.err = err
	p.cancel()
	p.inbox.close(err)
	close(p.done)
	p.running.Wait()
	return err
}

// NextID allocates the id of our next request.
func (p *Peer) NextID() jsonrpc.ID {
	n := p.nextID.Add(1)
	if p.opts.IDPrefix == "" {
		return jsonrpc.NumberID(n)
	}
	return jsonrpc.StringID(p.opts.IDPrefix + strconv.FormatInt(n, 10))
}

// Call describes one request in detail; Request covers the common case.
type Call struct {
	// ID is the request's id; zero allocates the next one (NextID).
	ID     jsonrpc.ID
	Method string
	// Params is anything json.Marshal accepts; a json.RawMessage goes as is.
	Params any
	// Send, if set, writes the frame in place of the connection's Send (a
	// request that carries HTTP headers of its own, say).
	Send func(ctx context.Context, frame []byte) error
	// Deviation marks a request sent invalid on purpose (see Guard).
	Deviation *Deviation
}

// Request sends a request with the next id and waits for its answer, at
// most until ctx ends. A JSON-RPC error answer is a message, not an error.
func (p *Peer) Request(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	return p.Do(ctx, Call{Method: method, Params: params})
}

// Do sends the request c describes and waits for its answer, at most until
// ctx ends. The error is the write's own when the request could not be
// sent; "no response: " wrapping ctx.Err() when ctx ended first; and
// "connection closed before the response: " wrapping Err() when the read
// loop ended first. Answers are matched by the id's JSON value
// (jsonrpc.ID.Key): "q\u0026a" answers "q&a", and "42" and 42 are
// different ids.
func (p *Peer) Do(ctx context.Context, c Call) (*jsonrpc.Message, error) {
	id := c.ID
	if id.IsZero() {
		id = p.NextID()
	}
	msg, err := jsonrpc.NewRequest(id, c.Method, c.Params)
	if err != nil {
		return nil, err
	}
	dev := c.Deviation
	if dev == nil {
		dev = deviationOf(ctx)
	}
	frame, err := p.encode(msg, Outbound{Method: c.Method, Deviation: dev})
	if err != nil {
		return nil, err
	}
	key := id.Key()
	deep := p.tooDeep.Load()
	ch := make(chan *jsonrpc.Message, 1)
	p.mu.Lock()
	p.pending[key] = ch
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		if p.pending[key] == ch {
			delete(p.pending, key)
		}
		p.mu.Unlock()
	}
	if frame != nil {
		if err := p.write(ctx, frame, c.Send); err != nil {
			forget()
			return nil, err
		}
	}
	// An HTTP or WebSocket connection knows the stream that must carry the
	// response: it says at once when that stream ended without it, and
	// names the stall when the wait runs out.
	w, watched := transport.As[transport.ResponseWatcher](p.conn)
	var lost <-chan error
	if watched {
		lost = w.ResponseLost(id)
	}
	select {
	case resp := <-ch:
		return resp, nil
	case err := <-lost:
		forget()
		if resp, ok := received(ch); ok {
			return resp, nil
		}
		return nil, fmt.Errorf("no response: %w", err)
	case <-ctx.Done():
		forget()
		if resp, ok := received(ch); ok {
			return resp, nil
		}
		unread := ""
		if p.tooDeep.Load() > deep {
			unread = fmt.Sprintf(" (meanwhile a frame came that could not be read: %v; it may have been the answer)", jsonrpc.ErrTooDeep)
		}
		if watched {
			if err := w.NoResponse(id, ctx.Err()); err != nil {
				return nil, fmt.Errorf("no response: %w%s", err, unread)
			}
		}
		return nil, fmt.Errorf("no response: %w%s", ctx.Err(), unread)
	case <-p.done:
		forget()
		if resp, ok := received(ch); ok {
			return resp, nil
		}
		return nil, fmt.Errorf("connection closed before the response: %w", p.err)
	}
}

// received reads an answer delivered just as the wait ended, if any.
func received(ch chan *jsonrpc.Message) (*jsonrpc.Message, bool) {
	select {
	case resp := <-ch:
		return resp, true
	default:
		return nil, false
	}
}

// Notify sends a notification.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	msg, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return err
	}
	return p.Send(ctx, msg)
}

// Send encodes msg (after Outgoing) and writes it.
func (p *Peer) Send(ctx context.Context, msg *jsonrpc.Message) error {
	return p.send(ctx, msg, Outbound{Deviation: deviationOf(ctx)})
}

func (p *Peer) send(ctx context.Context, msg *jsonrpc.Message, o Outbound) error {
	frame, err := p.encode(msg, o)
	if err != nil || frame == nil {
		return err
	}
	return p.write(ctx, frame, nil)
}

// ReplyError sends an error response for id, on the stream of that request
// where the transport has one (transport.WithRelatedRequest).
func (p *Peer) ReplyError(ctx context.Context, id jsonrpc.ID, code int, message string, data any) error {
	return p.Send(transport.WithRelatedRequest(ctx, id), jsonrpc.NewError(id, code, message, data))
}

// SendRaw writes a frame exactly as given (malformed input on purpose: mark
// it with Deliberately, or the guard reports it).
func (p *Peer) SendRaw(ctx context.Context, frame []byte) error {
	if p.opts.Guard != nil {
		o := Outbound{Deviation: deviationOf(ctx)}
		if msg, err := jsonrpc.Decode(frame); err == nil {
			o.Msg = msg
			p.guard(o, frame)
		} else {
			p.opts.Guard.report(o, frame, fmt.Errorf("$: not a JSON-RPC message: %w", err))
		}
	}
	return p.write(ctx, frame, nil)
}

// encode applies Outgoing, encodes, and has the guard validate what is
// sent; a nil frame means Outgoing dropped it.
func (p *Peer) encode(msg *jsonrpc.Message, o Outbound) ([]byte, error) {
	if p.opts.Outgoing != nil {
		if msg = p.opts.Outgoing(msg); msg == nil {
			return nil, nil
		}
	}
	frame, err := msg.Encode()
	if err == nil && p.opts.Guard != nil {
		o.Msg = msg
		p.guard(o, frame)
	}
	return frame, err
}

// guard fills in what the peer knows of a message (the method a response
// answers) and validates it.
func (p *Peer) guard(o Outbound, frame []byte) {
	m := o.Msg
	switch {
	case m.Method != "":
		o.Method = m.Method
	case o.Method == "" && o.Answering != nil:
		o.Method = o.Answering.Method
	case o.Method == "" && !m.ID.IsZero():
		p.inflightMu.Lock()
		if fl, ok := p.inflight[m.ID.Key()]; ok {
			o.Method = fl.method
		}
		p.inflightMu.Unlock()
	}
	p.opts.Guard.check(o, frame)
}

func (p *Peer) write(ctx context.Context, frame []byte, send func(context.Context, []byte) error) error {
	if send == nil {
		send = p.conn.Send
	}
	if p.opts.SerializeSends {
		p.sendMu.Lock()
		defer p.sendMu.Unlock()
	}
	return send(ctx, frame)
}
