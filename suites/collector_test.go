package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("Collector of an interrupted run", func() {
	It("reports every planned scenario in plan order, unjudged checks as errors naming the signal", func() {
		col := NewCollector()
		check := func(id string) reports.Check { return reports.Check{ID: id, Level: "MUST"} }
		col.plan("a", reports.Scenario{ID: "a", Checks: []reports.Check{check("a/1"), check("a/2")}})
		col.plan("b", reports.Scenario{ID: "b", Checks: []reports.Check{check("b/1"), check("b/2")}})
		col.plan("c", reports.Scenario{ID: "c", Checks: []reports.Check{check("c/1")}})
		// a was judged; b was in flight, one check judged; c never ran.
		for _, key := range []string{"a", "b"} {
			col.scenario(key, func() *reports.Scenario { return &reports.Scenario{ID: key, Transcript: "t-" + key} })
		}
		col.addCheck("a", reports.Check{ID: "a/1", Status: reports.Passed})
		col.addCheck("a", reports.Check{ID: "a/2", Status: reports.Failed, Message: "why"})
		col.addCheck("b", reports.Check{ID: "b/1", Status: reports.Passed})

		Expect(col.Scenarios()).To(HaveLen(2), "without an interrupt, what ran")
		got := col.Interrupted("SIGTERM")
		Expect(got).To(HaveLen(3))
		Expect([]string{got[0].ID, got[1].ID, got[2].ID}).To(Equal([]string{"a", "b", "c"}))
		Expect(got[0].Checks).To(Equal([]reports.Check{{ID: "a/1", Status: reports.Passed}, {ID: "a/2", Status: reports.Failed, Message: "why"}}))
		Expect(got[1].Transcript).To(Equal("t-b"), "what the scenario in flight recorded is kept")
		Expect(got[1].Checks[0].Status).To(Equal(reports.Passed))
		Expect(got[1].Checks[1]).To(Equal(reports.Check{ID: "b/2", Level: "MUST", Status: reports.Errored,
			Message: "interrupted by SIGTERM before this check was judged"}))
		Expect(got[2].Checks).To(Equal([]reports.Check{{ID: "c/1", Level: "MUST", Status: reports.Errored,
			Message: "interrupted by SIGTERM before this check was judged"}}))
	})
})
