package transport

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// noteLog collects the wire notes a connection reports.
type noteLog struct {
	mu    sync.Mutex
	notes []WireNote
}

func (l *noteLog) add(n WireNote) {
	l.mu.Lock()
	l.notes = append(l.notes, n)
	l.mu.Unlock()
}

func (l *noteLog) all() []WireNote {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]WireNote(nil), l.notes...)
}

var _ = Describe("Client wire notes", func() {
	Describe("HTTP Content-Type of an answer to a request", func() {
		BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

		// session initializes a session against srv, noting into log.
		session := func(srv *HTTPServer, log *noteLog) *HTTPClientConn {
			GinkgoHelper()
			startEcho(srv, nil)
			return initSession(srv, Options{OnWireNote: log.add})
		}

		It("notes a JSON answer labelled text/html, on every request, and still delivers it", func() {
			log := &noteLog{}
			c := session(listen(HTTPServerOptions{ResponseContentType: "text/html; charset=utf-8", JSONResponse: true}), log)
			Expect(c.Send(testCtx(), request("2", "tools/list", ""))).To(Succeed())
			Expect(decode(recvFrame(c)).ID.String()).To(Equal("2"))
			Expect(log.all()).To(Equal([]WireNote{
				{Kind: NoteContentType, Detail: `Content-Type "text/html; charset=utf-8" on the answer to POST of initialize id=1`},
				{Kind: NoteContentType, Detail: `Content-Type "text/html; charset=utf-8" on the answer to POST of tools/list id=2`},
			}))
		})

		It("notes an SSE answer without Content-Type and reads it as the event stream it is", func() {
			log := &noteLog{}
			c := session(listen(HTTPServerOptions{ResponseContentType: ContentTypeNone}), log)
			Expect(c.Send(testCtx(), request("2", "tools/list", ""))).To(Succeed())
			Expect(string(decode(recvFrame(c)).Result)).To(Equal(`{"method":"tools/list","id":2}`))
			Expect(log.all()).To(HaveLen(2))
			Expect(log.all()[1]).To(Equal(WireNote{Kind: NoteContentType, Detail: "no Content-Type on the answer to POST of tools/list id=2"}))
		})

		It("notes nothing for application/json, text/event-stream, 202 and bodies that are not answers", func() {
			log := &noteLog{}
			c := session(listen(HTTPServerOptions{JSONResponse: true}), log)
			Expect(c.Send(testCtx(), notification("notifications/initialized"))).To(Succeed())
			c2 := session(listen(HTTPServerOptions{}), log)
			Expect(c2.Send(testCtx(), request("2", "tools/list", ""))).To(Succeed())
			recvFrame(c2)

			// A 4xx plain-text refusal is not an answer carrying JSON-RPC.
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no", http.StatusBadRequest)
			}))
			DeferCleanup(ts.Close)
			c3, err := DialHTTP(testCtx(), ts.URL, Options{OnWireNote: log.add})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c3.Close)
			Expect(c3.Send(testCtx(), request("1", "ping", ""))).To(MatchError(ContainSubstring("HTTP 400")))
			Expect(log.all()).To(BeEmpty())
		})

		It("notes an empty Content-Type in stateless mode too", func() {
			log := &noteLog{}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = nil
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
			}))
			DeferCleanup(ts.Close)
			c, err := DialStatelessHTTP(testCtx(), ts.URL, Options{OnWireNote: log.add})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			Expect(c.Send(testCtx(), request("7", "tools/list", ""))).To(Succeed())
			Expect(decode(recvFrame(c)).ID.String()).To(Equal("7"))
			Expect(log.all()).To(Equal([]WireNote{{Kind: NoteContentType, Detail: "no Content-Type on the answer to POST of tools/list id=7"}}))
		})
	})

	Describe("WebSocket", func() {
		BeforeEach(func() { DeferCleanup(expectNoLeaks) })

		pair := func(sopts WSServerOptions, log *noteLog) (*WSConn, Conn) {
			GinkgoHelper()
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", sopts)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { srv.Close() })
			cli, err := DialWebSocket(tpCtx(5*time.Second), srv.Addr(), Options{OnWireNote: log.add, Transcript: jsonrpc.NewTranscript()})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { cli.Close() })
			sc, err := srv.Accept(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { sc.Close() })
			return cli, sc
		}

		It("notes each binary frame and still delivers its payload", func() {
			log := &noteLog{}
			cli, sc := pair(WSServerOptions{BinaryFrames: true}, log)
			for _, f := range []string{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/progress"}`} {
				Expect(sc.Send(tpCtx(time.Second), []byte(f))).To(Succeed())
				b, err := cli.Recv(tpCtx(5 * time.Second))
				Expect(err).NotTo(HaveOccurred())
				Expect(string(b)).To(Equal(f))
			}
			Expect(log.all()).To(Equal([]WireNote{
				{Kind: NoteBinaryFrame, Detail: "binary frame (36 bytes, message 1 received) carrying response id=3"},
				{Kind: NoteBinaryFrame, Detail: "binary frame (51 bytes, message 2 received) carrying notifications/progress"},
			}))
		})

		It("notes an upgrade that did not select mcp", func() {
			log := &noteLog{}
			cli, _ := pair(WSServerOptions{NoSubprotocol: true}, log)
			Expect(log.all()).To(HaveLen(1))
			Expect(log.all()[0].Kind).To(Equal(NoteSubprotocol))
			Expect(log.all()[0].Detail).To(MatchRegexp(`^the upgrade to ws://127\.0\.0\.1:\d+/mcp selected subprotocol none, not "mcp"$`))
			Expect(cli.Subprotocol()).To(BeEmpty())
		})

		It("notes nothing for text frames and the mcp subprotocol", func() {
			log := &noteLog{}
			cli, sc := pair(WSServerOptions{}, log)
			Expect(sc.Send(tpCtx(time.Second), []byte(`{}`))).To(Succeed())
			_, err := cli.Recv(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			Expect(log.all()).To(BeEmpty())
		})
	})
})
