package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// ErrStreamNotOffered is returned (wrapped together with an *HTTPStatusError
// carrying 405) by OpenStream when the server answers the GET with 405 Method
// Not Allowed, which the spec allows: the server offers no standalone SSE
// stream. Test it with errors.Is.
var ErrStreamNotOffered = errors.New("transport: server offers no SSE stream on GET (405)")

// ErrBodyTooLarge is returned (wrapped) by Send when a JSON answer's body
// exceeds maxHTTPBody.
var ErrBodyTooLarge = errors.New("transport: HTTP body too large")

// maxHTTPBody bounds a JSON response body read by the client and a POST body
// read by the server.
const maxHTTPBody = 32 << 20

// httpMaxRetryDelay caps the SSE retry field the client honours when resuming.
const httpMaxRetryDelay = 30 * time.Second

// Resumption of an SSE stream the server keeps ending without delivering
// anything (readStream): the backoff starts at httpResumeBackoff and doubles
// up to httpMaxResumeBackoff; httpMaxIdleResumptions such resumptions in a
// row end a stream no step waits on with a deadline; the transcript records
// the first httpResumesRecorded resumptions of a stream and counts the rest.
const (
	httpMaxIdleResumptions = 10
	httpResumesRecorded    = 3
)

// Variables, so that a test can make a resumption loop quick.
var (
	httpResumeBackoff    = 100 * time.Millisecond
	httpMaxResumeBackoff = 5 * time.Second
)

// HTTPClientConn is the client side of Streamable HTTP: every Send is one
// POST, every JSON body or SSE event data in the answers is one frame for
// Recv. It serves both the 2025-11-25 session flavour (DialHTTP) and the
// 2026-07-28 stateless flavour (DialStatelessHTTP).
//
// It implements Conn, VersionSetter, StatusReporter and LastStatusReporter.
type HTTPClientConn struct {
	url       string
	opts      Options
	stateless bool
	hc        *http.Client

	ctx    context.Context // ends when the conn closes; parent of every request
	cancel context.CancelFunc
	q      *httpFrameQueue
	wg     sync.WaitGroup

	closeOnce sync.Once

	mu          sync.Mutex
	closed      bool
	version     string
	sessionID   string
	statuses    map[string]int
	inflight    map[string]context.CancelFunc
	awaits      map[string]*httpAwait // by request id: responses due on a POST's SSE stream
	lostKeys    []string              // awaits decided lost, oldest first (bounded)
	lastStatus  int
	lastEventID string
	resume      ResumeVariant
}

// ResumeVariant changes how a connection resumes an SSE stream the server
// ended (readStream), for the reference client's variants: Delay maps the
// server's retry to the wait made (nil: the retry itself; negative: never
// resume), and NoLastEventID leaves the Last-Event-ID header out.
type ResumeVariant struct {
	Delay         func(retry time.Duration) time.Duration
	NoLastEventID bool
}

// SetResumeVariant sets how this connection resumes from now on.
func (c *HTTPClientConn) SetResumeVariant(v ResumeVariant) {
	c.mu.Lock()
	c.resume = v
	c.mu.Unlock()
}

var _ interface {
	Conn
	VersionSetter
	StatusReporter
	LastStatusReporter
	ResponseWatcher
} = (*HTTPClientConn)(nil)

// DialHTTP prepares a 2025-11-25 Streamable HTTP client connection to url.
// Nothing is sent until the first Send; the session id is taken from the
// Mcp-Session-Id header of the response to the POST that carries the
// initialize request.
func DialHTTP(ctx context.Context, url string, opts Options) (*HTTPClientConn, error) {
	return dialHTTP(ctx, url, opts, false)
}

// DialStatelessHTTP prepares a 2026-07-28 (sessionless) Streamable HTTP
// client connection. Every POST carries MCP-Protocol-Version
// (opts.ProtocolVersion, default "2026-07-28"), Mcp-Method and, where the
// method defines one, Mcp-Name, all derived from the frame being sent; a
// tools/call also carries the Mcp-Param-* headers of the tool's
// x-mcp-header parameters, learned from the tools/list answers (ToolParams).
func DialStatelessHTTP(ctx context.Context, url string, opts Options) (*HTTPClientConn, error) {
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = StatelessVersion
	}
	return dialHTTP(ctx, url, opts, true)
}

func dialHTTP(ctx context.Context, rawURL string, opts Options, stateless bool) (*HTTPClientConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("transport: bad URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("transport: URL %q is not http or https", rawURL)
	}
	tr := NewHTTPTransport()
	var rt http.RoundTripper = paramTransport(tr, stateless) // http_client_params.go
	if opts.WrapHTTP != nil {
		rt = opts.WrapHTTP(rt)
	}
	cctx, cancel := context.WithCancel(context.Background())
	return &HTTPClientConn{
		url:       rawURL,
		opts:      opts,
		stateless: stateless,
		hc:        NewHTTPClient(rt),
		ctx:       cctx,
		cancel:    cancel,
		q:         newHTTPFrameQueue(),
		version:   opts.ProtocolVersion,
		statuses:  map[string]int{},
		inflight:  map[string]context.CancelFunc{},
		awaits:    map[string]*httpAwait{},
	}, nil
}

// URL is the endpoint this connection posts to.
func (c *HTTPClientConn) URL() string { return c.url }

// Stateless reports whether this is a 2026-07-28 sessionless connection.
func (c *HTTPClientConn) Stateless() bool { return c.stateless }

// SetProtocolVersion sets the MCP-Protocol-Version header for later requests.
func (c *HTTPClientConn) SetProtocolVersion(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version = v
}

// ProtocolVersion is the MCP-Protocol-Version currently sent ("" if none).
func (c *HTTPClientConn) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// SessionID is the session id the server assigned ("" before initialize, for
// servers that do not use sessions, and always in stateless mode).
func (c *HTTPClientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// ResponseStatus is the HTTP status of the POST that carried the request
// with this id (the status line of an SSE stream is known as soon as the
// stream starts).
func (c *HTTPClientConn) ResponseStatus(id jsonrpc.ID) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.statuses[id.Key()]
	return s, ok
}

// LastStatus is the HTTP status of the most recent POST (0 before any),
// useful for notifications and responses, which have no id to look up.
func (c *HTTPClientConn) LastStatus() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastStatus
}

// LastEventID is the most recent SSE event id seen on any stream.
func (c *HTTPClientConn) LastEventID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastEventID
}

// Send POSTs one frame. It returns once the response headers have arrived
// (and, for a JSON body, once the body is read); an SSE answer keeps
// streaming into Recv in the background. A non-2xx answer whose body is a
// JSON-RPC message is delivered to Recv like any frame and Send returns nil;
// any other non-2xx answer makes Send return *HTTPStatusError.
//
// ctx bounds the wait for the headers and the read of a JSON body: a server
// that stalls or trickles makes Send return a *StallError naming the shape
// by then. For an SSE answer to a request, ctx is taken as the deadline of
// the step waiting for the response: a stream still without it then is
// recorded as stalled (see ResponseWatcher).
func (c *HTTPClientConn) Send(ctx context.Context, frame []byte) error {
	return c.SendWithHeaders(ctx, frame, nil)
}

// SendWithHeaders is Send with per-request header overrides, applied last:
// a header in h replaces whatever the transport would have sent, and a
// header present with only empty values is omitted. Use it to send wrong or
// missing Mcp-Method, Mcp-Name, MCP-Protocol-Version, Mcp-Session-Id, Accept
// or Content-Type on purpose.
func (c *HTTPClientConn) SendWithHeaders(ctx context.Context, frame []byte, h http.Header) error {
	if c.isClosed() {
		return ErrClosed
	}
	fi := httpInspect(frame)
	reqCtx, reqCancel := context.WithCancel(c.ctx)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.url, bytes.NewReader(frame))
	if err != nil {
		reqCancel()
		return err
	}
	c.setHeaders(req.Header, fi, true)
	httpApplyOverrides(req.Header, h)

	reqStart := time.Now()
	resp, err := c.do(ctx, req, reqCancel)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = &StallError{Shape: StallNoHeaders, Err: err, Detail: fmt.Sprintf(
				"no HTTP response to POST %s in %s", fi.describe(), stallDur(time.Since(reqStart)))}
		}
		c.opts.Transcript.Eventf(c.opts.Session, "HTTP POST %s failed: %v", fi.describe(), err)
		return err
	}
	headersAt := time.Now()
	status, mt := resp.StatusCode, httpMediaType(resp.Header)
	c.opts.Transcript.Eventf(c.opts.Session, "HTTP %d POST %s (%s)%s", status, fi.describe(), httpOrNone(mt), redirectSuffix(resp))

	requestKey := ""
	if fi.isRequest() {
		requestKey = fi.msg.ID.Key()
	}
	c.mu.Lock()
	c.lastStatus = status
	if requestKey != "" {
		c.statuses[requestKey] = status
	}
	if !c.stateless && fi.isRequest() && fi.msg.Method == "initialize" && status/100 == 2 {
		c.sessionID = resp.Header.Get(HeaderSessionID)
	}
	c.mu.Unlock()

	if status/100 == 3 {
		// The target's own answer, whatever its body: a redirect is never
		// followed (NewHTTPClient), and never read as a JSON-RPC answer.
		resp.Body.Close()
		reqCancel()
		return statusError(resp, nil)
	}

	// Every read of the body before Send returns is bounded by ctx: when
	// it ends, the request is cancelled, which ends the read.
	stop := context.AfterFunc(ctx, reqCancel)
	var n atomic.Int64
	var body io.ReadCloser = readCloser{countingReader{resp.Body, &n}, resp.Body}
	sse := mt == "text/event-stream"
	if !sse && mt != "application/json" && fi.isRequest() && status == http.StatusOK {
		// transports.mdx: the answer to a request MUST be text/event-stream
		// or application/json. Noted, then read as what the body looks
		// like, so the scenario goes on and the check can judge it.
		br := bufio.NewReader(body)
		if first, perr := httpFirstByte(br); perr == nil {
			ct := "no Content-Type"
			if v := resp.Header.Get("Content-Type"); v != "" {
				ct = fmt.Sprintf("Content-Type %q", v)
			}
			c.opts.noteWire(NoteContentType, fmt.Sprintf("%s on the answer to POST of %s", ct, fi.describe()))
			sse = sseStart(first)
		}
		body = readCloser{br, resp.Body}
	}

	if sse {
		if !stop() && c.ctx.Err() == nil {
			// ctx ended while the body was being sniffed.
			resp.Body.Close()
			reqCancel()
			err := bodyStall(status, "POST "+fi.describe(), n.Load(), time.Since(headersAt), ctx.Err())
			c.opts.Transcript.Eventf(c.opts.Session, "%v", err)
			return err
		}
		var a *httpAwait
		if requestKey != "" {
			c.mu.Lock()
			c.inflight[requestKey] = reqCancel
			c.mu.Unlock()
			a = c.watch(ctx, requestKey, "POST "+fi.msg.Method)
			body = readCloser{countingReader{body, &a.read}, resp.Body}
		}
		if !c.startReader() {
			resp.Body.Close()
			reqCancel()
			return ErrClosed
		}
		go c.readStream(body, reqCtx, reqCancel, "POST "+fi.describe(), requestKey, a)
		return nil
	}

	defer reqCancel()
	if resp.ContentLength > maxHTTPBody {
		// Declared too large: refused unread, rather than read up to the
		// limit only to be refused.
		stop()
		resp.Body.Close()
		err := causeError{ErrBodyTooLarge, fmt.Sprintf("HTTP %d body of POST %s exceeds the %d MiB limit (Content-Length %d; not read)",
			status, fi.describe(), maxHTTPBody>>20, resp.ContentLength)}
		c.opts.Transcript.Eventf(c.opts.Session, "%v", err)
		return err
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxHTTPBody+1))
	resp.Body.Close()
	ctxEnded := !stop()
	if err == nil && len(raw) > maxHTTPBody {
		// Cut, the body would be a frame that is not JSON, and the step
		// would end as if the answer never came.
		err := causeError{ErrBodyTooLarge, fmt.Sprintf("HTTP %d body of POST %s exceeds the %d MiB limit (read %d bytes)",
			status, fi.describe(), maxHTTPBody>>20, len(raw))}
		c.opts.Transcript.Eventf(c.opts.Session, "%v", err)
		return err
	}
	if err != nil {
		if c.ctx.Err() != nil {
			return ErrClosed
		}
		if ctxEnded {
			err := bodyStall(status, "POST "+fi.describe(), n.Load(), time.Since(headersAt), ctx.Err())
			c.opts.Transcript.Eventf(c.opts.Session, "%v", err)
			return err
		}
		c.opts.Transcript.Eventf(c.opts.Session, "HTTP POST %s: reading body: %v", fi.describe(), err)
		if status/100 != 2 {
			return &HTTPStatusError{Status: status, Body: httpTrimBody(raw), Header: resp.Header}
		}
		return err
	}
	if status/100 == 2 {
		if len(bytes.TrimSpace(raw)) > 0 {
			c.q.push(httpQueuedFrame{frame: bytes.TrimSpace(raw)})
		}
		return nil
	}
	if httpIsJSONRPC(raw) {
		c.q.push(httpQueuedFrame{frame: bytes.TrimSpace(raw)})
		// An error without an id answers no request by id: for a POST that
		// carried one, report the refusal itself, or the caller would wait
		// for an answer that is not coming (transports.mdx: the body of such
		// a 4xx MAY be a JSON-RPC error that has no id).
		if answered := httpInspect(bytes.TrimSpace(raw)); fi.isRequest() && answered.idKey == "" {
			return &HTTPStatusError{Status: status, Body: httpTrimBody(raw), Header: resp.Header}
		}
		return nil
	}
	return &HTTPStatusError{Status: status, Body: httpTrimBody(raw), Header: resp.Header}
}

// CancelRequest closes the SSE response stream of the POST that carried the
// request with this id (the 2026-07-28 cancellation signal). It reports
// whether such a stream was open.
func (c *HTTPClientConn) CancelRequest(id jsonrpc.ID) bool {
	c.mu.Lock()
	cancel, ok := c.inflight[id.Key()]
	delete(c.inflight, id.Key())
	c.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// OpenStream opens the standalone SSE stream with HTTP GET; frames from it
// arrive through Recv. A server that offers none answers 405: OpenStream then
// returns an error that matches errors.Is(err, ErrStreamNotOffered) and
// errors.As(err, **HTTPStatusError). ctx bounds only the wait for the
// response headers; the stream lasts until Close or until the server ends it.
// If the server ends the stream after sending a retry field or event ids,
// the client reconnects with Last-Event-ID.
func (c *HTTPClientConn) OpenStream(ctx context.Context) error {
	if c.isClosed() {
		return ErrClosed
	}
	streamCtx, cancel := context.WithCancel(c.ctx)
	resp, err := c.get(ctx, streamCtx, cancel, "", true)
	if err != nil {
		cancel()
		return err
	}
	if !c.startReader() {
		resp.Body.Close()
		cancel()
		return ErrClosed
	}
	go c.readStream(resp.Body, streamCtx, cancel, "GET", "", nil)
	return nil
}

// Recv returns the next frame from any response body or stream, in arrival
// order; io.EOF after Close or once the server is gone (a stream broke or the
// server refused connections) and nothing is left; ctx.Err() on ctx done.
func (c *HTTPClientConn) Recv(ctx context.Context) ([]byte, error) {
	if c.isClosed() {
		return nil, io.EOF
	}
	f, err := c.q.pop(ctx)
	if err != nil {
		return nil, err
	}
	if c.isClosed() {
		return nil, io.EOF
	}
	return f.frame, nil
}

// Close sends DELETE with the session id if there is one (405 and other
// answers are recorded and ignored), ends all streams and makes Recv return
// io.EOF. It is idempotent.
func (c *HTTPClientConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		sid := c.sessionID
		c.mu.Unlock()
		if sid != "" && !c.stateless {
			c.deleteSession()
		}
		c.cancel()
		c.q.end()
		c.wg.Wait()
		c.hc.CloseIdleConnections()
	})
	return nil
}

func (c *HTTPClientConn) deleteSession() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	c.setHeaders(req.Header, httpFrameInfo{}, false)
	req.Header.Del("Accept")
	resp, err := c.hc.Do(req)
	if err != nil {
		c.opts.Transcript.Eventf(c.opts.Session, "HTTP DELETE failed: %v", err)
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	c.opts.Transcript.Eventf(c.opts.Session, "HTTP %d DELETE%s", resp.StatusCode, redirectSuffix(resp))
}

// startReader counts a stream reader in; it refuses once Close has begun, so
// that wg.Add never races with Close's wg.Wait.
func (c *HTTPClientConn) startReader() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	return true
}

func (c *HTTPClientConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// setHeaders puts the transport's own headers on a request: content
// negotiation, opts.Header, then the MCP headers (which win over opts.Header).
func (c *HTTPClientConn) setHeaders(h http.Header, fi httpFrameInfo, post bool) {
	if post {
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	} else {
		h.Set("Accept", "text/event-stream")
	}
	for k, vs := range c.opts.Header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	c.mu.Lock()
	version, sid := c.version, c.sessionID
	c.mu.Unlock()
	if version != "" {
		h.Set(HeaderProtocolVersion, version)
	}
	if c.stateless {
		if m := fi.method(); m != "" {
			if httpHeaderSafe(m) {
				h.Set(HeaderMethod, m)
			} else {
				c.opts.Transcript.Eventf(c.opts.Session, "HTTP: Mcp-Method omitted, method %q is not a valid header value", m)
			}
			if name, ok := mcpNameSource(m, fi.msg.Params); ok {
				h.Set(HeaderName, EncodeHeaderValue(name))
			}
		}
		return
	}
	// A new initialize starts a new session, so it goes without the old id
	// (2025-11-25 Session Management, item 4).
	if sid != "" && !(fi.isRequest() && fi.msg.Method == "initialize") {
		h.Set(HeaderSessionID, sid)
	}
}

func httpApplyOverrides(dst, overrides http.Header) {
	for k, vs := range overrides {
		ck := http.CanonicalHeaderKey(k)
		var keep []string
		for _, v := range vs {
			if v != "" {
				keep = append(keep, v)
			}
		}
		if len(keep) == 0 {
			dst.Del(ck)
		} else {
			dst[ck] = keep
		}
	}
}

// do runs req; ctx bounds only the wait for the response headers, cancel
// ends the request (and its body) for good.
func (c *HTTPClientConn) do(ctx context.Context, req *http.Request, cancel context.CancelFunc) (*http.Response, error) {
	stop := context.AfterFunc(ctx, cancel)
	resp, err := c.hc.Do(req)
	if !stop() {
		// ctx ended first: the request is being cancelled.
		if resp != nil {
			resp.Body.Close()
		}
		if c.ctx.Err() != nil {
			return nil, ErrClosed
		}
		return nil, ctx.Err()
	}
	if err != nil {
		cancel()
		if c.ctx.Err() != nil {
			return nil, ErrClosed
		}
		if httpIsDialError(err) {
			c.peerGone(fmt.Sprintf("cannot connect: %v", err))
		}
		return nil, err
	}
	return resp, nil
}

// get opens a GET SSE stream, resuming after lastEventID when set; record
// false leaves a successful answer out of the transcript.
func (c *HTTPClientConn) get(ctx, streamCtx context.Context, cancel context.CancelFunc, lastEventID string, record bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(streamCtx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req.Header, httpFrameInfo{}, false)
	if lastEventID != "" {
		req.Header.Set(HeaderLastEventID, lastEventID)
	}
	start := time.Now()
	resp, err := c.do(ctx, req, cancel)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = &StallError{Shape: StallNoHeaders, Err: err, Detail: fmt.Sprintf(
				"no HTTP response to GET (the SSE stream) in %s", stallDur(time.Since(start)))}
		}
		c.opts.Transcript.Eventf(c.opts.Session, "HTTP GET failed: %v", err)
		return nil, err
	}
	mt := httpMediaType(resp.Header)
	ok := resp.StatusCode/100 == 2 && mt == "text/event-stream"
	switch {
	case ok && !record:
	case lastEventID != "":
		c.opts.Transcript.Eventf(c.opts.Session, "HTTP %d GET Last-Event-ID %s (%s)%s", resp.StatusCode, lastEventID, httpOrNone(mt), redirectSuffix(resp))
	default:
		c.opts.Transcript.Eventf(c.opts.Session, "HTTP %d GET (%s)%s", resp.StatusCode, httpOrNone(mt), redirectSuffix(resp))
	}
	if ok {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	se := statusError(resp, body)
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		return nil, fmt.Errorf("%w: %w", ErrStreamNotOffered, se)
	case resp.StatusCode/100 == 2:
		return nil, fmt.Errorf("transport: GET answered %s, not text/event-stream: %w", httpOrNone(mt), se)
	default:
		return nil, se
	}
}

// readStream delivers the events of one SSE stream to Recv. awaitKey is the
// id of the request whose POST opened the stream ("" for GET). When the
// server ends the stream cleanly before the awaited response (POST), or
// after asking for reconnection (GET: a retry field or event ids), it
// resumes with GET and Last-Event-ID, as 2025-11-25 "Resumability and
// Redelivery" describes, after the delay resumeDelay gives. It stops
// resuming once the step waiting for the response has given up, and after
// httpMaxIdleResumptions resumptions in a row that delivered no message
// when no step waits with a deadline.
func (c *HTTPClientConn) readStream(body io.ReadCloser, streamCtx context.Context, cancel context.CancelFunc, label, awaitKey string, a *httpAwait) {
	defer c.wg.Done()
	defer cancel()
	if awaitKey != "" {
		defer func() {
			c.mu.Lock()
			delete(c.inflight, awaitKey)
			c.mu.Unlock()
		}()
	}
	// lose tells a caller waiting for the response that it is not coming.
	lose := func(why string) {
		if a != nil {
			c.lost(awaitKey, a, why)
		}
	}
	var (
		lastID  string
		gotResp bool
		idle    int // resumed streams in a row that delivered no message
		resumes int
		began   = time.Now()
		stream  = label
	)
	// A server that ends every stream makes a resumption loop: the first
	// resumptions are recorded in full, the rest counted.
	recorded := func() bool { return resumes <= httpResumesRecorded }
	defer func() {
		if resumes > httpResumesRecorded {
			c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: resumed %d times in %s; resumptions after the first %d not recorded one by one",
				stream, resumes, stallDur(time.Since(began)), httpResumesRecorded)
		}
	}()
	for {
		var progress *sseProgress
		if a != nil {
			progress = &a.sse
		}
		r := newSSEReaderProgress(body, progress)
		delivered := false
		var err error
		for {
			var ev sseEvent
			ev, err = r.Next()
			if err != nil {
				break
			}
			if a != nil {
				a.event()
			}
			if ev.HasID {
				lastID = ev.ID
				c.mu.Lock()
				c.lastEventID = ev.ID
				c.mu.Unlock()
			}
			if strings.TrimSpace(ev.Data) == "" {
				continue // priming event or id/retry-only event
			}
			if ev.Event != "" && ev.Event != "message" {
				c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: event type %q", label, ev.Event)
			}
			frame := []byte(ev.Data)
			if awaitKey != "" && !gotResp {
				if fi := httpInspect(frame); fi.isResponse() && fi.msg.ID.Key() == awaitKey {
					gotResp = true
				}
			}
			if err = c.q.pushWait(streamCtx, httpQueuedFrame{frame: frame}); err != nil {
				break // the connection is closing while the target floods it
			}
			delivered = true
			if gotResp && a != nil {
				c.answered(awaitKey, a)
				a = nil
			}
		}
		body.Close()
		if streamCtx.Err() != nil {
			if a != nil {
				c.unwatch(awaitKey, a) // cancelled or closed: nobody is told
			}
			if c.ctx.Err() == nil {
				c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: closed by client", label)
			}
			return
		}
		if err != io.EOF {
			c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: stream broken: %v", label, err)
			lose(fmt.Sprintf("broke (%v)", err))
			c.peerGone("SSE stream broken")
			return
		}
		if r.Partial {
			c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: stream ended inside an event (discarded)", label)
		}
		if recorded() {
			c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: stream ended", label)
		}
		retry := r.RetryMillis()
		switch {
		case awaitKey != "" && gotResp:
			return
		case awaitKey != "" && lastID == "":
			lose("ended, without an event id to resume from,")
			return
		case awaitKey == "" && lastID == "" && retry == 0:
			return
		}
		if delivered {
			idle = 0
		} else if resumes > 0 {
			idle++
		}
		if idle >= httpMaxIdleResumptions && !a.stepBounded() {
			why := fmt.Sprintf("ended, and was resumed %d times in a row without delivering a message (each resumed stream ended after event ids only, or nothing), so the client gave up resuming it,", idle)
			c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: gave up resuming after %d resumptions in a row that delivered no message", stream, idle)
			lose(why)
			return
		}
		delay := resumeDelay(time.Duration(retry)*time.Millisecond, idle)
		c.mu.Lock()
		variant := c.resume
		c.mu.Unlock()
		if variant.Delay != nil {
			if delay = variant.Delay(delay); delay < 0 {
				lose("ended, and this client does not resume,")
				return
			}
		}
		resumeFrom := lastID
		if variant.NoLastEventID {
			resumeFrom = ""
		}
		var over <-chan struct{} // the step waiting for the response gave up
		if a != nil {
			a.waits(delay, idle)
			over = a.over
		}
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-streamCtx.Done():
				t.Stop()
				return
			case <-over:
				t.Stop()
			}
		}
		if a.givenUp() {
			c.opts.Transcript.Eventf(c.opts.Session, "SSE %s: not resumed again: the step waiting for the response to id %s has given up", stream, awaitKey)
			return
		}
		resumes++
		next, gerr := c.get(streamCtx, streamCtx, cancel, resumeFrom, recorded())
		if gerr != nil {
			var se *HTTPStatusError
			if errors.As(gerr, &se) && se.Status == http.StatusNotFound && c.SessionID() != "" {
				c.peerGone("session not found")
			}
			lose(fmt.Sprintf("ended, and resuming it failed (%v),", gerr))
			return
		}
		body = next.Body
		if a != nil {
			a.resumed(idle)
			body = readCloser{countingReader{next.Body, &a.read}, next.Body}
		}
		label = "GET (resumed)"
	}
}

// resumeDelay is the wait before resuming an SSE stream the server ended:
// its retry field (2025-11-25 transports.mdx: "The client MUST respect the
// retry field, waiting the given number of milliseconds before attempting
// to reconnect"), bounded by httpMaxRetryDelay, and at least an exponential
// backoff once resumed streams deliver nothing (idle in a row): WHATWG's
// "reestablish the connection" lets a user agent "wait some more", for
// instance "an exponential backoff delay to avoid overloading a potentially
// already overloaded server".
func resumeDelay(retry time.Duration, idle int) time.Duration {
	delay := min(retry, httpMaxRetryDelay)
	if idle > 0 {
		backoff := httpMaxResumeBackoff
		if idle <= 16 {
			backoff = min(httpResumeBackoff<<(idle-1), httpMaxResumeBackoff)
		}
		delay = max(delay, backoff)
	}
	return delay
}

// causeError says what happened in its own words and matches cause with
// errors.Is.
type causeError struct {
	cause  error
	detail string
}

func (e causeError) Error() string { return e.detail }
func (e causeError) Unwrap() error { return e.cause }

// httpFirstByte returns the first byte of a body that is not white space,
// leaving it unread.
func httpFirstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, br.UnreadByte()
	}
}

// peerGone ends Recv (after what is queued) because the server is gone.
func (c *HTTPClientConn) peerGone(why string) {
	if c.q.isEnded() {
		return
	}
	c.opts.Transcript.Eventf(c.opts.Session, "HTTP: server gone (%s)", why)
	c.q.end()
}

func httpIsDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func httpOrNone(s string) string {
	if s == "" {
		return "no content type"
	}
	return s
}
