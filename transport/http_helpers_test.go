package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// engineFrame is one frame the test engine received.
type engineFrame struct {
	conn   Conn
	frame  []byte
	header http.Header
}

// engineHook may take over a frame; it returns true when it handled it.
type engineHook func(ctx context.Context, c Conn, fi httpFrameInfo, frame []byte) bool

// echoEngine accepts conns and answers every request with a result echoing
// its method and id; unparsable frames get a -32700 error with id null.
type echoEngine struct {
	conns chan Conn
	got   chan engineFrame
	ended chan Conn
	hook  engineHook
}

func startEcho(srv *HTTPServer, hook engineHook) *echoEngine {
	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	e := &echoEngine{
		conns: make(chan Conn, 64),
		got:   make(chan engineFrame, 256),
		ended: make(chan Conn, 64),
		hook:  hook,
	}
	go func() {
		for {
			c, err := srv.Accept(ctx)
			if err != nil {
				return
			}
			e.conns <- c
			go e.serve(ctx, c)
		}
	}()
	return e
}

func (e *echoEngine) serve(ctx context.Context, c Conn) {
	defer func() { e.ended <- c }()
	for {
		frame, err := c.Recv(ctx)
		if err != nil {
			return
		}
		var h http.Header
		if hc, ok := As[HeaderCarrier](c); ok {
			h = hc.RequestHeader()
		}
		e.got <- engineFrame{conn: c, frame: frame, header: h}
		fi := httpInspect(frame)
		go func() {
			if e.hook != nil && e.hook(ctx, c, fi, frame) {
				return
			}
			switch {
			case fi.isRequest():
				_ = c.Send(ctx, echoResult(fi.msg.ID, fi.msg.Method))
			case !fi.isNotification() && !fi.isResponse():
				_ = c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
			}
		}()
	}
}

// nextFrame waits for the engine's next received frame.
func (e *echoEngine) nextFrame() engineFrame {
	GinkgoHelper()
	var f engineFrame
	Eventually(e.got).WithTimeout(5 * time.Second).Should(Receive(&f))
	return f
}

func echoResult(id jsonrpc.ID, method string) []byte {
	m, _ := json.Marshal(method)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"method":%s,"id":%s}}`, id, m, id))
}

func errorResponse(id jsonrpc.ID, code int, msg string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg))
}

func request(id, method, params string) []byte {
	if params == "" {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method))
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
}

func notification(method string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method))
}

const initParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`

func listen(opts HTTPServerOptions) *HTTPServer {
	GinkgoHelper()
	srv, err := ListenHTTP(context.Background(), "127.0.0.1:0", opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Close)
	Expect(srv.Addr()).To(HavePrefix("http://127.0.0.1:"))
	Expect(srv.Addr()).To(HaveSuffix("/mcp"))
	return srv
}

func testCtx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	DeferCleanup(cancel)
	return ctx
}

// recvFrame waits for the client's next frame.
func recvFrame(c Conn) []byte {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := c.Recv(ctx)
	Expect(err).NotTo(HaveOccurred())
	return b
}

func decode(b []byte) *jsonrpc.Message {
	GinkgoHelper()
	m, err := jsonrpc.Decode(b)
	Expect(err).NotTo(HaveOccurred())
	return m
}

// rawPost sends a POST by hand and returns status, headers and full body.
func rawPost(url string, h map[string]string, body string) (int, http.Header, string) {
	GinkgoHelper()
	req, err := http.NewRequestWithContext(testCtx(), http.MethodPost, url, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, resp.Header, string(b)
}

// initSession dials and initializes a session client.
func initSession(srv *HTTPServer, opts Options) *HTTPClientConn {
	GinkgoHelper()
	c, err := DialHTTP(testCtx(), srv.Addr(), opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	Expect(c.Send(testCtx(), request("1", "initialize", initParams))).To(Succeed())
	resp := decode(recvFrame(c))
	Expect(resp.ID.String()).To(Equal("1"))
	Expect(c.SessionID()).NotTo(BeEmpty())
	c.SetProtocolVersion("2025-11-25")
	return c
}

// httpGoroutines lists the stacks of still-running goroutines of the HTTP
// transport.
func httpGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var ours []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, marker := range []string{
			"transport.(*HTTPClientConn)", "transport.(*HTTPServer)", "transport.(*httpSession",
			"transport.(*httpStatelessConn)", "transport.(*httpStream)", "transport.ListenHTTP",
		} {
			if strings.Contains(g, marker) {
				ours = append(ours, g)
				break
			}
		}
	}
	return ours
}

// expectNoHTTPLeaks fails if goroutines of the HTTP transport outlive a spec;
// register it with DeferCleanup before anything else so it runs last.
func expectNoHTTPLeaks() {
	Eventually(httpGoroutines).WithTimeout(5 * time.Second).Should(BeEmpty())
}

// dialRecorded dials url as session A with a transcript of its own, closed
// at the end of the spec.
func dialRecorded(url string) (*HTTPClientConn, *jsonrpc.Transcript) {
	GinkgoHelper()
	t := jsonrpc.NewTranscript()
	c, err := DialHTTP(tpCtx(5*time.Second), url, Options{Transcript: t, Session: "A"})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	return c, t
}
