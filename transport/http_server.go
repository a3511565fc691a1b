package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
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
	// before anything was written the POST ends with 504. It also bounds
	// reading a request body (a client that stalls it gets 408) and a write
	// whose sender set no deadline (a client that stops reading). Default
	// 30s.
	ResponseTimeout time.Duration
	// DisableGET answers every GET with 405 (no standalone SSE stream).
	DisableGET bool
	// QueueLimit bounds the frames held for a session that has no stream to
	// carry them until a GET stream opens; default 1024.
	QueueLimit int
	// ResponseContentType, when set, replaces the Content-Type of every
	// answer to a POST that carries JSON-RPC messages (application/json
	// bodies and SSE streams); ContentTypeNone sends no Content-Type at all.
	// It makes a server break the transport rule on purpose (a
	// reference-server fault). GET streams and the transport's own refusals
	// (4xx with a JSON-RPC error) keep theirs, so that the fault breaks one
	// rule only and a scenario can go on to be judged.
	ResponseContentType string
	// Wrap, when set, wraps the handler ListenHTTP serves (the MCP endpoint
	// at Path): the wrapper sees every request on the listener first, so a
	// protected resource can serve its metadata beside the endpoint and
	// refuse a request without a valid token before the MCP server reads it.
	Wrap func(http.Handler) http.Handler
}

// ContentTypeNone as HTTPServerOptions.ResponseContentType sends responses
// without a Content-Type header.
const ContentTypeNone = "none"

// setBodyType sets the Content-Type of a response that carries JSON-RPC,
// honouring ResponseContentType for answers to POSTs.
func (s *HTTPServer) setBodyType(h http.Header, kind, ct string) {
	if kind != http.MethodPost {
		h.Set("Content-Type", ct)
		return
	}
	switch s.opts.ResponseContentType {
	case "":
		h.Set("Content-Type", ct)
	case ContentTypeNone:
		// A nil entry, unlike a missing one, stops net/http from sniffing
		// a Content-Type from the body.
		h["Content-Type"] = nil
	default:
		h.Set("Content-Type", s.opts.ResponseContentType)
	}
}

// bodyTypeName is the Content-Type setBodyType sends, for the transcript.
func (s *HTTPServer) bodyTypeName(kind, ct string) string {
	switch {
	case kind != http.MethodPost || s.opts.ResponseContentType == "":
		return ct
	case s.opts.ResponseContentType == ContentTypeNone:
		return "no content type"
	default:
		return s.opts.ResponseContentType
	}
}

// DefaultSupportedVersions are the session-mode protocol versions accepted
// when HTTPServerOptions.SupportedVersions is empty: the version table's
// judged stateful ones.
var DefaultSupportedVersions = protocol.JudgedStateful()

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
	refuse   func(method string) *jsonrpc.Error
}

// RefuseNotifications installs f, asked about every notification POSTed in
// either mode before it is accepted: when f returns an error, the POST is
// answered 400 Bad Request with that JSON-RPC error, without an id, as its
// body, and the notification is not delivered (transports.mdx, "Sending
// Messages to the Server": "If the server cannot accept the input, it MUST
// return an HTTP error status code (e.g., 400 Bad Request). The HTTP
// response body MAY comprise a JSON-RPC error response that has no id.").
// nil accepts every notification with 202.
func (s *HTTPServer) RefuseNotifications(f func(method string) *jsonrpc.Error) {
	s.mu.Lock()
	s.refuse = f
	s.mu.Unlock()
}

// refusedNotification answers a notification POST that the server refuses,
// and reports whether it did.
func (s *HTTPServer) refusedNotification(w http.ResponseWriter, fi httpFrameInfo) bool {
	s.mu.Lock()
	refuse := s.refuse
	s.mu.Unlock()
	if refuse == nil || !fi.isNotification() {
		return false
	}
	e := refuse(fi.msg.Method)
	if e == nil {
		return false
	}
	s.eventf("HTTP 400 POST %s: notification refused", fi.describe())
	httpWriteJSONError(w, http.StatusBadRequest, nil, e.Code, e.Message)
	return true
}

// The server side of Streamable HTTP is split by mode: this file holds the
// listener and what both modes share; http_server_session.go the 2025-11-25
// sessions, http_server_stateless.go the 2026-07-28 stateless POSTs,
// http_server_stream.go the response streams (SSE, the GET stream) and
// http_server_origin.go the Origin policy.

var (
	_ Listener     = (*HTTPServer)(nil)
	_ http.Handler = (*HTTPServer)(nil)
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
	st := map[string]bool{}
	for _, v := range protocol.JudgedStateless() {
		st[v] = true
	}
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
	var h http.Handler = mux
	if opts.Wrap != nil {
		h = opts.Wrap(mux)
	}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
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

// ServeHTTP implements the MCP endpoint: it checks the Origin (origin
// policy), then hands the request to stateless mode (2026-07-28) or session
// mode (2025-11-25) as statelessRequest decides.
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

	if !s.checkOrigin(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		body, ok := s.readBody(w, r)
		if !ok {
			return
		}
		if s.statelessRequest(r.Header, body) {
			s.serveStatelessPOST(w, r, body)
		} else {
			s.serveSessionPOST(w, r, body)
		}
	case http.MethodGet:
		if s.statelessRequest(r.Header, nil) || s.opts.DisableGET {
			// 2026-07-28 "Earlier Streamable HTTP Revisions": GET → 405.
			s.eventf("HTTP 405 GET")
			w.Header().Set("Allow", "POST")
			http.Error(w, "no SSE stream on GET", http.StatusMethodNotAllowed)
			return
		}
		s.serveGET(w, r)
	case http.MethodDelete:
		if s.statelessRequest(r.Header, nil) {
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

// readBody reads a POST body of at most maxHTTPBody bytes, answering 400,
// 408 or 413 itself when it cannot. A client that sends its headers and
// then stalls or trickles the body gets ResponseTimeout to finish it.
func (s *HTTPServer) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	rc := http.NewResponseController(w)
	start := time.Now()
	deadline := rc.SetReadDeadline(start.Add(s.opts.ResponseTimeout)) == nil
	var n atomic.Int64
	body, err := io.ReadAll(io.LimitReader(countingReader{r.Body, &n}, maxHTTPBody+1))
	if deadline && err == nil {
		// Lifted again: net/http reads on after the body to notice a client
		// that goes away, and a long SSE answer must not end at this deadline.
		// After a failure it stays, or net/http would wait for ever to
		// discard the rest of the body before answering.
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		w.Header().Set("Connection", "close")
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			_, tail := bodyStallTail(n.Load(), time.Since(start))
			s.eventf("HTTP 408 POST: the request headers arrived, then the body %s", tail)
			http.Error(w, "request body not received in time", http.StatusRequestTimeout)
			return nil, false
		}
		s.eventf("HTTP POST: reading body: %v", err)
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return nil, false
	}
	if len(body) > maxHTTPBody {
		s.eventf("HTTP 413 POST: body over %d bytes", maxHTTPBody)
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	return body, true
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

// httpWriteJSONError answers with a JSON-RPC error; a nil id leaves "id" out
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
