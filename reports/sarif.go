package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// SARIFFile is the SARIF 2.1.0 log WriteAll writes beside the others, for
// code-scanning tools: one result per check that fails the run or warns,
// its rule the check id.
const SARIFFile = "results.sarif"

// SpecSite is where the spec pages a check cites are published.
const SpecSite = "https://modelcontextprotocol.io/specification/"

// SpecURL is the published page of a spec reference
// ("2025-11-25/basic/lifecycle.mdx#operation" →
// SpecSite + "2025-11-25/basic/lifecycle#operation"), or "" for a reference
// that is no versioned spec page (a design note, an extension's page).
func SpecURL(ref string) string {
	version, rest, ok := strings.Cut(ref, "/")
	if !ok || len(version) != len("2025-11-25") || version[4] != '-' || version[7] != '-' {
		return ""
	}
	page, anchor, _ := strings.Cut(rest, "#")
	page = strings.TrimSuffix(strings.TrimSuffix(page, ".mdx"), "/index")
	url := SpecSite + version + "/" + page
	if anchor != "" {
		url += "#" + anchor
	}
	return url
}

// The wire shape of the parts of SARIF 2.1.0 written (sarifv2.1.0 §3).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string         `json:"id"`
		ShortDescription sarifMessage   `json:"shortDescription"`
		FullDescription  *sarifMessage  `json:"fullDescription,omitempty"`
		HelpURI          string         `json:"helpUri,omitempty"`
		Properties       map[string]any `json:"properties,omitempty"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID       string             `json:"ruleId"`
		RuleIndex    int                `json:"ruleIndex"`
		Level        string             `json:"level"`
		Message      sarifMessage       `json:"message"`
		Locations    []sarifLocation    `json:"locations,omitempty"`
		Suppressions []sarifSuppression `json:"suppressions,omitempty"`
		Properties   map[string]any     `json:"properties,omitempty"`
	}
	sarifLocation struct {
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations"`
	}
	sarifLogicalLocation struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification,omitempty"`
	}
)

// WriteSARIF writes r as a SARIF 2.1.0 log (see writeSARIF); the output
// depends only on r.
func WriteSARIF(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
	return writeSARIF(w, normalized(r))
}

// writeSARIF writes the run's failures and warnings as a SARIF log: a rule
// per check id with its title, level and spec link; a result per failed or
// warning check at each transport and version, "error" for a failure (one
// a baseline expects carries an external suppression naming the entry),
// "warning" for a warning.
func writeSARIF(w io.Writer, r *Run) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: r.Tool, Version: r.ToolVersion,
		InformationURI: "https://github.com/mcpconform/mcpconform", Rules: []sarifRule{}}}, Results: []sarifResult{}}
	if run.Tool.Driver.Name == "" {
		run.Tool.Driver.Name = "mcpconform"
	}
	ruleIndex := map[string]int{}
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		for j := range s.Checks {
			c := &s.Checks[j]
			level := ""
			switch c.Status {
			case Failed:
				level = "error"
			case Warning:
				level = "warning"
			default:
				continue
			}
			idx, ok := ruleIndex[c.ID]
			if !ok {
				idx = len(run.Tool.Driver.Rules)
				ruleIndex[c.ID] = idx
				rule := sarifRule{ID: c.ID, ShortDescription: sarifMessage{Text: nonEmpty(c.Title, c.ID)}, HelpURI: SpecURL(c.SpecRef),
					Properties: map[string]any{"level": c.Level, "specRef": c.SpecRef}}
				if c.Quote != "" {
					rule.FullDescription = &sarifMessage{Text: c.Quote}
				}
				run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
			}
			res := sarifResult{RuleID: c.ID, RuleIndex: idx, Level: level,
				Message: sarifMessage{Text: cleanText(fmt.Sprintf("%s %s %s: %s", s.Side, s.Transport, s.SpecVersion, nonEmpty(c.Message, c.Title)))},
				Locations: []sarifLocation{{LogicalLocations: []sarifLogicalLocation{{Name: s.ID, Kind: "module",
					FullyQualifiedName: strings.Join([]string{s.Side, s.Transport, s.SpecVersion, s.ID}, "/")}}}},
				Properties: map[string]any{"transport": s.Transport, "specVersion": s.SpecVersion, "scenario": s.ID}}
			if c.Status == Failed && c.Expected {
				res.Suppressions = []sarifSuppression{{Kind: "external", Justification: "expected failure: " + c.ExpectedBy}}
			}
			run.Results = append(run.Results, res)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

func nonEmpty(s, otherwise string) string {
	if strings.TrimSpace(s) == "" {
		return otherwise
	}
	return s
}
