package transport

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// httpQueuedFrame is one frame waiting for Recv, with the headers of the HTTP
// request that delivered it (server side; nil on the client side).
type httpQueuedFrame struct {
	frame  []byte
	header http.Header
}

// httpFrameQueue is a FIFO of frames with a blocking, cancellable pop.
// Once ended, pop drains what is left and then returns io.EOF. push never
// blocks; pushWait holds a stream's reader while httpQueueBytes are
// waiting, so a peer that floods faster than frames are consumed is slowed
// down by TCP instead of filling our memory.
type httpFrameQueue struct {
	mu    sync.Mutex
	items []httpQueuedFrame
	bytes int
	ended bool
	sig   chan struct{} // closed and replaced on every push and on end
	room  chan struct{} // closed and replaced on every pop and on end
}

// httpQueueBytes is how many frame bytes a queue holds before pushWait waits.
const httpQueueBytes = 4 << 20

func newHTTPFrameQueue() *httpFrameQueue {
	return &httpFrameQueue{sig: make(chan struct{}), room: make(chan struct{})}
}

func (q *httpFrameQueue) push(f httpQueuedFrame) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, f)
	q.bytes += len(f.frame)
	close(q.sig)
	q.sig = make(chan struct{})
}

// pushWait pushes f once fewer than httpQueueBytes are waiting (or the
// queue has ended), or returns ctx's error.
func (q *httpFrameQueue) pushWait(ctx context.Context, f httpQueuedFrame) error {
	for {
		q.mu.Lock()
		if q.bytes < httpQueueBytes || q.ended {
			q.mu.Unlock()
			q.push(f)
			return nil
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-room:
		}
	}
}

// end makes pop return io.EOF once the queue is empty. Idempotent.
func (q *httpFrameQueue) end() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended {
		return
	}
	q.ended = true
	close(q.sig)
	q.sig = make(chan struct{})
	close(q.room)
	q.room = make(chan struct{})
}

func (q *httpFrameQueue) isEnded() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ended
}

func (q *httpFrameQueue) pop(ctx context.Context) (httpQueuedFrame, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			f := q.items[0]
			q.items[0] = httpQueuedFrame{}
			q.items = q.items[1:]
			q.bytes -= len(f.frame)
			close(q.room)
			q.room = make(chan struct{})
			q.mu.Unlock()
			return f, nil
		}
		if q.ended {
			q.mu.Unlock()
			return httpQueuedFrame{}, io.EOF
		}
		sig := q.sig
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return httpQueuedFrame{}, ctx.Err()
		case <-sig:
		}
	}
}
