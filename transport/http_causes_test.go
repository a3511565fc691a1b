package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// What went wrong is said as it happened: a body over the limit is not a
// deadline, keep-alives are not a trickle.
var _ = Describe("HTTP client errors that name their cause", func() {
	BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

	for _, declared := range []bool{false, true} {
		It(fmt.Sprintf("says a JSON body exceeds the size limit, instead of cutting it (Content-Length: %v)", declared), func() {
			body := `{"jsonrpc":"2.0","id":3,"result":{"text":"` + strings.Repeat("x", maxHTTPBody) + `"}}`
			url := stallServer(func(w http.ResponseWriter, r *http.Request, _ func()) {
				w.Header().Set("Content-Type", "application/json")
				if declared {
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				}
				_, _ = io.WriteString(w, body)
			})
			c, t := dialRecorded(url)
			err := within(func() error { return c.Send(testCtx(), request("3", "tools/list", "")) })
			Expect(errors.Is(err, ErrBodyTooLarge)).To(BeTrue(), "not ErrBodyTooLarge: %v", err)
			how := fmt.Sprintf(`read %d bytes`, maxHTTPBody+1)
			if declared {
				how = fmt.Sprintf(`Content-Length %d; not read`, len(body))
			}
			Expect(err).To(MatchError(MatchRegexp(`^HTTP 200 body of POST tools/list id=3 exceeds the 32 MiB limit \(` + how + `\)$`)))
			Expect(eventsOf(t)()).To(ContainElement(err.Error()), "recorded for the report")
		})
	}

	It("says an SSE stream sent only comments, not that it trickled", func() {
		url := stallServer(func(w http.ResponseWriter, r *http.Request, _ func()) {
			sseHeaders(w)
			rc := http.NewResponseController(w)
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, ": keep-alive\n\n"+strings.Repeat(":\n", 100)); err != nil {
					return
				}
				if rc.Flush() != nil {
					return
				}
			}
		})
		c, t := dialRecorded(url)
		ctx, cancel := context.WithTimeout(context.Background(), stallCtx)
		defer cancel()
		Expect(c.Send(ctx, request("3", "tools/list", ""))).To(Succeed())
		err := within(func() error { return waitResponse(ctx, c, jsonrpc.NumberID(3)) })
		stallShape(err, StallKeepAlive, `^SSE stream of POST tools/list sent only comments \(keep-alives\): [1-9]\d* bytes in \d.* without an event \(no response to id 3\)$`)
		Expect(eventsOf(t)()).To(ContainElement(err.Error()))
	})
})
