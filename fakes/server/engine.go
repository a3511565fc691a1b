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

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// Handler answers one request. Returning a non-nil *jsonrpc.Error sends an
// error response; returning NoResponse sends nothing.
type Handler func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error)

// NotificationHandler receives one notification.
type NotificationHandler func(ctx context.Context, p *Peer, msg *jsonrpc.Message)

// noResponse is returned by handlers that deliberately stay silent.
type noResponse struct{}

// NoResponse, as a handler result, sends nothing at all.
var NoResponse any = noResponse{}

// Engine serves handlers on connections. Its zero value answers nothing but
// JSON-RPC hygiene; fill Requests and Notifications.
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
	// OnPeer is called once per new connection before anything is read.
	OnPeer func(p *Peer)
	// RespondAfterCancel answers requests even after the client cancelled
	// them with notifications/cancelled (a fault; the rule is a SHOULD NOT).
	RespondAfterCancel bool
	// OnStrayResponse receives responses that answer no pending request
	// (a late answer to an abandoned elicitation, for example).
	OnStrayResponse func(p *Peer, msg *jsonrpc.Message)
	// OnPeerDone is called once the connection has ended.
	OnPeerDone func(p *Peer)
	// Transcript, if set, records every frame.
	Transcript *jsonrpc.Transcript

	peers atomic.Int64
}

// Serve accepts connections until ctx ends or the listener closes.
func (e *Engine) Serve(ctx context.Context, l transport.Listener) error {
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

// ServeConn serves one connection until the peer goes away, ctx ends, or a
// handler closes the peer. It returns nil on a clean end of input.
func (e *Engine) ServeConn(ctx context.Context, conn transport.Conn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	label := fmt.Sprintf("peer-%d", e.peers.Add(1))
	p := &Peer{
		ID:       label,
		engine:   e,
		conn:     transport.Record(conn, e.Transcript, label),
		raw:      conn,
		pending:  map[string]chan *jsonrpc.Message{},
		inflight: map[string]*inflight{},
		ctx:      ctx,
		cancel:   cancel,
		State:    map[string]any{},
	}
	if e.OnPeer != nil {
		e.OnPeer(p)
	}
	if e.OnPeerDone != nil {
		defer e.OnPeerDone(p)
	}
	defer p.conn.Close()
	var wg sync.WaitGroup
	// Once input ends, end the handlers' context first (a handler blocked
	// on an answer from the departed client returns), then wait for them.
	defer wg.Wait()
	defer cancel()
	for {
		frame, err := p.conn.Recv(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		msg, code := classify(frame)
		if code != 0 {
			if e.OnInvalid != nil {
				e.OnInvalid(ctx, p, frame, code)
			} else {
				p.ReplyError(ctx, idOf(frame), code, invalidMessage(code), nil)
			}
			continue
		}
		switch msg.Kind() {
		case jsonrpc.KindResponse:
			if !p.deliver(msg) && e.OnStrayResponse != nil {
				e.OnStrayResponse(p, msg)
			}
		case jsonrpc.KindNotification:
			if msg.Method == protocol.NotificationCancelled {
				p.cancelInflight(msg)
			}
			if h := e.Notifications[msg.Method]; h != nil {
				h(ctx, p, msg)
			} else if e.OtherNotifications != nil {
				e.OtherNotifications(ctx, p, msg)
			}
		case jsonrpc.KindRequest:
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.handle(ctx, p, msg)
			}()
		}
	}
}

func (e *Engine) handle(ctx context.Context, p *Peer, req *jsonrpc.Message) {
	h := e.Requests[req.Method]
	if h == nil {
		h = e.NotFound
	}
	if h == nil {
		h = methodNotFound
	}
	if e.Middleware != nil {
		h = e.Middleware(h)
	}
	ctx, fl := p.track(ctx, req.ID)
	defer p.untrack(req.ID)
	result, rpcErr := h(ctx, p, req)
	if result == NoResponse && rpcErr == nil {
		return
	}
	if fl.cancelled.Load() && !e.RespondAfterCancel {
		// 2025-11-25/basic/utilities/cancellation.mdx: no response for a
		// cancelled request.
		return
	}
	if rpcErr != nil {
		p.ReplyError(ctx, req.ID, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		return
	}
	resp, err := jsonrpc.NewResult(req.ID, result)
	if err != nil {
		p.ReplyError(ctx, req.ID, codes.InternalError, err.Error(), nil)
		return
	}
	p.send(transport.WithRelatedRequest(ctx, req.ID), resp)
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
