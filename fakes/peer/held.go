package peer

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Held is one incoming request a script holds: it stays unanswered until the
// script calls Answer, Decline or Ignore.
type Held struct {
	Request *jsonrpc.Message

	ctx     context.Context
	reply   chan heldReply
	once    sync.Once
	written <-chan struct{}
	done    <-chan struct{}
}

type heldReply struct {
	result any
	err    *jsonrpc.Error
}

// Answer releases the request with this result (it may arrive late, after
// what it belongs to was cancelled: that is the point of some checks). It
// returns once the answer has been written to the connection, so what the
// script sends next goes out after it. Only the first of Answer, Decline
// and Ignore counts.
func (h *Held) Answer(result any) { h.release(heldReply{result: result}) }

// Decline releases the request with an error response (err must not be
// nil); like Answer, it returns once the error is written.
func (h *Held) Decline(err *jsonrpc.Error) { h.release(heldReply{err: err}) }

// Ignore releases the request without ever answering it.
func (h *Held) Ignore() { h.release(heldReply{result: NoAnswer}) }

// Context is the request handler's context: it ends when the other side
// cancels the request with notifications/cancelled, or the connection ends.
// What an answer after the cancellation does is the peer's AfterCancel.
func (h *Held) Context() context.Context { return h.ctx }

func (h *Held) release(r heldReply) {
	first := false
	h.once.Do(func() {
		first = true
		h.reply <- r // buffered: never blocks
	})
	if !first || h.written == nil {
		return
	}
	select {
	case <-h.written:
	case <-h.done:
	}
}

// HeldRequests queues the held requests of one method, in arrival order.
type HeldRequests struct {
	method string
	ch     chan *Held
}

// Hold installs a handler for method (replacing any other) that hands each
// request to the script through the returned queue instead of answering it.
func (p *Peer) Hold(method string) *HeldRequests {
	hr := &HeldRequests{method: method, ch: make(chan *Held, 16)}
	p.Handle(method, func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		written, _ := ctx.Value(writtenKey{}).(chan struct{})
		h := &Held{Request: req, ctx: ctx, reply: make(chan heldReply, 1), written: written, done: p.done}
		select {
		case hr.ch <- h:
		case <-p.done:
			return NoAnswer, nil
		}
		select {
		case r := <-h.reply:
			return r.result, r.err
		case <-p.done:
			return NoAnswer, nil
		}
	})
	return hr
}

// Method is the method whose requests are held.
func (hr *HeldRequests) Method() string { return hr.method }

// Next waits for the next held request, at most until ctx ends.
func (hr *HeldRequests) Next(ctx context.Context) (*Held, error) {
	select {
	case h := <-hr.ch:
		return h, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no %s request arrived: %w", hr.method, ctx.Err())
	}
}
