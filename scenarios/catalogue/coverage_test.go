package catalogue_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

var _ = Describe("the coverage map of the official lists", func() {
	It("judges every server scenario the official suite scores at 2025-11-25", func() {
		for _, c := range catalogue.CoverageOf("2025-11-25") {
			if c.Side == scenarios.ServerSide {
				Expect(c.Scenarios).NotTo(BeEmpty(), "server %s", c.Official)
			}
		}
	})

	It("says why it judges an official scenario it does not judge", func() {
		for _, v := range catalogue.OfficialVersions() {
			for _, c := range catalogue.CoverageOf(v) {
				Expect(len(c.Scenarios) > 0 || c.Why != "").To(BeTrue(), "%s %s at %s", c.Side, c.Official, v)
			}
		}
	})

	It("judges every client scenario of both revisions, authorization included", func() {
		for _, v := range catalogue.OfficialVersions() {
			for _, c := range catalogue.CoverageOf(v) {
				if c.Side != scenarios.ClientSide {
					continue
				}
				Expect(c.Scenarios).NotTo(BeEmpty(), "client %s at %s", c.Official, v)
				Expect(c.Checks).To(BeNumerically(">", 0))
			}
		}
	})
})
