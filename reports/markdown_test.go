package reports_test

import (
	"bytes"
	"io"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

func renderMarkdown(r *reports.Run) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(reports.WriteMarkdown(&buf, r)).To(Succeed())
	return buf.String()
}

var _ = Describe("WriteMarkdown", func() {
	It("matches the golden file", func() {
		expectGolden("golden.summary.md", []byte(renderMarkdown(sampleRun())))
	})

	It("starts with a title and a totals table", func() {
		out := renderMarkdown(sampleRun())
		Expect(out).To(HavePrefix("# mcpconform server conformance: ERROR\n"))
		Expect(out).To(ContainSubstring("| Passed | Failed | Warning | Skipped | Error | Total |"))
		Expect(out).To(ContainSubstring("| 1 | 1 | 2 | 1 | 1 | 6 |"))
	})

	It("lists every check with a plain-text status and shows non-passing messages", func() {
		out := renderMarkdown(sampleRun())
		for _, want := range []string{
			"| PASS | MUST | `lifecycle-initialize/version-echoed` |",
			"| FAIL | MUST | `lifecycle-initialize/capabilities-object` |",
			"| WARN | SHOULD | `lifecycle-initialize/server-info-name` |",
			"| SKIP | MAY | `tools-list/advertised` |",
			"| ERROR | MUST | `tools-list/response` |",
			"```text\nExpected: result.capabilities to be an object\nActual: null\n```\n",
		} {
			Expect(out).To(ContainSubstring(want))
		}
		Expect(out).NotTo(ContainSubstring("**PASS**"), "passing checks have no message block")
	})

	It("keeps table rows intact when titles contain pipes and newlines", func() {
		r := sampleRun()
		r.Scenarios[0].Checks[0].Title = "a | b\nc"
		out := renderMarkdown(r)
		Expect(out).To(ContainSubstring(`| a \| b c |`))
	})

	It("uses a fence longer than any backtick run in the message", func() {
		out := renderMarkdown(sampleRun())
		Expect(out).To(ContainSubstring("````text\nExpected: one message per line\nActual:\n```json\n"))
		Expect(out).To(ContainSubstring("\n```\n````\n"))
	})

	It("truncates huge messages", func() {
		r := sampleRun()
		r.Scenarios[0].Checks[1].Message = strings.Repeat("é", 10000)
		out := renderMarkdown(r)
		Expect(out).To(ContainSubstring("(truncated; full message in results.json)"))
		Expect(len(out)).To(BeNumerically("<", 8000))

		r.Scenarios[0].Checks[1].Message = strings.Repeat("row\n", 500)
		Expect(strings.Count(renderMarkdown(r), "row\n")).To(Equal(60))
	})

	It("strips control characters from the output", func() {
		r := sampleRun()
		r.Scenarios[0].Checks[1].Message = garbage
		out := renderMarkdown(r)
		Expect(out).NotTo(ContainSubstring("\x1b"))
		Expect(out).NotTo(ContainSubstring("\x00"))
	})

	It("formats durations for humans", func() {
		r := &reports.Run{Duration: 1234567890, Scenarios: []reports.Scenario{{ID: "a", Duration: 400 * time.Microsecond}}}
		out := renderMarkdown(r)
		Expect(out).To(ContainSubstring("| 1.235s |"))
		Expect(out).To(ContainSubstring("Duration: 400µs"))
	})

	It("rejects a nil run", func() {
		Expect(reports.WriteMarkdown(io.Discard, nil)).To(HaveOccurred())
	})
})
