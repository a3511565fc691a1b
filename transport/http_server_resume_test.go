package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = Describe("Streamable HTTP server: a request deferred to a resumption (sse-retry)", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	const retry = 300 * time.Millisecond
	const progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`

	// deferring defers every tools/call to a resumption, through a wrapped
	// Conn as an engine holds it, then sends a related notification and the
	// response; it reports DeferToResumption's error on errs and closes a
	// value on sent once both Sends returned.
	deferring := func(errs chan<- error, sent chan<- struct{}) engineHook {
		return func(ctx context.Context, c Conn, fi httpFrameInfo, _ []byte) bool {
			if fi.method() != "tools/call" {
				return false
			}
			sr, ok := As[StreamResumer](Record(c, jsonrpc.NewTranscript(), "S"))
			if !ok {
				errs <- errors.New("no StreamResumer")
				return true
			}
			errs <- sr.DeferToResumption(ctx, fi.msg.ID, retry)
			_ = c.Send(WithRelatedRequest(ctx, fi.msg.ID), []byte(progress))
			_ = c.Send(ctx, echoResult(fi.msg.ID, fi.msg.Method))
			sent <- struct{}{}
			return true
		}
	}

	// session starts a server whose engine defers tools/call, a session on
	// it, and returns the server, the client and the engine's side.
	session := func(str *jsonrpc.Transcript, ctr *jsonrpc.Transcript) (*HTTPServer, *HTTPClientConn, StreamResumer, chan error, chan struct{}) {
		GinkgoHelper()
		srv := listen(HTTPServerOptions{Transcript: str, Session: "S"})
		errs, sent := make(chan error, 4), make(chan struct{}, 4)
		eng := startEcho(srv, deferring(errs, sent))
		c := initSession(srv, Options{Transcript: ctr, Session: "C"})
		var sc Conn
		Eventually(eng.conns).Should(Receive(&sc))
		sr, ok := As[StreamResumer](sc)
		Expect(ok).To(BeTrue())
		return srv, c, sr, errs, sent
	}

	rawGET := func(url string, h map[string]string) (int, []sseEvent) {
		GinkgoHelper()
		req, err := http.NewRequestWithContext(testCtx(), http.MethodGet, url, nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		evs, _, err := readAllSSE(resp.Body) // the stream ends after the response
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, evs
	}

	It("primes and closes the POST stream; our client waits retry, resumes with GET and Last-Event-ID and gets the rest there", func() {
		str, ctr := jsonrpc.NewTranscript(), jsonrpc.NewTranscript()
		_, c, sr, errs, _ := session(str, ctr)
		// A standalone GET stream open beforehand must not stand in the way
		// of the resuming GET.
		Expect(c.OpenStream(testCtx())).To(Succeed())

		Expect(c.Send(testCtx(), request("5", "tools/call", `{"name":"t"}`))).To(Succeed())
		Expect(decode(recvFrame(c)).Method).To(Equal("notifications/progress"))
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("5"))
		Eventually(errs).Should(Receive(BeNil()))

		Eventually(sr.Resumptions).Should(ConsistOf(HaveField("Delivered", true)))
		r := sr.Resumptions()[0]
		Expect(r.RequestID.String()).To(Equal("5"))
		Expect(r.Retry).To(Equal(retry))
		Expect(r.PrimingEventID).NotTo(BeEmpty())
		Expect(r.LastEventID).To(Equal(r.PrimingEventID))
		Expect(r.GETs).To(Equal(1))
		Expect(r.Closed.IsZero()).To(BeFalse())
		Expect(r.Resumed.After(r.Closed)).To(BeTrue())
		// Only because the client is ours and honours retry.
		Expect(r.Resumed.Sub(r.Closed)).To(BeNumerically(">=", retry))
		// The response carried an event id of its own.
		Expect(c.LastEventID()).NotTo(BeEmpty())
		Expect(c.LastEventID()).NotTo(Equal(r.PrimingEventID))

		Expect(ctr.String()).To(ContainSubstring("GET Last-Event-ID " + r.PrimingEventID))
		Expect(str.String()).To(And(
			ContainSubstring(`tools/call id=5 deferred to a resumption: priming event "`+r.PrimingEventID+`"`),
			ContainSubstring("POST stream of tools/call id=5 closed"),
			ContainSubstring(`GET with Last-Event-ID "`+r.PrimingEventID+`" resumes id=5`),
			ContainSubstring("response to id=5 delivered on the resuming GET"),
		))
	})

	It("writes the priming event as id, retry and empty data, and delivers on a GET without Last-Event-ID, recording none", func() {
		str := jsonrpc.NewTranscript()
		srv, c, sr, errs, sent := session(str, nil)

		status, hdr, body := rawPost(srv.Addr(), map[string]string{HeaderSessionID: c.SessionID()},
			string(request("9", "tools/call", `{"name":"t"}`)))
		Expect(status).To(Equal(200))
		Expect(hdr.Get("Content-Type")).To(Equal("text/event-stream"))
		Eventually(errs).Should(Receive(BeNil()))
		r := sr.Resumptions()[0]
		// The body ended after the priming event: no response on the POST.
		Expect(body).To(Equal("id: " + r.PrimingEventID + "\nretry: 300\ndata: \n\n"))
		Eventually(sent).Should(Receive())

		status, evs := rawGET(srv.Addr(), map[string]string{HeaderSessionID: c.SessionID()})
		Expect(status).To(Equal(200))
		Expect(evs).To(HaveLen(2))
		Expect(evs[0].Data).To(Equal(progress))
		Expect(evs[1].Data).To(Equal(string(echoResult(jsonrpc.ID("9"), "tools/call"))))
		Expect(evs[0].HasID && evs[1].HasID).To(BeTrue())
		Expect(evs[1].ID).NotTo(Equal(evs[0].ID))

		Eventually(sr.Resumptions).Should(ConsistOf(HaveField("Delivered", true)))
		r = sr.Resumptions()[0]
		Expect(r.LastEventID).To(BeEmpty())
		Expect(r.GETs).To(Equal(1))
		Expect(r.Resumed.After(r.Closed)).To(BeTrue())
		Expect(str.String()).To(ContainSubstring("GET without Last-Event-ID resumes id=9"))
	})

	It("replays only the events after the Last-Event-ID, and serves a later GET naming a delivered stream as an ordinary one", func() {
		srv, c, sr, errs, sent := session(nil, nil)
		status, _, _ := rawPost(srv.Addr(), map[string]string{HeaderSessionID: c.SessionID()},
			string(request(`"a"`, "tools/call", `{"name":"t"}`)))
		Expect(status).To(Equal(200))
		Eventually(errs).Should(Receive(BeNil()))
		Eventually(sent).Should(Receive())

		// A GET that broke off after the notification resumes after it: a
		// stream's events are numbered after its priming event.
		after := strings.TrimSuffix(sr.Resumptions()[0].PrimingEventID, "0") + "1"
		_, evs := rawGET(srv.Addr(), map[string]string{HeaderSessionID: c.SessionID(), HeaderLastEventID: after})
		Expect(evs).To(HaveLen(1))
		Expect(evs[0].Data).To(ContainSubstring(`"id":"a"`))
		Eventually(sr.Resumptions).Should(ConsistOf(And(HaveField("Delivered", true), HaveField("LastEventID", after))))

		// Delivered: the same Last-Event-ID now opens the standalone stream,
		// which stays open and replays nothing.
		ctx, cancel := context.WithCancel(testCtx())
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.Addr(), nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderSessionID, c.SessionID())
		req.Header.Set(HeaderLastEventID, after)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(200))
		cancel()
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		Expect(sr.Resumptions()[0].GETs).To(Equal(1))
	})

	It("refuses a POST answered with application/json: there is no stream to prime", func() {
		srv := listen(HTTPServerOptions{JSONResponse: true})
		errs, sent := make(chan error, 4), make(chan struct{}, 4)
		startEcho(srv, deferring(errs, sent))
		c := initSession(srv, Options{})
		Expect(c.Send(testCtx(), request("2", "tools/call", `{"name":"t"}`))).To(Succeed())
		var err error
		Eventually(errs).Should(Receive(&err))
		Expect(err).To(MatchError(ContainSubstring("application/json")))
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("2"))
	})

	It("returns ErrNoResumption in stateless mode (2026-07-28)", func() {
		srv := listen(HTTPServerOptions{})
		errs, sent := make(chan error, 4), make(chan struct{}, 4)
		startEcho(srv, deferring(errs, sent))
		c, err := DialStatelessHTTP(testCtx(), srv.Addr(), Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.Send(testCtx(), request("3", "tools/call", `{"name":"t"}`))).To(Succeed())
		Eventually(errs).Should(Receive(MatchError(ErrNoResumption)))
		// The request is answered on its POST as usual.
		Expect(decode(recvFrame(c)).Method).To(Equal("notifications/progress"))
		Expect(decode(recvFrame(c)).ID.String()).To(Equal("3"))
	})
})
