package transport

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Session mode (2025-11-25): an initialize POST creates a session (one Conn
// for Accept, named by Mcp-Session-Id); later POSTs, the GET stream and
// DELETE name it. Send routes each frame to one of the session's streams.

var _ interface {
	Conn
	HeaderCarrier
	StreamResumer
} = (*httpSessionConn)(nil)

type httpSession struct {
	srv  *HTTPServer
	id   string
	conn *httpSessionConn

	mu      sync.Mutex
	ended   bool
	posts   []*httpStream // open POSTs carrying a request, oldest first
	get     *httpStream
	backlog [][]byte // frames waiting for a GET stream
	// resumes are the requests deferred to a resumption, oldest first
	// (http_server_resume.go); kept after delivery for Resumptions.
	resumes []*httpResumption
}

// httpSessionConn is the engine's side of one session.
type httpSessionConn struct {
	sess *httpSession
	q    *httpFrameQueue
	done chan struct{}

	mu  sync.Mutex
	cur http.Header
}

// Recv returns the next frame POSTed to the session, io.EOF once the
// session ended (DELETE, Close, server Close) and nothing is left.
func (c *httpSessionConn) Recv(ctx context.Context) ([]byte, error) {
	f, err := c.q.pop(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.cur = f.header
	c.mu.Unlock()
	return f.frame, nil
}

// Send routes a frame: a response to the open POST that carried its id (an
// error response with id null to the oldest POST whose body could not be
// read); anything else to the POST named by RelatedRequest(ctx) if its SSE
// stream is open, else the oldest open POST SSE stream, else the GET stream,
// else a bounded backlog the next GET stream receives first.
func (c *httpSessionConn) Send(ctx context.Context, frame []byte) error {
	return c.sess.route(ctx, frame)
}

// Close terminates the session: its streams end and later requests get 404.
func (c *httpSessionConn) Close() error {
	c.sess.terminate("closed by the server engine", true)
	return nil
}

// RequestHeader is the header of the POST that delivered the frame most
// recently returned by Recv.
func (c *httpSessionConn) RequestHeader() http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.Clone()
}

// SessionID is the Mcp-Session-Id assigned to this session.
func (c *httpSessionConn) SessionID() string { return c.sess.id }

// Done is closed when the session ends.
func (c *httpSessionConn) Done() <-chan struct{} { return c.done }

func (ss *httpSession) route(ctx context.Context, frame []byte) error {
	fi := httpInspect(frame)
	for {
		ss.mu.Lock()
		if ss.ended {
			ss.mu.Unlock()
			return ErrClosed
		}
		if rs := ss.resumptionFor(ctx, fi); rs != nil {
			// Deferred: held for the GET that resumes the request.
			ev, err := ss.holdResumed(rs, frame)
			ss.mu.Unlock()
			if err != nil {
				return err
			}
			ss.srv.eventf("session %s: %s held as event %q for the GET resuming id=%s", ss.id, fi.describe(), ev, rs.rec.RequestID)
			return nil
		}
		var st *httpStream
		final := false
		if fi.isResponse() {
			final = true
			key := httpRouteKey(fi.msg.ID.Key())
			if key != "" && key != "null" {
				for _, p := range ss.posts {
					if p.idKey == key {
						st = p
						break
					}
				}
			}
			if st == nil && (key == "" || key == "null") {
				for _, p := range ss.posts {
					if p.nullPending {
						st = p
						break
					}
				}
			}
			if st == nil {
				ss.mu.Unlock()
				ss.srv.eventf("session %s: no open POST for %s, not sent", ss.id, fi.describe())
				return fmt.Errorf("transport: no open POST awaits %s", fi.describe())
			}
		} else {
			if id, ok := RelatedRequest(ctx); ok {
				for _, p := range ss.posts {
					if p.allowSSE && p.idKey == httpRouteKey(id.Key()) {
						st = p
						break
					}
				}
			}
			if st == nil {
				for _, p := range ss.posts {
					if p.allowSSE {
						st = p
						break
					}
				}
			}
			if st == nil {
				st = ss.get
			}
			if st == nil {
				if len(ss.backlog) >= ss.srv.opts.QueueLimit {
					ss.mu.Unlock()
					return fmt.Errorf("transport: session %s: no stream open and %d frames already queued", ss.id, len(ss.backlog))
				}
				ss.backlog = append(ss.backlog, append([]byte(nil), frame...))
				ss.mu.Unlock()
				ss.srv.eventf("session %s: %s queued until a GET stream opens", ss.id, fi.describe())
				return nil
			}
		}
		ss.mu.Unlock()
		ok, err := st.deliver(ctx, &httpOutMsg{frame: frame, final: final, errc: make(chan error, 1)})
		if ok {
			return err
		}
		// The stream ended meanwhile: route again.
	}
}

// terminate ends the session. clean: streams end normally (an unanswered
// JSON POST gets 404); otherwise the server is closing and aborts them.
func (ss *httpSession) terminate(why string, clean bool) {
	ss.mu.Lock()
	if ss.ended {
		ss.mu.Unlock()
		return
	}
	ss.ended = true
	streams := slices.Clone(ss.posts)
	if ss.get != nil {
		streams = append(streams, ss.get)
	}
	streams = append(streams, ss.resumeStreams()...)
	ss.backlog = nil
	ss.mu.Unlock()

	ss.srv.mu.Lock()
	delete(ss.srv.sessions, ss.id)
	ss.srv.mu.Unlock()
	if clean {
		for _, st := range streams {
			st.finish(http.StatusNotFound, "session terminated")
		}
	}
	ss.conn.q.end()
	close(ss.conn.done)
	ss.srv.eventf("session %s ended: %s", ss.id, why)
}

func (s *HTTPServer) lookupSession(id string) *httpSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// checkVersion answers 400 for an MCP-Protocol-Version that is present and
// not supported (2025-11-25 "Protocol Version Header": "MUST respond with
// 400 Bad Request").
func (s *HTTPServer) checkVersion(w http.ResponseWriter, r *http.Request, id jsonrpc.ID) bool {
	v := r.Header.Get(HeaderProtocolVersion)
	if v == "" || slices.Contains(s.opts.SupportedVersions, v) {
		return true
	}
	s.eventf("HTTP 400 %s: unsupported MCP-Protocol-Version %q", r.Method, v)
	httpWriteJSONError(w, http.StatusBadRequest, id, codes.InvalidRequest, fmt.Sprintf("unsupported MCP-Protocol-Version %q", v))
	return false
}

func (s *HTTPServer) serveSessionPOST(w http.ResponseWriter, r *http.Request, body []byte) {
	fi := httpInspect(body)
	replyID := jsonrpc.ID("null")
	if fi.msg != nil && !fi.msg.ID.IsZero() {
		replyID = fi.msg.ID
	}
	sid := r.Header.Get(HeaderSessionID)
	isInit := fi.isRequest() && fi.msg.Method == "initialize"

	var ss *httpSession
	switch {
	case sid == "" && isInit:
		ss = s.newSession()
		w.Header().Set(HeaderSessionID, ss.id)
		s.eventf("session %s created", ss.id)
	case sid == "":
		s.eventf("HTTP 400 POST %s: missing Mcp-Session-Id", fi.describe())
		httpWriteJSONError(w, http.StatusBadRequest, replyID, codes.InvalidRequest, "missing Mcp-Session-Id")
		return
	default:
		ss = s.lookupSession(sid)
		if ss == nil {
			s.eventf("HTTP 404 POST %s: unknown session %q", fi.describe(), sid)
			httpWriteJSONError(w, http.StatusNotFound, replyID, codes.InvalidRequest, "session not found")
			return
		}
		if !isInit && !s.checkVersion(w, r, replyID) {
			return
		}
	}

	header := r.Header.Clone()
	if s.refusedNotification(w, fi) {
		return
	}
	if fi.isNotification() || fi.isResponse() {
		if err := ss.conn.q.pushWait(r.Context(), httpQueuedFrame{frame: body, header: header}); err != nil {
			return // the client gave up on its POST while we were full
		}
		s.eventf("HTTP 202 POST %s", fi.describe())
		w.WriteHeader(http.StatusAccepted)
		return
	}

	st := newHTTPStream("POST", fi.describe())
	cfg := httpServeConfig{timeout: s.opts.ResponseTimeout}
	if fi.isRequest() {
		st.idKey = httpRouteKey(fi.msg.ID.Key())
	} else if fi.rawIDKey != "" {
		st.idKey = httpRouteKey(fi.rawIDKey)
	}
	if !fi.isRequest() || fi.idKey == "" {
		// Unparsable body, not a message, or an id that cannot be read: the
		// engine answers with id null and the answer goes here with 400.
		st.nullPending = true
		cfg.statusFor = func([]byte) int { return http.StatusBadRequest }
	} else if !s.opts.JSONResponse && httpAccepts(r.Header, "text/event-stream") {
		st.allowSSE = true
		cfg.sseNow = true
	}

	ss.mu.Lock()
	if ss.ended {
		ss.mu.Unlock()
		httpWriteJSONError(w, http.StatusNotFound, replyID, codes.InvalidRequest, "session not found")
		return
	}
	ss.posts = append(ss.posts, st)
	ss.mu.Unlock()
	cfg.onEnd = func() {
		ss.mu.Lock()
		ss.posts = slices.DeleteFunc(ss.posts, func(p *httpStream) bool { return p == st })
		ss.mu.Unlock()
	}
	ss.conn.q.push(httpQueuedFrame{frame: body, header: header})
	if sid == "" {
		if err := s.handOver(r, ss.conn); err != nil {
			cfg.onEnd()
			close(st.done)
			ss.terminate("not accepted: "+err.Error(), true)
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	s.serve(w, r, st, cfg)
}

func (s *HTTPServer) newSession() *httpSession {
	ss := &httpSession{srv: s, id: rand.Text()}
	ss.conn = &httpSessionConn{sess: ss, q: newHTTPFrameQueue(), done: make(chan struct{})}
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss
}

// sessionFor finds the session of a GET or DELETE, answering 400/404 itself.
func (s *HTTPServer) sessionFor(w http.ResponseWriter, r *http.Request) *httpSession {
	sid := r.Header.Get(HeaderSessionID)
	if sid == "" {
		s.eventf("HTTP 400 %s: missing Mcp-Session-Id", r.Method)
		httpWriteJSONError(w, http.StatusBadRequest, nil, codes.InvalidRequest, "missing Mcp-Session-Id")
		return nil
	}
	ss := s.lookupSession(sid)
	if ss == nil {
		s.eventf("HTTP 404 %s: unknown session %q", r.Method, sid)
		httpWriteJSONError(w, http.StatusNotFound, nil, codes.InvalidRequest, "session not found")
		return nil
	}
	if !s.checkVersion(w, r, nil) {
		return nil
	}
	return ss
}

func (s *HTTPServer) serveDELETE(w http.ResponseWriter, r *http.Request) {
	ss := s.sessionFor(w, r)
	if ss == nil {
		return
	}
	ss.terminate("DELETE by client", true)
	s.eventf("HTTP 200 DELETE session %s", ss.id)
	w.WriteHeader(http.StatusOK)
}
