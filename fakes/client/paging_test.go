package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// pager serves tools/list pages of items tools each, padded to about
// itemBytes; pages gives the number of pages (0: without end), loop makes
// the second page's cursor the first's again.
func pager(pages, items, itemBytes int, loop bool, served *atomic.Int64) *server.Engine {
	pad := strings.Repeat("x", itemBytes)
	return &server.Engine{Requests: map[string]server.Handler{
		protocol.MethodInitialize: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			return map[string]any{"protocolVersion": protocol.V20251125, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "pager", "version": "0"}}, nil
		},
		protocol.MethodToolsList: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			n := served.Add(1)
			tools := make([]any, 0, items)
			for i := range items {
				tools = append(tools, map[string]any{"name": fmt.Sprintf("t%d-%d", n, i), "description": pad,
					"inputSchema": map[string]any{"type": "object"}})
			}
			out := map[string]any{"tools": tools}
			switch {
			case loop:
				out["nextCursor"] = fmt.Sprintf("c%d", (n-1)%2+1)
			case pages == 0 || n < int64(pages):
				out["nextCursor"] = fmt.Sprintf("c%d", n)
			}
			return out, nil
		},
	}}
}

var _ = Describe("ListAll", func() {
	It("follows nextCursor to the last page and gathers every item", func() {
		var served atomic.Int64
		s := connect(serve(transport.WS, pager(3, 4, 10, false, &served)), client.Options{Label: "A"})
		_, err := s.Initialize(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		l, err := s.ListAll(stepCtx(), protocol.MethodToolsList, client.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Pages).To(Equal(3))
		Expect(l.Items).To(HaveLen(12))
		Expect(l.Last.Error).To(BeNil())
	})

	// Issue 21: 100,000-item pages without end peaked at 1.87 GB and took
	// 12 min 40 s; the scenario deadline that ended it was blamed on the
	// target, which answered every page at once.
	It("stops a server that pages huge pages without end at the byte budget, and says what happened", func() {
		var served atomic.Int64
		s := connect(serve(transport.WS, pager(0, 1000, 1000, false, &served)), client.Options{Label: "A"})
		_, err := s.Initialize(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		w := watchHeap()
		// Reading 8 MB of pages (each validated against the schema) takes
		// seconds of CPU on a loaded machine: the deadline is generous, and
		// nothing here is timed.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		l, err := s.ListAll(ctx, protocol.MethodToolsList, client.ListOptions{Budget: client.PagingBudget{Bytes: 8 << 20}})
		base, peak := w.Stop()
		Expect(errors.Is(err, client.ErrPagingBudget)).To(BeTrue(), "%v", err)
		var pe *client.PagingBudgetError
		Expect(errors.As(err, &pe)).To(BeTrue())
		Expect(pe.Stop).To(Equal(client.PagingTooManyBytes))
		Expect(pe.Pages).To(Equal(8), "1 MB pages: the page that passes 8 MiB is the last")
		Expect(err.Error()).To(MatchRegexp(`^tools/list: stopped after 8 page\(s\) / 8\.\d MiB \(8,000 items; the budget is 100 pages or 8 MiB\): the server keeps returning nextCursor; each page was answered within .* \(.* in all, with mcpconform.s reading of the pages\)$`))
		Expect(l.Items).To(HaveLen(8000), "what was gathered is kept")
		Expect(served.Load()).To(Equal(int64(8)), "no page is asked for beyond the budget")
		Expect(peak - min(base, peak)).To(BeNumerically("<", uint64(96<<20)))
	})

	It("stops at the page budget, and at a cursor given again", func() {
		var served atomic.Int64
		s := connect(serve(transport.WS, pager(0, 1, 10, false, &served)), client.Options{Label: "A"})
		_, err := s.Initialize(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		_, err = s.ListAll(stepCtx(), protocol.MethodToolsList, client.ListOptions{PageTimeout: time.Second})
		var pe *client.PagingBudgetError
		Expect(errors.As(err, &pe)).To(BeTrue(), "%v", err)
		Expect(pe.Stop).To(Equal(client.PagingTooManyPages))
		Expect(pe.Pages).To(Equal(client.DefaultPagingBudget.Pages))

		var looped atomic.Int64
		s = connect(serve(transport.WS, pager(0, 1, 10, true, &looped)), client.Options{Label: "B"})
		_, err = s.Initialize(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		_, err = s.ListAll(stepCtx(), protocol.MethodToolsList, client.ListOptions{})
		Expect(errors.As(err, &pe)).To(BeTrue(), "%v", err)
		Expect(pe.Stop).To(Equal(client.PagingCursorRepeated))
		Expect(err.Error()).To(ContainSubstring(`the server returned nextCursor "c1" again`))
		Expect(looped.Load()).To(Equal(int64(3)))
	})
})
