package lifecycle

import (
	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = g.Describe("wire-schema's account of what was counted but not kept", func() {
	g.It("says how many more there were, and why they are not shown", func() {
		Expect(describeUnkept(0)).To(BeEmpty())
		Expect(describeUnkept(5146)).To(Equal("\nand 5,146 more invalid message(s) counted but not kept " +
			"(a session keeps its first 1,000, the ledger of a transport and version its first 1,000)"))
	})
})
