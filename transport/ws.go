package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mcpconform/mcpconform/jsonrpc"
)

// WebSocketSubprotocol is the subprotocol both sides ask for. WebSocket is
// not an MCP transport in the spec; mcpconform carries one JSON-RPC message
// per text frame.
const WebSocketSubprotocol = "mcp"

const (
	// DefaultWSMaxMessageBytes bounds one received WebSocket message.
	DefaultWSMaxMessageBytes = 16 << 20
	// wsCloseWait bounds sending our close frame and waiting for the peer's.
	wsCloseWait = time.Second
	// wsHandshakeTimeout bounds the opening handshake.
	wsHandshakeTimeout = 30 * time.Second
	// wsWriteTimeout bounds a Send whose ctx has no deadline.
	wsWriteTimeout = 30 * time.Second
	// wsWriteFloor is the least time a started write is given, whatever
	// is left of its ctx: a write that times out leaves the connection
	// unusable (gorilla keeps the error for every later write), so a
	// caller whose deadline is a moment away (a poller's last round)
	// must not break the session for everyone when the scheduler is slow.
	wsWriteFloor = time.Second
)

// WSConn is one WebSocket connection, client or server side: one frame per
// text message. Concurrent Sends are serialised.
type WSConn struct {
	ws      *websocket.Conn
	opts    Options
	side    string      // "client" or "server", for events
	header  http.Header // server side: the handshake request's headers
	onClose func()      // server side: drop from the server's set
	binary  bool        // Send uses binary frames (WSServerOptions.BinaryFrames)

	received int // messages read so far (the reader goroutine's own)

	// Client side: bytes read from the network, and how many of them had
	// been read when the last whole message was, so that a caller who gave
	// up waiting can be told of a message still trickling in (NoResponse).
	rx      *atomic.Int64
	atMsg   atomic.Int64
	lastMsg atomic.Int64 // unix nanoseconds of the last whole message (or the upgrade)

	wsem    chan struct{} // write lock that a waiting Send can give up on
	frames  chan []byte
	rdDone  chan struct{} // the reader ended; rdErr says why
	rdErr   error
	maxMsg  int64 // the read limit of one message
	closed  chan struct{}
	once    sync.Once
	onceErr error
}

var _ interface {
	Conn
	HandshakeCarrier
	ResponseWatcher
} = (*WSConn)(nil)

func newWSConn(ws *websocket.Conn, opts Options, side string, maxMsg int64) *WSConn {
	if maxMsg <= 0 {
		maxMsg = DefaultWSMaxMessageBytes
	}
	ws.SetReadLimit(maxMsg)
	c := &WSConn{
		maxMsg: maxMsg,
		ws:     ws,
		opts:   opts,
		side:   side,
		wsem:   make(chan struct{}, 1),
		frames: make(chan []byte),
		rdDone: make(chan struct{}),
		closed: make(chan struct{}),
	}
	c.lastMsg.Store(time.Now().UnixNano())
	return c // the caller sets its fields, then calls start
}

// start runs the reader.
func (c *WSConn) start() *WSConn {
	go c.read()
	return c
}

// DialWebSocket opens a WebSocket to url (ws:// or wss://) asking for the
// "mcp" subprotocol, with opts.Header in the handshake. A server that does
// not select "mcp" is recorded as an event, not refused. A handshake
// answered with an HTTP status wraps an *HTTPStatusError.
func DialWebSocket(ctx context.Context, url string, opts Options) (*WSConn, error) {
	rx := new(atomic.Int64)
	d := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: wsHandshakeTimeout,
		Subprotocols:     []string{WebSocketSubprotocol},
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var nd net.Dialer
			conn, err := nd.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wsCountingConn{conn, rx}, nil
		},
	}
	header := opts.Header.Clone()
	if header.Get("Sec-WebSocket-Protocol") != "" {
		d.Subprotocols = nil // the caller's own offer, for negotiation tests
	}
	start := time.Now()
	ws, resp, err := d.DialContext(ctx, url, header)
	if err != nil && resp == nil && wsTimedOut(ctx, err) {
		cause := ctx.Err()
		if dl, has := ctx.Deadline(); cause == nil && has && !time.Now().Before(dl) {
			cause = context.DeadlineExceeded // ctx's deadline, not marked done yet
		}
		if cause == nil {
			cause = err
		}
		se := &StallError{Shape: StallUpgrade, Err: cause, Detail: fmt.Sprintf(
			"WebSocket upgrade to %s not completed in %s", url, stallDur(time.Since(start)))}
		opts.Transcript.Eventf(opts.Session, "%v", se)
		return nil, se
	}
	if err != nil {
		if resp != nil {
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
				resp.Body.Close()
			}
			// gorilla's Dialer follows no redirect: a 3xx is the target's
			// answer to the upgrade, and says where it pointed.
			opts.Transcript.Eventf(opts.Session, "websocket handshake with %s failed: HTTP %d%s", url, resp.StatusCode, redirectSuffix(resp))
			return nil, fmt.Errorf("transport: websocket dial %s: %v: %w", url, err, statusError(resp, body))
		}
		opts.Transcript.Eventf(opts.Session, "websocket dial %s failed: %v", url, err)
		return nil, fmt.Errorf("transport: websocket dial %s: %w", url, err)
	}
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	opts.Transcript.Eventf(opts.Session, "websocket connected to %s (subprotocol %q)", url, ws.Subprotocol())
	if ws.Subprotocol() != WebSocketSubprotocol {
		opts.Transcript.Eventf(opts.Session, "websocket: server did not select subprotocol %q (got %q)", WebSocketSubprotocol, ws.Subprotocol())
		if d.Subprotocols != nil { // we asked for it (not a caller's own offer)
			got := "none"
			if ws.Subprotocol() != "" {
				got = fmt.Sprintf("%q", ws.Subprotocol())
			}
			opts.noteWire(NoteSubprotocol, fmt.Sprintf("the upgrade to %s selected subprotocol %s, not %q", url, got, WebSocketSubprotocol))
		}
	}
	c := newWSConn(ws, opts, "client", 0)
	c.rx = rx
	c.atMsg.Store(rx.Load())
	return c.start(), nil
}

// wsTimedOut reports a dial that failed because time ran out (the caller's
// ctx or the handshake timeout), not because it was refused.
func wsTimedOut(ctx context.Context, err error) bool {
	var ne net.Error
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func (c *WSConn) eventf(format string, args ...any) {
	c.opts.Transcript.Eventf(c.opts.Session, format, args...)
}

// read pumps messages to Recv until the connection fails. After Close it
// keeps reading, dropping data, until the peer's close frame arrives.
func (c *WSConn) read() {
	defer close(c.rdDone)
	for {
		typ, b, err := c.ws.ReadMessage()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				err = causeError{err, fmt.Sprintf("a WebSocket message exceeds the limit of %d bytes", c.maxMsg)}
			}
			c.rdErr = err
			select {
			case <-c.closed:
			default:
				c.eventf("websocket %s: connection ended: %v", c.side, err)
			}
			return
		}
		if typ == websocket.BinaryMessage {
			c.eventf("websocket %s: binary frame received (%d bytes); MCP over WebSocket uses text frames", c.side, len(b))
			c.opts.noteWire(NoteBinaryFrame, fmt.Sprintf("binary frame (%d bytes, message %d received) carrying %s",
				len(b), c.received+1, httpInspect(b).describe()))
		}
		c.received++
		if c.rx != nil {
			c.atMsg.Store(c.rx.Load())
		}
		c.lastMsg.Store(time.Now().UnixNano())
		select {
		case c.frames <- b:
		case <-c.closed:
		}
	}
}

// ResponseLost implements ResponseWatcher: a WebSocket carries no stream
// per request, so it never knows a response is lost before the connection is.
func (c *WSConn) ResponseLost(jsonrpc.ID) <-chan error { return nil }

// NoResponse implements ResponseWatcher: on the client side, when bytes
// arrived since the last whole message, the response may be the message
// still trickling in, and the error says so; plain silence returns nil.
func (c *WSConn) NoResponse(id jsonrpc.ID, cause error) error {
	if c.rx == nil {
		return nil
	}
	since := c.rx.Load() - c.atMsg.Load()
	if since <= 0 {
		return nil
	}
	se := &StallError{Shape: StallTrickle, Err: cause, Detail: fmt.Sprintf(
		"WebSocket message trickled: %s in %s since the last whole message, the JSON-RPC message is incomplete (no response to id %s)",
		stallBytes(since), stallDur(time.Since(time.Unix(0, c.lastMsg.Load()))), id.Key())}
	c.eventf("%v", se)
	return se
}

// wsCountingConn counts the bytes read from a client's network connection.
type wsCountingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c wsCountingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Subprotocol is the negotiated subprotocol ("" if none).
func (c *WSConn) Subprotocol() string { return c.ws.Subprotocol() }

// HandshakeHeader is, on the server side, the headers of the handshake
// request; nil on the client side.
func (c *WSConn) HandshakeHeader() http.Header { return c.header }

// RemoteAddr is the peer's network address.
func (c *WSConn) RemoteAddr() net.Addr { return c.ws.RemoteAddr() }

// Send writes frame as one text message (a binary one when the server was
// told to send BinaryFrames).
func (c *WSConn) Send(ctx context.Context, frame []byte) error {
	if c.binary {
		return c.write(ctx, websocket.BinaryMessage, frame)
	}
	return c.write(ctx, websocket.TextMessage, frame)
}

// SendBinary writes b as one binary message, for scenarios that check how a
// peer treats frames MCP does not use.
func (c *WSConn) SendBinary(ctx context.Context, b []byte) error {
	return c.write(ctx, websocket.BinaryMessage, b)
}

func (c *WSConn) write(ctx context.Context, typ int, b []byte) error {
	select {
	case c.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return ErrClosed
	}
	defer func() { <-c.wsem }()
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Once started, a write runs to its deadline and is not cut short by a
	// cancelled ctx: gorilla leaves a connection unusable after an
	// interrupted write, and a caller that gives up waiting (a poller that
	// stops) must not break the session for everyone. A timed-out write
	// still breaks it: that is what a peer that stops reading gets.
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(wsWriteTimeout)
	}
	if floor := time.Now().Add(wsWriteFloor); dl.Before(floor) {
		dl = floor
	}
	_ = c.ws.SetWriteDeadline(dl)
	start := time.Now()
	err := c.ws.WriteMessage(typ, b)
	if err == nil {
		return nil
	}
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		cause := err
		if ok {
			// The deadline was ctx's, which may not have been marked done yet.
			cause = context.DeadlineExceeded
		}
		se := &StallError{Shape: StallUnread, Err: cause, Detail: fmt.Sprintf(
			"the WebSocket peer stopped reading: a message of %d bytes not sent in %s", len(b), stallDur(time.Since(start)))}
		c.eventf("websocket %s: %v", c.side, se)
		return se
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, websocket.ErrCloseSent) {
		return fmt.Errorf("transport: websocket send after close: %w", io.EOF)
	}
	return fmt.Errorf("transport: websocket send: %w", err)
}

// Recv returns the next message's payload. A binary message is recorded as
// an event and returned all the same. Once the peer has closed the
// connection Recv returns io.EOF; other failures are returned as errors.
func (c *WSConn) Recv(ctx context.Context) ([]byte, error) {
	if isClosed(c.closed) {
		return nil, ErrClosed
	}
	select {
	case <-c.closed:
		return nil, ErrClosed
	case f := <-c.frames:
		return f, nil
	case <-c.rdDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if isClosed(c.closed) {
		return nil, ErrClosed
	}
	var ce *websocket.CloseError
	switch err := c.rdErr; {
	case errors.As(err, &ce),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return nil, io.EOF
	default:
		return nil, fmt.Errorf("transport: websocket receive: %w", err)
	}
}

// Close sends a close frame (normal closure), waits briefly for the peer's
// answer and closes the connection. It is idempotent.
func (c *WSConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		err := c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(wsCloseWait))
		if err == nil {
			t := time.NewTimer(wsCloseWait)
			select {
			case <-c.rdDone:
			case <-t.C:
			}
			t.Stop()
		}
		if err := c.ws.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			c.onceErr = err
		}
		<-c.rdDone // the read fails promptly once the socket is closed
		c.eventf("websocket %s: closed", c.side)
		if c.onClose != nil {
			c.onClose()
		}
	})
	return c.onceErr
}
