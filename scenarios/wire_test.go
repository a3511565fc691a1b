package scenarios

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/mcpconform/mcpconform/jsonrpc"
	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = g.Describe("WireLedger's schema violations", func() {
	g.It("keeps the first WireViolationKeep, each cut, and counts the rest", func() {
		l := &WireLedger{}
		big := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 1<<20) + `"}}`)
		for i := range WireViolationKeep + 500 {
			l.Add(WireViolation{Scenario: fmt.Sprint("s-", i), What: "notification notifications/message",
				Err: "$.params.level: " + strings.Repeat("e", 8<<10), Raw: big})
		}
		l.Count(42)
		kept, total := l.Violations()
		Expect(kept).To(HaveLen(WireViolationKeep))
		Expect(total).To(Equal(WireViolationKeep + 500 + 42))
		Expect(kept[0].Scenario).To(Equal("s-0"), "the first are kept")
		for _, v := range kept {
			Expect(len(v.Raw)).To(BeNumerically("<=", WireViolationBytes))
			Expect(len(v.Err)).To(BeNumerically("<=", WireTextBytes))
		}
		Expect(string(kept[0].Raw)).To(HavePrefix(`{"jsonrpc":"2.0","method":"notifications/message"`))
		Expect(string(kept[0].Raw)).To(HaveSuffix("[cut: " + jsonrpc.Thousands(len(big)) + " bytes]"))
		Expect(l.All()).To(Equal(kept))
	})

	g.It("holds a bounded amount of memory however many invalid messages arrive", func() {
		// 20,000 violations of 64 KiB each were 1.25 GiB held for the run.
		raw := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 64<<10) + `"}}`)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		l := &WireLedger{}
		for range 20000 {
			l.Add(WireViolation{Scenario: "flood", What: "notification notifications/message", Err: "$.params.level: expected string",
				Raw: append([]byte(nil), raw...)})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := int64(after.HeapInuse) - int64(before.HeapInuse)
		g.GinkgoWriter.Printf("ledger of 20,000 violations of 64 KiB: %d KiB held\n", held>>10)
		Expect(held).To(BeNumerically("<", 16<<20))
		_, total := l.Violations()
		Expect(total).To(Equal(20000))
	})

	g.It("keeps the first WireBreachKeep breaches of a rule with their texts cut, and counts the rest", func() {
		l := &WireLedger{}
		huge := strings.Repeat("[", 1<<20) // a method that is not a string, quoted in What
		for range WireBreachKeep + 5 {
			l.AddBreach(WireBreach{Scenario: "s", Rule: "jsonrpc-only", What: "a message whose method is " + huge + ", not a string",
				Raw: []byte(huge), Also: 2})
		}
		kept, total := l.Breaches("jsonrpc-only")
		Expect(kept).To(HaveLen(WireBreachKeep))
		Expect(total).To(Equal(3 * (WireBreachKeep + 5)))
		for _, b := range kept {
			Expect(len(b.What)).To(BeNumerically("<=", WireTextBytes))
			Expect(len(b.Raw)).To(BeNumerically("<=", WireViolationBytes))
		}
		Expect(kept[0].What).To(HavePrefix("a message whose method is [[["))
	})

	g.It("records nothing in a nil ledger", func() {
		var l *WireLedger
		l.Add(WireViolation{What: "x"})
		l.Count(3)
		kept, total := l.Violations()
		Expect(kept).To(BeEmpty())
		Expect(total).To(BeZero())
	})
})
