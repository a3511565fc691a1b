package catalogue_test

import (
	"strings"

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

	It("judges every client scenario of both revisions, but for the auth ones it says it does not judge yet", func() {
		for _, v := range catalogue.OfficialVersions() {
			for _, c := range catalogue.CoverageOf(v) {
				if c.Side != scenarios.ClientSide {
					continue
				}
				if strings.HasPrefix(c.Official, "auth/") && len(c.Scenarios) == 0 {
					Expect(c.Why).NotTo(BeEmpty(), "client %s at %s", c.Official, v)
					continue
				}
				Expect(c.Scenarios).NotTo(BeEmpty(), "client %s at %s", c.Official, v)
				Expect(c.Checks).To(BeNumerically(">", 0))
			}
		}
	})
})
