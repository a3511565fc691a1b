package catalogue

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios"
)

// The map of the official suite is held to its data and to the catalogue;
// each way the data can drift from them is caught.
var _ = Describe("the coverage data", func() {
	It("has one rule for every official scenario at every revision where it applies, naming scenarios that run there", func() {
		Expect(coverageProblems(official, coverageMap, all)).To(BeEmpty())
	})

	// fresh decodes the embedded data anew, so that a change stays in
	// one entry.
	fresh := func() (officialData, coverageData) { return mustLoad() }

	DescribeTable("catches",
		func(change func(*officialData, coverageData), want string) {
			off, cov := fresh()
			change(&off, cov)
			Expect(coverageProblems(off, cov, all)).To(ContainElement(ContainSubstring(want)))
		},
		Entry("an official scenario a new release brings, with no rule", func(off *officialData, _ coverageData) {
			off.Scenarios = append(off.Scenarios, OfficialScenario{Name: "tools-new", Side: scenarios.ServerSide,
				Versions: []string{"2026-07-28"}, Revisions: map[string]string{"2026-07-28": Scored}})
		}, "server tools-new at 2026-07-28: no coverage rule"),
		Entry("a scenario newly applying at a revision, with no rule there", func(off *officialData, cov coverageData) {
			for i, o := range off.Scenarios {
				if o.Name == "ping" {
					off.Scenarios[i].Revisions["2026-07-28"] = Scored
				}
			}
		}, "server ping at 2026-07-28: lifecycle-ping judges nothing at 2026-07-28"),
		Entry("a rule for no official scenario", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["tools-gone"] = coverageRule{By: []string{"tools-list"}}
		}, "coverage.yaml: server tools-gone is no official scenario"),
		Entry("a rule on the wrong side", func(_ *officialData, cov coverageData) {
			cov[scenarios.ClientSide]["ping"] = cov[scenarios.ServerSide]["ping"]
		}, "coverage.yaml: ping is under client"),
		Entry("a rule at a revision where the scenario does not apply", func(_ *officialData, cov coverageData) {
			r := cov[scenarios.ServerSide]["ping"]
			r.At = map[string]coverageRule{"2026-07-28": {Partial: "x"}}
			cov[scenarios.ServerSide]["ping"] = r
		}, "coverage.yaml: ping has a rule at 2026-07-28, where it does not apply"),
		Entry("an mcpconform scenario that does not exist", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["ping"] = coverageRule{By: []string{"lifecycle-pong"}}
		}, "server ping at 2025-11-25: no mcpconform scenario lifecycle-pong"),
		Entry("an mcpconform scenario of the other side", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["ping"] = coverageRule{By: []string{"client-initialize"}}
		}, "server ping at 2025-11-25: client-initialize is a client scenario"),
		Entry("an mcpconform scenario that does not run at the revision", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["tools-list"] = coverageRule{By: []string{"tools-call-sampling"}}
		}, "server tools-list at 2026-07-28: tools-call-sampling judges nothing at 2026-07-28"),
		Entry("a full rule naming nothing", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["ping"] = coverageRule{}
		}, "server ping at 2025-11-25: full, yet it names no mcpconform scenario"),
		Entry("an absent rule that names a scenario", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["ping"] = coverageRule{By: []string{"lifecycle-ping"}, Absent: "x"}
		}, "server ping at 2025-11-25: absent, yet it names [lifecycle-ping]"),
		Entry("a rule both partial and absent", func(_ *officialData, cov coverageData) {
			cov[scenarios.ServerSide]["ping"] = coverageRule{Partial: "x", Absent: "y"}
		}, "server ping at 2025-11-25: both partial and absent"),
		Entry("a scenario taking an official name its rule leaves out", func(_ *officialData, cov coverageData) {
			r := cov[scenarios.ClientSide]["auth/scope-step-up"]
			r.At = nil
			cov[scenarios.ClientSide]["auth/scope-step-up"] = r
		}, "scenario client-auth-scope-step-up-union takes the official name auth/scope-step-up but is not named in its coverage at 2026-07-28"),
		Entry("an absent kept at a revision where the rule's scenario has come to run", func(_ *officialData, cov coverageData) {
			r := cov[scenarios.ServerSide]["tools-list"]
			r.At = map[string]coverageRule{"2026-07-28": {Absent: "x"}}
			cov[scenarios.ServerSide]["tools-list"] = r
		}, "coverage.yaml: tools-list is absent at 2026-07-28, yet tools-list, which its rule names, judges there"),
		Entry("a revision status that is no reason", func(off *officialData, _ coverageData) {
			off.Scenarios[0].Revisions["2025-11-25"] = "optional"
		}, `is "optional", neither scored nor a not-scored reason`),
		Entry("a scenario whose versions reach a revision its lists say nothing of", func(off *officialData, _ coverageData) {
			for i, o := range off.Scenarios {
				if o.Name == "ping" {
					off.Scenarios[i].Versions = append(off.Scenarios[i].Versions, "2026-07-28")
				}
			}
		}, "official.yaml: ping applies at 2026-07-28 but says nothing of its list there"),
	)
})
