package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// httpAwait follows the SSE stream of a POST that carried a request until
// the response to that request arrives on it: it counts what the stream
// delivers, so that a caller who gives up can be told how the stream
// stalled, and it tells the caller at once when the stream ends without the
// response (ResponseWatcher).
type httpAwait struct {
	label string // "POST tools/list"
	id    string // the request id's JSON text
	start time.Time
	read  atomic.Int64 // body bytes read on the stream (and its resumptions)
	sse   sseProgress  // what the stream's reader parsed since its last event

	mu        sync.Mutex
	lastEvent time.Time // when the last event was dispatched (start if none)
	atEvent   int64     // read when it was
	answered  bool
	err       error      // the stall or loss, once decided
	lost      chan error // yields err when the stream ended without the response
	stopDL    func() bool
	bounded   bool // the step's ctx has a deadline
	// over is closed once err is decided: the caller no longer waits, so
	// the stream is not resumed for it any more.
	over chan struct{}
	// ended is set once the server ended the stream (the client resumes
	// it); resumes counts the GETs that resumed it, idle those in a row that
	// delivered no message, and waiting is the delay being waited out
	// before the next one (0 when not waiting). A caller who gives up is
	// told the stream went round resumptions, not that it "stays open".
	ended         bool
	resumes, idle int
	waiting       time.Duration
}

// maxLostAwaits bounds how many decided awaits a connection keeps for
// callers that have not asked about them yet.
const maxLostAwaits = 256

func newHTTPAwait(label, id string) *httpAwait {
	now := time.Now()
	return &httpAwait{label: label, id: id, start: now, lastEvent: now, lost: make(chan error, 1), over: make(chan struct{})}
}

// event notes a dispatched event.
func (a *httpAwait) event() {
	a.mu.Lock()
	a.lastEvent, a.atEvent = time.Now(), a.read.Load()
	a.mu.Unlock()
}

// answer notes that the response arrived: nothing more to watch.
func (a *httpAwait) answer() {
	a.mu.Lock()
	a.answered = true
	stop := a.stopDL
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// stall decides, once, what a caller whose wait ended (cause) is told;
// decided reports whether this call decided it (and should record it).
func (a *httpAwait) stall(cause error) (decided bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answered {
		return false, nil
	}
	if a.err != nil {
		return false, a.err
	}
	now := time.Now()
	defer close(a.over)
	since := a.read.Load() - a.atEvent
	comments := a.sse.comments.Load()
	switch {
	case since > 0 && comments > 0 && a.sse.fields.Load() == 0 && a.sse.partial.Load() != sseFieldLine:
		// Bytes came, but only comments: keep-alives, not a message on
		// its way.
		a.err = &StallError{Shape: StallKeepAlive, Err: cause, Detail: fmt.Sprintf(
			"SSE stream of %s sent only comments (keep-alives): %s in %s without an event (no response to id %s)",
			a.label, stallBytes(max(since, comments)), stallDur(now.Sub(a.lastEvent)), a.id)}
	case since > 0:
		a.err = &StallError{Shape: StallTrickle, Err: cause, Detail: fmt.Sprintf(
			"SSE stream of %s trickled: %s in %s since the last event, the JSON-RPC message is incomplete (no response to id %s)",
			a.label, stallBytes(since), stallDur(now.Sub(a.lastEvent)), a.id)}
	case a.ended:
		detail := "SSE stream of " + a.label + " ended without the response"
		if a.resumes > 0 {
			detail += fmt.Sprintf(" and was resumed %d times in %s", a.resumes, stallDur(now.Sub(a.start)))
			if a.idle > 0 {
				detail += fmt.Sprintf(", the last %d in a row without a message (each resumed stream ended after event ids only, or nothing)", a.idle)
			}
		}
		if a.waiting > 0 {
			detail += fmt.Sprintf(", and the client was waiting %s before resuming it again", stallDur(a.waiting))
		} else if a.resumes > 0 {
			detail += ", and the resumed stream stays open"
		}
		a.err = &StallError{Shape: StallResuming, Err: cause, Detail: detail + ": no response to id " + a.id}
	default:
		a.err = &StallError{Shape: StallStreamOpen, Err: cause, Detail: fmt.Sprintf(
			"SSE stream of %s stays open: no response to id %s in %s",
			a.label, a.id, stallDur(now.Sub(a.start)))}
	}
	return true, a.err
}

// lose decides that the response is not coming (the stream ended without
// it: why) and tells a waiting caller.
func (a *httpAwait) lose(why string) (decided bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answered || a.err != nil {
		return false, nil
	}
	a.err = &StallError{Shape: StallStreamEnded, Err: errResponseLost, Detail: fmt.Sprintf(
		"the SSE stream of %s %s without the response to id %s", a.label, why, a.id)}
	a.lost <- a.err
	close(a.over)
	if a.stopDL != nil {
		a.stopDL()
	}
	return true, a.err
}

// errResponseLost is the cause of a StallStreamEnded error.
var errResponseLost = errors.New("transport: the response is not coming")

// watch starts following the request with this key on a POST's SSE stream.
// When ctx (the Send's, which is the caller's step) reaches its deadline
// before the response, the stall is recorded then, so the transcript shows
// it even for a caller that does not ask NoResponse.
func (c *HTTPClientConn) watch(ctx context.Context, key, label string) *httpAwait {
	a := newHTTPAwait(label, key)
	_, a.bounded = ctx.Deadline()
	if ctx.Done() != nil {
		a.stopDL = context.AfterFunc(ctx, func() {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.ctx.Err() == nil {
				c.stalled(a, ctx.Err())
			}
		})
	}
	c.mu.Lock()
	if old := c.awaits[key]; old != nil && old.stopDL != nil {
		old.stopDL()
	}
	c.awaits[key] = a
	c.mu.Unlock()
	return a
}

// answered ends the watch of a response that arrived.
func (c *HTTPClientConn) answered(key string, a *httpAwait) { c.unwatch(key, a) }

// unwatch ends a watch with nothing to tell.
func (c *HTTPClientConn) unwatch(key string, a *httpAwait) {
	a.answer()
	c.mu.Lock()
	if c.awaits[key] == a {
		delete(c.awaits, key)
	}
	c.mu.Unlock()
}

// stalled decides and records the stall of a watched response.
func (c *HTTPClientConn) stalled(a *httpAwait, cause error) error {
	decided, err := a.stall(cause)
	if decided {
		c.opts.Transcript.Eventf(c.opts.Session, "%v", err)
	}
	return err
}

// lost decides and records that a watched response is not coming; the
// await stays known (up to maxLostAwaits) for a caller that asks late.
func (c *HTTPClientConn) lost(key string, a *httpAwait, why string) {
	decided, err := a.lose(why)
	if !decided {
		return
	}
	c.opts.Transcript.Eventf(c.opts.Session, "%v", err)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.awaits[key] != a {
		return
	}
	c.lostKeys = append(c.lostKeys, key)
	if len(c.lostKeys) > maxLostAwaits {
		old := c.lostKeys[0]
		c.lostKeys = c.lostKeys[1:]
		if o := c.awaits[old]; o != nil && o.decided() {
			delete(c.awaits, old)
		}
	}
}

// resumed notes a resumption, after a stream that delivered no message in
// idle resumptions in a row.
func (a *httpAwait) resumed(idle int) {
	a.mu.Lock()
	a.resumes++
	a.idle = idle
	a.waiting = 0
	a.mu.Unlock()
}

// waits notes that the stream ended and the client waits d before
// resuming it (idle: resumed streams in a row that delivered no message).
func (a *httpAwait) waits(d time.Duration, idle int) {
	a.mu.Lock()
	a.ended, a.waiting, a.idle = true, d, idle
	a.mu.Unlock()
}

// stepBounded reports whether a step waits for this response with a
// deadline, which then bounds the resumptions of its stream (a nil await:
// none waits).
func (a *httpAwait) stepBounded() bool { return a != nil && a.bounded }

// givenUp reports whether the step waiting for this response gave up (a
// nil await: no step waits, nothing to give up).
func (a *httpAwait) givenUp() bool {
	if a == nil {
		return false
	}
	select {
	case <-a.over:
		return true
	default:
		return false
	}
}

func (a *httpAwait) decided() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err != nil || a.answered
}

// ResponseLost implements ResponseWatcher.
func (c *HTTPClientConn) ResponseLost(id jsonrpc.ID) <-chan error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.awaits[id.Key()]; a != nil {
		return a.lost
	}
	return nil
}

// NoResponse implements ResponseWatcher.
func (c *HTTPClientConn) NoResponse(id jsonrpc.ID, cause error) error {
	c.mu.Lock()
	a := c.awaits[id.Key()]
	c.mu.Unlock()
	if a == nil {
		return nil
	}
	return c.stalled(a, cause)
}

// bodyStall names how a response body failed to arrive in time: n bytes
// came in d after the headers.
func bodyStall(status int, label string, n int64, d time.Duration, cause error) *StallError {
	shape, tail := bodyStallTail(n, d)
	return &StallError{Shape: shape, Err: cause, Detail: fmt.Sprintf("HTTP %d headers of %s arrived, then the body %s", status, label, tail)}
}

// bodyStallTail is how a body that stopped after n bytes in d is described.
func bodyStallTail(n int64, d time.Duration) (StallShape, string) {
	if n == 0 {
		return StallBody, "stalled: 0 bytes in " + stallDur(d)
	}
	return StallTrickle, fmt.Sprintf("trickled: %s in %s, the JSON-RPC message is incomplete", stallBytes(n), stallDur(d))
}

// sseStart reports whether the first byte of a body labelled neither JSON
// nor SSE begins an event stream rather than JSON.
func sseStart(b byte) bool { return strings.IndexByte(":deir", b) >= 0 }
