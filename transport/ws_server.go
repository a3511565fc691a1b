package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// DefaultWSPath is where ListenWebSocket serves.
const DefaultWSPath = "/mcp"

// WSServerOptions configure a WebSocket server.
type WSServerOptions struct {
	Options
	// Path is the endpoint ListenWebSocket serves (default "/mcp").
	Path string
	// URL is what Addr reports for a server created with
	// NewWebSocketServer and mounted by the caller; ListenWebSocket sets
	// it itself.
	URL string
	// CheckOrigin decides whether a handshake's Origin is acceptable. The
	// default accepts requests without Origin and origins whose host is
	// localhost or 127.0.0.1; others are refused with 403.
	CheckOrigin func(r *http.Request) bool
	// MaxMessageBytes bounds one received message (default
	// DefaultWSMaxMessageBytes).
	MaxMessageBytes int64
	// BinaryFrames sends every message in a binary frame instead of a text
	// frame (a reference-server fault: MCP messages travel in text frames).
	BinaryFrames bool
	// NoSubprotocol completes the upgrade without selecting the "mcp"
	// subprotocol the client offers (a reference-server fault).
	NoSubprotocol bool
}

// WSServer accepts WebSocket connections, each one a Conn returned by
// Accept. It is an http.Handler (mount it anywhere) and a Listener.
type WSServer struct {
	opts     WSServerOptions
	upgrader websocket.Upgrader
	accepts  chan *WSConn

	mu    sync.Mutex
	conns map[*WSConn]struct{}

	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error

	url       string
	httpSrv   *http.Server
	serveDone chan struct{}
}

var (
	_ Listener     = (*WSServer)(nil)
	_ http.Handler = (*WSServer)(nil)
)

// localOrigin accepts a missing Origin or a localhost / 127.0.0.1 one.
func localOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return h == "localhost" || h == "127.0.0.1"
}

// NewWebSocketServer returns a WebSocket server to mount as an http.Handler.
func NewWebSocketServer(opts WSServerOptions) *WSServer {
	if opts.CheckOrigin == nil {
		opts.CheckOrigin = localOrigin
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultWSMaxMessageBytes
	}
	s := &WSServer{
		opts:    opts,
		accepts: make(chan *WSConn, 16),
		conns:   make(map[*WSConn]struct{}),
		closed:  make(chan struct{}),
		url:     opts.URL,
	}
	subprotocols := []string{WebSocketSubprotocol}
	if opts.NoSubprotocol {
		subprotocols = nil // gorilla then selects none
	}
	s.upgrader = websocket.Upgrader{
		HandshakeTimeout: wsHandshakeTimeout,
		Subprotocols:     subprotocols,
		CheckOrigin:      opts.CheckOrigin,
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			s.eventf("websocket upgrade from %s refused: HTTP %d: %v", r.RemoteAddr, status, reason)
			http.Error(w, http.StatusText(status), status)
		},
	}
	return s
}

// ListenWebSocket serves a WebSocket server on addr (e.g. "127.0.0.1:0") at
// opts.Path (default "/mcp"). ctx bounds the listen only; Close stops the
// server. Addr returns the ws:// URL to dial.
func ListenWebSocket(ctx context.Context, addr string, opts WSServerOptions) (*WSServer, error) {
	path := opts.Path
	if path == "" {
		path = DefaultWSPath
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: websocket listen %s: %w", addr, err)
	}
	s := NewWebSocketServer(opts)
	s.url = "ws://" + ln.Addr().String() + path
	mux := http.NewServeMux()
	mux.Handle(path, s)
	s.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: wsHandshakeTimeout}
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.httpSrv.Serve(ln)
	}()
	s.eventf("websocket server listening on %s", s.url)
	return s, nil
}

func (s *WSServer) eventf(format string, args ...any) {
	s.opts.Transcript.Eventf(s.opts.Session, format, args...)
}

// ServeHTTP upgrades the request and queues the connection for Accept.
func (s *WSServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.closed:
		http.Error(w, "server closed", http.StatusServiceUnavailable)
		return
	default:
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered and recorded it
	}
	c := newWSConn(ws, s.opts.Options, "server", s.opts.MaxMessageBytes)
	c.header = r.Header.Clone()
	c.binary = s.opts.BinaryFrames
	c.onClose = func() { s.forget(c) }
	c.start()
	s.eventf("websocket connection from %s (subprotocol %q)", r.RemoteAddr, ws.Subprotocol())
	if ws.Subprotocol() != WebSocketSubprotocol && !s.opts.NoSubprotocol {
		s.eventf("websocket: client %s did not offer subprotocol %q (offered %q)",
			r.RemoteAddr, WebSocketSubprotocol, r.Header.Values("Sec-WebSocket-Protocol"))
	}
	s.mu.Lock()
	select {
	case <-s.closed:
		s.mu.Unlock()
		c.Close()
		return
	default:
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	select {
	case s.accepts <- c:
	case <-s.closed: // Close ends c along with the rest
	}
}

func (s *WSServer) forget(c *WSConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Accept returns the next upgraded connection.
func (s *WSServer) Accept(ctx context.Context) (Conn, error) {
	select {
	case <-s.closed:
		return nil, ErrClosed
	default:
	}
	select {
	case c := <-s.accepts:
		return c, nil
	case <-s.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Addr is the ws:// URL to dial ("" for a mounted server without opts.URL).
func (s *WSServer) Addr() string { return s.url }

// Close refuses new connections, closes every connection (accepted or not)
// and, for ListenWebSocket, stops the HTTP server. It is idempotent.
func (s *WSServer) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		close(s.closed)
		conns := make([]*WSConn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Add(1)
			go func() { defer wg.Done(); c.Close() }()
		}
		if s.httpSrv != nil {
			if err := s.httpSrv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.closeErr = err
			}
			t := time.NewTimer(wsHandshakeTimeout)
			select {
			case <-s.serveDone:
			case <-t.C:
			}
			t.Stop()
		}
		wg.Wait()
		s.eventf("websocket server closed")
	})
	return s.closeErr
}
