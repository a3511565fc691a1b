package main

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/suggest"
	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("the failures printed after the scenario lines", func() {
	scenario := func(checks ...reports.Check) reports.Scenario {
		return reports.Scenario{ID: "s", Side: "server", Transport: "http", SpecVersion: "2025-11-25", Checks: checks}
	}

	It("names each failed check with where it failed, its level and the start of its Expected/Actual", func() {
		run := &reports.Run{Scenarios: []reports.Scenario{scenario(
			reports.Check{ID: "s/passes", Level: "MUST", Status: reports.Passed},
			reports.Check{ID: "s/fails", Level: "MUST", Status: reports.Failed, Message: "Expected: 400\nActual:   200\n"},
			reports.Check{ID: "s/warns", Level: "SHOULD", Status: reports.Warning, Message: "Expected: x\nActual: y"},
			reports.Check{ID: "s/baselined", Level: "MUST", Status: reports.Failed, Expected: true, Message: "Expected: a\nActual: b"},
		)}}
		var out bytes.Buffer
		printFailures(&out, run)
		Expect(out.String()).To(Equal("\n1 failed:\nFAIL s/fails  server http 2025-11-25  MUST\n    Expected: 400\n    Actual:   200\n"),
			"a warning does not fail the run, nor does a failure the baseline expects")
	})

	It("lists warnings too under --strict, where they fail the run", func() {
		run := &reports.Run{Strict: true, Scenarios: []reports.Scenario{scenario(
			reports.Check{ID: "s/warns", Level: "SHOULD", Status: reports.Warning, Message: "Expected: x\nActual: y"})}}
		var out bytes.Buffer
		printFailures(&out, run)
		Expect(out.String()).To(ContainSubstring("WARN s/warns  server http 2025-11-25  SHOULD\n    Expected: x\n    Actual: y\n"))
	})

	It("is bounded: so many checks, so many lines each, so long a line", func() {
		long := "Expected: " + strings.Repeat("x", 1000) + "\nActual: 2\nline 3\nline 4\nline 5\nline 6"
		var checks []reports.Check
		for i := range maxFailuresShown + 5 {
			checks = append(checks, reports.Check{ID: fmt.Sprintf("s/c%d", i), Level: "MUST", Status: reports.Failed, Message: long})
		}
		run := &reports.Run{Scenarios: []reports.Scenario{scenario(checks...)}}
		var out bytes.Buffer
		printFailures(&out, run)
		text := out.String()
		Expect(strings.Count(text, "\nFAIL ")).To(Equal(maxFailuresShown))
		Expect(text).To(ContainSubstring("… 5 more (summary.md and report.html list every one)"))
		Expect(text).To(ContainSubstring("… (2 more lines)"))
		for line := range strings.SplitSeq(text, "\n") {
			Expect(len([]rune(line))).To(BeNumerically("<=", maxMessageLineLen+4))
		}
	})

	It("prints nothing when nothing failed", func() {
		var out bytes.Buffer
		printFailures(&out, &reports.Run{Scenarios: []reports.Scenario{scenario(reports.Check{ID: "s/a", Status: reports.Passed})}})
		Expect(out.String()).To(BeEmpty())
	})
})

var _ = Describe("a misspelt id", func() {
	It("gets the closest known ids, and none when nothing is close", func() {
		known := []string{"lifecycle-ping", "lifecycle-initialize", "tools-list"}
		Expect(suggest.DidYouMean("lifecycle-pong", known)).To(Equal(` (did you mean "lifecycle-ping"?)`))
		Expect(suggest.DidYouMean("tool-list", known)).To(Equal(` (did you mean "tools-list"?)`))
		Expect(suggest.DidYouMean("zzzzzzzz", known)).To(BeEmpty())
		Expect(suggest.EditDistance("kitten", "sitting")).To(Equal(3))
	})
})

var _ = Describe("report annotate", func() {
	It("prints a workflow command per failed or warning check, escaped so a target's text cannot start another, bounded", func() {
		run := &reports.Run{Scenarios: []reports.Scenario{{ID: "s", Side: "server", Transport: "http", SpecVersion: "2025-11-25", Checks: []reports.Check{
			{ID: "s/a", Level: "MUST", SpecRef: "2025-11-25/basic/lifecycle.mdx#operation", Status: reports.Failed, Message: "Expected: x\nActual: 100%\n::error::forged"},
			{ID: "s/b", Level: "SHOULD", Status: reports.Warning, Message: "Expected: y\nActual: z"},
			{ID: "s/c", Level: "MUST", Status: reports.Failed, Expected: true, Message: "baselined"},
			{ID: "s/d", Level: "MUST", Status: reports.Passed},
		}}}}
		var out bytes.Buffer
		writeAnnotations(&out, run)
		Expect(out.String()).To(Equal("::error title=MUST s/a (server http 2025-11-25)::Expected: x%0AActual: 100%25%0A::error::forged%0A" +
			"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#operation\n" +
			"::warning title=SHOULD s/b (server http 2025-11-25)::Expected: y%0AActual: z\n"))

		var many []reports.Check
		for i := range maxAnnotations + 3 {
			many = append(many, reports.Check{ID: fmt.Sprintf("s/c%d", i), Status: reports.Failed})
		}
		out.Reset()
		writeAnnotations(&out, &reports.Run{Scenarios: []reports.Scenario{{ID: "s", Checks: many}}})
		Expect(strings.Count(out.String(), "::error ")).To(Equal(maxAnnotations))
		Expect(out.String()).To(HaveSuffix("::notice title=mcpconform::3 more failed or warning checks; the reports list every one\n"))
	})
})

var _ = Describe("the version a build reports", func() {
	It("is the module's tag when installed as a module, else the development version with the commit", func() {
		Expect(versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}})).To(Equal("1.2.3"))
		Expect(versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}})).To(Equal(devVersion + "+0123456789ab-dirty"))
		Expect(versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})).To(Equal(devVersion))
	})
})
