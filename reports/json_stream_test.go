package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("WriteJSON's memory", Serial, func() {
	// Serial: the memory measured is the process's.

	It("writes a run at its text budget holding about one scenario's encoding at a time, not the whole run's", func() {
		// A run already held to RunTextBudget (as WriteAll hands it over):
		// 32 scenarios of half a MiB of transcript each.
		r := &reports.Run{Side: "server", Transport: "stdio", SpecVersion: "2025-11-25", Started: time.Now()}
		per := reports.RunTextBudget / 32
		for i := range 32 {
			r.Scenarios = append(r.Scenarios, reports.Scenario{
				ID: fmt.Sprintf("lifecycle-flood-%d", i), Family: "lifecycle",
				Checks:     []reports.Check{{ID: "lifecycle/x", Level: "MUST", Status: reports.Failed, Message: "Expected: <a> & \"b\""}},
				Transcript: bigTranscript(per, fmt.Sprint("scenario ", i)),
			})
		}
		heap := watchHeap()
		err := reports.WriteJSON(io.Discard, r)
		base, peak := heap.Stop()
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("results.json of %d MiB of text: heap in use %d MiB at the start, peak %d MiB (+%d MiB)\n",
			reports.RunTextBudget>>20, base>>20, peak>>20, (peak-base)>>20)
		AddReportEntry("results.json: peak heap over baseline while writing (MiB)", (peak-base)>>20)
		Expect(peak-base).To(BeNumerically("<", reports.RunTextBudget), "peak heap in use over the baseline while writing")
	})

	It("lays out any run as indenting it whole would (empty runs and scenarios too)", func() {
		for _, r := range []*reports.Run{sampleRun(), {}, {Scenarios: []reports.Scenario{{ID: "a"}}},
			{Scenarios: []reports.Scenario{{ID: "a", Transcript: "<&>\u2028"}, {ID: "b", Checks: []reports.Check{{ID: "b/1"}}}}}} {
			out := renderJSON(r)
			var doc any
			Expect(json.Unmarshal(out, &doc)).To(Succeed())
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			Expect(enc.Encode(doc)).To(Succeed())
			// Re-encoding the decoded document sorts the keys; compare
			// the layout line by line, ignoring key order.
			Expect(sortedLines(out)).To(Equal(sortedLines(want.Bytes())))
			Expect(out).To(HaveSuffix("\n}\n"))
		}
	})
})

func sortedLines(b []byte) []string {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, ",")
	}
	slices.Sort(lines)
	return lines
}
