package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// interruptedRun is a run stopped by SIGTERM after one passing check: the
// check it was judging and the scenario it never reached are errors.
func interruptedRun() *reports.Run {
	const reason = "interrupted by SIGTERM before this check was judged"
	r := &reports.Run{
		Tool: "mcpconform", ToolVersion: "0.1.0", Side: "server", Target: "stdio: ./hang",
		Transport: "stdio", SpecVersion: "2025-11-25", Started: fixtureStart, Interrupted: "SIGTERM",
		Scenarios: []reports.Scenario{
			{ID: "lifecycle-initialize", Family: "lifecycle", Checks: []reports.Check{
				{ID: "lifecycle-initialize/a", Level: "MUST", Status: reports.Passed},
				{ID: "lifecycle-initialize/b", Level: "SHOULD", Status: reports.Errored, Message: reason},
			}},
			{ID: "lifecycle-ping", Family: "lifecycle", Checks: []reports.Check{
				{ID: "lifecycle-ping/a", Level: "MUST", Status: reports.Errored, Message: reason},
			}},
		},
	}
	return r
}

var _ = Describe("An interrupted run", func() {
	It("is marked at the top of results.json, with a status that is neither pass nor warning", func() {
		var doc map[string]any
		Expect(json.Unmarshal(renderJSON(interruptedRun()), &doc)).To(Succeed())
		Expect(doc).To(HaveKeyWithValue("interrupted", true))
		Expect(doc).To(HaveKeyWithValue("interruptedBy", "SIGTERM"))
		Expect(doc).To(HaveKeyWithValue("outcome", "error"))

		back, err := reports.ReadJSON(bytes.NewReader(renderJSON(interruptedRun())))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Interrupted).To(Equal("SIGTERM"))
	})

	It("is not judged as a pass even when every check it reached passed", func() {
		r := interruptedRun()
		r.Scenarios = r.Scenarios[:1]
		r.Scenarios[0].Checks = r.Scenarios[0].Checks[:1]
		Expect(r.Counts().Outcome()).To(Equal(reports.Passed))
		Expect(r.Outcome()).To(Equal(reports.Errored))
	})

	It("says so in a property of the JUnit testsuites, and counts the unjudged checks as errors", func() {
		var doc struct {
			Errors     int `xml:"errors,attr"`
			Tests      int `xml:"tests,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		}
		Expect(xml.Unmarshal(renderJUnit(interruptedRun()), &doc)).To(Succeed())
		Expect(doc.Tests).To(Equal(3))
		Expect(doc.Errors).To(Equal(2))
		Expect(doc.Properties).NotTo(BeEmpty())
		Expect(doc.Properties[0].Name).To(Equal("interrupted"))
		Expect(doc.Properties[0].Value).To(Equal("SIGTERM"))
	})

	It("carries a banner at the top of summary.md and report.html", func() {
		md := renderMarkdown(interruptedRun())
		head, _, _ := strings.Cut(md, "| Target")
		Expect(head).To(ContainSubstring("ERROR"))
		Expect(head).To(ContainSubstring("**INTERRUPTED.** Interrupted by SIGTERM"))
		Expect(head).To(ContainSubstring("2 checks were not judged"))

		page := renderHTML(interruptedRun())
		banner := strings.Index(page, `<p class="interrupted" role="alert"><b>INTERRUPTED.</b> Interrupted by SIGTERM`)
		Expect(banner).To(BeNumerically(">", 0))
		Expect(banner).To(BeNumerically("<", strings.Index(page, `<div class="totals">`)), "above the totals")
	})

	It("leaves a finished run's reports without any of it", func() {
		Expect(renderMarkdown(sampleRun())).NotTo(ContainSubstring("INTERRUPTED"))
		Expect(renderHTML(sampleRun())).NotTo(ContainSubstring(`class="interrupted"`))
		Expect(string(renderJUnit(sampleRun()))).NotTo(ContainSubstring("interrupted"))
		Expect(string(renderJSON(sampleRun()))).To(ContainSubstring(`"interrupted": false`))
	})
})
