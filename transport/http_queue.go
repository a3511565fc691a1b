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

// httpFrameQueue is an unbounded FIFO of frames with a blocking, cancellable pop.
// Once ended, pop drains what is left and then returns io.EOF.
type httpFrameQueue struct {
	mu    sync.Mutex
	items []httpQueuedFrame
	ended bool
	sig   chan struct{} // closed and replaced on every push and on end
}

func newHTTPFrameQueue() *httpFrameQueue { return &httpFrameQueue{sig: make(chan struct{})} }

func (q *httpFrameQueue) push(f httpQueuedFrame) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, f)
	close(q.sig)
	q.sig = make(chan struct{})
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
