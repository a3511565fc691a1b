package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transport"
)

// The reference's fronts: a variant that bends a rule of the transport
// (transport rules, stateless headers, an initialize-era server, a
// protected resource) serves the reference's own endpoint behind a handler
// that sees every request on the listener first. listenFront is the one
// place such a listener is made.

// endpointPath is where the reference serves MCP, over HTTP and WebSocket.
const endpointPath = "/mcp"

// frontFunc makes the front of an endpoint: next serves the endpoint
// (requests to other paths get 404 from it); origin is the listener's
// http origin and url the endpoint's URL.
type frontFunc func(next http.Handler, origin, url string) http.Handler

// listenFront listens on addr and serves the reference's endpoint over
// kind (http or ws) behind front.
func listenFront(ctx context.Context, kind transport.Kind, addr string, opts transport.Options, front frontFunc) (transport.Listener, error) {
	return listenFrontWith(ctx, kind, addr, opts, front, false)
}

// listenFrontWith is listenFront; with rawHeads, the front can read the
// head of each connection's first request as it came (rawHead), before
// net/http canonicalized its header names and trimmed its values.
func listenFrontWith(ctx context.Context, kind transport.Kind, addr string, opts transport.Options, front frontFunc, rawHeads bool) (transport.Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	var connContext func(context.Context, net.Conn) context.Context
	if rawHeads {
		ln = headListener{ln}
		connContext = func(ctx context.Context, c net.Conn) context.Context {
			if hc, ok := c.(*headConn); ok {
				return context.WithValue(ctx, headConnKey{}, hc)
			}
			return ctx
		}
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	hostPort := net.JoinHostPort(host, port)
	var inner transport.Listener
	var endpoint http.Handler
	var url string
	switch kind {
	case transport.HTTP:
		hs := transport.NewHTTPServer(transport.HTTPServerOptions{Transcript: opts.Transcript, Session: opts.Session})
		inner, endpoint, url = hs, hs, "http://"+hostPort+endpointPath
	case transport.WS:
		url = "ws://" + hostPort + endpointPath
		ws := transport.NewWebSocketServer(transport.WSServerOptions{Options: opts, URL: url})
		inner, endpoint = ws, ws
	default:
		_ = ln.Close()
		return nil, fmt.Errorf("a reference front serves http or ws, not %s", kind)
	}
	mux := http.NewServeMux()
	mux.Handle(endpointPath, endpoint)
	srv := &http.Server{Handler: front(mux, "http://"+hostPort, url), ReadHeaderTimeout: 30 * time.Second, ConnContext: connContext}
	go func() { _ = srv.Serve(ln) }()
	return &frontListener{Listener: inner, srv: srv, url: url}, nil
}

// atEndpoint is a front that sees only the endpoint's requests: other
// paths go straight to next (and its 404).
func atEndpoint(h func(next http.Handler) http.Handler) frontFunc {
	return func(next http.Handler, _, _ string) http.Handler {
		fh := h(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != endpointPath {
				next.ServeHTTP(w, r)
				return
			}
			fh.ServeHTTP(w, r)
		})
	}
}

// frontListener is the reference's endpoint behind its front.
type frontListener struct {
	transport.Listener
	srv *http.Server
	url string
}

func (l *frontListener) Addr() string { return l.url }

func (l *frontListener) Close() error {
	err := l.Listener.Close()
	if cerr := l.srv.Close(); err == nil {
		err = cerr
	}
	return err
}

// headListener records the head of each connection's first request.
type headListener struct{ net.Listener }

func (l headListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &headConn{Conn: c}, nil
}

// maxRawHead bounds what a headConn keeps.
const maxRawHead = 64 << 10

// headConn keeps the bytes read until the first blank line (the first
// request's head), and counts the requests served on the connection.
type headConn struct {
	net.Conn
	mu     sync.Mutex
	head   []byte
	done   bool
	served int
}

func (c *headConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	if !c.done && n > 0 {
		c.head = append(c.head, b[:n]...)
		if i := bytes.Index(c.head, []byte("\r\n\r\n")); i >= 0 {
			c.head, c.done = c.head[:i+2], true
		} else if len(c.head) > maxRawHead {
			c.head, c.done = nil, true
		}
	}
	c.mu.Unlock()
	return n, err
}

type headConnKey struct{}

// rawHead is the header lines of r as they came, when r is the first
// request of its connection on a listener made with rawHeads (later ones
// on a kept-alive connection are not kept).
func rawHead(r *http.Request) ([]string, bool) {
	c, ok := r.Context().Value(headConnKey{}).(*headConn)
	if !ok {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.served++
	if c.served > 1 || !c.done || c.head == nil {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(string(c.head), "\r\n"), "\r\n")
	return lines[1:], true // after the request line
}
