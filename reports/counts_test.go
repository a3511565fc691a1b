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
