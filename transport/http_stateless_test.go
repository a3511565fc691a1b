package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

var _ = Describe("Streamable HTTP without sessions (2026-07-28)", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	var (
		srv *HTTPServer
		eng *echoEngine
		c   *HTTPClientConn
		tr  *jsonrpc.Transcript
	)
	hook := func(ctx context.Context, conn Conn, fi httpFrameInfo, _ []byte) bool {
		switch fi.method() {
		case "fail/version":
			_ = conn.Send(ctx, errorResponse(fi.msg.ID, codes.UnsupportedProtocolVersion, "Unsupported protocol version"))
		case "fail/header":
			_ = conn.Send(ctx, errorResponse(fi.msg.ID, codes.HeaderMismatch, "Header mismatch"))
		case "fail/method":
			_ = conn.Send(ctx, errorResponse(fi.msg.ID, codes.MethodNotFound, "Method not found"))
		case "fail/internal":
			_ = conn.Send(ctx, errorResponse(fi.msg.ID, codes.InternalError, "Internal error"))
		case "tools/progress":
			_ = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`))
			_ = conn.Send(ctx, echoResult(fi.msg.ID, fi.msg.Method))
		case "slow/never":
		default:
			return false
		}
		return true
	}

	BeforeEach(func() {
		srv = listen(HTTPServerOptions{ResponseTimeout: 500 * time.Millisecond, StatelessVersions: []string{"2099-01-01"}})
		eng = startEcho(srv, hook)
		tr = jsonrpc.NewTranscript()
		var err error
		c, err = DialStatelessHTTP(testCtx(), srv.Addr(), Options{Transcript: tr})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
	})

	DescribeTable("derives MCP-Protocol-Version, Mcp-Method and Mcp-Name from the frame",
		func(frame, method, name string, hasName bool) {
			Expect(c.Send(testCtx(), []byte(frame))).To(Succeed())
			f := eng.nextFrame()
			Expect(f.header.Get(HeaderProtocolVersion)).To(Equal("2026-07-28"))
			Expect(f.header.Get(HeaderMethod)).To(Equal(method))
			Expect(f.header.Values(HeaderName)).To(HaveLen(map[bool]int{true: 1, false: 0}[hasName]))
			Expect(f.header.Get(HeaderName)).To(Equal(name))
			Expect(f.header.Get(HeaderSessionID)).To(BeEmpty())
			Expect(string(f.frame)).To(Equal(frame))
		},
		Entry("tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{}}}`, "tools/call", "get_weather", true),
		Entry("prompts/get", `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}`, "prompts/get", "greet", true),
		Entry("resources/read", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///projects/myapp/config.json"}}`, "resources/read", "file:///projects/myapp/config.json", true),
		Entry("tasks/get", `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"t-42"}}`, "tasks/get", "t-42", true),
		Entry("tools/list has no Mcp-Name", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, "tools/list", "", false),
		Entry("a non-ASCII name is base64-encoded", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"Hello, 世界"}}`, "tools/call", "=?base64?SGVsbG8sIOS4lueVjA==?=", true),
		Entry("a non-string name is left out", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":7}}`, "tools/call", "", false),
		Entry("a notification carries Mcp-Method", `{"jsonrpc":"2.0","method":"notifications/x"}`, "notifications/x", "", false),
		Entry("an unparsable frame carries neither", `{"jsonrpc":"2.0","id":8,"method":"tools/call",`, "", "", false),
	)

	It("lets a send override or omit the derived headers", func() {
		frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`)
		Expect(c.SendWithHeaders(testCtx(), frame, http.Header{
			"mcp-name":            {""},
			"Mcp-Method":          {"tools/list"},
			HeaderProtocolVersion: {"2099-01-01", ""},
		})).To(Succeed())
		f := eng.nextFrame()
		Expect(f.header.Values(HeaderName)).To(BeEmpty())
		Expect(f.header.Get(HeaderMethod)).To(Equal("tools/list"))
		Expect(f.header.Values(HeaderProtocolVersion)).To(Equal([]string{"2099-01-01"}))
	})

	It("answers with JSON, and the engine's Recv ends once the answer is sent", func() {
		Expect(c.Send(testCtx(), request(`"abc"`, "tools/list", ""))).To(Succeed())
		f := eng.nextFrame()
		Expect(decode(recvFrame(c)).ID.String()).To(Equal(`"abc"`))
		Eventually(eng.ended).Should(Receive(Equal(f.conn)))
		Expect(tr.String()).To(ContainSubstring(`HTTP 200 POST tools/list id="abc" (application/json)`))
		hc, ok := As[HeaderCarrier](f.conn)
		Expect(ok).To(BeTrue())
		Expect(hc.RequestHeader().Get(HeaderMethod)).To(Equal("tools/list"))
	})

	It("echoes string and numeric ids byte for byte", func() {
		for _, id := range []string{`"7"`, `7`, `0.5`, `"a b"`} {
			Expect(c.Send(testCtx(), request(id, "ping", ""))).To(Succeed())
			Expect(decode(recvFrame(c)).ID.String()).To(Equal(id))
		}
	})

	It("answers a notification with 202 and gives the engine a conn that ends at once", func() {
		Expect(c.Send(testCtx(), notification("notifications/x"))).To(Succeed())
		Expect(c.LastStatus()).To(Equal(http.StatusAccepted))
		f := eng.nextFrame()
		Eventually(eng.ended).Should(Receive(Equal(f.conn)))
		Expect(f.conn.Send(testCtx(), notification("y"))).To(HaveOccurred())
	})

	It("switches to SSE when a notification precedes the response", func() {
		Expect(c.Send(testCtx(), request("1", "tools/progress", ""))).To(Succeed())
		Expect(decode(recvFrame(c)).Method).To(Equal("notifications/progress"))
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("1"))
		Expect(tr.String()).To(ContainSubstring("HTTP 200 POST tools/progress id=1 (text/event-stream)"))
	})

	DescribeTable("maps JSON-RPC errors to HTTP statuses",
		func(method string, status int) {
			Expect(c.Send(testCtx(), request("11", method, ""))).To(Succeed())
			Expect(decode(recvFrame(c)).ID.String()).To(Equal("11"))
			st, ok := c.ResponseStatus(jsonrpc.NumberID(11))
			Expect(ok).To(BeTrue())
			Expect(st).To(Equal(status))
		},
		Entry("-32022 → 400", "fail/version", http.StatusBadRequest),
		Entry("-32020 → 400", "fail/header", http.StatusBadRequest),
		Entry("-32601 → 404", "fail/method", http.StatusNotFound),
		Entry("-32603 → 200", "fail/internal", http.StatusOK),
		Entry("result → 200", "ping", http.StatusOK),
	)

	It("answers a malformed body with the engine's -32700 error and 400", func() {
		Expect(c.Send(testCtx(), []byte(`{oops`))).To(Succeed())
		m := decode(recvFrame(c))
		Expect(m.Error.Code).To(Equal(codes.ParseError))
		Expect(m.ID.IsNull()).To(BeTrue())
		Expect(c.LastStatus()).To(Equal(http.StatusBadRequest))
	})

	It("ends an unanswered request with 504 after ResponseTimeout", func() {
		err := c.Send(testCtx(), request("1", "slow/never", ""))
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(se.Status).To(Equal(http.StatusGatewayTimeout))
	})

	It("answers GET and DELETE with 405", func() {
		err := c.OpenStream(testCtx())
		Expect(errors.Is(err, ErrStreamNotOffered)).To(BeTrue())
	})

	It("treats the client closing the response stream as cancellation", func() {
		srv2 := listen(HTTPServerOptions{})
		started := make(chan Conn, 1)
		startEcho(srv2, func(ctx context.Context, conn Conn, fi httpFrameInfo, _ []byte) bool {
			if fi.method() != "tools/call" {
				return false
			}
			_ = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`))
			started <- conn
			return true
		})
		c2, err := DialStatelessHTTP(testCtx(), srv2.Addr(), Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c2.Close)
		Expect(c2.Send(testCtx(), request(`"job"`, "tools/call", `{"name":"long"}`))).To(Succeed())
		Expect(decode(recvFrame(c2)).Method).To(Equal("notifications/progress"))
		var sc Conn
		Eventually(started).Should(Receive(&sc))
		Expect(c2.CancelRequest(jsonrpc.StringID("job"))).To(BeTrue())
		Eventually(sc.(*httpStatelessConn).Done()).Should(BeClosed())
		_, err = sc.Recv(testCtx())
		Expect(err).To(Equal(io.EOF))
		Expect(sc.Send(testCtx(), echoResult(jsonrpc.StringID("job"), "tools/call"))).To(MatchError(ErrClosed))
	})
})
