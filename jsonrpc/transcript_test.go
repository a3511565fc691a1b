package jsonrpc_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = Describe("Transcript", func() {
	var t *jsonrpc.Transcript
	BeforeEach(func() { t = jsonrpc.NewTranscript() })

	lines := func(s string) []string {
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}

	It("formats one line per frame: relative time, direction, session, raw text", func() {
		t.Record(jsonrpc.Sent, "A", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		t.Record(jsonrpc.Received, "A", []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n"))
		t.Record(jsonrpc.Stderr, "", []byte("warming up\n"))
		t.Eventf("B", "process exited: exit status %d", 7)

		out := t.String()
		Expect(out).To(HaveSuffix("\n"))
		ls := lines(out)
		Expect(ls).To(HaveLen(4))
		Expect(ls[0]).To(MatchRegexp(`^ *\d+\.\d{3}s send   \[A\] \{"jsonrpc":"2\.0","id":1,"method":"ping"\}$`))
		Expect(ls[1]).To(MatchRegexp(`^ *\d+\.\d{3}s recv   \[A\] \{"jsonrpc":"2\.0","id":1,"result":\{\}\}$`))
		Expect(ls[2]).To(MatchRegexp(`^ *\d+\.\d{3}s stderr warming up$`))
		Expect(ls[3]).To(MatchRegexp(`^ *\d+\.\d{3}s event  \[B\] process exited: exit status 7$`))
		for _, l := range ls {
			Expect(l[:10]).To(MatchRegexp(`^[ \d]{4}\d\.\d{3}s$`), "the time column is 9 wide plus the unit")
		}
		Expect(out).NotTo(ContainSubstring("dropped"))
	})

	It("keeps frames in order, with their direction, session and a copy of the bytes", func() {
		raw := []byte("frame-1")
		t.Record(jsonrpc.Sent, "A", raw)
		raw[0] = 'X'
		t.Record(jsonrpc.Received, "B", []byte("frame-2"))
		fs := t.Frames()
		Expect(fs).To(HaveLen(2))
		Expect(string(fs[0].Raw)).To(Equal("frame-1"))
		Expect(fs[0].Direction).To(Equal(jsonrpc.Sent))
		Expect(fs[0].Session).To(Equal("A"))
		Expect(string(fs[1].Raw)).To(Equal("frame-2"))
		Expect(fs[1].Direction).To(Equal(jsonrpc.Received))
		Expect(fs[1].At).NotTo(BeTemporally("<", fs[0].At))

		fs[0].Raw = []byte("changed")
		Expect(string(t.Frames()[0].Raw)).To(Equal("frame-1"), "Frames returns a copy of the list")
	})

	It("formats from a mark with Since", func() {
		t.Record(jsonrpc.Sent, "", []byte("one"))
		t.Record(jsonrpc.Sent, "", []byte("two"))
		mark := t.Len()
		Expect(mark).To(Equal(2))
		Expect(t.Since(mark)).To(BeEmpty())
		t.Record(jsonrpc.Received, "", []byte("three"))
		t.Record(jsonrpc.Received, "", []byte("four"))

		ls := lines(t.Since(mark))
		Expect(ls).To(HaveLen(2))
		Expect(ls[0]).To(HaveSuffix("recv   three"))
		Expect(ls[1]).To(HaveSuffix("recv   four"))
		Expect(t.Since(0)).To(Equal(t.String()))
		Expect(lines(t.String())).To(HaveLen(4))
		Expect(t.Since(-1)).To(Equal(t.String()), "a negative mark formats everything")
	})

	It("bounds the bytes it keeps, drops what does not fit, and says so", func() {
		chunk := bytes.Repeat([]byte("x"), jsonrpc.DefaultEntryLimit)
		for range jsonrpc.DefaultTranscriptLimit / len(chunk) {
			t.Record(jsonrpc.Received, "A", chunk)
		}
		kept := t.Len()
		Expect(kept).To(Equal(jsonrpc.DefaultTranscriptLimit / len(chunk)))
		t.Record(jsonrpc.Received, "A", []byte("one byte too many"))
		t.Record(jsonrpc.Received, "A", chunk)
		Expect(t.Len()).To(Equal(kept))

		out := t.String()
		Expect(out).To(HaveSuffix(fmt.Sprintf("… 2 further frames dropped (transcript limit %d bytes)\n", jsonrpc.DefaultTranscriptLimit)))
		Expect(out).NotTo(ContainSubstring("one byte too many"))
		Expect(t.Since(kept)).To(Equal(fmt.Sprintf("… 2 further frames dropped (transcript limit %d bytes)\n", jsonrpc.DefaultTranscriptLimit)),
			"the drop notice is part of every formatted tail")
	})

	It("cuts a long entry to its head and notes the full length", func() {
		long := append(bytes.Repeat([]byte("é"), 1_950_056), 'x') // 3,900,113 bytes; é is 2 bytes
		t.Record(jsonrpc.Received, "A", long)
		t.Record(jsonrpc.Received, "A", []byte("short"))
		fs := t.Frames()
		Expect(fs).To(HaveLen(2))
		Expect(len(fs[0].Raw)).To(BeNumerically("<=", jsonrpc.DefaultEntryLimit))
		Expect(string(fs[0].Raw)).To(HaveSuffix("é…[cut: 3,900,113 bytes]"), "cut on a character boundary")
		Expect(string(fs[0].Raw)).To(HavePrefix("éé"))
		Expect(string(fs[1].Raw)).To(Equal("short"))
		Expect(lines(t.String())).To(HaveLen(2))
	})

	It("keeps at most the transcript limit however many long lines arrive", func() {
		long := bytes.Repeat([]byte("y"), 3_900_112)
		for range 200 {
			t.Record(jsonrpc.Received, "A", long)
		}
		Expect(len(t.String())).To(BeNumerically("<", jsonrpc.DefaultTranscriptLimit+64<<10))
		Expect(t.String()).To(ContainSubstring("…[cut: 3,900,112 bytes]"))
		Expect(t.String()).To(ContainSubstring("further frames dropped"))
	})

	It("formats thousands", func() {
		Expect(jsonrpc.Thousands(0)).To(Equal("0"))
		Expect(jsonrpc.Thousands(999)).To(Equal("999"))
		Expect(jsonrpc.Thousands(1000)).To(Equal("1,000"))
		Expect(jsonrpc.Thousands(3900112)).To(Equal("3,900,112"))
		Expect(jsonrpc.Thousands(-1234567)).To(Equal("-1,234,567"))
	})

	It("is race-free under concurrent Record, Eventf and readers", func() {
		const writers, each = 16, 200
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var readers sync.WaitGroup
		for range 4 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					_ = t.Since(t.Len() / 2)
					_ = t.Frames()
				}
			}()
		}
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if i%2 == 0 {
						t.Record(jsonrpc.Sent, fmt.Sprintf("w%d", w), []byte(fmt.Sprintf("w%d-%d", w, i)))
					} else {
						t.Eventf(fmt.Sprintf("w%d", w), "w%d-%d", w, i)
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		readers.Wait()

		Expect(t.Len()).To(Equal(writers * each))
		seen := map[string]bool{}
		for _, f := range t.Frames() {
			seen[string(f.Raw)] = true
		}
		Expect(seen).To(HaveLen(writers * each))
		Expect(seen).To(HaveKey("w15-199"))
		Expect(lines(t.String())).To(HaveLen(writers * each))
	})

	It("is a no-op when nil", func() {
		var nilT *jsonrpc.Transcript
		nilT.Record(jsonrpc.Sent, "A", []byte("x"))
		nilT.Eventf("A", "event %d", 1)
		Expect(nilT.Len()).To(BeZero())
		Expect(nilT.Frames()).To(BeNil())
		Expect(nilT.String()).To(BeEmpty())
		Expect(nilT.Since(0)).To(BeEmpty())
	})
})
