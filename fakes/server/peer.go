package server

import (
	"context"
	"net/http"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

// Peer is the client on one connection, as the fake server sees it.
type Peer struct {
	// ID names the connection uniquely within its engine.
	ID     string
	base   *peer.Peer
	conn   transport.Conn // recorded
	raw    transport.Conn
	cancel context.CancelFunc

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

// ReplyError sends an error response, on the stream of request id where
// the transport has one.
func (p *Peer) ReplyError(ctx context.Context, id jsonrpc.ID, code int, message string, data any) {
	_ = p.base.ReplyError(ctx, id, code, message, data)
}

// SendRaw writes a frame as is.
func (p *Peer) SendRaw(ctx context.Context, frame []byte) error {
	return p.base.SendRaw(ctx, frame)
}

// Notify sends a notification.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	return p.base.Notify(ctx, method, params)
}

// Request sends a server-to-client request (ids "srv-1", "srv-2", …) and
// waits for its response. When ctx ends first the error is ctx.Err().
func (p *Peer) Request(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	resp, err := p.base.Request(ctx, method, params)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return resp, err
}

// Inbox holds everything the client sent that was not the answer to one of
// the server's requests (requests, notifications, stray responses), so a
// scripted server can wait for what the client sends, as the fake client
// does.
func (p *Peer) Inbox() *peer.Inbox { return p.base.Inbox() }

// Hold hands this connection's requests for method to the script instead of
// the engine's handler (and its middleware): each waits, unanswered, until
// the script answers, declines or ignores it.
func (p *Peer) Hold(method string) *peer.HeldRequests { return p.base.Hold(method) }

// Transport is the connection as the transport made it (find optional
// interfaces on it with transport.As, e.g. transport.StreamResumer).
func (p *Peer) Transport() transport.Conn { return p.raw }

// Context ends when the connection ends.
func (p *Peer) Context() context.Context { return p.base.Context() }
