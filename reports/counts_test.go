package reports_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("Counts", func() {
	It("totals every status over all scenarios", func() {
		Expect(sampleRun().Counts()).To(Equal(reports.Counts{
			Passed: 1, Failed: 1, Warning: 2, Skipped: 1, Errored: 1, Total: 6,
		}))
	})

	It("counts an unknown status as an error", func() {
		r := &reports.Run{Scenarios: []reports.Scenario{{Checks: []reports.Check{{Status: ""}, {Status: "PASSED"}}}}}
		Expect(r.Counts()).To(Equal(reports.Counts{Errored: 2, Total: 2}))
	})

	It("is zero for a nil or empty run", func() {
		var r *reports.Run
		Expect(r.Counts()).To(Equal(reports.Counts{}))
		Expect((&reports.Run{}).Counts()).To(Equal(reports.Counts{}))
	})

	DescribeTable("Outcome picks the worst status",
		func(c reports.Counts, want reports.Status) { Expect(c.Outcome()).To(Equal(want)) },
		Entry("nothing ran", reports.Counts{}, reports.Skipped),
		Entry("all skipped", reports.Counts{Skipped: 2, Total: 2}, reports.Skipped),
		Entry("pass beats skip", reports.Counts{Passed: 1, Skipped: 1, Total: 2}, reports.Passed),
		Entry("warning", reports.Counts{Passed: 1, Warning: 1, Total: 2}, reports.Warning),
		Entry("failure", reports.Counts{Failed: 1, Warning: 1, Total: 2}, reports.Failed),
		Entry("failure beats error, as in the exit code", reports.Counts{Failed: 1, Errored: 1, Total: 2}, reports.Failed),
		Entry("error", reports.Counts{Passed: 1, Errored: 1, Warning: 1, Total: 3}, reports.Errored),
	)
})

var _ = Describe("Check.Final", func() {
	DescribeTable("is the status every report shows and counts",
		func(c reports.Check, want reports.Status) { Expect(c.Final()).To(Equal(want)) },
		Entry("a pass", reports.Check{Status: reports.Passed}, reports.Passed),
		Entry("a failure", reports.Check{Status: reports.Failed}, reports.Failed),
		Entry("a failure the baseline expected", reports.Check{Status: reports.Failed, Expected: true}, reports.ExpectedFailure),
		Entry("an expected mark on what did not fail", reports.Check{Status: reports.Warning, Expected: true}, reports.Warning),
		Entry("an unknown status", reports.Check{Status: "flaky", Expected: true}, reports.Errored),
	)
})

var _ = Describe("Run.Normalize", func() {
	It("gives each scenario the run's side, transport and version where the run names one, and no guess where it lists several", func() {
		r := &reports.Run{Side: "server", Transport: "stdio,http", SpecVersion: "2025-11-25", Scenarios: []reports.Scenario{
			{ID: "a"},
			{ID: "b", Side: "client", Transport: "http", SpecVersion: "2025-06-18"},
		}}
		r.Normalize()
		Expect(r.Scenarios[0]).To(Equal(reports.Scenario{ID: "a", Side: "server", SpecVersion: "2025-11-25"}))
		Expect(r.Scenarios[1]).To(Equal(reports.Scenario{ID: "b", Side: "client", Transport: "http", SpecVersion: "2025-06-18"}))
	})

	It("makes an unknown status an error of the harness saying so, and drops a kind of reason or an expected mark that does not belong", func() {
		r := &reports.Run{Scenarios: []reports.Scenario{{ID: "s", Checks: []reports.Check{
			{ID: "s/unknown", Status: "PASSED", Message: "was it"},
			{ID: "s/kind-of-a-pass", Status: reports.Passed, Reason: reports.ReasonDeadline},
			{ID: "s/unknown-kind", Status: reports.Skipped, Reason: "bad-luck", Message: "m"},
			{ID: "s/fine", Status: reports.Errored, Reason: reports.ReasonInterrupted, Message: "m"},
			{ID: "s/expected-pass", Status: reports.Passed, Expected: true, ExpectedBy: "e"},
			{ID: "s/unmarked-entry", Status: reports.Failed, ExpectedBy: "e"},
			{ID: "s/expected", Status: reports.Failed, Expected: true, ExpectedBy: "e"},
		}}}}
		r.Normalize()
		Expect(r.Scenarios[0].Checks).To(Equal([]reports.Check{
			{ID: "s/unknown", Status: reports.Errored, Reason: reports.ReasonHarness, Message: "reports: check has unknown status \"PASSED\"\nwas it"},
			{ID: "s/kind-of-a-pass", Status: reports.Passed},
			{ID: "s/unknown-kind", Status: reports.Skipped, Message: "m"},
			{ID: "s/fine", Status: reports.Errored, Reason: reports.ReasonInterrupted, Message: "m"},
			{ID: "s/expected-pass", Status: reports.Passed},
			{ID: "s/unmarked-entry", Status: reports.Failed},
			{ID: "s/expected", Status: reports.Failed, Expected: true, ExpectedBy: "e"},
		}))
		again := *r
		again.Scenarios = []reports.Scenario{r.Scenarios[0]}
		again.Normalize()
		Expect(again.Scenarios[0]).To(Equal(r.Scenarios[0]), "a second time changes nothing")
	})

	It("is what the writers render, without changing the run they are given", func() {
		r := sampleRun()
		r.Scenarios[1].Checks[0].Status = "bogus"
		before := sampleRun()
		before.Scenarios[1].Checks[0].Status = "bogus"
		normal := sampleRun()
		normal.Scenarios[1].Checks[0].Status = "bogus"
		normal.Normalize()
		Expect(renderJSON(r)).To(Equal(renderJSON(normal)))
		Expect(renderJUnit(r)).To(Equal(renderJUnit(normal)))
		Expect(renderMarkdown(r)).To(Equal(renderMarkdown(normal)))
		Expect(renderHTML(r)).To(Equal(renderHTML(normal)))
		Expect(r).To(Equal(before), "the writers read; they do not complete their input")
		Expect(r).NotTo(Equal(normal))
	})
})

var _ = Describe("Status.Word", func() {
	It("is the one word every report and the progress print for a status", func() {
		words := map[reports.Status]string{}
		for _, st := range []reports.Status{reports.Passed, reports.Failed, reports.Warning, reports.Skipped,
			reports.Errored, reports.ExpectedFailure, "bogus"} {
			words[st] = st.Word()
		}
		Expect(words).To(Equal(map[reports.Status]string{reports.Passed: "PASS", reports.Failed: "FAIL", reports.Warning: "WARN",
			reports.Skipped: "SKIP", reports.Errored: "ERROR", reports.ExpectedFailure: "XFAIL", "bogus": "ERROR"}))
	})
})
