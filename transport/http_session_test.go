package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

var _ = Describe("Streamable HTTP with sessions (2025-11-25)", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	var _ Conn = (*HTTPClientConn)(nil)
	var _ VersionSetter = (*HTTPClientConn)(nil)
	var _ StatusReporter = (*HTTPClientConn)(nil)
	var _ Listener = (*HTTPServer)(nil)
	var _ http.Handler = (*HTTPServer)(nil)
	var _ HeaderCarrier = (*httpSessionConn)(nil)
	var _ HeaderCarrier = (*httpStatelessConn)(nil)

	It("creates a session on initialize, returns its id in Mcp-Session-Id and sends it afterwards", func() {
		srv := listen(HTTPServerOptions{})
		eng := startEcho(srv, nil)
		tr := jsonrpc.NewTranscript()
		c, err := DialHTTP(testCtx(), srv.Addr(), Options{Transcript: tr, Session: "A", Header: http.Header{"Authorization": {"Bearer t0k"}}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.SessionID()).To(BeEmpty())

		Expect(c.Send(testCtx(), request("1", "initialize", initParams))).To(Succeed())
		resp := decode(recvFrame(c))
		Expect(string(resp.Result)).To(Equal(`{"method":"initialize","id":1}`))
		st, ok := c.ResponseStatus(jsonrpc.NumberID(1))
		Expect(ok).To(BeTrue())
		Expect(st).To(Equal(200))

		f := eng.nextFrame()
		Expect(f.header.Get(HeaderSessionID)).To(BeEmpty())
		Expect(f.header.Get("Authorization")).To(Equal("Bearer t0k"))
		Expect(f.header.Get("Accept")).To(Equal("application/json, text/event-stream"))
		Expect(f.header.Get("Content-Type")).To(Equal("application/json"))
		var sc Conn
		Eventually(eng.conns).Should(Receive(&sc))
		sid := sc.(*httpSessionConn).SessionID()
		Expect(c.SessionID()).To(Equal(sid))
		Expect(sid).To(MatchRegexp(`^[\x21-\x7E]{20,}$`))

		c.SetProtocolVersion("2025-11-25")
		Expect(c.Send(testCtx(), request("2", "tools/list", ""))).To(Succeed())
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("2"))
		f = eng.nextFrame()
		Expect(f.header.Get(HeaderSessionID)).To(Equal(sid))
		Expect(f.header.Get(HeaderProtocolVersion)).To(Equal("2025-11-25"))

		Expect(tr.String()).To(ContainSubstring("HTTP 200 POST initialize id=1 (text/event-stream)"))
	})

	It("answers with a single JSON body when JSONResponse is set", func() {
		srv := listen(HTTPServerOptions{JSONResponse: true})
		startEcho(srv, nil)
		tr := jsonrpc.NewTranscript()
		c := initSession(srv, Options{Transcript: tr})
		Expect(c.Send(testCtx(), request(`"x"`, "ping", ""))).To(Succeed())
		Expect(decode(recvFrame(c)).ID.String()).To(Equal(`"x"`))
		Expect(tr.String()).To(ContainSubstring("HTTP 200 POST ping id=\"x\" (application/json)"))
	})

	It("puts related notifications on the POST's SSE stream before the response, then ends the stream", func() {
		srv := listen(HTTPServerOptions{})
		startEcho(srv, func(ctx context.Context, c Conn, fi httpFrameInfo, frame []byte) bool {
			if fi.method() != "tools/call" {
				return false
			}
			rctx := WithRelatedRequest(ctx, fi.msg.ID)
			_ = c.Send(rctx, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`))
			_ = c.Send(rctx, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`))
			_ = c.Send(ctx, echoResult(fi.msg.ID, fi.msg.Method))
			return true
		})
		c := initSession(srv, Options{})
		// A GET stream is open too: related messages must still go on the POST.
		Expect(c.OpenStream(testCtx())).To(Succeed())

		status, hdr, body := rawPost(srv.Addr(), map[string]string{HeaderSessionID: c.SessionID()},
			string(request("7", "tools/call", `{"name":"t"}`)))
		Expect(status).To(Equal(200))
		Expect(hdr.Get("Content-Type")).To(Equal("text/event-stream"))
		evs, _, err := readAllSSE(strings.NewReader(body)) // the body ended: stream closed after the response
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(3))
		Expect(evs[0].Data).To(ContainSubstring("notifications/progress"))
		Expect(evs[1].Data).To(ContainSubstring("notifications/message"))
		Expect(evs[2].Data).To(Equal(`{"jsonrpc":"2.0","id":7,"result":{"method":"tools/call","id":7}}`))

		// Through the client: the same three frames, in order.
		Expect(c.Send(testCtx(), request("8", "tools/call", `{"name":"t"}`))).To(Succeed())
		Expect(decode(recvFrame(c)).Method).To(Equal("notifications/progress"))
		Expect(decode(recvFrame(c)).Method).To(Equal("notifications/message"))
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("8"))
	})

	It("sends related notifications to the GET stream when answers are single JSON bodies", func() {
		srv := listen(HTTPServerOptions{JSONResponse: true})
		startEcho(srv, func(ctx context.Context, c Conn, fi httpFrameInfo, frame []byte) bool {
			if fi.method() != "tools/call" {
				return false
			}
			_ = c.Send(WithRelatedRequest(ctx, fi.msg.ID), []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`))
			_ = c.Send(ctx, echoResult(fi.msg.ID, fi.msg.Method))
			return true
		})
		c := initSession(srv, Options{})
		Expect(c.OpenStream(testCtx())).To(Succeed())
		Expect(c.Send(testCtx(), request("2", "tools/call", `{"name":"t"}`))).To(Succeed())
		var got []string
		for range 2 {
			m := decode(recvFrame(c))
			got = append(got, m.Method+m.ID.String())
		}
		// The two arrive on different connections, in either order.
		Expect(got).To(ConsistOf("notifications/progress", "2"))
	})

	It("answers 404 once the engine closes the session, and 405 on GET when DisableGET is set", func() {
		srv := listen(HTTPServerOptions{DisableGET: true})
		eng := startEcho(srv, nil)
		c := initSession(srv, Options{})
		err := c.OpenStream(testCtx())
		Expect(errors.Is(err, ErrStreamNotOffered)).To(BeTrue())
		var sc Conn
		Eventually(eng.conns).Should(Receive(&sc))
		Expect(sc.Close()).To(Succeed())
		Expect(sc.Send(testCtx(), notification("x"))).To(MatchError(ErrClosed))
		Expect(c.Send(testCtx(), request("3", "ping", ""))).To(Succeed())
		Expect(decode(recvFrame(c)).Error).NotTo(BeNil())
		Expect(c.LastStatus()).To(Equal(http.StatusNotFound))
	})

	It("answers notification-only POSTs with 202 Accepted and no body", func() {
		srv := listen(HTTPServerOptions{})
		eng := startEcho(srv, nil)
		c := initSession(srv, Options{})
		eng.nextFrame() // initialize
		Expect(c.Send(testCtx(), notification("notifications/initialized"))).To(Succeed())
		Expect(c.LastStatus()).To(Equal(http.StatusAccepted))
		f := eng.nextFrame()
		Expect(decode(f.frame).Method).To(Equal("notifications/initialized"))
		Expect(f.header.Get(HeaderSessionID)).To(Equal(c.SessionID()))

		status, _, body := rawPost(srv.Addr(), map[string]string{HeaderSessionID: c.SessionID()}, string(notification("notifications/x")))
		Expect(status).To(Equal(http.StatusAccepted))
		Expect(body).To(BeEmpty())
	})

	It("delivers server-initiated requests on the GET stream and takes the client's answer by POST", func() {
		srv := listen(HTTPServerOptions{})
		eng := startEcho(srv, nil)
		c := initSession(srv, Options{})
		var sc Conn
		Eventually(eng.conns).Should(Receive(&sc))
		eng.nextFrame() // initialize

		// Sent before any GET stream is open: held until one opens.
		Expect(sc.Send(testCtx(), request(`"srv-1"`, "roots/list", ""))).To(Succeed())
		Expect(c.OpenStream(testCtx())).To(Succeed())
		m := decode(recvFrame(c))
		Expect(m.Method).To(Equal("roots/list"))
		Expect(m.ID.String()).To(Equal(`"srv-1"`))

		Expect(sc.Send(testCtx(), request("99", "ping", ""))).To(Succeed())
		Expect(decode(recvFrame(c)).Method).To(Equal("ping"))

		Expect(c.Send(testCtx(), []byte(`{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[]}}`))).To(Succeed())
		Expect(c.LastStatus()).To(Equal(http.StatusAccepted))
		f := eng.nextFrame()
		Expect(decode(f.frame).ID.String()).To(Equal(`"srv-1"`))

		// A second GET stream for the same session is refused.
		err := c.OpenStream(testCtx())
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(se.Status).To(Equal(http.StatusConflict))
	})

	It("rejects a POST without Mcp-Session-Id with 400 and a JSON-RPC error", func() {
		srv := listen(HTTPServerOptions{})
		startEcho(srv, nil)
		status, hdr, body := rawPost(srv.Addr(), nil, string(request(`"q"`, "tools/list", "")))
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(hdr.Get("Content-Type")).To(Equal("application/json"))
		m := decode([]byte(body))
		Expect(m.ID.String()).To(Equal(`"q"`))
		Expect(m.Error.Code).To(Equal(codes.InvalidRequest))
		Expect(m.Error.Message).To(Equal("missing Mcp-Session-Id"))

		status, _, body = rawPost(srv.Addr(), nil, `{not json`)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(decode([]byte(body)).ID.IsNull()).To(BeTrue())

		// Through the client: the error body is a frame, the status is reported.
		c, err := DialHTTP(testCtx(), srv.Addr(), Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.Send(testCtx(), request("5", "tools/list", ""))).To(Succeed())
		Expect(decode(recvFrame(c)).Error.Code).To(Equal(codes.InvalidRequest))
		st, ok := c.ResponseStatus(jsonrpc.NumberID(5))
		Expect(ok).To(BeTrue())
		Expect(st).To(Equal(http.StatusBadRequest))
	})

	It("answers 404 for an unknown session and 400 for an unsupported MCP-Protocol-Version", func() {
		srv := listen(HTTPServerOptions{})
		startEcho(srv, nil)
		c := initSession(srv, Options{})
		Expect(c.SendWithHeaders(testCtx(), request("3", "tools/list", ""), http.Header{HeaderSessionID: {"no-such-session"}})).To(Succeed())
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("3"))
		st, _ := c.ResponseStatus(jsonrpc.NumberID(3))
		Expect(st).To(Equal(http.StatusNotFound))

		Expect(c.SendWithHeaders(testCtx(), request("4", "tools/list", ""), http.Header{HeaderProtocolVersion: {"1999-01-01"}})).To(Succeed())
		Expect(decode(recvFrame(c)).Error.Code).To(Equal(codes.InvalidRequest))
		st, _ = c.ResponseStatus(jsonrpc.NumberID(4))
		Expect(st).To(Equal(http.StatusBadRequest))
	})

	It("terminates the session on DELETE: the engine's Recv ends and the id is then unknown", func() {
		srv := listen(HTTPServerOptions{})
		eng := startEcho(srv, nil)
		tr := jsonrpc.NewTranscript()
		c := initSession(srv, Options{Transcript: tr})
		sid := c.SessionID()
		var sc Conn
		Eventually(eng.conns).Should(Receive(&sc))

		Expect(c.Close()).To(Succeed())
		Expect(c.Close()).To(Succeed()) // idempotent
		Eventually(eng.ended).Should(Receive(Equal(sc)))
		_, err := sc.Recv(testCtx())
		Expect(err).To(Equal(io.EOF))
		Expect(tr.String()).To(ContainSubstring("HTTP 200 DELETE"))

		_, err = c.Recv(testCtx())
		Expect(err).To(Equal(io.EOF))
		Expect(c.Send(testCtx(), notification("x"))).To(MatchError(ErrClosed))

		status, _, _ := rawPost(srv.Addr(), map[string]string{HeaderSessionID: sid}, string(request("9", "ping", "")))
		Expect(status).To(Equal(http.StatusNotFound))
	})

	It("hands a malformed body to the engine and returns its -32700 error (id null) with 400", func() {
		srv := listen(HTTPServerOptions{})
		eng := startEcho(srv, nil)
		c := initSession(srv, Options{})
		eng.nextFrame()
		Expect(c.Send(testCtx(), []byte(`{"jsonrpc":"2.0","id":1,"method":`))).To(Succeed())
		Expect(string(eng.nextFrame().frame)).To(Equal(`{"jsonrpc":"2.0","id":1,"method":`))
		m := decode(recvFrame(c))
		Expect(m.ID.IsNull()).To(BeTrue())
		Expect(m.Error.Code).To(Equal(codes.ParseError))
		Expect(c.LastStatus()).To(Equal(http.StatusBadRequest))
	})

	It("echoes string and numeric ids byte for byte", func() {
		srv := listen(HTTPServerOptions{})
		startEcho(srv, nil)
		c := initSession(srv, Options{})
		for _, id := range []string{`"1"`, `1`, `-7`, `1.50`, `1e3`, `"ü \"q\""`, `""`} {
			Expect(c.Send(testCtx(), request(id, "ping", ""))).To(Succeed())
			m := decode(recvFrame(c))
			Expect(m.ID.String()).To(Equal(id))
			Expect(string(m.Result)).To(HaveSuffix(`"id":` + id + `}`))
			st, ok := c.ResponseStatus(jsonrpc.ID(id))
			Expect(ok).To(BeTrue())
			Expect(st).To(Equal(200))
		}
	})

	It("rejects a foreign Origin with 403 and accepts localhost origins", func() {
		srv := listen(HTTPServerOptions{})
		startEcho(srv, nil)
		status, _, body := rawPost(srv.Addr(), map[string]string{"Origin": "http://evil.example"}, string(request("1", "initialize", initParams)))
		Expect(status).To(Equal(http.StatusForbidden))
		Expect(body).NotTo(ContainSubstring(`"id"`))
		status, _, _ = rawPost(srv.Addr(), map[string]string{"Origin": "http://localhost:5173"}, string(request("1", "initialize", initParams)))
		Expect(status).To(Equal(http.StatusOK))
	})

	It("ends a request the engine never answers with 504 after ResponseTimeout", func() {
		srv := listen(HTTPServerOptions{JSONResponse: true, ResponseTimeout: 300 * time.Millisecond})
		startEcho(srv, func(_ context.Context, _ Conn, fi httpFrameInfo, _ []byte) bool {
			return fi.method() == "slow/never"
		})
		c := initSession(srv, Options{})
		err := c.Send(testCtx(), request("1", "slow/never", ""))
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(se.Status).To(Equal(http.StatusGatewayTimeout))
	})

	It("makes the client's Recv end promptly when the server closes", func() {
		srv := listen(HTTPServerOptions{})
		eng := startEcho(srv, nil)
		c := initSession(srv, Options{})
		var sc Conn
		Eventually(eng.conns).Should(Receive(&sc))
		Expect(c.OpenStream(testCtx())).To(Succeed())

		errc := make(chan error, 1)
		ctx := testCtx()
		go func() {
			_, err := c.Recv(ctx)
			errc <- err
		}()
		Expect(srv.Close()).To(Succeed())
		Expect(srv.Close()).To(Succeed())
		Eventually(errc).WithTimeout(3 * time.Second).Should(Receive(Equal(io.EOF)))
		_, err := sc.Recv(testCtx())
		Expect(err).To(Equal(io.EOF))
		_, err = srv.Accept(testCtx())
		Expect(err).To(MatchError(ErrClosed))
	})
})

var _ = Describe("HTTP client against arbitrary servers", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	It("returns *HTTPStatusError for a plain-text 4xx and recognises 405 on GET", func() {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				http.Error(w, "no stream", http.StatusMethodNotAllowed)
				return
			}
			http.Error(w, "  bad thing\n"+strings.Repeat("x", 1000), http.StatusBadRequest)
		}))
		DeferCleanup(ts.Close)
		c, err := DialHTTP(testCtx(), ts.URL, Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)

		err = c.Send(testCtx(), request("1", "initialize", initParams))
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(se.Status).To(Equal(http.StatusBadRequest))
		Expect(se.Body).To(HavePrefix("bad thing\nxxx"))
		Expect(se.Body).To(HaveLen(512))
		st, _ := c.ResponseStatus(jsonrpc.NumberID(1))
		Expect(st).To(Equal(http.StatusBadRequest))

		err = c.OpenStream(testCtx())
		Expect(errors.Is(err, ErrStreamNotOffered)).To(BeTrue())
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(se.Status).To(Equal(http.StatusMethodNotAllowed))
	})

	It("does not wait for the end of an SSE answer, and resumes a stream closed before the response with Last-Event-ID", func() {
		release := make(chan struct{})
		gotLastID := make(chan string, 1)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			fl := http.NewResponseController(w)
			if r.Method == http.MethodPost {
				// Priming event with an id, a notification, then the
				// connection closes without the response.
				_, _ = io.WriteString(w, "id: ev-1\nretry: 1\ndata:\n\n")
				_ = fl.Flush()
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
				_, _ = io.WriteString(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
				return
			}
			gotLastID <- r.Header.Get(HeaderLastEventID)
			_, _ = io.WriteString(w, "id: ev-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\n")
			_, _ = io.WriteString(w, "data: \"result\":{}}\n\n")
		}))
		DeferCleanup(ts.Close)
		tr := jsonrpc.NewTranscript()
		c, err := DialHTTP(testCtx(), ts.URL, Options{Transcript: tr})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)

		Expect(c.Send(testCtx(), request("1", "initialize", initParams))).To(Succeed()) // returns with the stream still open
		close(release)
		Expect(decode(recvFrame(c)).Method).To(Equal("notifications/progress"))
		Eventually(gotLastID).Should(Receive(Equal("ev-2")))
		m := decode(recvFrame(c))
		Expect(m.ID.String()).To(Equal("1"))
		Expect(string(recvFrameRaw(m))).To(Equal("{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{}}"))
		Expect(c.LastEventID()).To(Equal("ev-3"))
	})
})

func recvFrameRaw(m *jsonrpc.Message) []byte { return m.Raw }
