// Package server is the scripted fake MCP server: a small engine that serves
// request handlers on any transport and can itself send requests and
// notifications to the client, plus the conformant reference server and its
// named faults, which the suite is tested against.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// Handler answers one request. Returning a non-nil *jsonrpc.Error sends an
// error response; returning peer.NoAnswer sends nothing.
type Handler func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error)

// NotificationHandler receives one notification.
type NotificationHandler func(ctx context.Context, p *Peer, msg *jsonrpc.Message)

// Engine serves handlers on connections. Its zero value answers nothing but
// JSON-RPC hygiene; fill Requests and Notifications. Each connection is a
// peer.Peer with string ids ("srv-1", …) whose handlers are the engine's.
type Engine struct {
	Requests      map[string]Handler
	Notifications map[string]NotificationHandler
	// Middleware wraps every request handler (version checks, faults).
	Middleware func(next Handler) Handler
	// Outgoing may rewrite every frame before it is sent (faults use it).
	Outgoing func(p *Peer, msg *jsonrpc.Message) *jsonrpc.Message
	// OnInvalid handles a frame that is not a valid JSON-RPC message. The
	// default answers -32700 or -32600 as JSON-RPC 2.0 §5.1 asks.
	OnInvalid func(ctx context.Context, p *Peer, frame []byte, code int)
	// NotFound answers requests for methods without a handler; the default
	// is -32601.
	NotFound Handler
	// OtherNotifications receives notifications without a handler.
	OtherNotifications NotificationHandler
	// OnMessage sees every request, notification and stray response the
	// client sends, in the read loop, in arrival order, before it is filed
	// and dispatched: a log kept here has initialize before the
	// notifications/initialized written right behind it, which one kept in
	// the handlers (each on a goroutine of its own) does not.
	OnMessage func(p *Peer, msg *jsonrpc.Message)
	// OnPeer is called once per new connection before anything is read.
	OnPeer func(p *Peer)
	// RespondAfterCancel answers requests even after the client cancelled
	// them with notifications/cancelled (a fault; the rule is a SHOULD NOT).
	RespondAfterCancel bool
	// WrapConn, if set, wraps every connection before it is served (faults
	// that change how frames are written).
	WrapConn func(transport.Conn) transport.Conn
	// NumericIDs numbers the server's own requests 1, 2, 3 instead of
	// "srv-1", "srv-2"… (both are allowed: a string or integer id).
	NumericIDs bool
	// OnStrayResponse receives responses that answer no pending request
	// (a late answer to an abandoned elicitation, for example).
	OnStrayResponse func(p *Peer, msg *jsonrpc.Message)
	// OnPeerDone is called once the connection has ended.
	OnPeerDone func(p *Peer)
	// Transcript, if set, records every frame.
	Transcript *jsonrpc.Transcript
	// InboxLimit bounds each peer's inbox; zero means peer.DefaultInboxLimit.
	InboxLimit int
	// RefuseNotification, if set, is asked about each notification a
	// Streamable HTTP listener receives before it accepts it: an error
	// refuses the POST with 400 and that error, without an id, as its body
	// (transports.mdx, "Sending Messages to the Server"). Other transports
	// have no answer to a notification and ignore it.
	RefuseNotification func(method string) *jsonrpc.Error
	// Guard, if set, makes the guard of one connection: it validates every
	// message the engine sends there against the schema of the version in
	// use (peer.Guard).
	Guard func(p *Peer) *peer.Guard

	peers atomic.Int64
}

// Serve accepts connections until ctx ends or the listener closes.
func (e *Engine) Serve(ctx context.Context, l transport.Listener) error {
	if r, ok := l.(notificationRefuser); ok && e.RefuseNotification != nil {
		r.RefuseNotifications(e.RefuseNotification)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := l.Accept(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, transport.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = e.ServeConn(ctx, conn)
		}()
	}
}

// notificationRefuser is a listener that can refuse a notification before
// accepting it (*transport.HTTPServer).
type notificationRefuser interface {
	RefuseNotifications(func(method string) *jsonrpc.Error)
}

// ServeConn serves one connection until the peer goes away, ctx ends, or a
// handler closes the peer. It returns nil on a clean end of input.
func (e *Engine) ServeConn(ctx context.Context, conn transport.Conn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if e.WrapConn != nil {
		conn = e.WrapConn(conn)
	}
	label := fmt.Sprintf("peer-%d", e.peers.Add(1))
	p := &Peer{
		ID:     label,
		conn:   transport.Record(conn, e.Transcript, label),
		raw:    conn,
		cancel: cancel,
		State:  map[string]any{},
	}
	p.base = peer.New(ctx, p.conn, e.peerOptions(p))
	if e.OnPeer != nil {
		e.OnPeer(p)
	}
	if e.OnPeerDone != nil {
		defer e.OnPeerDone(p)
	}
	defer p.conn.Close()
	// Once input ends, Run ends the handlers' context first (a handler
	// blocked on an answer from the departed client returns), then waits
	// for them.
	err := p.base.Run()
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// peerOptions binds the engine's handlers and hooks to one connection.
func (e *Engine) peerOptions(p *Peer) peer.Options {
	prefix := "srv-"
	if e.NumericIDs {
		prefix = ""
	}
	opts := peer.Options{
		IDPrefix: prefix,
		Classify: classify,
		OnInvalid: func(ctx context.Context, frame []byte, code int) {
			if e.OnInvalid != nil {
				e.OnInvalid(ctx, p, frame, code)
				return
			}
			p.ReplyError(ctx, idOf(frame), code, invalidMessage(code), nil)
		},
		Handlers:      map[string]peer.Handler{},
		Notifications: map[string]peer.NotificationHandler{},
		// Frames are written one at a time, so the transcript's order is
		// the wire's.
		SerializeSends: true,
		InboxLimit:     e.InboxLimit,
		OnInboxFull: func(limit int) {
			e.Transcript.Eventf(p.ID, "inbox: more than %d messages; the oldest are dropped", limit)
		},
	}
	if e.Guard != nil {
		opts.Guard = e.Guard(p)
	}
	for method, h := range e.Requests {
		opts.Handlers[method] = e.bind(p, h)
	}
	notFound := e.NotFound
	if notFound == nil {
		notFound = methodNotFound
	}
	opts.NotFound = e.bind(p, notFound)
	for method, h := range e.Notifications {
		opts.Notifications[method] = func(ctx context.Context, msg *jsonrpc.Message) { h(ctx, p, msg) }
	}
	if h := e.OtherNotifications; h != nil {
		opts.OtherNotifications = func(ctx context.Context, msg *jsonrpc.Message) { h(ctx, p, msg) }
	}
	if h := e.OnMessage; h != nil {
		opts.OnMessage = func(msg *jsonrpc.Message) { h(p, msg) }
	}
	if h := e.OnStrayResponse; h != nil {
		opts.OnStrayResponse = func(msg *jsonrpc.Message) { h(p, msg) }
	}
	if out := e.Outgoing; out != nil {
		opts.Outgoing = func(msg *jsonrpc.Message) *jsonrpc.Message { return out(p, msg) }
	}
	// 2025-11-25/basic/utilities/cancellation.mdx: no response for a
	// cancelled request, unless the fault says otherwise.
	if e.RespondAfterCancel {
		opts.AfterCancel = peer.IgnoreCancel
	}
	return opts
}

// bind makes a peer handler of an engine handler on one connection, through
// the middleware.
func (e *Engine) bind(p *Peer, h Handler) peer.Handler {
	return func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		next := h
		if e.Middleware != nil {
			next = e.Middleware(h)
		}
		return next(ctx, p, req)
	}
}

func methodNotFound(_ context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	return nil, &jsonrpc.Error{Code: codes.MethodNotFound, Message: "Method not found: " + req.Method}
}

// classify decodes a frame and reports -32700 for non-JSON, -32600 for JSON
// that is not a valid request, notification or response.
func classify(frame []byte) (*jsonrpc.Message, int) {
	trimmed := bytes.TrimSpace(frame)
	if !json.Valid(trimmed) {
		return nil, codes.ParseError
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return nil, codes.InvalidRequest // arrays (batches) and scalars
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != jsonrpc.Version {
		return nil, codes.InvalidRequest
	}
	if m, ok := fields["method"]; ok {
		var method string
		if err := json.Unmarshal(m, &method); err != nil || method == "" {
			return nil, codes.InvalidRequest
		}
	}
	if id, ok := fields["id"]; ok {
		_, isRequest := fields["method"]
		// Responses may carry null (an unreadable request); requests may
		// not, and ids are strings or integers otherwise.
		nullResponse := string(id) == "null" && !isRequest
		if !nullResponse && !jsonrpc.ID(id).Valid() {
			return nil, codes.InvalidRequest
		}
	}
	if p, ok := fields["params"]; ok && len(p) > 0 && p[0] != '{' && p[0] != '[' {
		return nil, codes.InvalidRequest
	}
	msg, err := jsonrpc.Decode(trimmed)
	if err != nil || msg.Kind() == jsonrpc.KindInvalid {
		return nil, codes.InvalidRequest
	}
	return msg, 0
}

// idOf recovers the id of an invalid request when it can be read, so the
// error response can carry it; otherwise null.
func idOf(frame []byte) jsonrpc.ID {
	var fields map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(frame), &fields) == nil {
		if id := jsonrpc.ID(fields["id"]); id.Valid() {
			return id
		}
	}
	return jsonrpc.ID("null")
}

func invalidMessage(code int) string {
	if code == codes.ParseError {
		return "Parse error"
	}
	return "Invalid Request"
}
