package transport

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// StallShape names how a peer stopped short of what a caller was waiting for.
type StallShape string

const (
	// StallNoHeaders: an HTTP request got no response headers in time.
	StallNoHeaders StallShape = "no-headers"
	// StallBody: the response headers arrived, then the body stopped.
	StallBody StallShape = "body-stalled"
	// StallTrickle: the body kept coming, too slowly to complete in time.
	StallTrickle StallShape = "body-trickled"
	// StallKeepAlive: an SSE stream sent only comments (keep-alives), no
	// event, since the last event.
	StallKeepAlive StallShape = "keep-alive-only"
	// StallStreamOpen: an SSE stream stayed open without the response.
	StallStreamOpen StallShape = "stream-open"
	// StallStreamEnded: an SSE stream ended without the response it had to
	// carry, so the response is not coming.
	StallStreamEnded StallShape = "stream-ended"
	// StallResuming: the server ended the SSE stream that had to carry the
	// response, and the client was still resuming it (2025-11-25
	// "Resumability and Redelivery") when the caller gave up.
	StallResuming StallShape = "resuming"
	// StallUpgrade: a WebSocket opening handshake was not completed in time.
	StallUpgrade StallShape = "upgrade"
	// StallUnread: the peer stopped reading, so a write could not complete
	// in time.
	StallUnread StallShape = "unread"
)

// StallError is the error a caller sees when the peer stalled, trickled or
// gave up on what the caller was waiting for. Its text names the shape
// ("HTTP 200 headers of POST tools/list id=3 arrived, then the body stalled:
// 0 bytes in 5s"); Err is the cause (ctx.Err() when the caller's deadline
// ended the wait), so errors.Is(err, context.DeadlineExceeded) still holds.
type StallError struct {
	Shape  StallShape
	Detail string
	Err    error
}

func (e *StallError) Error() string { return e.Detail }
func (e *StallError) Unwrap() error { return e.Err }

// ResponseWatcher is implemented by connections that know more than the
// caller about where a request's response must come from: an HTTP client
// connection knows the SSE stream of the POST that carried the request.
// A caller waiting for that response (fakes/peer) uses it to fail promptly
// when the response cannot come, and to name the stall when it gave up.
type ResponseWatcher interface {
	// ResponseLost returns a channel that yields, once, a *StallError as
	// soon as the connection knows the response to id is not coming (the
	// POST's SSE stream ended without it); nil when it watches nothing for
	// id.
	ResponseLost(id jsonrpc.ID) <-chan error
	// NoResponse is for a caller whose wait for id's response ended
	// (cause: why, usually ctx.Err()): a *StallError naming what the stream
	// that should carry it was doing (open and silent, trickling), or nil
	// when the connection knows nothing about it. It records the stall in
	// the transcript once.
	NoResponse(id jsonrpc.ID, cause error) error
}

// countingReader counts the bytes read through it, for stall reports.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// readCloser joins a reader over a body (a bufio.Reader that peeked at it)
// with the body's Close.
type readCloser struct {
	io.Reader
	io.Closer
}

// stallBytes formats a byte count ("1 byte", "37 bytes").
func stallBytes(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// stallDur formats how long a peer had, at a precision a reader can use.
func stallDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Millisecond).String()
	}
}
