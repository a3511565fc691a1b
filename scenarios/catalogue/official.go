package catalogue

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/scenarios"
)

// The official suite's scenarios and mcpconform's map of them are data, so
// that a new official release is a change of official.yaml and what it
// brings shows as the entries coverage.yaml lacks.
var (
	//go:embed official.yaml
	officialYAML []byte
	//go:embed coverage.yaml
	coverageYAML []byte
)

// Scored is the status of a scenario that a revision's list scores; every
// other status is a key of the data's not-scored reasons.
const Scored = "scored"

// officialData is official.yaml.
type officialData struct {
	Release   string            `yaml:"release"`
	Revisions []string          `yaml:"revisions"`
	NotScored map[string]string `yaml:"not-scored"`
	Scenarios []OfficialScenario
}

// OfficialScenario is one scenario of the official suite.
type OfficialScenario struct {
	Name string         `yaml:"name"`
	Side scenarios.Side `yaml:"side"`
	// Versions are the spec versions it applies to; none for a scenario
	// of an extension.
	Versions  []string `yaml:"versions"`
	Extension string   `yaml:"extension"`
	Suites    []string `yaml:"suites"`
	// Revisions say, for each revision whose list takes it, Scored or why
	// not. The scenario applies at exactly these revisions.
	Revisions map[string]string `yaml:"revisions"`
}

// coverageData is coverage.yaml: per side, official scenario name to rule.
type coverageData map[scenarios.Side]map[string]coverageRule

// coverageRule maps an official scenario to the mcpconform scenarios that
// judge it (By). It is full unless Partial says what is missing or Absent
// why none judges it. At overrides it for one revision: its By replaces
// the rule's, its Partial or Absent the rule's status (Absent drops By).
type coverageRule struct {
	By      []string                `yaml:"by"`
	Partial string                  `yaml:"partial"`
	Absent  string                  `yaml:"absent"`
	At      map[string]coverageRule `yaml:"at"`
}

var official, coverageMap = mustLoad()

func mustLoad() (officialData, coverageData) {
	var off officialData
	var cov coverageData
	if err := decodeStrict(officialYAML, &off); err != nil {
		panic(fmt.Sprintf("scenarios/catalogue/official.yaml: %v", err))
	}
	if err := decodeStrict(coverageYAML, &cov); err != nil {
		panic(fmt.Sprintf("scenarios/catalogue/coverage.yaml: %v", err))
	}
	return off, cov
}

// decodeStrict refuses keys the types lack, so a misspelt key is an error
// rather than a rule silently ignored.
func decodeStrict(data []byte, v any) error {
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	return d.Decode(v)
}

// OfficialRelease is the release of the official suite the data describes.
func OfficialRelease() string { return official.Release }

// OfficialVersions are the revisions the official requirement lists exist
// for.
func OfficialVersions() []string { return slices.Clone(official.Revisions) }

// OfficialScenarios are every scenario of the official suite, in the order
// of its own list.
func OfficialScenarios() []OfficialScenario {
	out := slices.Clone(official.Scenarios)
	for i := range out {
		out[i].Versions = slices.Clone(out[i].Versions)
		out[i].Suites = slices.Clone(out[i].Suites)
		out[i].Revisions = maps.Clone(out[i].Revisions)
	}
	return out
}

// NotScoredReasons say in words why a revision runs a scenario without
// scoring it, by the status that names the reason.
func NotScoredReasons() map[string]string {
	return maps.Clone(official.NotScored)
}
