package transport

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// HTTPServerOptions configure the server side of Streamable HTTP; every field
// is optional.
type HTTPServerOptions struct {
	// Transcript receives transport events (statuses, sessions, streams).
	Transcript *jsonrpc.Transcript
	// Session labels the events in the transcript.
	Session string
	// Path is where ListenHTTP serves the MCP endpoint; default "/mcp".
	// (NewHTTPServer answers on whatever path it is mounted at.)
	Path string
	// JSONResponse makes session-mode POSTs that carry a request answer with
	// one application/json body instead of an SSE stream. Messages related to
	// such a request then go to the GET stream.
	JSONResponse bool
	// SupportedVersions are the MCP-Protocol-Version values accepted in
	// session mode; default 2025-11-25, 2025-06-18, 2025-03-26.
	SupportedVersions []string
	// StatelessVersions are protocol versions served statelessly, in
	// addition to 2026-07-28.
	StatelessVersions []string
	// AllowedOrigins lists the Origin values accepted ("*" accepts all). When
	// empty, only a missing Origin or http(s)://localhost, 127.0.0.1 or [::1]
	// with any port is accepted. Others get 403.
	AllowedOrigins []string
	// ResponseTimeout bounds how long a POST waits for the next message of
	// its request (the timer restarts with every SSE event); when it runs out
	// before anything was written the POST ends with 504. Default 30s.
	ResponseTimeout time.Duration
	// DisableGET answers every GET with 405 (no standalone SSE stream).
	DisableGET bool
	// QueueLimit bounds the frames held for a session that has no stream to
	// carry them until a GET stream opens; default 1024.
	QueueLimit int
}

// DefaultSupportedVersions are the session-mode protocol versions accepted
// when HTTPServerOptions.SupportedVersions is empty.
var DefaultSupportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// HTTPServer is the server side of Streamable HTTP. It is an http.Handler
// and a Listener: Accept yields one Conn per 2025-11-25 session (created by
// an initialize POST) and one Conn per 2026-07-28 stateless POST (a POST
// whose MCP-Protocol-Version is a stateless version).
type HTTPServer struct {
	opts      HTTPServerOptions
	stateless map[string]bool
	accept    chan Conn
	closed    chan struct{}
	closeOnce sync.Once
	srv       *http.Server
	addr      string

	mu       sync.Mutex
	closing  bool
	handlers sync.WaitGroup
	sessions map[string]*httpSession
}

var (
	_ Listener     = (*HTTPServer)(nil)
	_ http.Handler = (*HTTPServer)(nil)
	_ interface {
		Conn
		HeaderCarrier
	} = (*httpSessionConn)(nil)
	_ interface {
		Conn
		HeaderCarrier
	} = (*httpStatelessConn)(nil)
)

// NewHTTPServer makes a server to mount as an http.Handler.
func NewHTTPServer(opts HTTPServerOptions) *HTTPServer {
	if len(opts.SupportedVersions) == 0 {
		opts.SupportedVersions = DefaultSupportedVersions
	}
	if opts.ResponseTimeout <= 0 {
		opts.ResponseTimeout = 30 * time.Second
	}
	if opts.QueueLimit <= 0 {
		opts.QueueLimit = 1024
	}
	if opts.Path == "" {
		opts.Path = "/mcp"
	}
	st := map[string]bool{StatelessVersion: true}
	for _, v := range opts.StatelessVersions {
		st[v] = true
	}
	return &HTTPServer{
		opts:      opts,
		stateless: st,
		accept:    make(chan Conn, 16),
		closed:    make(chan struct{}),
		sessions:  map[string]*httpSession{},
	}
}

// ListenHTTP starts an HTTP server on addr (use "127.0.0.1:0" for an
// ephemeral loopback port) serving the MCP endpoint at opts.Path ("/mcp").
// ctx bounds only the listen; the server runs until Close.
func ListenHTTP(ctx context.Context, addr string, opts HTTPServerOptions) (*HTTPServer, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := NewHTTPServer(opts)
	mux := http.NewServeMux()
	mux.Handle(s.opts.Path, s)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.addr = "http://" + net.JoinHostPort(host, port) + s.opts.Path
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the endpoint URL when started by ListenHTTP ("" otherwise).
func (s *HTTPServer) Addr() string { return s.addr }

// Accept waits for the next session or stateless request.
func (s *HTTPServer) Accept(ctx context.Context) (Conn, error) {
	select {
	case <-s.closed:
		return nil, ErrClosed
	default:
	}
	select {
	case c := <-s.accept:
		return c, nil
	case <-s.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends every session (their Conns' Recv return io.EOF), aborts every
// open response (clients see the connection drop, as if the server died),
// makes Accept return ErrClosed and stops the http.Server started by
// ListenHTTP. It is idempotent.
func (s *HTTPServer) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		sessions := make([]*httpSession, 0, len(s.sessions))
		for _, ss := range s.sessions {
			sessions = append(sessions, ss)
		}
		s.mu.Unlock()
		close(s.closed)
		for _, ss := range sessions {
			ss.terminate("server closed", false)
		}
		if s.srv != nil {
			err = s.srv.Close()
		}
		s.handlers.Wait()
	})
	return err
}

func (s *HTTPServer) eventf(format string, args ...any) {
	s.opts.Transcript.Eventf(s.opts.Session, format, args...)
}

// ServeHTTP implements the MCP endpoint.
func (s *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		http.Error(w, "server closed", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	// 2025-11-25 and 2026-07-28 "Security Warning": validate Origin, 403 if
	// present and invalid; the body MAY be a JSON-RPC error without id.
	if origin := r.Header.Get("Origin"); !s.originAllowed(origin) {
		s.eventf("HTTP 403 %s: Origin %q not allowed", r.Method, origin)
		httpWriteJSONError(w, http.StatusForbidden, nil, -32600, "Origin not allowed")
		return
	}
	stateless := s.stateless[r.Header.Get(HeaderProtocolVersion)]
	switch r.Method {
	case http.MethodPost:
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
		if err != nil {
			s.eventf("HTTP POST: reading body: %v", err)
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		if len(body) > maxHTTPBody {
			s.eventf("HTTP 413 POST: body over %d bytes", maxHTTPBody)
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if !stateless && r.Header.Get(HeaderSessionID) == "" && modernMeta(body) {
			stateless = true
		}
		if stateless {
			s.serveStatelessPOST(w, r, body)
		} else {
			s.serveSessionPOST(w, r, body)
		}
	case http.MethodGet:
		if stateless || s.opts.DisableGET {
			// 2026-07-28 "Earlier Streamable HTTP Revisions": GET → 405.
			s.eventf("HTTP 405 GET")
			w.Header().Set("Allow", "POST")
			http.Error(w, "no SSE stream on GET", http.StatusMethodNotAllowed)
			return
		}
		s.serveGET(w, r)
	case http.MethodDelete:
		if stateless {
			s.eventf("HTTP 405 DELETE")
			w.Header().Set("Allow", "POST")
			http.Error(w, "no sessions", http.StatusMethodNotAllowed)
			return
		}
		s.serveDELETE(w, r)
	default:
		s.eventf("HTTP 405 %s", r.Method)
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (s *HTTPServer) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	if len(s.opts.AllowedOrigins) > 0 {
		for _, a := range s.opts.AllowedOrigins {
			if a == "*" || strings.EqualFold(a, origin) {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// StatelessHTTPStatus is the HTTP status of a 2026-07-28 application/json
// answer carrying a JSON-RPC error with this code:
//   - -32020 HeaderMismatch → 400 (streamable-http.mdx "Server Validation":
//     "MUST return HTTP status 400 Bad Request");
//   - -32022 UnsupportedProtocolVersion → 400 (streamable-http.mdx "Protocol
//     Version Header": "MUST respond with 400 Bad Request");
//   - -32021 MissingRequiredClientCapability → 400 and -32602 Invalid params
//     → 400 (basic/index.mdx: "On HTTP, the response status MUST be 400 Bad
//     Request"; the spec states it for malformed _meta, the transport cannot
//     tell that -32602 from others and maps them all);
//   - -32700 Parse error, -32600 Invalid request → 400 (the input cannot be
//     accepted; the spec does not name a status for these);
//   - -32601 Method not found → 404 (streamable-http.mdx "Protocol Version
//     Header": "MUST respond with 404 Not Found and a JSON-RPC error with
//     code -32601");
//   - anything else → 200.
func StatelessHTTPStatus(code int) int {
	switch code {
	case -32700, -32600, -32602, -32020, -32021, -32022:
		return http.StatusBadRequest
	case -32601:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// ---------------------------------------------------------------------------
// Streams: one per open POST that carries a request, one per GET.

type httpOutMsg struct {
	frame []byte
	final bool // ends the stream once written
	errc  chan error
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
	defer func() {
		if cfg.onEnd != nil {
			cfg.onEnd()
		}
		close(st.done)
	}()
	startSSE := func() error {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		started = true
		s.eventf("HTTP 200 %s %s (text/event-stream)", st.kind, st.label)
		return rc.Flush()
	}
	writeEvent := func(frame []byte) error {
		if _, err := w.Write(appendSSEEvent(nil, "", "", frame)); err != nil {
			return err
		}
		return rc.Flush()
	}
	if cfg.sseNow {
		if err := startSSE(); err != nil {
			return
		}
	}
	for _, f := range cfg.initial {
		if err := writeEvent(f); err != nil {
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
			if !started && m.final {
				status := http.StatusOK
				if cfg.statusFor != nil {
					status = cfg.statusFor(m.frame)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, err := w.Write(m.frame)
				m.errc <- err
				s.eventf("HTTP %d %s %s (application/json)", status, st.kind, st.label)
				return
			}
			var err error
			if !started {
				err = startSSE()
			}
			if err == nil {
				err = writeEvent(m.frame)
			}
			m.errc <- err
			if err != nil {
				s.eventf("SSE %s %s: write failed: %v", st.kind, st.label, err)
				return
			}
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
			if !started {
				s.eventf("HTTP %d %s %s: %s", st.endStatus, st.kind, st.label, st.endMessage)
				http.Error(w, st.endMessage, st.endStatus)
			}
			return
		case <-timeout:
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

// handOver gives a new Conn to Accept. It fails when the client goes away,
// the server closes, or nobody accepts within the response timeout.
func (s *HTTPServer) handOver(r *http.Request, c Conn) error {
	t := time.NewTimer(s.opts.ResponseTimeout)
	defer t.Stop()
	select {
	case s.accept <- c:
		return nil
	case <-r.Context().Done():
		return r.Context().Err()
	case <-s.closed:
		return ErrClosed
	case <-t.C:
		return errors.New("no Accept within the response timeout")
	}
}

// ---------------------------------------------------------------------------
// Stateless (2026-07-28).

// httpStatelessConn is one 2026-07-28 POST: Recv yields its body once and
// then io.EOF when the exchange is over (answered, timed out, or the client
// closed the stream, which 2026-07-28 defines as cancellation); Send of a
// notification or request switches the answer to SSE, Send of anything else
// (a response, or a frame that does not parse) is the final answer.
type httpStatelessConn struct {
	srv    *HTTPServer
	header http.Header
	body   []byte
	st     *httpStream // nil when the POST carried no request (answered 202)
	done   chan struct{}

	mu        sync.Mutex
	delivered bool
	closed    bool
}

var errHTTPNoOpenRequest = errors.New("transport: the POST carried no request, nothing can be sent on it")

func (c *httpStatelessConn) Recv(ctx context.Context) ([]byte, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, io.EOF
	}
	if !c.delivered {
		c.delivered = true
		c.mu.Unlock()
		return append([]byte(nil), c.body...), nil
	}
	c.mu.Unlock()
	select {
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *httpStatelessConn) Send(ctx context.Context, frame []byte) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if c.st == nil {
		return errHTTPNoOpenRequest
	}
	fi := httpInspect(frame)
	m := &httpOutMsg{frame: frame, final: !(fi.isRequest() || fi.isNotification()), errc: make(chan error, 1)}
	ok, err := c.st.deliver(ctx, m)
	if !ok {
		return ErrClosed
	}
	return err
}

// Close ends the exchange; a request not answered yet gets 500.
func (c *httpStatelessConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	if c.st != nil {
		c.st.finish(http.StatusInternalServerError, "closed without a response")
	}
	return nil
}

// RequestHeader is the header of the POST.
func (c *httpStatelessConn) RequestHeader() http.Header { return c.header.Clone() }

// Done is closed when the exchange is over, including when the client
// closed the response stream (cancellation in 2026-07-28).
func (c *httpStatelessConn) Done() <-chan struct{} { return c.done }

func (s *HTTPServer) serveStatelessPOST(w http.ResponseWriter, r *http.Request, body []byte) {
	fi := httpInspect(body)
	c := &httpStatelessConn{srv: s, header: r.Header.Clone(), body: body}
	if fi.isNotification() || fi.isResponse() {
		done := make(chan struct{})
		close(done)
		c.done = done
		if err := s.handOver(r, c); err != nil {
			s.eventf("HTTP 503 POST %s: %v", fi.describe(), err)
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		s.eventf("HTTP 202 POST %s", fi.describe())
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newHTTPStream("POST", fi.describe())
	st.allowSSE = true
	c.st, c.done = st, st.done
	if err := s.handOver(r, c); err != nil {
		s.eventf("HTTP 503 POST %s: %v", fi.describe(), err)
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		close(st.done)
		return
	}
	s.serve(w, r, st, httpServeConfig{
		statusFor: func(frame []byte) int {
			if fi := httpInspect(frame); fi.msg != nil && fi.msg.Error != nil {
				return StatelessHTTPStatus(fi.msg.Error.Code)
			}
			return http.StatusOK
		},
		timeout: s.opts.ResponseTimeout,
	})
}

// ---------------------------------------------------------------------------
// Sessions (2025-11-25).

type httpSession struct {
	srv  *HTTPServer
	id   string
	conn *httpSessionConn

	mu      sync.Mutex
	ended   bool
	posts   []*httpStream // open POSTs carrying a request, oldest first
	get     *httpStream
	backlog [][]byte // frames waiting for a GET stream
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
		var st *httpStream
		final := false
		if fi.isResponse() {
			final = true
			key := fi.msg.ID.Key()
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
					if p.allowSSE && p.idKey == id.Key() {
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
	httpWriteJSONError(w, http.StatusBadRequest, id, -32600, fmt.Sprintf("unsupported MCP-Protocol-Version %q", v))
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
		httpWriteJSONError(w, http.StatusBadRequest, replyID, -32600, "missing Mcp-Session-Id")
		return
	default:
		ss = s.lookupSession(sid)
		if ss == nil {
			s.eventf("HTTP 404 POST %s: unknown session %q", fi.describe(), sid)
			httpWriteJSONError(w, http.StatusNotFound, replyID, -32600, "session not found")
			return
		}
		if !isInit && !s.checkVersion(w, r, replyID) {
			return
		}
	}

	header := r.Header.Clone()
	if fi.isNotification() || fi.isResponse() {
		ss.conn.q.push(httpQueuedFrame{frame: body, header: header})
		s.eventf("HTTP 202 POST %s", fi.describe())
		w.WriteHeader(http.StatusAccepted)
		return
	}

	st := newHTTPStream("POST", fi.describe())
	cfg := httpServeConfig{timeout: s.opts.ResponseTimeout}
	if fi.isRequest() {
		st.idKey = fi.msg.ID.Key()
	} else if fi.rawIDKey != "" {
		st.idKey = fi.rawIDKey
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
		httpWriteJSONError(w, http.StatusNotFound, replyID, -32600, "session not found")
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
		httpWriteJSONError(w, http.StatusBadRequest, nil, -32600, "missing Mcp-Session-Id")
		return nil
	}
	ss := s.lookupSession(sid)
	if ss == nil {
		s.eventf("HTTP 404 %s: unknown session %q", r.Method, sid)
		httpWriteJSONError(w, http.StatusNotFound, nil, -32600, "session not found")
		return nil
	}
	if !s.checkVersion(w, r, nil) {
		return nil
	}
	return ss
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
	st := newHTTPStream("GET", "stream")
	st.allowSSE = true
	ss.mu.Lock()
	if ss.ended {
		ss.mu.Unlock()
		httpWriteJSONError(w, http.StatusNotFound, nil, -32600, "session not found")
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
		s.eventf("session %s: GET with Last-Event-ID %q (no replay: event ids are not issued)", ss.id, id)
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

func (s *HTTPServer) serveDELETE(w http.ResponseWriter, r *http.Request) {
	ss := s.sessionFor(w, r)
	if ss == nil {
		return
	}
	ss.terminate("DELETE by client", true)
	s.eventf("HTTP 200 DELETE session %s", ss.id)
	w.WriteHeader(http.StatusOK)
}

// writeJSONError answers with a JSON-RPC error; a nil id leaves "id" out
// (the form the spec allows for 403 and for rejected notifications).
func httpWriteJSONError(w http.ResponseWriter, status int, id jsonrpc.ID, code int, msg string) {
	m := jsonrpc.NewError(id, code, msg, nil)
	if id == nil {
		m.ID = nil
	}
	b, err := m.Encode()
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
