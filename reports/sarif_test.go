package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/reports"
)

// sarifSchema is SARIF 2.1.0's JSON Schema (the OASIS standard's final
// draft, rtm.5, as npm's @microsoft/jest-sarif 1.0.0-beta.0 ships it, MIT).
func sarifSchema() *jsonschema.Schema {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join("testdata", "sarif-2.1.0.json"))
	Expect(err).NotTo(HaveOccurred())
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	Expect(err).NotTo(HaveOccurred())
	c := jsonschema.NewCompiler()
	const url = "sarif-2.1.0.json"
	Expect(c.AddResource(url, doc)).To(Succeed())
	s, err := c.Compile(url)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func renderSARIF(r *reports.Run) []byte {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(reports.WriteSARIF(&buf, r)).To(Succeed())
	return buf.Bytes()
}

var _ = Describe("results.sarif", func() {
	It("validates against the SARIF 2.1.0 schema, for every shape of run", func() {
		s := sarifSchema()
		for _, r := range []*reports.Run{sampleRun(), fullRun(), {Tool: "mcpconform"}} {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(renderSARIF(r)))
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Validate(doc)).To(Succeed())
		}
	})

	It("has one result per failed or warning check, its rule the check id with the spec page linked", func() {
		r := &reports.Run{Tool: "mcpconform", ToolVersion: "v1.2.3", Side: "server", Scenarios: []reports.Scenario{{
			ID: "lifecycle-ping", Side: "server", Transport: "http", SpecVersion: "2025-11-25", Checks: []reports.Check{
				{ID: "lifecycle-ping/empty-result", Title: "ping answers {}", Level: "MUST", SpecRef: "2025-11-25/basic/utilities/ping.mdx#behavior-requirements",
					Quote: "The receiver MUST respond promptly with an empty response", Status: reports.Failed, Message: "Expected: {}\nActual: \x1b[31m{\"x\":1}"},
				{ID: "lifecycle-ping/prompt", Title: "t", Level: "SHOULD", SpecRef: "seps/1234-x.md", Status: reports.Warning, Message: "Expected: a\nActual: b"},
				{ID: "lifecycle-ping/passes", Level: "MUST", Status: reports.Passed},
				{ID: "lifecycle-ping/baselined", Level: "MUST", Status: reports.Failed, Expected: true, ExpectedBy: "lifecycle-ping (b.yaml line 2)"},
			}}}}
		var log struct {
			Version string
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name, Version string
						Rules         []struct {
							ID      string
							HelpURI string `json:"helpUri"`
						}
					}
				}
				Results []struct {
					RuleID       string `json:"ruleId"`
					Level        string
					Message      struct{ Text string }
					Suppressions []struct{ Kind string }
				}
			}
		}
		Expect(json.Unmarshal(renderSARIF(r), &log)).To(Succeed())
		Expect(log.Version).To(Equal("2.1.0"))
		run := log.Runs[0]
		Expect(run.Tool.Driver.Name).To(Equal("mcpconform"))
		Expect(run.Tool.Driver.Version).To(Equal("v1.2.3"))
		Expect(run.Tool.Driver.Rules).To(HaveLen(3))
		Expect(run.Tool.Driver.Rules[0].HelpURI).To(Equal("https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping#behavior-requirements"))
		Expect(run.Tool.Driver.Rules[1].HelpURI).To(BeEmpty(), "a design note has no page of the spec")
		Expect(run.Results).To(HaveLen(3))
		Expect(run.Results[0].RuleID).To(Equal("lifecycle-ping/empty-result"))
		Expect(run.Results[0].Level).To(Equal("error"))
		Expect(run.Results[0].Message.Text).To(HavePrefix("server http 2025-11-25: Expected: {}"))
		Expect(run.Results[0].Message.Text).NotTo(ContainSubstring("\x1b"), "control sequences from a target are cleaned")
		Expect(run.Results[1].Level).To(Equal("warning"))
		Expect(run.Results[2].Suppressions).To(HaveLen(1), "a failure the baseline expects is suppressed, not hidden")
	})

	It("links spec references to the page of the version judged", func() {
		Expect(reports.SpecURL("2026-07-28/basic/transports/streamable-http.mdx#session-management")).
			To(Equal("https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#session-management"))
		Expect(reports.SpecURL("2025-06-18/basic/index.mdx")).To(Equal("https://modelcontextprotocol.io/specification/2025-06-18/basic"))
		Expect(reports.SpecURL("ext-tasks/tasks.md#x")).To(BeEmpty())
	})
})
