package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// A server may end an SSE stream after any event with an id, and the client
// then resumes it (2025-11-25 transports.mdx, "Sending Messages to the
// Server" item 6 and "Resumability and Redelivery"). A server that ends every
// stream after an id-only event, resumed or not, turns that into a loop: the
// client must wait the retry field, back off, and stop.

// loopServer ends every POST and GET with one id-only event (a fresh id
// each time, so that a new id is no sign of progress) carrying retry; it
// counts the GETs and notes when each arrived and when each stream ended.
type loopServer struct {
	url   string
	retry int // ms; 0: no retry field

	mu     sync.Mutex
	gets   int
	events int
	ended  []time.Time // when each stream ended (POST first)
	getAt  []time.Time // when each GET arrived
}

func newLoopServer(retry int) *loopServer {
	GinkgoHelper()
	s := &loopServer{retry: retry}
	s.url = stallServer(func(w http.ResponseWriter, r *http.Request, _ func()) {
		s.mu.Lock()
		if r.Method == http.MethodGet {
			s.gets++
			s.getAt = append(s.getAt, time.Now())
		}
		s.events++
		ev := fmt.Sprintf("id: loop-%d\ndata: \n", s.events)
		s.mu.Unlock()
		if s.retry > 0 {
			ev += fmt.Sprintf("retry: %d\n", s.retry)
		}
		sseHeaders(w)
		_, _ = w.Write([]byte(ev + "\n"))
		_ = http.NewResponseController(w).Flush()
		s.mu.Lock()
		s.ended = append(s.ended, time.Now())
		s.mu.Unlock()
	})
	return s
}

func (s *loopServer) getCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// quickBackoff makes the backoff of a resumption loop short, for a spec
// that goes round the whole loop.
func quickBackoff() {
	base, top := httpResumeBackoff, httpMaxResumeBackoff
	httpResumeBackoff, httpMaxResumeBackoff = time.Millisecond, 4*time.Millisecond
	DeferCleanup(func() { httpResumeBackoff, httpMaxResumeBackoff = base, top })
}

func eventsContaining(t *jsonrpc.Transcript, sub string) []string {
	var out []string
	for _, e := range eventsOf(t)() {
		if strings.Contains(e, sub) {
			out = append(out, e)
		}
	}
	return out
}

var _ = Describe("SSE resumption loops", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	It("waits the retry field before each resumption, and gives up after a bounded number that delivered nothing, saying so", func() {
		quickBackoff()
		s := newLoopServer(20)
		c, t := dialRecorded(s.url)
		// No deadline: the loop's own bound must end it.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
		var err error
		Eventually(c.ResponseLost(jsonrpc.NumberID(3))).WithTimeout(hangBound).Should(Receive(&err),
			"the client kept resuming a stream that never delivers anything")
		stallShape(err, StallStreamEnded, fmt.Sprintf(`^the SSE stream of POST tools/list ended, and was resumed %d times in a row without delivering a message \(each resumed stream ended after event ids only, or nothing\), so the client gave up resuming it, without the response to id 3$`, httpMaxIdleResumptions))
		Expect(s.getCount()).To(Equal(httpMaxIdleResumptions), "one GET per resumption, up to the bound")
		Expect(eventsOf(t)()).To(ContainElement(err.Error()), "the reason is recorded")

		s.mu.Lock()
		for i, at := range s.getAt {
			Expect(at.Sub(s.ended[i])).To(BeNumerically(">=", 20*time.Millisecond),
				"GET %d came %s after the stream it resumes ended, before the retry of 20ms", i+1, at.Sub(s.ended[i]))
		}
		s.mu.Unlock()

		Expect(eventsContaining(t, "HTTP 200 GET Last-Event-ID")).To(HaveLen(httpResumesRecorded), "the first resumptions are recorded in full")
		Expect(eventsOf(t)()).To(ContainElement(fmt.Sprintf("SSE POST tools/list id=3: gave up resuming after %d resumptions in a row that delivered no message", httpMaxIdleResumptions)))
		Expect(eventsOf(t)()).To(ContainElement(MatchRegexp(`^SSE POST tools/list id=3: resumed %d times in .*; resumptions after the first %d not recorded one by one$`, httpMaxIdleResumptions, httpResumesRecorded)))
	})

	It("gives up on the standalone GET stream the same way", func() {
		quickBackoff()
		s := newLoopServer(0)
		c, t := dialRecorded(s.url)
		Expect(c.OpenStream(testCtx())).To(Succeed())
		Eventually(eventsOf(t)).WithTimeout(hangBound).Should(ContainElement(
			fmt.Sprintf("SSE GET: gave up resuming after %d resumptions in a row that delivered no message", httpMaxIdleResumptions)))
		Expect(s.getCount()).To(Equal(1 + httpMaxIdleResumptions))
	})

	It("stops resuming once the step waiting for the response has given up, and names the loop, not an open stream", func() {
		s := newLoopServer(0)
		c, t := dialRecorded(s.url)
		ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
		defer cancel()
		Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
		err := within(func() error { return waitResponse(ctx, c, jsonrpc.NumberID(3)) })
		stallShape(err, StallResuming, `^SSE stream of POST tools/list ended without the response and was resumed [1-9]\d* times in \d.*, the last [1-9]\d* in a row without a message \(each resumed stream ended after event ids only, or nothing\)(, and the client was waiting \d.* before resuming it again|, and the resumed stream stays open): no response to id 3$`)
		Eventually(eventsOf(t)).Should(ContainElement("SSE POST tools/list id=3: not resumed again: the step waiting for the response to id 3 has given up"))
		gets := s.getCount()
		Expect(gets).To(BeNumerically("<", 20), "backoff keeps the GETs of a %s step few (%d)", stallCtx, gets)
		Expect(c.Close()).To(Succeed())
		Expect(s.getCount()).To(Equal(gets), "no GET after the step gave up")
	})
})
