package transport

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Redirects (issue 21): a target that answers 3xx must never make a client
// of mcpconform connect to where its Location points. "Outside" is a
// listener on 127.0.0.2 (another loopback address: another host, as far as
// the client can tell) or on another port of 127.0.0.1; it counts the
// connections it accepts. Each client call is made and has returned before
// the count is read: a connection to the outside would have been accepted
// by then (the outside answers, and the client waits for its answer).

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// outside is a host a redirect may point to. It answers like an MCP server
// (a POST with an initialize result, a GET with an empty SSE stream), so a
// client that followed a redirect there would believe it had its answer;
// it notes every request and whether it carried the test's secrets.
type outside struct {
	ln  *countingListener
	url string

	mu   sync.Mutex
	seen []string
}

const (
	redirectBearer = "Bearer redirect-test-secret-token"
	redirectHeader = "redirect-test-secret-header"
)

// listenOutside listens on addr ("127.0.0.2:0", "127.0.0.1:0"), or skips
// the spec with the reason when the address cannot be bound.
func listenOutside(addr string) *outside {
	GinkgoHelper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		Skip(fmt.Sprintf("cannot listen on %s to play another host (%v): on Linux all of 127.0.0.0/8 is loopback", addr, err))
	}
	o := &outside{ln: &countingListener{Listener: ln}, url: "http://" + ln.Addr().String() + "/mcp"}
	srv := &http.Server{Handler: http.HandlerFunc(o.serve)}
	go func() { _ = srv.Serve(o.ln) }()
	DeferCleanup(srv.Close)
	return o
}

func (o *outside) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	o.mu.Lock()
	o.seen = append(o.seen, fmt.Sprintf("%s (Authorization sent: %t, X-Secret sent: %t)",
		r.Method, r.Header.Get("Authorization") == redirectBearer, r.Header.Get("X-Secret") == redirectHeader))
	o.mu.Unlock()
	switch r.Method {
	case http.MethodPost:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"outside","version":"0"}}}`)
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// expectUntouched states that the outside accepted no connection.
func (o *outside) expectUntouched() {
	GinkgoHelper()
	o.mu.Lock()
	seen := append([]string(nil), o.seen...)
	o.mu.Unlock()
	Expect(o.ln.accepted.Load()).To(BeZero(), "the outside at %s accepted connections; the requests it got: %q", o.url, seen)
}

// redirectingTarget is an MCP endpoint on 127.0.0.1 that answers every
// request with status and Location: to, except, with answerInitialize, a
// POST, which gets an initialize result and a session id (so that the
// client has a session to DELETE).
func redirectingTarget(status int, to string, answerInitialize bool) string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if answerInitialize && r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set(HeaderSessionID, "redirect-test-session")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"target","version":"0"}}}`)
			return
		}
		w.Header().Set("Location", to)
		w.WriteHeader(status)
	})}
	go func() { _ = srv.Serve(ln) }()
	DeferCleanup(srv.Close)
	return "http://" + ln.Addr().String() + "/mcp"
}

func redirectOptions(tr *jsonrpc.Transcript) Options {
	return Options{Transcript: tr, Session: "A", Header: http.Header{
		"Authorization": {redirectBearer}, "X-Secret": {redirectHeader}}}
}

// expectRedirectError states that err is the target's 3xx, saying where it
// pointed and that it was not followed.
func expectRedirectError(err error, status int, to string) {
	GinkgoHelper()
	var se *HTTPStatusError
	Expect(errors.As(err, &se)).To(BeTrue(), "the error is an *HTTPStatusError: %v", err)
	Expect(se.Status).To(Equal(status))
	Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("HTTP %d redirect to %q (not followed)", status, to)))
}

var _ = Describe("redirects are never followed", func() {
	statuses := []int{
		http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect,
	}
	outsides := map[string]string{"another host (127.0.0.2)": "127.0.0.2:0", "another port of 127.0.0.1": "127.0.0.1:0"}

	for where, addr := range outsides {
		Context("to "+where, func() {
			It("a client that follows redirects would reach the outside (the control)", func() {
				o := listenOutside(addr)
				target := redirectingTarget(http.StatusTemporaryRedirect, o.url, false)
				resp, err := (&http.Client{}).Post(target, "application/json", strings.NewReader(`{}`))
				Expect(err).NotTo(HaveOccurred())
				resp.Body.Close()
				Expect(resp.StatusCode).To(Equal(http.StatusOK), "the outside answered")
				Expect(o.ln.accepted.Load()).To(BeNumerically(">", 0))
			})

			for _, status := range statuses {
				It(fmt.Sprintf("POST answered %d: the handshake fails with the target's redirect", status), func() {
					o := listenOutside(addr)
					tr := jsonrpc.NewTranscript()
					c, err := DialHTTP(testCtx(), redirectingTarget(status, o.url, false), redirectOptions(tr))
					Expect(err).NotTo(HaveOccurred())
					DeferCleanup(c.Close)
					err = c.Send(testCtx(), request("1", "initialize", `{}`))
					expectRedirectError(err, status, o.url)
					Expect(c.LastStatus()).To(Equal(status))
					Expect(tr.String()).To(ContainSubstring(fmt.Sprintf("HTTP %d POST", status)))
					Expect(tr.String()).To(ContainSubstring(fmt.Sprintf("redirect to %q (not followed)", o.url)))
					o.expectUntouched()
				})

				It(fmt.Sprintf("stateless POST answered %d: not followed", status), func() {
					o := listenOutside(addr)
					c, err := DialStatelessHTTP(testCtx(), redirectingTarget(status, o.url, false), redirectOptions(jsonrpc.NewTranscript()))
					Expect(err).NotTo(HaveOccurred())
					DeferCleanup(c.Close)
					expectRedirectError(c.Send(testCtx(), request("1", "tools/list", `{}`)), status, o.url)
					o.expectUntouched()
				})

				It(fmt.Sprintf("the SSE GET answered %d: not followed", status), func() {
					o := listenOutside(addr)
					c, err := DialHTTP(testCtx(), redirectingTarget(status, o.url, false), redirectOptions(jsonrpc.NewTranscript()))
					Expect(err).NotTo(HaveOccurred())
					DeferCleanup(c.Close)
					expectRedirectError(c.OpenStream(testCtx()), status, o.url)
					o.expectUntouched()
				})

				It(fmt.Sprintf("the session's DELETE answered %d: not followed, and recorded", status), func() {
					o := listenOutside(addr)
					tr := jsonrpc.NewTranscript()
					c, err := DialHTTP(testCtx(), redirectingTarget(status, o.url, true), redirectOptions(tr))
					Expect(err).NotTo(HaveOccurred())
					Expect(c.Send(testCtx(), request("1", "initialize", `{}`))).To(Succeed())
					Expect(c.SessionID()).To(Equal("redirect-test-session"))
					Expect(c.Close()).To(Succeed()) // sends DELETE and waits for its answer
					Expect(tr.String()).To(ContainSubstring(fmt.Sprintf("HTTP %d DELETE redirect to %q (not followed)", status, o.url)))
					o.expectUntouched()
				})

				It(fmt.Sprintf("the WebSocket upgrade answered %d: not followed, reported as the target's answer", status), func() {
					o := listenOutside(addr)
					target := strings.Replace(redirectingTarget(status, strings.Replace(o.url, "http:", "ws:", 1), false), "http:", "ws:", 1)
					_, err := DialWebSocket(testCtx(), target, redirectOptions(jsonrpc.NewTranscript()))
					expectRedirectError(err, status, strings.Replace(o.url, "http:", "ws:", 1))
					o.expectUntouched()
				})

				It(fmt.Sprintf("NewHTTPClient hands the %d back to its caller (the raw probes)", status), func() {
					o := listenOutside(addr)
					req, err := http.NewRequestWithContext(testCtx(), http.MethodPost, redirectingTarget(status, o.url, false), strings.NewReader(`{}`))
					Expect(err).NotTo(HaveOccurred())
					req.Header.Set("Authorization", redirectBearer)
					resp, err := NewHTTPClient(nil).Do(req)
					Expect(err).NotTo(HaveOccurred())
					resp.Body.Close()
					Expect(resp.StatusCode).To(Equal(status))
					Expect(resp.Header.Get("Location")).To(Equal(o.url))
					o.expectUntouched()
				})
			}
		})
	}

	// Go's client refuses an ASCII control character in a header ("malformed
	// MIME header line", itself quoted); what it lets through are the
	// controls beyond ASCII: U+009B opens an escape sequence on a terminal,
	// U+202E turns the text around.
	It("quotes a Location's control characters instead of passing them on", func() {
		o := listenOutside("127.0.0.2:0")
		loc := o.url + "/red\u009b31m\u202e"
		c, err := DialHTTP(testCtx(), redirectingTarget(http.StatusTemporaryRedirect, loc, false), redirectOptions(jsonrpc.NewTranscript()))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		err = c.Send(testCtx(), request("1", "initialize", `{}`))
		var se *HTTPStatusError
		Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring(`/red\u009b31m\u202e"`))
		Expect(err.Error()).NotTo(ContainSubstring("\u009b"))
		Expect(err.Error()).NotTo(ContainSubstring("\u202e"))
		o.expectUntouched()
	})

	It("cuts a long Location short", func() {
		note := RedirectNote(&http.Response{Header: http.Header{"Location": {"http://127.0.0.2/" + strings.Repeat("a", 5000)}}})
		Expect(len(note)).To(BeNumerically("<", 300))
		Expect(note).To(HaveSuffix("… (not followed)"))
	})

	// A target has the secrets it was sent; one that echoes them into its
	// Location must not have mcpconform print them.
	It("blots out of a Location what the request sent in its headers", func() {
		o := listenOutside("127.0.0.2:0")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Location", o.url+"?auth="+url.QueryEscape(r.Header.Get("Authorization"))+
				"&token="+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+"&h="+r.Header.Get("X-Secret"))
			w.WriteHeader(http.StatusTemporaryRedirect)
		})}
		go func() { _ = srv.Serve(ln) }()
		DeferCleanup(srv.Close)
		tr := jsonrpc.NewTranscript()
		c, err := DialHTTP(testCtx(), "http://"+ln.Addr().String()+"/mcp", redirectOptions(tr))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		err = c.Send(testCtx(), request("1", "initialize", `{}`))
		Expect(err).To(HaveOccurred())
		secretToken := strings.TrimPrefix(redirectBearer, "Bearer ")
		for _, text := range []string{err.Error(), tr.String()} {
			Expect(text).To(ContainSubstring(`?auth=[redacted]&token=[redacted]&h=[redacted]" (not followed)`))
			Expect(text).NotTo(ContainSubstring(secretToken))
			Expect(text).NotTo(ContainSubstring(redirectHeader))
		}
		o.expectUntouched()
	})
})
