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
// only the newest messages, at most Limit of them and ByteLimit bytes
// (always the newest one, however large), so a peer flooding notifications
// cannot exhaust memory; Dropped and DroppedBytes say how much of the oldest
// is gone, and lookups see only what is kept. A waiter sees every message
// filed while it waits, kept or not: each is matched against the waiting
// predicates as it is filed, so a flood cannot push the awaited message out
// before its waiter looks.
type Inbox struct {
	mu        sync.Mutex
	limit     int
	byteLimit int
	buf       []*jsonrpc.Message // kept messages, oldest first, from buf[head]
	head      int
	bytes     int // sizes of the kept messages
	total     int // messages ever filed
	dropBytes int
	waiters   map[*inboxWaiter]struct{}
	closed    bool
	closedCh  chan struct{}
	err       error
	onDrop    func(InboxDrop)
}

type inboxWaiter struct {
	mark int // positions before it are not for this waiter
	pred func(*jsonrpc.Message) bool
	got  chan inboxMatch // buffered: one match
}

// inboxMatch is what add hands a waiter: the match, or the panic of its
// predicate, which the waiter raises in its own goroutine (a scenario's
// recover turns it into a verdict; on the read loop it would end the run).
type inboxMatch struct {
	m        *jsonrpc.Message
	panicked any
}

// InboxDrop describes the first message an inbox dropped: the bounds it
// keeps to and what it held then.
type InboxDrop struct {
	Limit, ByteLimit int // the bounds
	Kept, KeptBytes  int // what the inbox holds after the drop
}

// String is the line a transcript shows, once, when the inbox starts dropping.
func (d InboxDrop) String() string {
	return fmt.Sprintf("inbox: more than %s messages or %s bytes arrived unread; the oldest are dropped from now on (a wait still sees every new message)",
		jsonrpc.Thousands(d.Limit), jsonrpc.Thousands(d.ByteLimit))
}

func newInbox(limit, byteLimit int, onDrop func(InboxDrop)) *Inbox {
	if limit <= 0 {
		limit = DefaultInboxLimit
	}
	if byteLimit <= 0 {
		byteLimit = DefaultInboxBytes
	}
	return &Inbox{limit: limit, byteLimit: byteLimit, waiters: map[*inboxWaiter]struct{}{},
		closedCh: make(chan struct{}), onDrop: onDrop}
}

// MessageSize estimates the memory one message holds: its raw bytes, the
// members decoded from them (copies), and the structure itself. Other logs
// of messages bound their bytes with it, as the inbox does.
func MessageSize(m *jsonrpc.Message) int { return messageSize(m) }

func messageSize(m *jsonrpc.Message) int {
	n := 160 + len(m.Raw) + len(m.ID) + len(m.Method) + len(m.Params) + len(m.Result) + len(m.JSONRPC)
	if m.Error != nil {
		n += 48 + len(m.Error.Message) + len(m.Error.Data)
	}
	return n
}

// add files m. It is called from the read loop only, one message at a time:
// waiters see messages in order.
func (in *Inbox) add(m *jsonrpc.Message) {
	in.mu.Lock()
	in.buf = append(in.buf, m)
	in.bytes += messageSize(m)
	pos := in.total
	in.total++
	firstDrop := false
	for in.kept() > 1 && (in.kept() > in.limit || in.bytes > in.byteLimit) {
		firstDrop = firstDrop || in.dropped() == 0
		old := in.buf[in.head]
		in.buf[in.head] = nil
		in.head++
		in.bytes -= messageSize(old)
		in.dropBytes += messageSize(old)
	}
	if in.head > len(in.buf)/2 && in.head > 64 {
		// Compact, so the backing array stays about twice what is kept.
		in.buf = append(in.buf[:0:0], in.buf[in.head:]...)
		in.head = 0
	}
	var waiting []*inboxWaiter
	for w := range in.waiters {
		if pos >= w.mark {
			waiting = append(waiting, w)
		}
	}
	drop := InboxDrop{Limit: in.limit, ByteLimit: in.byteLimit, Kept: in.kept(), KeptBytes: in.bytes}
	in.mu.Unlock()

	// Predicates run outside the lock: one may look at the inbox itself.
	for _, w := range waiting {
		if match, ok := w.try(m); ok {
			in.mu.Lock()
			if _, ok := in.waiters[w]; ok {
				delete(in.waiters, w)
				w.got <- match
			}
			in.mu.Unlock()
		}
	}
	if firstDrop && in.onDrop != nil {
		in.onDrop(drop)
	}
}

// try runs the waiter's predicate on m; a panic is a match that carries it.
func (w *inboxWaiter) try(m *jsonrpc.Message) (match inboxMatch, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			match, ok = inboxMatch{panicked: p}, true
		}
	}()
	if w.pred(m) {
		return inboxMatch{m: m}, true
	}
	return inboxMatch{}, false
}

func (in *Inbox) close(err error) {
	in.mu.Lock()
	if !in.closed {
		in.closed, in.err = true, err
		close(in.closedCh)
	}
	in.mu.Unlock()
}

// kept, dropped and at are called with mu held. at takes a position in
// [dropped, total).
func (in *Inbox) kept() int    { return len(in.buf) - in.head }
func (in *Inbox) dropped() int { return in.total - in.kept() }

func (in *Inbox) at(pos int) *jsonrpc.Message {
	return in.buf[in.head+pos-in.dropped()]
}

// Limit is how many messages the inbox keeps at most.
func (in *Inbox) Limit() int { return in.limit }

// ByteLimit is how many bytes of messages the inbox keeps at most (the
// newest message is kept whatever its size).
func (in *Inbox) ByteLimit() int { return in.byteLimit }

// Bytes is the estimated size of the messages kept.
func (in *Inbox) Bytes() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.bytes
}

// Dropped is how many of the oldest messages were dropped to keep the limits.
func (in *Inbox) Dropped() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.dropped()
}

// DroppedBytes is the estimated size of the messages dropped.
func (in *Inbox) DroppedBytes() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.dropBytes
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
	return append([]*jsonrpc.Message(nil), in.buf[in.head:]...)
}

// Matching returns the kept messages from mark on that satisfy pred.
func (in *Inbox) Matching(mark int, pred func(*jsonrpc.Message) bool) []*jsonrpc.Message {
	in.mu.Lock()
	var kept []*jsonrpc.Message
	if mark < in.total {
		kept = append(kept, in.buf[in.head+max(0, mark-in.dropped()):]...)
	}
	in.mu.Unlock()
	var out []*jsonrpc.Message
	for _, m := range kept {
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

// WaitFrom waits until a message at a position ≥ mark satisfies pred, the
// connection closes (an error, once what arrived before was looked at), or
// ctx ends (ctx.Err()). Of the messages filed before the call it sees those
// still kept; of those filed during it, every one. pred is also run by the
// read loop as messages arrive, so it must be quick and must not block; if
// it panics, WaitFrom panics.
func (in *Inbox) WaitFrom(ctx context.Context, mark int, pred func(*jsonrpc.Message) bool) (*jsonrpc.Message, error) {
	// Register first, then look at what is kept: a message filed after the
	// registration reaches the waiter through add, one filed before is in
	// the look (if still kept); none falls in between.
	w := &inboxWaiter{mark: mark, pred: pred, got: make(chan inboxMatch, 1)}
	in.mu.Lock()
	in.waiters[w] = struct{}{}
	in.mu.Unlock()
	defer func() {
		in.mu.Lock()
		delete(in.waiters, w)
		in.mu.Unlock()
	}()
	if found := in.Matching(mark, pred); len(found) > 0 {
		return found[0], nil
	}
	select {
	case got := <-w.got:
		return got.message()
	case <-ctx.Done():
		select {
		case got := <-w.got:
			return got.message()
		default:
		}
		return nil, ctx.Err()
	case <-in.closedCh:
		select {
		case got := <-w.got:
			return got.message()
		default:
		}
		in.mu.Lock()
		err := in.err
		in.mu.Unlock()
		return nil, fmt.Errorf("connection closed while waiting: %w", err)
	}
}

func (g inboxMatch) message() (*jsonrpc.Message, error) {
	if g.panicked != nil {
		panic(g.panicked)
	}
	return g.m, nil
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
