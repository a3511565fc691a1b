// Package transport moves whole JSON-RPC frames between mcpconform and a peer
// over stdio, Streamable HTTP (2025-11-25 sessions and 2026-07-28 stateless)
// and WebSocket, on both the client and the server side.
//
// Transports do not judge and do not repair: they carry bytes as given (a
// scenario may send malformed JSON on purpose), record transport events
// (HTTP status, process exit, close) in the transcript, and leave every
// verdict to the scenarios.
//
// Nothing a peer does keeps a caller past its ctx: every dial, read and
// write a caller waits on is bounded by the caller's deadline (on the server
// side, where no caller waits, by the server's response timeout), and a peer
// that stalls or trickles makes the call fail with a *StallError that names
// the shape ("HTTP 200 headers of POST tools/list id=3 arrived, then the body
// stalled: 0 bytes in 5s"), also recorded in the transcript. A caller
// waiting for a response uses ResponseWatcher to fail at once when the
// stream that had to carry it ended without it. What a connection sees on
// the wire that its frames cannot show (a wrong Content-Type, a binary
// WebSocket frame) goes to Options.OnWireNote.
package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Conn carries one message per frame in both directions.
type Conn interface {
	// Send writes one frame exactly as given.
	Send(ctx context.Context, frame []byte) error
	// Recv returns the next frame from the peer, io.EOF once the peer is gone
	// and nothing is left to read, or ctx.Err().
	Recv(ctx context.Context) ([]byte, error)
	// Close releases the connection; for a spawned process it runs the
	// shutdown sequence. Close is idempotent.
	Close() error
}

// Options configure a transport; every field is optional.
type Options struct {
	// Transcript receives transport events and, for stdio, the target's stderr.
	// Frames themselves are recorded by the caller (see Record).
	Transcript *jsonrpc.Transcript
	// Session labels this connection in the transcript ("A", "B", …).
	Session string
	// Header is added to every HTTP request or to the WebSocket handshake
	// (e.g. Authorization: Bearer …).
	Header http.Header
	// ProtocolVersion is sent as MCP-Protocol-Version on HTTP once known.
	ProtocolVersion string
	// OnWireNote, when set, is told what the connection saw on the wire that
	// its frames cannot show (see WireNote). It may be called from the
	// connection's reader goroutines and must not block.
	OnWireNote func(WireNote)
	// WrapHTTP, when set, wraps the round tripper of an HTTP client
	// connection: a client that authorizes itself (OAuth) adds its
	// credentials and answers a 401 or 403 challenge there, under the
	// transport, as an SDK's authorization layer does.
	WrapHTTP func(http.RoundTripper) http.RoundTripper
}

// VersionSetter is implemented by transports that carry the negotiated
// protocol version out of band (the MCP-Protocol-Version HTTP header).
type VersionSetter interface {
	SetProtocolVersion(v string)
}

// StatusReporter is implemented by HTTP client connections: the HTTP status
// of the POST that carried the request with this id.
type StatusReporter interface {
	ResponseStatus(id jsonrpc.ID) (status int, ok bool)
}

// LastStatusReporter is implemented by HTTP client connections
// (*HTTPClientConn): the HTTP status of the most recent POST (0 before any),
// for notifications and responses, which have no id to look up with
// StatusReporter.
type LastStatusReporter interface {
	LastStatus() int
}

// StderrHolder is implemented by stdio client connections (*StdioConn), whose
// target is a process mcpconform spawned: the last 64 KiB it wrote to
// stderr.
type StderrHolder interface {
	Stderr() string
}

// HeaderCarrier is implemented by server-side HTTP connections: the headers
// of the HTTP request that delivered the current message.
type HeaderCarrier interface {
	RequestHeader() http.Header
}

// HandshakeCarrier is implemented by server-side WebSocket connections: the
// headers of the upgrade request, which stand for every message on it (an
// Authorization header, say), unlike the per-POST headers of HTTP.
type HandshakeCarrier interface {
	HandshakeHeader() http.Header
}

// Listener accepts connections on the server side.
type Listener interface {
	// Accept waits for the next connection (a stdio pipe pair, an HTTP
	// session, a stateless HTTP request, or a WebSocket connection).
	Accept(ctx context.Context) (Conn, error)
	// Addr is what a client dials: a URL, or "stdio".
	Addr() string
	Close() error
}

// ErrClosed is returned by operations on a closed connection or listener.
var ErrClosed = errors.New("transport: closed")

// HTTPStatusError reports an HTTP response that carried no JSON-RPC message:
// a request answered 400/404/405 with a plain body, for example, or any 3xx
// (never followed: see NewHTTPClient), whose Redirect says where to.
type HTTPStatusError struct {
	Status   int
	Body     string
	Redirect string // RedirectNote of a 3xx answer ("" for none)
	// Header is the refusal's header (its WWW-Authenticate challenge).
	Header http.Header
}

func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.Status)
	if e.Redirect != "" {
		s += " " + e.Redirect
	}
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// statusError is the HTTPStatusError of resp, whose body (already read, at
// most its start) is body. A redirect's body is left out: it is a page for
// browsers that repeats the Location, unquoted.
func statusError(resp *http.Response, body []byte) *HTTPStatusError {
	se := &HTTPStatusError{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode/100 == 3 {
		se.Redirect = RedirectNote(resp)
		if se.Redirect != "" {
			return se
		}
	}
	se.Body = httpTrimBody(body)
	return se
}

// ctxKey keeps context keys private to this package.
type ctxKey int

const relatedRequestKey ctxKey = iota

// WithRelatedRequest marks a server-side Send as belonging to the request
// with this id, so Streamable HTTP can put it on that request's SSE stream.
func WithRelatedRequest(ctx context.Context, id jsonrpc.ID) context.Context {
	return context.WithValue(ctx, relatedRequestKey, id)
}

// RelatedRequest returns the id set by WithRelatedRequest.
func RelatedRequest(ctx context.Context) (jsonrpc.ID, bool) {
	id, ok := ctx.Value(relatedRequestKey).(jsonrpc.ID)
	return id, ok
}
