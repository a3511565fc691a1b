package peer

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// methodCancelled is the notification that cancels a request in flight
// (2025-11-25/basic/utilities/cancellation.mdx).
const methodCancelled = "notifications/cancelled"

// receive handles one frame, in the read loop.
func (p *Peer) receive(frame []byte) {
	msg, code := p.opts.Classify(frame)
	if msg == nil {
		if code == codes.ParseError && jsonrpc.TooDeep(frame) {
			p.tooDeep.Add(1)
		}
		if p.opts.OnInvalid != nil {
			p.opts.OnInvalid(p.ctx, frame, code)
		}
		return
	}
	if msg.Method == "" && !msg.ID.IsZero() && !msg.ID.IsNull() && p.deliver(msg) {
		return
	}
	if p.opts.OnMessage != nil {
		p.opts.OnMessage(msg)
	}
	p.inbox.add(msg)
	switch msg.Kind() {
	case jsonrpc.KindRequest:
		if p.serving.Add(1) > int64(p.opts.MaxServing) {
			p.serving.Add(-1)
			p.unserved.Add(1)
			p.limitOnce.Do(func() {
				if p.opts.OnServeLimit != nil {
					p.opts.OnServeLimit(p.opts.MaxServing)
				}
			})
			return
		}
		p.running.Add(1)
		// Tracked here, in the read loop, so that a notifications/cancelled
		// read right behind the request finds it in flight.
		ctx, fl := p.track(msg)
		go p.serve(ctx, fl, msg)
	case jsonrpc.KindNotification:
		p.notified(msg)
	case jsonrpc.KindResponse:
		if p.opts.OnStrayResponse != nil {
			p.opts.OnStrayResponse(msg)
		}
	}
}

// deliver hands an answer to the request waiting for it; false when none
// waits. The request is forgotten at once, so a duplicate answer is stray.
func (p *Peer) deliver(resp *jsonrpc.Message) bool {
	key := resp.ID.Key()
	p.mu.Lock()
	ch, ok := p.pending[key]
	if ok {
		delete(p.pending, key)
	}
	p.mu.Unlock()
	if ok {
		ch <- resp // buffered, and only ever sent to once
	}
	return ok
}

func (p *Peer) notified(msg *jsonrpc.Message) {
	if msg.Method == methodCancelled {
		p.cancelInflight(msg)
	}
	p.handlersMu.RLock()
	h := p.notifications[msg.Method]
	p.handlersMu.RUnlock()
	if h == nil {
		h = p.opts.OtherNotifications
	}
	if h != nil {
		h(p.ctx, msg)
	}
}

// writtenKey carries, in a handler's context, the channel closed once the
// handler's answer is written (or given up): a held request's Answer
// returns only then.
type writtenKey struct{}

func (p *Peer) serve(ctx context.Context, fl *inflight, req *jsonrpc.Message) {
	defer p.running.Done()
	defer p.serving.Add(-1)
	written := make(chan struct{})
	defer close(written)
	defer p.untrack(req.ID, fl)
	ctx = context.WithValue(ctx, writtenKey{}, written)

	result, rpcErr := p.handler(req.Method)(ctx, req)
	if rpcErr == nil && isNoAnswer(result) {
		return
	}
	o := Outbound{Answering: req, Method: req.Method}
	if d, ok := result.(Deviant); ok {
		result, o.Deviation = d.Result, &Deviation{By: d.By}
	}
	if fl.cancelled.Load() && p.opts.AfterCancel == DropAnswer {
		return
	}
	var resp *jsonrpc.Message
	if rpcErr != nil {
		resp = &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: req.ID, Error: rpcErr}
	} else if r, err := jsonrpc.NewResult(req.ID, result); err != nil {
		resp = jsonrpc.NewError(req.ID, codes.InternalError, err.Error(), nil)
	} else {
		resp = r
	}
	// The peer's context, not the handler's: a cancellation that lets the
	// answer go out (SendAnswer) must not stop the write.
	_ = p.send(transport.WithRelatedRequest(p.ctx, req.ID), resp, o)
}

func (p *Peer) handler(method string) Handler {
	p.handlersMu.RLock()
	h := p.handlers[method]
	p.handlersMu.RUnlock()
	if h == nil {
		h = p.opts.NotFound
	}
	if h == nil {
		h = methodNotFound
	}
	return h
}

func methodNotFound(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	return nil, &jsonrpc.Error{Code: codes.MethodNotFound, Message: "Method not found: " + req.Method}
}

// inflight is one request we serve.
type inflight struct {
	method    string // for the guard: what an answer sent with Send answers
	cancel    context.CancelFunc
	cancelled atomic.Bool
}

func (p *Peer) track(req *jsonrpc.Message) (context.Context, *inflight) {
	ctx, cancel := context.WithCancel(p.ctx)
	fl := &inflight{method: req.Method, cancel: cancel}
	p.inflightMu.Lock()
	p.inflight[req.ID.Key()] = fl
	p.inflightMu.Unlock()
	return ctx, fl
}

func (p *Peer) untrack(id jsonrpc.ID, fl *inflight) {
	p.inflightMu.Lock()
	if p.inflight[id.Key()] == fl {
		delete(p.inflight, id.Key())
	}
	p.inflightMu.Unlock()
	fl.cancel()
}

// cancelInflight handles notifications/cancelled: the request is marked
// cancelled and, unless cancellations are ignored, its context ends.
func (p *Peer) cancelInflight(msg *jsonrpc.Message) {
	var params protocol.CancelledParams
	if json.Unmarshal(msg.Params, &params) != nil || len(params.RequestID) == 0 {
		return // invalid cancellations are ignored (cancellation.mdx)
	}
	id := jsonrpc.ID(params.RequestID) // kept verbatim, as jsonrpc.ID keeps it
	p.inflightMu.Lock()
	fl, ok := p.inflight[id.Key()]
	p.inflightMu.Unlock()
	if ok {
		fl.cancelled.Store(true)
		if p.opts.AfterCancel != IgnoreCancel {
			fl.cancel()
		}
	}
}
