package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Response streams of the HTTP server: one per open POST that carries a
// request (an application/json answer or an SSE stream), one per GET (the
// standalone SSE stream of a session). Event ids are issued only on the
// streams of a request deferred to a resumption (http_server_resume.go); a
// GET with any other Last-Event-ID resumes nothing and is served as a new
// stream.

type httpOutMsg struct {
	frame []byte
	final bool // ends the stream once written
	errc  chan error
	// deadline bounds the write (the sender's ctx deadline; zero: the
	// server's ResponseTimeout), so a client that stops reading cannot
	// keep a Send past it.
	deadline time.Time
	// id is the SSE event id to send with the frame ("" for none).
	id string
	// raw: frame is a whole SSE event already encoded (a priming event),
	// written as is and never as a JSON body.
	raw bool
}

type httpStream struct {
	kind  string // "POST" or "GET"
	label string // for the transcript
	// idKey is the raw id of the request the POST carried ("" for GET and
	// for bodies without a readable id).
	idKey string
	// nullPending marks a POST whose body was unparsable or whose id could
	// not be read: it waits for an error response with id null.
	nullPending bool
	// allowSSE: non-final messages may go on this stream.
	allowSSE bool

	out  chan *httpOutMsg
	done chan struct{} // closed when the handler has finished

	endOnce    sync.Once
	end        chan struct{} // closed to end the stream cleanly
	endStatus  int           // status if the stream ends before anything was written
	endMessage string
}

func newHTTPStream(kind, label string) *httpStream {
	return &httpStream{kind: kind, label: label, out: make(chan *httpOutMsg), done: make(chan struct{}), end: make(chan struct{})}
}

// finish asks the handler to end the stream; if nothing was written yet it
// answers status with a plain-text message.
func (st *httpStream) finish(status int, msg string) {
	st.endOnce.Do(func() {
		st.endStatus, st.endMessage = status, msg
		close(st.end)
	})
}

// deliver hands one message to the stream's handler and waits for the write.
// ok is false if the stream ended before taking the message.
func (st *httpStream) deliver(ctx context.Context, m *httpOutMsg) (ok bool, err error) {
	if dl, has := ctx.Deadline(); has {
		m.deadline = dl
	}
	select {
	case st.out <- m:
		return true, <-m.errc
	case <-st.done:
		return false, nil
	case <-ctx.Done():
		return true, ctx.Err()
	}
}

type httpServeConfig struct {
	sseNow    bool                   // start the SSE stream at once
	statusFor func(frame []byte) int // status of a final JSON answer
	timeout   time.Duration          // 0: none
	initial   [][]byte               // frames to write first (GET backlog)
	onEnd     func()                 // unregisters the stream; runs before done closes
}

// serve runs a stream in its handler goroutine until the final message, the
// client going away, finish, the timeout, or server Close (which aborts the
// connection).
func (s *HTTPServer) serve(w http.ResponseWriter, r *http.Request, st *httpStream, cfg httpServeConfig) {
	rc := http.NewResponseController(w)
	started := false
	// bound sets the write deadline of what comes next: dl, or the response
	// timeout when there is none.
	bound := func(dl time.Time) {
		if dl.IsZero() {
			dl = time.Now().Add(s.opts.ResponseTimeout)
		}
		_ = rc.SetWriteDeadline(dl)
	}
	// unread names a write that a client which stopped reading let time out.
	unread := func(err error, start time.Time) error {
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return err
		}
		return &StallError{Shape: StallUnread, Err: err, Detail: fmt.Sprintf(
			"the client stopped reading the response to %s %s: write not completed in %s", st.kind, st.label, stallDur(time.Since(start)))}
	}
	defer func() {
		if cfg.onEnd != nil {
			cfg.onEnd()
		}
		close(st.done)
	}()
	startSSE := func() error {
		h := w.Header()
		s.setBodyType(h, st.kind, "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		started = true
		s.eventf("HTTP 200 %s %s (%s)", st.kind, st.label, s.bodyTypeName(st.kind, "text/event-stream"))
		return rc.Flush()
	}
	writeEvent := func(event []byte) error {
		if _, err := w.Write(event); err != nil {
			return err
		}
		return rc.Flush()
	}
	bound(time.Time{})
	if cfg.sseNow {
		if err := startSSE(); err != nil {
			return
		}
	}
	for _, f := range cfg.initial {
		if err := writeEvent(appendSSEEvent(nil, "", "", f)); err != nil {
			s.eventf("SSE %s %s: write failed, %d queued frames lost: %v", st.kind, st.label, len(cfg.initial), err)
			return
		}
	}
	var timer *time.Timer
	var timeout <-chan time.Time
	if cfg.timeout > 0 {
		timer = time.NewTimer(cfg.timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		select {
		case m := <-st.out:
			begun := time.Now()
			bound(m.deadline)
			if !started && m.final && !m.raw {
				status := http.StatusOK
				if cfg.statusFor != nil {
					status = cfg.statusFor(m.frame)
				}
				s.setBodyType(w.Header(), st.kind, "application/json")
				w.WriteHeader(status)
				// Not flushed, so net/http sends a Content-Length and writes
				// what is buffered after we return, under a fresh deadline:
				// the sender's may be about to pass.
				_, err := w.Write(m.frame)
				m.errc <- unread(err, begun)
				bound(time.Time{})
				s.eventf("HTTP %d %s %s (%s)", status, st.kind, st.label, s.bodyTypeName(st.kind, "application/json"))
				return
			}
			var err error
			if !started {
				err = startSSE()
			}
			if err == nil && m.raw {
				err = writeEvent(m.frame)
			} else if err == nil {
				err = writeEvent(appendSSEEvent(nil, m.id, "", m.frame))
			}
			err = unread(err, begun)
			m.errc <- err
			if err != nil {
				s.eventf("SSE %s %s: write failed: %v", st.kind, st.label, err)
				return
			}
			bound(time.Time{}) // for whatever net/http writes after us
			if m.final {
				return
			}
			if timer != nil {
				timer.Reset(cfg.timeout)
			}
		case <-r.Context().Done():
			s.eventf("SSE %s %s: client went away", st.kind, st.label)
			return
		case <-st.end:
			bound(time.Time{})
			if !started {
				s.eventf("HTTP %d %s %s: %s", st.endStatus, st.kind, st.label, st.endMessage)
				http.Error(w, st.endMessage, st.endStatus)
			}
			return
		case <-timeout:
			bound(time.Time{})
			if !started {
				s.eventf("HTTP 504 %s %s: no response within %s", st.kind, st.label, cfg.timeout)
				http.Error(w, fmt.Sprintf("no response within %s", cfg.timeout), http.StatusGatewayTimeout)
			} else {
				s.eventf("SSE %s %s: nothing sent for %s, stream ended", st.kind, st.label, cfg.timeout)
			}
			return
		case <-s.closed:
			panic(http.ErrAbortHandler)
		}
	}
}

func (s *HTTPServer) serveGET(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Accept") != "" && !httpAccepts(r.Header, "text/event-stream") {
		s.eventf("HTTP 406 GET: Accept %q lacks text/event-stream", r.Header.Get("Accept"))
		http.Error(w, "GET needs Accept: text/event-stream", http.StatusNotAcceptable)
		return
	}
	ss := s.sessionFor(w, r)
	if ss == nil {
		return
	}
	if s.serveResumption(w, r, ss) {
		return
	}
	st := newHTTPStream("GET", "stream")
	st.allowSSE = true
	ss.mu.Lock()
	if ss.ended {
		ss.mu.Unlock()
		httpWriteJSONError(w, http.StatusNotFound, nil, codes.InvalidRequest, "session not found")
		return
	}
	if ss.get != nil {
		ss.mu.Unlock()
		s.eventf("HTTP 409 GET: session %s already has a GET stream", ss.id)
		http.Error(w, "a GET stream is already open for this session", http.StatusConflict)
		return
	}
	ss.get = st
	backlog := ss.backlog
	ss.backlog = nil
	ss.mu.Unlock()
	if id := r.Header.Get(HeaderLastEventID); id != "" {
		s.eventf("session %s: GET with Last-Event-ID %q (no replay: no deferred request waits on that stream)", ss.id, id)
	}
	s.serve(w, r, st, httpServeConfig{
		sseNow:  true,
		initial: backlog,
		onEnd: func() {
			ss.mu.Lock()
			if ss.get == st {
				ss.get = nil
			}
			ss.mu.Unlock()
		},
	})
}
