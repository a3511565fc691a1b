package reports_test

import (
	"bytes"
	"fmt"
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
		Expect(out).To(HavePrefix("# mcpconform server conformance: FAIL\n"))
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

	It("totals each transport × version at the top", func() {
		out := renderMarkdown(multiRun())
		overview, rest, ok := strings.Cut(out, "\n## Failures\n")
		Expect(ok).To(BeTrue())
		Expect(rest).To(ContainSubstring("\n## Scenarios\n"))
		Expect(overview).To(ContainSubstring("| `built-in reference server` | stdio, http, ws | 2025-06-18, 2025-11-25 |"))
		Expect(overview).To(HaveSuffix("## By transport and spec version\n\n" +
			"| Transport | Spec | Outcome | Passed | Failed | Warning | Skipped | Error | Total |\n" +
			"|---|---|---|---:|---:|---:|---:|---:|---:|\n" +
			"| stdio | 2025-06-18 | PASS | 4 | 0 | 0 | 0 | 0 | 4 |\n" +
			"| stdio | 2025-11-25 | PASS | 4 | 0 | 0 | 0 | 0 | 4 |\n" +
			"| http | 2025-06-18 | PASS | 4 | 0 | 0 | 0 | 0 | 4 |\n" +
			"| http | 2025-11-25 | FAIL | 3 | 1 | 0 | 0 | 0 | 4 |\n" +
			"| ws | 2025-06-18 | ERROR | 3 | 0 | 0 | 0 | 1 | 4 |\n" +
			"| ws | 2025-11-25 | PASS | 4 | 0 | 0 | 0 | 0 | 4 |\n"))
	})

	It("names transport and version in each scenario heading", func() {
		out := renderMarkdown(multiRun())
		_, scenarios, _ := strings.Cut(out, "\n## Scenarios\n")
		Expect(strings.Count(scenarios, "\n### ")).To(Equal(18))
		for _, want := range []string{
			"\n### PASS `lifecycle-ping` · stdio · 2025-06-18: ping gets an empty result\n\n" +
				"Family: lifecycle · Side: server · Transport: stdio · Spec: 2025-06-18 · Checks: 2 · Duration: 4ms\n",
			"\n### FAIL `lifecycle-ping` · http · 2025-11-25: ping gets an empty result\n",
			"\n### ERROR `tools-list` · ws · 2025-06-18: tools/list\n",
		} {
			Expect(scenarios).To(ContainSubstring(want))
		}
	})

	It("shows each failure's evidence: check, level, spec, message and the transcript's end", func() {
		out := renderMarkdown(multiRun())
		_, failures, _ := strings.Cut(out, "\n## Failures\n")
		failures, _, _ = strings.Cut(failures, "\n## Scenarios\n")
		Expect(failures).To(HavePrefix("\n1 check failed; 1 check could not be judged.\n"))
		Expect(failures).To(ContainSubstring("\n### FAIL `lifecycle-ping` · http · 2025-11-25: ping gets an empty result\n\n" +
			"**FAIL** `lifecycle-ping/empty-result` (MUST, spec [`2025-11-25/basic/utilities/ping.mdx`](https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping))\n\n" +
			"```text\nExpected: result {}\nActual: error -32603 \"internal\"\n```\n\n" +
			"Transcript, last 40 of 100 lines:\n\n```text\n    0.061s recv   [A] frame 61\n"))
		Expect(failures).To(ContainSubstring("    0.100s recv   [A] frame 100\n```\n"))
		Expect(failures).NotTo(ContainSubstring("frame 60\n"))
		Expect(failures).To(ContainSubstring("\n### ERROR `tools-list` · ws · 2025-06-18: tools/list\n\n" +
			"**ERROR** `tools-list/response` (MUST, spec [`2025-06-18/server/tools.mdx`](https://modelcontextprotocol.io/specification/2025-06-18/server/tools))\n\n" +
			"```text\nharness: websocket closed before the response\n```\n\nNo transcript was recorded.\n"))
		Expect(failures).NotTo(ContainSubstring("lifecycle-ping/same-id"), "passing checks are no evidence")

		// The scenario section points there instead of repeating the message.
		Expect(strings.Count(out, "Expected: result {}")).To(Equal(1))
		Expect(out).To(ContainSubstring("| FAIL | MUST | `lifecycle-ping/empty-result` | ping is answered with {} |\n" +
			"| PASS | MUST | `lifecycle-ping/same-id` | the response echoes the request id |\n\n" +
			"Evidence of the failures: see Failures above.\n"))
	})

	It("has no Failures section when nothing failed", func() {
		r := multiRun()
		r.Scenarios[9].Checks[0].Status = reports.Passed
		r.Scenarios[14].Checks[0].Status = reports.Warning
		out := renderMarkdown(r)
		Expect(out).NotTo(ContainSubstring("## Failures"))
		Expect(out).NotTo(ContainSubstring("Evidence of the failures"))
		Expect(out).To(ContainSubstring("**WARN** `tools-list/response`"), "a warning keeps its message in its section")
	})

	It("bounds the transcript excerpt in lines and bytes", func() {
		r := multiRun()
		long := strings.Repeat("x", 100_000)
		r.Scenarios[9].Transcript = "first\n" + strings.Repeat("    0.001s recv   [A] "+long+"\n", 50) + "    0.002s recv   [A] last frame\n"
		out := renderMarkdown(r)
		_, excerpt, ok := strings.Cut(out, "Transcript, last ")
		Expect(ok).To(BeTrue())
		excerpt, _, _ = strings.Cut(excerpt, "\n```\n")
		Expect(excerpt).To(MatchRegexp(`^\d+ of 52 lines:`))
		Expect(excerpt).To(HaveSuffix("    0.002s recv   [A] last frame"))
		Expect(excerpt).To(ContainSubstring(" … (line cut)\n"))
		Expect(excerpt).NotTo(ContainSubstring("first"))
		Expect(len(excerpt)).To(BeNumerically("<=", 8100))
		Expect(len(out)).To(BeNumerically("<", 30_000))
	})

	It("cuts evidence after 25 failures and keeps the file under GitHub's 1 MiB", func() {
		r := &reports.Run{Side: "server", Transport: "stdio", SpecVersion: "2025-11-25"}
		big := strings.Repeat("Actual: "+strings.Repeat("y", 70)+"\n", 50)
		transcript := strings.Repeat("    0.001s recv   [A] "+strings.Repeat("z", 250)+"\n", 200)
		for i := range 400 {
			sc := reports.Scenario{ID: fmt.Sprintf("scenario-%03d", i), Family: "f", Transcript: transcript}
			for j := range 3 {
				sc.Checks = append(sc.Checks, reports.Check{
					ID: fmt.Sprintf("scenario-%03d/check-%d", i, j), Level: "MUST", Status: reports.Failed, Message: big,
				})
			}
			r.Scenarios = append(r.Scenarios, sc)
		}
		out := renderMarkdown(r)
		Expect(len(out)).To(BeNumerically("<", 1<<20))
		Expect(strings.HasPrefix(out, "# ")).To(BeTrue())

		_, failures, _ := strings.Cut(out, "\n## Failures\n")
		failures, scenarios, _ := strings.Cut(failures, "\n## Scenarios\n")
		Expect(strings.Count(failures, "\n**FAIL** ")).To(Equal(25))
		Expect(strings.Count(failures, "\nTranscript, last ")).To(Equal(9), "25 checks of 3 per scenario span 9 scenarios")
		Expect(failures).To(ContainSubstring("Evidence is shown for the first 25 of 1200 failed or errored checks"))
		Expect(failures).To(ContainSubstring("**FAIL** `scenario-008/check-0`"))
		Expect(failures).NotTo(ContainSubstring("`scenario-008/check-1`"))

		// The others keep their message in their scenario section, as far as
		// the size limit allows.
		Expect(scenarios).To(ContainSubstring("\n**FAIL** `scenario-008/check-1`"))
		Expect(scenarios).To(MatchRegexp(`\n\d+ further scenario runs are not shown, to keep this summary under GitHub's 1 MiB limit`))
		Expect(strings.Count(out, "```")%2).To(Equal(0), "no fence left open")
	})

	It("rejects a nil run", func() {
		Expect(reports.WriteMarkdown(io.Discard, nil)).To(HaveOccurred())
	})
})
