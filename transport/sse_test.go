package transport

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func readAllSSE(r io.Reader) ([]sseEvent, *sseReader, error) {
	sr := newSSEReader(r)
	var evs []sseEvent
	for {
		ev, err := sr.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return evs, sr, err
		}
		evs = append(evs, ev)
	}
}

var _ = Describe("SSE reader", func() {
	It("parses data, id, event and retry fields and joins multi-line data with LF", func() {
		evs, sr, err := readAllSSE(strings.NewReader(
			"id: 7\nevent: message\ndata: {\"a\":\ndata: 1}\nretry: 1500\n\ndata:x\n\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(2))
		Expect(evs[0].ID).To(Equal("7"))
		Expect(evs[0].HasID).To(BeTrue())
		Expect(evs[0].Event).To(Equal("message"))
		Expect(evs[0].Data).To(Equal("{\"a\":\n1}"))
		Expect(evs[0].Retry).To(Equal(1500))
		Expect(evs[1].Data).To(Equal("x"))
		Expect(evs[1].HasID).To(BeFalse())
		Expect(sr.RetryMillis()).To(Equal(1500))
		Expect(sr.Partial).To(BeFalse())
	})

	It("accepts CRLF, CR and LF line endings, even split across reads", func() {
		in := "data: one\r\n\r\ndata: two\r\rdata: three\n\n"
		evs, _, err := readAllSSE(iotest.OneByteReader(strings.NewReader(in)))
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(3))
		Expect([]string{evs[0].Data, evs[1].Data, evs[2].Data}).To(Equal([]string{"one", "two", "three"}))
	})

	It("ignores comments, a leading BOM, unknown fields and bad retry values", func() {
		evs, sr, err := readAllSSE(strings.NewReader("\uFEFF: keep-alive\n:\nfoo: bar\nretry: 12a\ndata: x\n\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(1))
		Expect(evs[0].Data).To(Equal("x"))
		Expect(sr.RetryMillis()).To(Equal(0))
	})

	It("strips exactly one space after the colon and treats a bare field name as empty", func() {
		evs, _, err := readAllSSE(strings.NewReader("data:  two spaces\n\ndata\n\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(2))
		Expect(evs[0].Data).To(Equal(" two spaces"))
		Expect(evs[1].Data).To(Equal(""))
	})

	It("returns id-only (priming) events, skips empty events and discards a trailing partial event", func() {
		evs, sr, err := readAllSSE(strings.NewReader("id: p1\ndata:\n\nevent: x\n\nid: p2\n\ndata: lost"))
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(2))
		Expect(evs[0].ID).To(Equal("p1"))
		Expect(evs[0].Data).To(Equal(""))
		Expect(evs[1].ID).To(Equal("p2"))
		Expect(sr.Partial).To(BeTrue())
	})

	It("reports read errors other than EOF", func() {
		_, _, err := readAllSSE(iotest.ErrReader(io.ErrUnexpectedEOF))
		Expect(err).To(MatchError(io.ErrUnexpectedEOF))
	})

	It("round-trips frames through the writer, line breaks becoming LF", func() {
		var b []byte
		b = appendSSEEvent(b, "", "", []byte(`{"jsonrpc":"2.0","method":"m"}`))
		b = appendSSEEvent(b, "9", "message", []byte("{\r\n\"a\":1\r}"))
		evs, _, err := readAllSSE(strings.NewReader(string(b)))
		Expect(err).NotTo(HaveOccurred())
		Expect(evs).To(HaveLen(2))
		Expect(evs[0].Data).To(Equal(`{"jsonrpc":"2.0","method":"m"}`))
		Expect(evs[1].Data).To(Equal("{\n\"a\":1\n}"))
		Expect(evs[1].ID).To(Equal("9"))
	})
})

var _ = Describe("SSE reader bounds", func() {
	It("says a line is longer than the limit, not that a token is", func() {
		_, _, err := readAllSSE(strings.NewReader(":" + strings.Repeat(" keep-alive", maxSSELine/10) + "\n\n"))
		Expect(err).To(MatchError(bufio.ErrTooLong))
		Expect(err.Error()).To(Equal(fmt.Sprintf("an SSE line longer than the limit of %d bytes", maxSSELine)))
	})

	It("ends a stream whose event grows past the bound in many short data lines", func() {
		sr := newSSEReader(strings.NewReader(strings.Repeat("data: xxxxxxxxx\n", 100) + "\n"))
		sr.maxEvent = 500
		_, err := sr.Next()
		Expect(err).To(MatchError(errSSEEventTooLarge))
		Expect(err.Error()).To(Equal("SSE event larger than the frame size limit (500 bytes)"))
	})
})

var _ = Describe("HTTP header helpers", func() {
	It("base64-encodes unsafe Mcp-Name values per the 2026-07-28 Value Encoding table", func() {
		Expect(EncodeHeaderValue("us-west1")).To(Equal("us-west1"))
		Expect(EncodeHeaderValue("Hello, 世界")).To(Equal("=?base64?SGVsbG8sIOS4lueVjA==?="))
		Expect(EncodeHeaderValue(" padded ")).To(Equal("=?base64?IHBhZGRlZCA=?="))
		Expect(EncodeHeaderValue("line1\nline2")).To(Equal("=?base64?bGluZTEKbGluZTI=?="))
		Expect(EncodeHeaderValue("=?base64?literal?=")).To(Equal("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="))
		v, ok := DecodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?=")
		Expect(ok).To(BeTrue())
		Expect(v).To(Equal("Hello, 世界"))
		_, ok = DecodeHeaderValue("=?base64?!!!?=")
		Expect(ok).To(BeFalse())
	})
})
