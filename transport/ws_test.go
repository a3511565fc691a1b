package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = Describe("WebSocket", func() {
	var (
		srv  *WSServer
		srvT *jsonrpc.Transcript
	)

	BeforeEach(func() {
		DeferCleanup(expectNoLeaks) // registered first, so it runs last
		srvT = jsonrpc.NewTranscript()
		var err error
		srv, err = ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", WSServerOptions{Options: Options{Transcript: srvT, Session: "srv"}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { srv.Close() })
	})

	dial := func(opts Options) *WSConn {
		GinkgoHelper()
		c, err := DialWebSocket(tpCtx(5*time.Second), srv.Addr(), opts)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { c.Close() })
		return c
	}
	accept := func() *WSConn {
		GinkgoHelper()
		c, err := srv.Accept(tpCtx(5 * time.Second))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { c.Close() })
		return c.(*WSConn)
	}
	recv := func(c Conn) string {
		GinkgoHelper()
		b, err := c.Recv(tpCtx(5 * time.Second))
		Expect(err).NotTo(HaveOccurred())
		return string(b)
	}

	It("says a message over the read limit is that", func() {
		t := jsonrpc.NewTranscript()
		cli := dial(Options{Transcript: t, Session: "A"})
		sc := accept()
		big := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", DefaultWSMaxMessageBytes) + `"}}`
		go func() { _ = sc.Send(tpCtx(5*time.Second), []byte(big)) }()
		_, err := cli.Recv(tpCtx(5 * time.Second))
		Expect(err).To(MatchError(fmt.Sprintf("transport: websocket receive: a WebSocket message exceeds the limit of %d bytes", DefaultWSMaxMessageBytes)))
		Expect(eventsOf(t)()).To(ContainElement(ContainSubstring("a WebSocket message exceeds the limit of")))
	})

	It("round-trips frames and negotiates the mcp subprotocol", func() {
		Expect(srv.Addr()).To(MatchRegexp(`^ws://127\.0\.0\.1:\d+/mcp$`))
		t := jsonrpc.NewTranscript()
		cli := dial(Options{Transcript: t, Session: "A", Header: http.Header{"Authorization": {"Bearer tok"}}})
		sc := accept()
		Expect(cli.Subprotocol()).To(Equal("mcp"))
		Expect(sc.Subprotocol()).To(Equal("mcp"))
		Expect(sc.HandshakeHeader().Get("Authorization")).To(Equal("Bearer tok"))
		hc, ok := As[HandshakeCarrier](sc)
		Expect(ok).To(BeTrue())
		Expect(hc.HandshakeHeader().Get("Authorization")).To(Equal("Bearer tok"))

		for _, f := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "multi\nline\r\nframe", `{"ü":"\u2028"}`, ""} {
			Expect(cli.Send(tpCtx(time.Second), []byte(f))).To(Succeed())
			Expect(recv(sc)).To(Equal(f))
			Expect(sc.Send(tpCtx(time.Second), []byte(f))).To(Succeed())
			Expect(recv(cli)).To(Equal(f))
		}
		big := strings.Repeat("x", 8<<20)
		Expect(cli.Send(tpCtx(5*time.Second), []byte(big))).To(Succeed())
		Expect(recv(sc) == big).To(BeTrue())
		Expect(eventsOf(t)()).To(ContainElement(ContainSubstring(`websocket connected to ws://127.0.0.1:`)))
		Expect(eventsOf(t)()).NotTo(ContainElement(ContainSubstring("did not select")))
	})

	It("records, but goes on with, a connection without the mcp subprotocol", func() {
		t := jsonrpc.NewTranscript()
		cli := dial(Options{Transcript: t, Header: http.Header{"Sec-WebSocket-Protocol": {"other"}}})
		sc := accept()
		Expect(cli.Subprotocol()).To(Equal(""))
		Expect(sc.Subprotocol()).To(Equal(""))
		Expect(eventsOf(t)()).To(ContainElement(`websocket: server did not select subprotocol "mcp" (got "")`))
		Expect(eventsOf(srvT)()).To(ContainElement(ContainSubstring(`did not offer subprotocol "mcp"`)))
		Expect(cli.Send(tpCtx(time.Second), []byte(`{}`))).To(Succeed())
		Expect(recv(sc)).To(Equal(`{}`))
	})

	It("delivers concurrent Sends intact, one message per frame", func() {
		cli := dial(Options{})
		sc := accept()
		const senders, each = 20, 25
		var wg sync.WaitGroup
		for g := range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				for i := range each {
					f := fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":{"g":%d,"i":%d,"pad":"%s"}}`, g, i, strings.Repeat("p", 1000*(i%5)))
					Expect(cli.Send(tpCtx(5*time.Second), []byte(f))).To(Succeed())
				}
			}()
		}
		seen := map[string]bool{}
		for range senders * each {
			f := recv(sc)
			var g, i int
			_, err := fmt.Sscanf(f, `{"jsonrpc":"2.0","method":"n","params":{"g":%d,"i":%d,`, &g, &i)
			Expect(err).NotTo(HaveOccurred())
			Expect(f).To(HaveSuffix(`"pad":"` + strings.Repeat("p", 1000*(i%5)) + `"}}`))
			seen[fmt.Sprint(g, "/", i)] = true
		}
		wg.Wait()
		Expect(seen).To(HaveLen(senders * each))
	})

	It("ends client Recv promptly when the server closes", func() {
		cli := dial(Options{})
		accept()
		done := make(chan error, 1)
		go func() {
			_, err := cli.Recv(context.Background())
			done <- err
		}()
		Consistently(done).WithTimeout(20 * time.Millisecond).ShouldNot(Receive())
		start := time.Now()
		Expect(srv.Close()).To(Succeed())
		Eventually(done).WithTimeout(2 * time.Second).Should(Receive(MatchError(io.EOF)))
		Expect(time.Since(start)).To(BeNumerically("<", 2*time.Second))
		_, err := srv.Accept(tpCtx(time.Second))
		Expect(err).To(MatchError(ErrClosed))
		Expect(cli.Send(tpCtx(time.Second), []byte(`{}`))).To(HaveOccurred())
		Expect(srv.Close()).To(Succeed(), "idempotent")
	})

	It("closes the client idempotently; the server sees EOF", func() {
		t := jsonrpc.NewTranscript()
		cli := dial(Options{Transcript: t})
		sc := accept()
		Expect(cli.Close()).To(Succeed())
		Expect(cli.Close()).To(Succeed())
		Expect(cli.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ErrClosed))
		_, err := cli.Recv(tpCtx(time.Second))
		Expect(err).To(MatchError(ErrClosed))
		_, err = sc.Recv(tpCtx(2 * time.Second))
		Expect(err).To(MatchError(io.EOF))
		Expect(eventsOf(t)()).To(ContainElement("websocket client: closed"))
	})

	It("returns a binary frame as a frame and records it", func() {
		t := jsonrpc.NewTranscript()
		cli := dial(Options{Transcript: t})
		sc := accept()
		Expect(sc.SendBinary(tpCtx(time.Second), []byte{0, 1, 2, 0xff})).To(Succeed())
		Expect(recv(cli)).To(Equal("\x00\x01\x02\xff"))
		Expect(eventsOf(t)()).To(ContainElement(ContainSubstring("binary frame received (4 bytes)")))
	})

	It("honours ctx in Recv and Accept", func() {
		cli := dial(Options{})
		_, err := cli.Recv(tpCtx(30 * time.Millisecond))
		Expect(err).To(MatchError(context.DeadlineExceeded))
		accept()
		_, err = srv.Accept(tpCtx(30 * time.Millisecond))
		Expect(err).To(MatchError(context.DeadlineExceeded))
	})

	It("accepts local origins only", func() {
		_, err := DialWebSocket(tpCtx(5*time.Second), srv.Addr(), Options{Header: http.Header{"Origin": {"http://evil.example"}}})
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
		Expect(se.Status).To(Equal(http.StatusForbidden))
		Expect(eventsOf(srvT)()).To(ContainElement(ContainSubstring("refused: HTTP 403")))

		for _, o := range []string{"http://localhost:1234", "http://127.0.0.1"} {
			c := dial(Options{Header: http.Header{"Origin": {o}}})
			accept()
			Expect(c.Close()).To(Succeed())
		}
	})

	It("answers a plain HTTP request with an error status", func() {
		url := "http" + strings.TrimPrefix(srv.Addr(), "ws")
		req, err := http.NewRequestWithContext(tpCtx(5*time.Second), http.MethodGet, url, nil)
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		http.DefaultClient.CloseIdleConnections()
	})

	It("reports a failed dial", func() {
		url := strings.TrimSuffix(srv.Addr(), "/mcp") + "/nowhere"
		_, err := DialWebSocket(tpCtx(5*time.Second), url, Options{})
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
		Expect(se.Status).To(Equal(http.StatusNotFound))
	})
})
