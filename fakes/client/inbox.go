package client

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Inbox keeps every message the peer sent that was not the answer to one of
// our requests: notifications, server-to-client requests, and responses we
// cannot correlate (an error with a null id after a malformed frame).
// Waiters match a predicate against messages from a mark on, with a deadline.
type Inbox struct {
	mu      sync.Mutex
	msgs    []*jsonrpc.Message
	changed chan struct{}
	closed  error
}

func newInbox() *Inbox { return &Inbox{changed: make(chan struct{})} }

func (in *Inbox) add(m *jsonrpc.Message) {
	in.mu.Lock()
	in.msgs = append(in.msgs, m)
	close(in.changed)
	in.changed = make(chan struct{})
	in.mu.Unlock()
}

func (in *Inbox) close(err error) {
	in.mu.Lock()
	if in.closed == nil {
		in.closed = err
		close(in.changed)
		in.changed = make(chan struct{})
	}
	in.mu.Unlock()
}

// Mark is the position of the next message; pass it to WaitFrom to ignore
// what arrived before.
func (in *Inbox) Mark() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.msgs)
}

// Messages returns a copy of everything received so far.
func (in *Inbox) Messages() []*jsonrpc.Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]*jsonrpc.Message(nil), in.msgs...)
}

// Matching returns the messages from mark on that satisfy pred.
func (in *Inbox) Matching(mark int, pred func(*jsonrpc.Message) bool) []*jsonrpc.Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []*jsonrpc.Message
	for _, m := range in.msgs[min(mark, len(in.msgs)):] {
		if pred(m) {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor waits for any message (from the start) that satisfies pred.
func (in *Inbox) WaitFor(ctx context.Context, pred func(*jsonrpc.Message) bool) (*jsonrpc.Message, error) {
	return in.WaitFrom(ctx, 0, pred)
}

// WaitFrom waits until a message at index ≥ mark satisfies pred, the
// connection closes, or ctx ends.
func (in *Inbox) WaitFrom(ctx context.Context, mark int, pred func(*jsonrpc.Message) bool) (*jsonrpc.Message, error) {
	for {
		in.mu.Lock()
		for i := min(mark, len(in.msgs)); i < len(in.msgs); i++ {
			if pred(in.msgs[i]) {
				m := in.msgs[i]
				in.mu.Unlock()
				return m, nil
			}
		}
		mark = len(in.msgs)
		closed, changed := in.closed, in.changed
		in.mu.Unlock()
		if closed != nil {
			return nil, fmt.Errorf("connection closed while waiting: %w", closed)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// Method matches notifications and requests by method name.
func Method(name string) func(*jsonrpc.Message) bool {
	return func(m *jsonrpc.Message) bool { return m.Method == name }
}

// NullIDResponse matches responses that carry id null or no id: what a
// server sends for a frame whose id it could not read.
func NullIDResponse(m *jsonrpc.Message) bool {
	return m.Method == "" && (m.ID.IsZero() || m.ID.IsNull()) && (m.Error != nil || m.Result != nil)
}
