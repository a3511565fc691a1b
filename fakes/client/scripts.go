package client

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Scripted answers to server-to-client requests.

// ElicitationAnswer builds an elicitation result: accept (with content),
// decline or cancel.
func ElicitationAnswer(action string, content map[string]any) map[string]any {
	res := map[string]any{"action": action}
	if action == "accept" {
		res["content"] = content
	}
	return res
}

// Held is one server-to-client request the scenario holds: it stays
// unanswered until the scenario calls Answer or Ignore.
type Held struct {
	Request *jsonrpc.Message
	answer  chan any
	written <-chan struct{}
	done    <-chan struct{}
}

// Answer releases the request with this result (it may arrive late, after
// the task it belongs to was cancelled: that is the point of some checks).
// It returns once the answer has been written to the connection, so what
// the scenario sends next goes out after it.
func (h *Held) Answer(result any) {
	h.answer <- result
	if h.written == nil {
		return
	}
	select {
	case <-h.written:
	case <-h.done:
	}
}

// Ignore releases the request without ever answering it.
func (h *Held) Ignore() { h.answer <- NoAnswer }

// HeldRequests queues held requests for the scenario.
type HeldRequests struct {
	method string
	ch     chan *Held
}

// Hold installs a handler for method that hands each request to the
// scenario instead of answering it.
func (s *Session) Hold(method string) *HeldRequests {
	hr := &HeldRequests{method: method, ch: make(chan *Held, 16)}
	s.Handle(method, func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		written, _ := ctx.Value(writtenKey{}).(chan struct{})
		h := &Held{Request: req, answer: make(chan any, 1), written: written, done: s.done}
		select {
		case hr.ch <- h:
		case <-s.done:
			return NoAnswer, nil
		}
		select {
		case a := <-h.answer:
			return a, nil
		case <-s.done:
			return NoAnswer, nil
		}
	})
	return hr
}

// Next waits for the next held request.
func (hr *HeldRequests) Next(ctx context.Context) (*Held, error) {
	select {
	case h := <-hr.ch:
		return h, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no %s request arrived: %w", hr.method, ctx.Err())
	}
}
