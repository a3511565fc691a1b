package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
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
			Reason: reports.ReasonInterrupted, Message: "interrupted by SIGTERM before this check was judged"}))
		Expect(got[2].Checks).To(Equal([]reports.Check{{ID: "c/1", Level: "MUST", Status: reports.Errored,
			Reason: reports.ReasonInterrupted, Message: "interrupted by SIGTERM before this check was judged"}}))
	})
})

var _ = Describe("a verdict as the reports hold it", func() {
	cfg := Config{Env: scenarios.Env{Version: "2025-11-25"}}
	check := &scenarios.Check{ID: "s/c", Title: "a requirement", Level: scenarios.Should, Spec: "2025-11-25/basic/index.mdx"}
	verdict := func(o scenarios.Outcome, why scenarios.Why) scenarios.Verdict {
		judged := *check
		return scenarios.Verdict{Check: judged, Outcome: o, Why: why, Message: "why so"}
	}
	DescribeTable("carries the kind of its reason, and the status strict gives it",
		func(v scenarios.Verdict, strict bool, status reports.Status, reason reports.ReasonKind) {
			cfg := cfg
			cfg.Strict = strict
			got := judgedReport(cfg, check, v)
			Expect(got.Status).To(Equal(status))
			Expect(got.Reason).To(Equal(reason))
			Expect(got.Message).To(Equal("why so"), "the message stays as the verdict gave it")
		},
		Entry("a plain skip", verdict(scenarios.Skip, ""), false, reports.Skipped, reports.ReasonKind("")),
		Entry("not judged", verdict(scenarios.Skip, scenarios.NotJudged), false, reports.Skipped, reports.ReasonNotJudged),
		Entry("not judged, as an error", verdict(scenarios.Errored, scenarios.NotJudged), false, reports.Errored, reports.ReasonNotJudged),
		Entry("an opt-in profile off", verdict(scenarios.Skip, scenarios.ProfileOff), false, reports.Skipped, reports.ReasonProfile),
		Entry("the deadline", verdict(scenarios.Errored, scenarios.Deadline), false, reports.Errored, reports.ReasonDeadline),
		Entry("the harness", verdict(scenarios.Errored, scenarios.Harness), false, reports.Errored, reports.ReasonHarness),
		Entry("a SHOULD failed", verdict(scenarios.Fail, ""), false, reports.Warning, reports.ReasonKind("")),
		Entry("a SHOULD failed, strict", verdict(scenarios.Fail, ""), true, reports.Failed, reports.ReasonKind("")),
	)
})
