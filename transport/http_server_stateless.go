package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Stateless mode (2026-07-28): every POST is an exchange of its own, handed
// to Accept as one httpStatelessConn; GET and DELETE are refused with 405.

var _ interface {
	Conn
	HeaderCarrier
} = (*httpStatelessConn)(nil)

// statelessRequest is the rule that routes a request to stateless mode
// rather than to session mode: its MCP-Protocol-Version is a stateless
// version (2026-07-28 or one of HTTPServerOptions.StatelessVersions), or it
// has no Mcp-Session-Id and its body carries the 2026-07-28 per-request
// _meta protocol version (see modernMeta). GET and DELETE pass a nil body.
func (s *HTTPServer) statelessRequest(h http.Header, body []byte) bool {
	return s.stateless[h.Get(HeaderProtocolVersion)] ||
		(h.Get(HeaderSessionID) == "" && modernMeta(body))
}

// StatelessHTTPStatus is the HTTP status of a 2026-07-28 application/json
// answer carrying a JSON-RPC error with this code:
//   - codes.HeaderMismatch (-32020) → 400 (streamable-http.mdx "Server
//     Validation": "MUST return HTTP status 400 Bad Request");
//   - codes.UnsupportedProtocolVersion (-32022) → 400 (streamable-http.mdx
//     "Protocol Version Header": "MUST respond with 400 Bad Request");
//   - codes.MissingRequiredClientCapability (-32021) and codes.InvalidParams
//     (-32602) → 400 (basic/index.mdx: "On HTTP, the response status MUST be
//     400 Bad Request"; the spec states it for malformed _meta, the transport
//     cannot tell that -32602 from others and maps them all);
//   - codes.ParseError (-32700), codes.InvalidRequest (-32600) → 400 (the
//     input cannot be accepted; the spec does not name a status for these);
//   - codes.MethodNotFound (-32601) → 404 (streamable-http.mdx "Protocol
//     Version Header": "MUST respond with 404 Not Found and a JSON-RPC error
//     with code -32601");
//   - anything else → 200.
func StatelessHTTPStatus(code int) int {
	switch code {
	case codes.ParseError, codes.InvalidRequest, codes.InvalidParams,
		codes.HeaderMismatch, codes.MissingRequiredClientCapability, codes.UnsupportedProtocolVersion:
		return http.StatusBadRequest
	case codes.MethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

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
	if s.refusedNotification(w, fi) {
		return
	}
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
