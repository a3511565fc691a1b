package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
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
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
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
	srv := &http.Server{Handler: front(mux, "http://"+hostPort, url), ReadHeaderTimeout: 30 * time.Second}
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
