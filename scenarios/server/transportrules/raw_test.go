package transportrules

import (
	"io"
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = g.Describe("the raw SSE reader", func() {
	g.It("reads a priming event (id, retry, empty data), then a message, with CRLF and comments", func() {
		r := newSSE(strings.NewReader(": hello\r\nid: r1-0\r\nretry: 500\r\ndata: \r\n\r\nid: r1-1\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":\"x\",\"result\":{}}\n\n"))
		ev, err := r.next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev).To(Equal(sseEvent{id: "r1-0", retry: "500", hasID: true}))
		Expect(ev.retryMillis()).To(Equal(500))
		ev, err = r.next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.id).To(Equal("r1-1"))
		m, ok := decodeAnswer(ev.data, jsonrpc.StringID("x"))
		Expect(ok).To(BeTrue())
		Expect(m.Result).NotTo(BeNil())
		_, err = r.next()
		Expect(err).To(Equal(io.EOF))
	})

	g.It("tells an event without an id from one with an empty id, and a bad retry from none", func() {
		r := newSSE(strings.NewReader("retry: soon\ndata:\n\nid:\ndata: x"))
		ev, _ := r.next()
		Expect(ev.hasID).To(BeFalse())
		Expect(ev.retryMillis()).To(Equal(-1))
		ev, err := r.next()
		Expect(err).NotTo(HaveOccurred()) // an event cut by the end of the stream still counts
		Expect(ev.hasID).To(BeTrue())
		Expect(ev.data).To(Equal("x"))
	})

	g.It("does not take a request or another id for the answer", func() {
		_, ok := decodeAnswer(`{"jsonrpc":"2.0","id":"x","method":"ping"}`, jsonrpc.StringID("x"))
		Expect(ok).To(BeFalse())
		_, ok = decodeAnswer(`{"jsonrpc":"2.0","id":"y","result":{}}`, jsonrpc.StringID("x"))
		Expect(ok).To(BeFalse())
	})
})
