package reports_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("a check's quoted sentence and design-note source", func() {
	quoted := func() *reports.Run {
		r := sampleRun()
		c := &r.Scenarios[0].Checks[1] // the failed one
		c.Quote = "The server MUST respond with its own capabilities and information."
		c.Source = "seps/1686-tasks.md#8-1"
		return r
	}

	It("are in results.json", func() {
		var doc struct {
			Scenarios []struct {
				Checks []struct{ ID, Quote, Source string }
			}
		}
		Expect(json.Unmarshal(renderJSON(quoted()), &doc)).To(Succeed())
		c := doc.Scenarios[0].Checks[1]
		Expect(c.Quote).To(Equal("The server MUST respond with its own capabilities and information."))
		Expect(c.Source).To(Equal("seps/1686-tasks.md#8-1"))
		Expect(doc.Scenarios[0].Checks[0].Quote).To(BeEmpty())
	})

	It("are testcase properties in junit.xml", func() {
		out := string(renderJUnit(quoted()))
		Expect(out).To(ContainSubstring(`name="quote" value="The server MUST respond with its own capabilities and information."`))
		Expect(out).To(ContainSubstring(`name="source" value="seps/1686-tasks.md#8-1"`))
	})

	It("are part of a failure's evidence in summary.md and report.html", func() {
		md := renderMarkdown(quoted())
		Expect(md).To(ContainSubstring("> The server MUST respond with its own capabilities and information."))
		Expect(md).To(ContainSubstring("source `seps/1686-tasks.md#8-1` (a design note)"))
		html := renderHTML(quoted())
		Expect(html).To(ContainSubstring("<blockquote>The server MUST respond with its own capabilities and information.</blockquote>"))
		Expect(strings.Count(html, "(a design note)")).To(Equal(1))
	})
})
