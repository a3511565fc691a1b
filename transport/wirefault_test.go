package transport

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Knobs that make our own servers break a wire rule on purpose, so that the
// reference server can carry faults the checks must catch.
var _ = Describe("Server wire faults", func() {
	Describe("HTTPServerOptions.ResponseContentType", func() {
		BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

		// answerOf POSTs initialize by hand and returns the Content-Type
		// entries and the body of the answer.
		answerOf := func(srv *HTTPServer) ([]string, string) {
			GinkgoHelper()
			startEcho(srv, nil)
			status, h, body := rawPost(srv.Addr(), nil, string(request("1", "initialize", initParams)))
			Expect(status).To(Equal(200))
			Expect(body).To(ContainSubstring(`"method":"initialize"`))
			return h.Values("Content-Type"), body
		}

		It("sends what it is told on JSON and SSE answers to POSTs", func() {
			ct, body := answerOf(listen(HTTPServerOptions{ResponseContentType: "text/html; charset=utf-8", JSONResponse: true}))
			Expect(ct).To(Equal([]string{"text/html; charset=utf-8"}))
			Expect(body).To(HavePrefix("{"))
			ct, body = answerOf(listen(HTTPServerOptions{ResponseContentType: "text/html; charset=utf-8"}))
			Expect(ct).To(Equal([]string{"text/html; charset=utf-8"}))
			Expect(body).To(HavePrefix("data: "), "the body is still an event stream")
		})

		It("sends no Content-Type at all for \"none\", without net/http sniffing one", func() {
			ct, body := answerOf(listen(HTTPServerOptions{ResponseContentType: ContentTypeNone, JSONResponse: true}))
			Expect(ct).To(BeEmpty())
			Expect(body).To(HavePrefix("{"))
			ct, body = answerOf(listen(HTTPServerOptions{ResponseContentType: ContentTypeNone}))
			Expect(ct).To(BeEmpty())
			Expect(body).To(HavePrefix("data: "))
		})

		It("leaves the GET stream alone, and every answer when unset", func() {
			srv := listen(HTTPServerOptions{ResponseContentType: "text/plain", JSONResponse: true})
			startEcho(srv, nil)
			c := initSession(srv, Options{})
			Expect(c.OpenStream(testCtx())).To(Succeed(), "the GET stream keeps text/event-stream")

			ct, _ := answerOf(listen(HTTPServerOptions{JSONResponse: true}))
			Expect(ct).To(Equal([]string{"application/json"}))
			ct, _ = answerOf(listen(HTTPServerOptions{}))
			Expect(ct).To(Equal([]string{"text/event-stream"}))
		})
	})

	Describe("WebSocket server faults", func() {
		BeforeEach(func() { DeferCleanup(expectNoLeaks) })

		listenWS := func(opts WSServerOptions) *WSServer {
			GinkgoHelper()
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", opts)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { srv.Close() })
			return srv
		}
		// rawDial uses gorilla directly, to see the frame type and the
		// handshake's answer as they are on the wire.
		rawDial := func(srv *WSServer) *websocket.Conn {
			GinkgoHelper()
			d := websocket.Dialer{Subprotocols: []string{WebSocketSubprotocol}}
			ws, resp, err := d.DialContext(tpCtx(5*time.Second), srv.Addr(), nil)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			DeferCleanup(func() { ws.Close() })
			return ws
		}
		// accept takes the server side of raw's connection. The raw client
		// closes first at the end: it never answers a close frame, so the
		// server's Close would wait out its close handshake.
		accept := func(srv *WSServer, raw *websocket.Conn) Conn {
			GinkgoHelper()
			c, err := srv.Accept(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { c.Close() })
			if raw != nil {
				DeferCleanup(func() { raw.Close() })
			}
			return c
		}

		It("BinaryFrames sends every message in a binary frame", func() {
			srv := listenWS(WSServerOptions{BinaryFrames: true})
			ws := rawDial(srv)
			sc := accept(srv, ws)
			Expect(ws.Subprotocol()).To(Equal(WebSocketSubprotocol))
			for _, f := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","method":"n"}`} {
				Expect(sc.Send(tpCtx(time.Second), []byte(f))).To(Succeed())
				Expect(ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
				typ, b, err := ws.ReadMessage()
				Expect(err).NotTo(HaveOccurred())
				Expect(typ).To(Equal(websocket.BinaryMessage))
				Expect(string(b)).To(Equal(f))
			}
		})

		It("sends text frames by default", func() {
			srv := listenWS(WSServerOptions{})
			ws := rawDial(srv)
			sc := accept(srv, ws)
			Expect(sc.Send(tpCtx(time.Second), []byte(`{}`))).To(Succeed())
			Expect(ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
			typ, _, err := ws.ReadMessage()
			Expect(err).NotTo(HaveOccurred())
			Expect(typ).To(Equal(websocket.TextMessage))
		})

		It("NoSubprotocol completes the upgrade without selecting mcp", func() {
			t := jsonrpc.NewTranscript()
			srv := listenWS(WSServerOptions{Options: Options{Transcript: t}, NoSubprotocol: true})
			ws := rawDial(srv)
			sc := accept(srv, ws)
			Expect(ws.Subprotocol()).To(BeEmpty())
			Expect(sc.(*WSConn).Subprotocol()).To(BeEmpty())
			Expect(ws.WriteMessage(websocket.TextMessage, []byte(`{"a":1}`))).To(Succeed())
			b, err := sc.Recv(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(`{"a":1}`))
			Expect(eventsOf(t)()).NotTo(ContainElement(ContainSubstring("did not offer")), "the client did offer it")
		})

		It("NoSubprotocol leaves no Sec-WebSocket-Protocol in the 101 answer", func() {
			srv := listenWS(WSServerOptions{NoSubprotocol: true})
			// A hand-written handshake, to read the header itself.
			req, err := http.NewRequest(http.MethodGet, strings.Replace(srv.Addr(), "ws://", "http://", 1), nil)
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			req.Header.Set("Sec-WebSocket-Protocol", "mcp")
			resp, err := http.DefaultTransport.RoundTrip(req.WithContext(tpCtx(5 * time.Second)))
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusSwitchingProtocols))
			Expect(resp.Header.Values("Sec-WebSocket-Protocol")).To(BeEmpty())
			accept(srv, nil) // the body, closed first, is the connection
		})
	})
})
