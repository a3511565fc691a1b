package peer

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Inbox keeps every message the other side sent that was not the answer to
// one of our requests: notifications, requests, and responses we cannot
// correlate (an error with a null id after a malformed frame, a late or
// duplicate answer). Waiters match a predicate against messages from a mark
// on, with a deadline.
//
// Positions (marks) count every message ever filed, from 0. The inbox keeps
// only the newest messages up to its limit, so a peer flooding notifications
// cannot exhaust memory; Dropped says how many of the oldest are gone, and
// waits and lookups see only what is kept.
type Inbox struct {
	mu      sync.Mutex
	limit   int
	buf     []*jsonrpc.Message // a ring once full: the oldest is buf[start]
	start   int
	total   int // messages ever filed
	changed chan struct{}
	closed  bool
	err     error
	onFull  func(limit int)
}

func newInbox(limit int, onFull func(int)) *Inbox {
	if limit <= 0 {
		limit = DefaultInboxLimit
	}
	return &Inbox{limit: limit, changed: make(chan struct{}), onFull: onFull}
}

func (in *Inbox) add(m *jsonrpc.Message) {
	in.mu.Lock()
	firstDrop := false
	if len(in.buf) < in.limit {
		in.buf = append(in.buf, m)
	} else {
		firstDrop = in.total == in.limit
		in.buf[in.start] = m
		in.start = (in.start + 1) % in.limit
	}
	in.total++
	close(in.changed)
	in.changed = make(chan struct{})
	in.mu.Unlock()
	if firstDrop && in.onFull != nil {
		in.onFull(in.limit)
	}
}

func (in *Inbox) close(err error) {
	in.mu.Lock()
	if !in.closed {
		in.closed, in.err = true, err
		close(in.changed)
		in.changed = make(chan struct{})
	}
	in.mu.Unlock()
}

// dropped and at are called with mu held. at takes a position in
// [dropped, total).
func (in *Inbox) dropped() int { return in.total - len(in.buf) }

func (in *Inbox) at(pos int) *jsonrpc.Message {
	return in.buf[(in.start+pos-in.dropped())%len(in.buf)]
}

// Limit is how many messages the inbox keeps at most.
func (in *Inbox) Limit() int { return in.limit }

// Dropped is how many of the oldest messages were dropped to keep the limit.
func (in *Inbox) Dropped() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.dropped()
}

// Mark is the position of the next message; pass it to WaitFrom or Matching
// to ignore what arrived before.
func (in *Inbox) Mark() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.total
}

// Messages returns a copy of the messages kept, oldest first.
func (in *Inbox) Messages() []*jsonrpc.Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]*jsonrpc.Message, 0, len(in.buf))
	for pos := in.dropped(); pos < in.total; pos++ {
		out = append(out, in.at(pos))
	}
	return out
}

// Matching returns the kept messages from mark on that satisfy pred.
func (in *Inbox) Matching(mark int, pred func(*jsonrpc.Message) bool) []*jsonrpc.Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []*jsonrpc.Message
	for pos := max(mark, in.dropped()); pos < in.total; pos++ {
		if m := in.at(pos); pred(m) {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor waits for any message (from the start) that satisfies pred.
func (in *Inbox) WaitFor(ctx context.Context, pred func(*jsonrpc.Message) bool) (*jsonrpc.Message, error) {
	return in.WaitFrom(ctx, 0, pred)
}

// WaitFrom waits until a message at a position ≥ mark satisfies pred, the
// connection closes (an error, once what arrived before was looked at), or
// ctx ends (ctx.Err()).
func (in *Inbox) WaitFrom(ctx context.Context, mark int, pred func(*jsonrpc.Message) bool) (*jsonrpc.Message, error) {
	for {
		in.mu.Lock()
		for pos := max(mark, in.dropped()); pos < in.total; pos++ {
			if m := in.at(pos); pred(m) {
				in.mu.Unlock()
				return m, nil
			}
		}
		mark = in.total
		closed, err, changed := in.closed, in.err, in.changed
		in.mu.Unlock()
		if closed {
			return nil, fmt.Errorf("connection closed while waiting: %w", err)
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

// NullIDResponse matches responses that carry id null or no id: what a peer
// sends for a frame whose id it could not read.
func NullIDResponse(m *jsonrpc.Message) bool {
	return m.Method == "" && (m.ID.IsZero() || m.ID.IsNull()) && (m.Error != nil || m.Result != nil)
}
