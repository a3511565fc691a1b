package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Resumption of a POST's SSE stream on the server side of Streamable HTTP
// (2025-11-25 transports.mdx, "Sending Messages to the Server" point 6 and
// "Resumability and Redelivery"): the server primes the POST's stream with an
// event id and a retry field, closes the connection before the response, and
// the client is expected to wait retry, reconnect with GET and Last-Event-ID,
// and get the rest of the stream (the response) there. This is what the
// official conformance suite's client scenario sse-retry plays.
//
// Event ids are issued only on these streams: "r<n>-<k>" is the k-th event of
// the n-th deferred request of the session (k=0 the priming event), so an id
// names its stream, as the spec asks, and is unique within the session.

// StreamResumer is implemented by server-side Streamable HTTP connections
// (find it with As). Only 2025-11-25 sessions can resume a stream: in
// stateless mode (2026-07-28) there is no GET stream, and DeferToResumption
// returns ErrNoResumption.
type StreamResumer interface {
	// DeferToResumption takes the request with this id off its POST: it
	// sends on the POST's SSE stream a priming event (an id, a retry field
	// of retry and an empty data field), closes that stream without the
	// response, and returns once it is closed. Whatever is sent afterwards
	// for the request (its response, and messages sent with
	// WithRelatedRequest(ctx, id)) is held and goes, each with an event id,
	// on the next GET of the session: the events after its Last-Event-ID,
	// or all of them when it names none of this stream's events (a GET
	// without the header too, so that a client that breaks the SHOULD still
	// gets its response). That GET ends after the response.
	//
	// It fails when no open POST carries the request, or when that POST is
	// answered with one application/json body (JSONResponse, or a POST
	// whose Accept lacks text/event-stream): there is no stream to prime.
	DeferToResumption(ctx context.Context, id jsonrpc.ID, retry time.Duration) error
	// Resumptions reports every deferred request of the connection, oldest
	// first.
	Resumptions() []Resumption
}

// Resumption is what happened to one request deferred by DeferToResumption.
type Resumption struct {
	// RequestID is the id of the deferred request.
	RequestID jsonrpc.ID
	// PrimingEventID is the id of the priming event sent on the POST stream:
	// the Last-Event-ID a client resuming that stream sends.
	PrimingEventID string
	// Retry is the retry field of the priming event.
	Retry time.Duration
	// Closed is when the POST stream had ended after the priming event (zero
	// if it never did). A client cannot see the end earlier, so Resumed minus
	// Closed is no shorter than the wait the client made, up to the time the
	// GET takes to arrive.
	Closed time.Time
	// Resumed is when the first GET that took over the stream arrived (zero
	// if none did). It precedes Closed when the client reconnected on seeing
	// the priming event, before the stream even ended.
	Resumed time.Time
	// LastEventID is the Last-Event-ID header of that GET ("" when it had
	// none).
	LastEventID string
	// GETs counts the GETs that took over the stream: more than one when one
	// ended before the response and the client came back.
	GETs int
	// Delivered reports that the response was written on a resuming GET.
	Delivered bool
}

// ErrNoResumption is returned by DeferToResumption in stateless mode
// (2026-07-28), which has no session and no GET stream to resume on.
var ErrNoResumption = errors.New("transport: stateless Streamable HTTP (2026-07-28) has no session and no GET stream: a request cannot be deferred to a resumption")

var _ StreamResumer = (*httpStatelessConn)(nil)

// DeferToResumption returns ErrNoResumption: a stateless POST has no GET to
// resume on.
func (c *httpStatelessConn) DeferToResumption(context.Context, jsonrpc.ID, time.Duration) error {
	return ErrNoResumption
}

// Resumptions is always empty in stateless mode.
func (c *httpStatelessConn) Resumptions() []Resumption { return nil }

// httpResumption is one deferred request of a session; its fields are
// guarded by the session's mu.
type httpResumption struct {
	rec   Resumption
	idKey string // httpRouteKey of the request id
	ord   int    // the n of its event ids
	// post is the POST stream until it has closed, so that terminate can end
	// it (it is no longer among the session's posts).
	post *httpStream
	// log holds every event sent for the request after the priming event, in
	// order, so that a GET can replay from any of them; it ends with the
	// response once that is sent (answered).
	log      []httpResumeEvent
	answered bool
	more     chan struct{} // closed and replaced when log grows
	stream   *httpStream   // the GET carrying the stream now, nil while none
}

type httpResumeEvent struct {
	id    string
	frame []byte
	final bool
}

// eventIndex is where a GET whose Last-Event-ID is last resumes in log, or
// -1 when last is not an event id of this stream.
func (rs *httpResumption) eventIndex(last string) int {
	if last == "" {
		return -1
	}
	if last == rs.rec.PrimingEventID {
		return 0
	}
	for i, e := range rs.log {
		if e.id == last {
			return i + 1
		}
	}
	return -1
}

// DeferToResumption implements StreamResumer.
func (c *httpSessionConn) DeferToResumption(ctx context.Context, id jsonrpc.ID, retry time.Duration) error {
	ss := c.sess
	if retry < 0 {
		return fmt.Errorf("transport: negative retry %s", retry)
	}
	key := httpRouteKey(id.Key())
	ss.mu.Lock()
	if ss.ended {
		ss.mu.Unlock()
		return ErrClosed
	}
	var st *httpStream
	for _, p := range ss.posts {
		if p.idKey == key && !p.nullPending {
			st = p
			break
		}
	}
	switch {
	case st == nil:
		ss.mu.Unlock()
		return fmt.Errorf("transport: session %s: no open POST carries request id=%s", ss.id, id)
	case !st.allowSSE:
		ss.mu.Unlock()
		return fmt.Errorf("transport: session %s: the POST of id=%s is answered with one application/json body, not an SSE stream: nothing to prime", ss.id, id)
	}
	rs := &httpResumption{idKey: key, ord: 1, post: st, more: make(chan struct{})}
	if n := len(ss.resumes); n > 0 {
		rs.ord = ss.resumes[n-1].ord + 1
	}
	rs.rec = Resumption{RequestID: slices.Clone(id), PrimingEventID: fmt.Sprintf("r%d-0", rs.ord), Retry: retry}
	// Registered before the priming event is written, so that a response
	// sent meanwhile is held for the GET instead of racing to the POST; and
	// the POST leaves posts, so that nothing unrelated is routed to a stream
	// that is about to close.
	ss.resumes = append(ss.resumes, rs)
	ss.posts = slices.DeleteFunc(ss.posts, func(p *httpStream) bool { return p == st })
	ss.mu.Unlock()

	ss.srv.eventf("session %s: %s deferred to a resumption: priming event %q (retry %s, empty data) on its POST stream, which then closes without the response",
		ss.id, st.label, rs.rec.PrimingEventID, retry)
	priming := fmt.Appendf(nil, "id: %s\nretry: %d\ndata: \n\n", rs.rec.PrimingEventID, retry.Milliseconds())
	ok, err := st.deliver(ctx, &httpOutMsg{frame: priming, raw: true, final: true, errc: make(chan error, 1)})
	if !ok {
		err = errors.New("the POST stream ended before the priming event")
	}
	if err == nil {
		// The priming event is final: the handler ends the stream at once.
		select {
		case <-st.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	ss.mu.Lock()
	rs.post = nil
	if err == nil {
		rs.rec.Closed = time.Now()
	} else if !ok && len(rs.log) == 0 {
		// The POST ended first (answered, or the client went away) and
		// nothing was held: no GET is to wait for this request.
		ss.resumes = slices.DeleteFunc(ss.resumes, func(x *httpResumption) bool { return x == rs })
	}
	ss.mu.Unlock()
	if err != nil {
		// Anything already held for the request still waits for a GET.
		ss.srv.eventf("session %s: %s: priming event %q not sent: %v", ss.id, st.label, rs.rec.PrimingEventID, err)
		return fmt.Errorf("transport: session %s: deferring id=%s: %w", ss.id, id, err)
	}
	ss.srv.eventf("session %s: POST stream of %s closed after the priming event; what is sent for it waits for a GET", ss.id, st.label)
	return nil
}

// Resumptions implements StreamResumer.
func (c *httpSessionConn) Resumptions() []Resumption {
	ss := c.sess
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]Resumption, len(ss.resumes))
	for i, rs := range ss.resumes {
		out[i] = rs.rec
		out[i].RequestID = slices.Clone(rs.rec.RequestID)
	}
	return out
}

// resumptionFor is the deferred request a frame belongs to (its response,
// or a message sent with WithRelatedRequest), nil for none. Once the
// response is held nothing more joins it: its stream ends there. Called
// with ss.mu held.
func (ss *httpSession) resumptionFor(ctx context.Context, fi httpFrameInfo) *httpResumption {
	var key string
	if fi.isResponse() {
		key = httpRouteKey(fi.msg.ID.Key())
	} else if id, ok := RelatedRequest(ctx); ok {
		key = httpRouteKey(id.Key())
	}
	if key == "" || key == "null" {
		return nil
	}
	for _, rs := range ss.resumes {
		if rs.idKey == key && !rs.answered {
			return rs
		}
	}
	return nil
}

// holdResumed adds a frame to a deferred request's stream and returns its
// event id; the GET carrying the stream, if any, writes it (pumpResumption).
// Called with ss.mu held.
func (ss *httpSession) holdResumed(rs *httpResumption, frame []byte) (string, error) {
	if len(rs.log) >= ss.srv.opts.QueueLimit {
		return "", fmt.Errorf("transport: session %s: %d events already held for the GET resuming id=%s", ss.id, len(rs.log), rs.rec.RequestID)
	}
	fi := httpInspect(frame)
	ev := httpResumeEvent{id: fmt.Sprintf("r%d-%d", rs.ord, len(rs.log)+1), frame: append([]byte(nil), frame...), final: fi.isResponse()}
	rs.log = append(rs.log, ev)
	if ev.final {
		rs.answered = true
	}
	close(rs.more)
	rs.more = make(chan struct{})
	return ev.id, nil
}

// resumeStreams are the open streams of deferred requests, for terminate.
// Called with ss.mu held.
func (ss *httpSession) resumeStreams() []*httpStream {
	var out []*httpStream
	for _, rs := range ss.resumes {
		if rs.post != nil {
			out = append(out, rs.post)
		}
		if rs.stream != nil {
			out = append(out, rs.stream)
		}
	}
	return out
}

// claimResumption picks the deferred request a GET resumes and the index in
// its log to replay from. A Last-Event-ID of one of its events picks that
// stream; one of a stream that is delivered or already carried by another
// GET picks nothing (its events must not go elsewhere); none, or one the
// session never issued, picks the oldest request still waiting, from its
// priming event. Called with ss.mu held.
func (ss *httpSession) claimResumption(last string) (*httpResumption, int) {
	for _, rs := range ss.resumes {
		if from := rs.eventIndex(last); from >= 0 {
			if rs.rec.Delivered || rs.stream != nil {
				return nil, 0
			}
			return rs, from
		}
	}
	for _, rs := range ss.resumes {
		if !rs.rec.Delivered && rs.stream == nil {
			return rs, 0
		}
	}
	return nil, 0
}

// serveResumption serves a GET that takes over the stream of a deferred
// request, and reports whether it did (false: an ordinary GET).
func (s *HTTPServer) serveResumption(w http.ResponseWriter, r *http.Request, ss *httpSession) bool {
	last := r.Header.Get(HeaderLastEventID)
	now := time.Now()
	ss.mu.Lock()
	if ss.ended {
		ss.mu.Unlock()
		return false
	}
	rs, from := ss.claimResumption(last)
	if rs == nil {
		ss.mu.Unlock()
		return false
	}
	st := newHTTPStream("GET", fmt.Sprintf("resuming id=%s", rs.rec.RequestID))
	st.allowSSE = true
	rs.stream = st
	if rs.rec.GETs == 0 {
		rs.rec.Resumed, rs.rec.LastEventID = now, last
	}
	rs.rec.GETs++
	closed, held := rs.rec.Closed, len(rs.log)-from
	ss.mu.Unlock()

	how := "without Last-Event-ID"
	if last != "" {
		how = fmt.Sprintf("with Last-Event-ID %q", last)
		if from == 0 && last != rs.rec.PrimingEventID {
			how += " (no event of this session: replaying from the priming event)"
		}
	}
	when := "before its POST stream had closed"
	if !closed.IsZero() {
		when = stallDur(now.Sub(closed)) + " after its POST stream closed"
	}
	s.eventf("session %s: GET %s resumes id=%s, %s; %d held event(s) to send", ss.id, how, rs.rec.RequestID, when, held)

	go s.pumpResumption(ss, rs, st, from)
	s.serve(w, r, st, httpServeConfig{
		sseNow:  true,
		timeout: s.opts.ResponseTimeout,
		onEnd: func() {
			ss.mu.Lock()
			if rs.stream == st {
				rs.stream = nil
			}
			ss.mu.Unlock()
		},
	})
	return true
}

// pumpResumption writes a deferred request's events on the GET that took
// over its stream, from log[next] on, as they come. It runs beside serve,
// not in Send, so that replayed and new events keep their order; it ends
// with the stream. A write that fails leaves the events held: the next GET
// replays them from its Last-Event-ID.
func (s *HTTPServer) pumpResumption(ss *httpSession, rs *httpResumption, st *httpStream, next int) {
	for {
		ss.mu.Lock()
		if next >= len(rs.log) {
			more := rs.more
			ss.mu.Unlock()
			select {
			case <-more:
				continue
			case <-st.done:
				return
			}
		}
		ev := rs.log[next]
		ss.mu.Unlock()
		ok, err := st.deliver(context.Background(), &httpOutMsg{frame: ev.frame, id: ev.id, final: ev.final, errc: make(chan error, 1)})
		if !ok || err != nil {
			return // serve has recorded why the stream ended
		}
		if ev.final {
			ss.mu.Lock()
			rs.rec.Delivered = true
			ss.mu.Unlock()
			s.eventf("session %s: response to id=%s delivered on the resuming GET as event %q", ss.id, rs.rec.RequestID, ev.id)
			return
		}
		next++
	}
}
