package suites_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
)

var _ = Describe("a baseline entry named as the official suite names a scenario", func() {
	It("stands for every mcpconform scenario that judges it, and every official scenario id is taken", func() {
		entries := suites.ExpandOfficialNames([]reports.BaselineEntry{{Side: "server", ID: "ping"}, {Side: "server", ID: "server-initialize"},
			{Side: "server", ID: "resources-unsubscribe"}, {Side: "server", ID: "server-stateless", SpecVersions: []string{"2026-07-28"}}})
		var ids []string
		for i := range entries {
			Expect(suites.CheckBaselineEntry(&entries[i])).To(Succeed(), entries[i].ID)
			ids = append(ids, entries[i].ID)
		}
		Expect(ids).To(ContainElements("lifecycle-ping", "lifecycle-initialize", "transport-session", "lifecycle-discover"))
		Expect(len(ids)).To(BeNumerically(">", 6), "server-stateless stands for several scenarios")

		for _, o := range catalogue.OfficialScenarios() {
			if len(catalogue.ScenariosFor(o.Side, o.Name)) == 0 {
				continue // judged by no mcpconform scenario: nothing to stand for
			}
			for _, e := range suites.ExpandOfficialNames([]reports.BaselineEntry{{Side: string(o.Side), ID: o.Name}}) {
				Expect(suites.CheckBaselineEntry(&e)).To(Succeed(), "official %s %s", o.Side, o.Name)
			}
		}
	})
})
