package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Stall shapes: a peer that stops, or slows to a trickle, in the middle of
// what a caller waits for must not keep the caller past its ctx, and the
// error must say what the peer did. Each spec gives the caller a short ctx
// and asserts on the error it gets, never on the time taken; a generous
// bound on the wait only keeps a broken transport from hanging the suite.

// stallCtx is the deadline of the step under test.
const stallCtx = 300 * time.Millisecond

// hangBound only keeps a transport that ignores its ctx from hanging the
// suite; it is no measure of speed.
const hangBound = 20 * time.Second

// within runs f and returns its error once it returns.
func within(f func() error) error {
	GinkgoHelper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	var err error
	Eventually(done).WithTimeout(hangBound).Should(Receive(&err), "the call did not return when its ctx ended")
	return err
}

// stallServer serves h on a loopback httptest server. h reads the request
// body first, so that net/http notices a client that goes away, and holds
// its stall with hold, which also ends when the spec does.
func stallServer(h func(w http.ResponseWriter, r *http.Request, hold func())) string {
	GinkgoHelper()
	release := make(chan struct{})
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r, func() {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	ts.Listener = ln
	ts.Start()
	DeferCleanup(ts.Close)
	DeferCleanup(func() { close(release) }) // runs before ts.Close
	return ts.URL + "/mcp"
}

// trickle writes s one byte per tick, flushing each, until the client goes
// away or s runs out, then holds.
func trickle(w http.ResponseWriter, r *http.Request, hold func(), s string) {
	rc := http.NewResponseController(w)
	tk := time.NewTicker(10 * time.Millisecond)
	defer tk.Stop()
	for i := 0; i < len(s); i++ {
		select {
		case <-r.Context().Done():
			return
		case <-tk.C:
		}
		if _, err := w.Write([]byte{s[i]}); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
	hold()
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
}

// stallShape asserts err is a *StallError of this shape whose text matches.
func stallShape(err error, shape StallShape, text string) {
	GinkgoHelper()
	var se *StallError
	Expect(errors.As(err, &se)).To(BeTrue(), "not a StallError: %v", err)
	Expect(se.Shape).To(Equal(shape))
	Expect(err.Error()).To(MatchRegexp(text))
}

// dialers are the two HTTP client flavours.
var stallDialers = map[string]func(ctx context.Context, url string, opts Options) (*HTTPClientConn, error){
	"session":   DialHTTP,
	"stateless": DialStatelessHTTP,
}

var _ = Describe("Stalls", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	for _, flavour := range []string{"session", "stateless"} {
		dial := func(url string) (*HTTPClientConn, *jsonrpc.Transcript) {
			GinkgoHelper()
			t := jsonrpc.NewTranscript()
			c, err := stallDialers[flavour](tpCtx(5*time.Second), url, Options{Transcript: t, Session: "A"})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			return c, t
		}
		send := func(c *HTTPClientConn, frame []byte) error {
			ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
			defer cancel()
			return within(func() error { return c.Send(ctx, frame) })
		}

		Context("over "+flavour+" HTTP", func() {
			It("ends a POST whose headers never come", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) { hold() })
				c, t := dial(url)
				err := send(c, request("1", "tools/list", ""))
				stallShape(err, StallNoHeaders, `^no HTTP response to POST tools/list id=1 in \d`)
				Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
				Expect(eventsOf(t)()).To(ContainElement(ContainSubstring("no HTTP response to POST tools/list id=1")))
			})

			if flavour == "session" {
				It("ends a GET whose headers never come", func() {
					url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) { hold() })
					c, _ := dial(url)
					ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
					defer cancel()
					err := within(func() error { return c.OpenStream(ctx) })
					stallShape(err, StallNoHeaders, `^no HTTP response to GET \(the SSE stream\) in \d`)
				})
			}

			It("ends a POST whose headers came and whose body then stalled", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusOK)
					_ = http.NewResponseController(w).Flush()
					hold()
				})
				c, t := dial(url)
				err := send(c, request("1", "tools/list", ""))
				stallShape(err, StallBody, `^HTTP 200 headers of POST tools/list id=1 arrived, then the body stalled: 0 bytes in \d`)
				Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
				Expect(eventsOf(t)()).To(ContainElement(err.Error()))
				_, err = c.Recv(tpCtx(10 * time.Millisecond))
				Expect(err).To(MatchError(context.DeadlineExceeded), "nothing half-read is delivered")
			})

			It("ends a POST whose body trickles", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusOK)
					trickle(w, r, hold, `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+strings.Repeat(" ", 1000)+`]}}`)
				})
				c, _ := dial(url)
				err := send(c, request("1", "tools/list", ""))
				stallShape(err, StallTrickle, `^HTTP 200 headers of POST tools/list id=1 arrived, then the body trickled: [1-9]\d* bytes? in \d.*, the JSON-RPC message is incomplete$`)
			})

			It("names an SSE stream that stays open without the response", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) {
					sseHeaders(w)
					_, _ = io.WriteString(w, ": keep-alive\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
					_ = http.NewResponseController(w).Flush()
					hold()
				})
				c, t := dial(url)
				ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
				defer cancel()
				Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
				err := within(func() error { return waitResponse(ctx, c, jsonrpc.NumberID(3)) })
				stallShape(err, StallStreamOpen, `^SSE stream of POST tools/list stays open: no response to id 3 in \d`)
				Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
				Eventually(eventsOf(t)).Should(ContainElement(err.Error()), "recorded once, for the report")
				Expect(c.NoResponse(jsonrpc.NumberID(3), ctx.Err())).To(BeIdenticalTo(err), "decided once")
			})

			It("names an SSE stream that trickles the response", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) {
					sseHeaders(w)
					trickle(w, r, hold, `data: {"jsonrpc":"2.0","id":3,"result":{"tools":[`+strings.Repeat(" ", 1000)+"]}}\n\n")
				})
				c, _ := dial(url)
				ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
				defer cancel()
				Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
				err := within(func() error { return waitResponse(ctx, c, jsonrpc.NumberID(3)) })
				stallShape(err, StallTrickle, `^SSE stream of POST tools/list trickled: [1-9]\d* bytes? in \d.* since the last event, the JSON-RPC message is incomplete \(no response to id 3\)$`)
			})

			It("tells the waiting call at once when the SSE stream ends without the response", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) {
					sseHeaders(w)
					_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
				})
				c, t := dial(url)
				// A long ctx: the answer must come from the stream's end, not
				// from the deadline.
				ctx, cancel := context.WithTimeout(context.Background(), hangBound)
				defer cancel()
				Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
				err := within(func() error { return waitResponse(ctx, c, jsonrpc.NumberID(3)) })
				Expect(ctx.Err()).NotTo(HaveOccurred(), "the wait ended before its deadline")
				stallShape(err, StallStreamEnded, `^the SSE stream of POST tools/list ended, without an event id to resume from, without the response to id 3$`)
				Expect(eventsOf(t)()).To(ContainElement(err.Error()))
			})

			It("does not report a stall once the response came", func() {
				url := stallServer(func(w http.ResponseWriter, r *http.Request, hold func()) {
					sseHeaders(w)
					_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n")
					_ = http.NewResponseController(w).Flush()
					hold() // a stream that stays open after the response is fine
				})
				c, t := dial(url)
				ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
				defer cancel()
				Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
				Expect(waitResponse(ctx, c, jsonrpc.NumberID(3))).To(Succeed())
				<-ctx.Done()
				Expect(c.NoResponse(jsonrpc.NumberID(3), ctx.Err())).To(Succeed())
				Expect(c.ResponseLost(jsonrpc.NumberID(3))).To(BeNil())
				Expect(eventsOf(t)()).NotTo(ContainElement(ContainSubstring("stays open")))
			})
		})
	}

	Describe("WebSocket", func() {
		BeforeEach(func() { DeferCleanup(expectNoLeaks) })

		It("ends an upgrade that never completes", func() {
			// A TCP listener that takes the handshake and never answers it.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ln.Close)
			go func() {
				for {
					conn, err := ln.Accept()
					if err != nil {
						return
					}
					go func() { defer conn.Close(); _, _ = io.Copy(io.Discard, conn) }()
				}
			}()
			t := jsonrpc.NewTranscript()
			url := "ws://" + ln.Addr().String() + "/mcp"
			ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
			defer cancel()
			err = within(func() error {
				c, err := DialWebSocket(ctx, url, Options{Transcript: t})
				if err == nil {
					c.Close()
				}
				return err
			})
			stallShape(err, StallUpgrade, fmt.Sprintf(`^WebSocket upgrade to %s not completed in \d`, url))
			Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
			Expect(eventsOf(t)()).To(ContainElement(err.Error()))
		})

		It("names a message that trickles in when the caller gives up on its response", func() {
			release := make(chan struct{})
			up := websocket.Upgrader{Subprotocols: []string{WebSocketSubprotocol}}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := up.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer ws.Close()
				// A whole message, then a text frame announcing 200 bytes
				// whose payload comes one byte per tick.
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`))
				raw := ws.UnderlyingConn()
				if _, err := raw.Write([]byte{0x81, 126, 0, 200}); err != nil {
					return
				}
				tk := time.NewTicker(10 * time.Millisecond)
				defer tk.Stop()
				for range 200 {
					select {
					case <-release:
						return
					case <-tk.C:
					}
					if _, err := raw.Write([]byte("x")); err != nil {
						return
					}
				}
			}))
			DeferCleanup(ts.Close)
			DeferCleanup(func() { close(release) })
			t := jsonrpc.NewTranscript()
			c, err := DialWebSocket(tpCtx(5*time.Second), "ws"+strings.TrimPrefix(ts.URL, "http")+"/mcp", Options{Transcript: t})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			b, err := c.Recv(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(ContainSubstring("progress"))
			ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
			defer cancel()
			err = within(func() error { _, err := c.Recv(ctx); return err })
			Expect(err).To(MatchError(context.DeadlineExceeded))
			err = c.NoResponse(jsonrpc.NumberID(3), err)
			stallShape(err, StallTrickle, `^WebSocket message trickled: [1-9]\d* bytes? in \d.* since the last whole message, the JSON-RPC message is incomplete \(no response to id 3\)$`)
			Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
			Expect(eventsOf(t)()).To(ContainElement(err.Error()))
			Expect(c.ResponseLost(jsonrpc.NumberID(3))).To(BeNil())
		})

		It("names nothing on a connection that is merely silent", func() {
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", WSServerOptions{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { srv.Close() })
			c, err := DialWebSocket(tpCtx(5*time.Second), srv.Addr(), Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			sc, err := srv.Accept(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			Expect(sc.Send(tpCtx(5*time.Second), []byte(`{"jsonrpc":"2.0","method":"m"}`))).To(Succeed())
			_, err = c.Recv(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			Expect(c.NoResponse(jsonrpc.NumberID(3), context.DeadlineExceeded)).To(Succeed())
		})

		It("does not let a client that stalls its upgrade hold Accept or Close", func() {
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", WSServerOptions{})
			Expect(err).NotTo(HaveOccurred())
			conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.Addr(), "ws://"), "/mcp"))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, err = io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n") // and no more
			Expect(err).NotTo(HaveOccurred())
			ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
			defer cancel()
			err = within(func() error { _, err := srv.Accept(ctx); return err })
			Expect(err).To(MatchError(context.DeadlineExceeded))
			Expect(within(srv.Close)).To(Succeed())
			// The server dropped the stalled connection.
			Expect(conn.SetReadDeadline(time.Now().Add(hangBound))).To(Succeed())
			_, err = conn.Read(make([]byte, 1))
			Expect(err).To(MatchError(io.EOF))
		})

		It("ends a Recv on a connection where nothing comes, and closing ends the reader", func() {
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", WSServerOptions{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { srv.Close() })
			c, err := DialWebSocket(tpCtx(5*time.Second), srv.Addr(), Options{})
			Expect(err).NotTo(HaveOccurred())
			ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
			defer cancel()
			err = within(func() error { _, err := c.Recv(ctx); return err })
			Expect(err).To(MatchError(context.DeadlineExceeded))
			Expect(c.Close()).To(Succeed())
		})
	})

	// sendUntilStuck sends big frames to a peer that reads nothing, each
	// Send under a short ctx, until one fails; it returns that error.
	sendUntilStuck := func(send func(ctx context.Context, frame []byte) error) error {
		GinkgoHelper()
		big := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 1<<20) + `"}}`)
		for range 256 { // far more than loopback buffers hold
			ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
			err := within(func() error { return send(ctx, big) })
			cancel()
			if err != nil {
				return err
			}
		}
		Fail("every Send succeeded although the peer reads nothing")
		return nil
	}

	Describe("our servers, against a client that stops reading", func() {
		It("ends an HTTP server Send on a POST's SSE stream", func() {
			t := jsonrpc.NewTranscript()
			srv := listen(HTTPServerOptions{Transcript: t})
			conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.Addr(), "http://"), "/mcp"))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			body := string(request("1", "initialize", initParams))
			_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			Expect(err).NotTo(HaveOccurred())
			sc, err := srv.Accept(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			_, err = sc.Recv(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			err = sendUntilStuck(func(ctx context.Context, frame []byte) error {
				return sc.Send(WithRelatedRequest(ctx, jsonrpc.NumberID(1)), frame)
			})
			stallShape(err, StallUnread, `^the client stopped reading the response to POST initialize id=1: write not completed in \d`)
			Expect(eventsOf(t)()).To(ContainElement(ContainSubstring("write failed: the client stopped reading")))
		})

		It("ends a WebSocket Send", func() {
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", WSServerOptions{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { srv.Close() })
			d := websocket.Dialer{Subprotocols: []string{WebSocketSubprotocol}}
			ws, resp, err := d.DialContext(tpCtx(5*time.Second), srv.Addr(), nil)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			DeferCleanup(ws.Close) // never reads
			sc, err := srv.Accept(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(sc.Close)
			err = sendUntilStuck(sc.Send)
			stallShape(err, StallUnread, `^the WebSocket peer stopped reading: a message of \d+ bytes not sent in \d`)
			Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
		})

		// A caller whose deadline is a moment away (a poller's last round)
		// does not break the connection for the others: a write that times
		// out leaves a WebSocket unusable, so a started write gets a floor.
		It("keeps a WebSocket usable after Sends whose deadline was a moment away, to a peer that reads", func() {
			srv, err := ListenWebSocket(tpCtx(5*time.Second), "127.0.0.1:0", WSServerOptions{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { srv.Close() })
			d := websocket.Dialer{Subprotocols: []string{WebSocketSubprotocol}}
			ws, resp, err := d.DialContext(tpCtx(5*time.Second), srv.Addr(), nil)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			DeferCleanup(ws.Close)
			go func() { // reads everything
				for {
					if _, _, err := ws.ReadMessage(); err != nil {
						return
					}
				}
			}()
			sc, err := srv.Accept(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(sc.Close)
			frame := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
			for i := range 200 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%20)*time.Microsecond)
				err := sc.Send(ctx, frame)
				cancel()
				if err != nil {
					Expect(err).To(MatchError(context.DeadlineExceeded), "refused before writing, never a broken write")
				}
			}
			Expect(sc.Send(tpCtx(5*time.Second), frame)).To(Succeed(), "the connection still works")
		})
	})

	Describe("our HTTP server, against a client that stalls its request body", func() {
		It("answers 408 naming the stall instead of waiting for ever", func() {
			t := jsonrpc.NewTranscript()
			srv := listen(HTTPServerOptions{Transcript: t, ResponseTimeout: stallCtx})
			conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.Addr(), "http://"), "/mcp"))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			// The safety bound of this raw read, not a measure of speed.
			Expect(conn.SetReadDeadline(time.Now().Add(hangBound))).To(Succeed())
			_, err = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\":")
			Expect(err).NotTo(HaveOccurred())
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusRequestTimeout))
			Expect(eventsOf(t)()).To(ContainElement(MatchRegexp(`^HTTP 408 POST: the request headers arrived, then the body trickled: 11 bytes in \d.*, the JSON-RPC message is incomplete$`)))
		})
	})
})

// waitResponse waits for the response to id as a caller does (fakes/peer):
// frames from Recv until the one answering id, failing at once when the
// connection knows it is not coming, and naming the stall when ctx ends.
func waitResponse(ctx context.Context, c *HTTPClientConn, id jsonrpc.ID) error {
	got := make(chan error, 1)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			b, err := c.Recv(rctx)
			if err != nil {
				got <- err
				return
			}
			if m, err := jsonrpc.Decode(b); err == nil && m.Method == "" && m.ID.Equal(id) {
				got <- nil
				return
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil && ctx.Err() != nil {
			if se := c.NoResponse(id, ctx.Err()); se != nil {
				return se
			}
		}
		return err
	case err := <-c.ResponseLost(id):
		return err
	case <-ctx.Done():
		if se := c.NoResponse(id, ctx.Err()); se != nil {
			return se
		}
		return ctx.Err()
	}
}
