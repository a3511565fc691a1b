package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

// Peer is the client on one connection, as the fake server sees it.
type Peer struct {
	// ID names the connection uniquely within its engine.
	ID     string
	engine *Engine
	conn   transport.Conn // recorded
	raw    transport.Conn
	ctx    context.Context
	cancel context.CancelFunc

	inflightMu sync.Mutex
	inflight   map[string]*inflight

	sendMu  sync.Mutex
	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Message

	// State is per-connection scratch space for handlers (guard with Lock).
	State map[string]any
	stMu  sync.Mutex
}

// Lock and Unlock guard State.
func (p *Peer) Lock()   { p.stMu.Lock() }
func (p *Peer) Unlock() { p.stMu.Unlock() }

// Get reads a State entry under the lock.
func (p *Peer) Get(key string) any {
	p.Lock()
	defer p.Unlock()
	return p.State[key]
}

// Set writes a State entry under the lock.
func (p *Peer) Set(key string, v any) {
	p.Lock()
	p.State[key] = v
	p.Unlock()
}

// Header is the HTTP header of the POST that carried the current message,
// on Streamable HTTP only (the per-request headers of
// 2026-07-28/basic/transports/streamable-http.mdx).
func (p *Peer) Header() http.Header {
	if hc, ok := transport.As[transport.HeaderCarrier](p.raw); ok {
		return hc.RequestHeader()
	}
	return nil
}

// Authorization is the Authorization header the client presented (HTTP
// request or WebSocket handshake), "" when none or over stdio.
func (p *Peer) Authorization() string {
	if hc, ok := transport.As[transport.HeaderCarrier](p.raw); ok {
		return hc.RequestHeader().Get("Authorization")
	}
	if hc, ok := transport.As[transport.HandshakeCarrier](p.raw); ok {
		return hc.HandshakeHeader().Get("Authorization")
	}
	return ""
}

// Close ends the connection from the server side (a crash, for faults).
func (p *Peer) Close() {
	p.cancel()
	_ = p.conn.Close()
}

// ReplyError sends an error response.
func (p *Peer) ReplyError(ctx context.Context, id jsonrpc.ID, code int, message string, data any) {
	p.send(transport.WithRelatedRequest(ctx, id), jsonrpc.NewError(id, code, message, data))
}

// SendRaw writes a frame as is.
func (p *Peer) SendRaw(ctx context.Context, frame []byte) error {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	return p.conn.Send(ctx, frame)
}

// Notify sends a notification.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	msg, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return err
	}
	return p.send(ctx, msg)
}

// Request sends a server-to-client request and waits for its response.
func (p *Peer) Request(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	id := jsonrpc.StringID(fmt.Sprintf("srv-%d", p.nextID.Add(1)))
	msg, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Message, 1)
	p.mu.Lock()
	p.pending[id.Key()] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, id.Key())
		p.mu.Unlock()
	}()
	if err := p.send(ctx, msg); err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// deliver hands a response to the request waiting for it; false when none waits.
func (p *Peer) deliver(resp *jsonrpc.Message) bool {
	p.mu.Lock()
	ch, ok := p.pending[resp.ID.Key()]
	p.mu.Unlock()
	if ok {
		select { // a duplicate response must not block the read loop
		case ch <- resp:
		default:
		}
	}
	return ok
}

// Context ends when the connection ends.
func (p *Peer) Context() context.Context { return p.ctx }

type inflight struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool
}

func (p *Peer) track(ctx context.Context, id jsonrpc.ID) (context.Context, *inflight) {
	ctx, cancel := context.WithCancel(ctx)
	fl := &inflight{cancel: cancel}
	p.inflightMu.Lock()
	p.inflight[id.Key()] = fl
	p.inflightMu.Unlock()
	return ctx, fl
}

func (p *Peer) untrack(id jsonrpc.ID) {
	p.inflightMu.Lock()
	if fl, ok := p.inflight[id.Key()]; ok {
		fl.cancel()
		delete(p.inflight, id.Key())
	}
	p.inflightMu.Unlock()
}

// cancelInflight handles notifications/cancelled: the request's context
// ends and its handler's answer, if any, is not sent.
func (p *Peer) cancelInflight(msg *jsonrpc.Message) {
	var params struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(msg.Params, &params) != nil || params.RequestID.IsZero() {
		return // invalid cancellations are ignored (cancellation.mdx)
	}
	p.inflightMu.Lock()
	fl, ok := p.inflight[params.RequestID.Key()]
	p.inflightMu.Unlock()
	if ok {
		fl.cancelled.Store(true)
		if !p.engine.RespondAfterCancel {
			fl.cancel()
		}
	}
}

func (p *Peer) send(ctx context.Context, msg *jsonrpc.Message) error {
	if p.engine.Outgoing != nil {
		if msg = p.engine.Outgoing(p, msg); msg == nil {
			return nil
		}
	}
	frame, err := msg.Encode()
	if err != nil {
		return err
	}
	return p.SendRaw(ctx, frame)
}
