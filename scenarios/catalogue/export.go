package catalogue

import (
	"encoding/json"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/fakes/fault"
)

// ExportVersion is the version of the exported catalogue's shape: raised
// when a field is renamed or removed (adding one keeps it).
const ExportVersion = 1

// Export is the whole catalogue as data (`mcpconform list --format json|yaml`),
// check by check in id order, with what a reviewer needs to see change:
// level, page and sentence, versions, and the variants that prove it.
type Export struct {
	FormatVersion int           `json:"formatVersion" yaml:"formatVersion"`
	Checks        []ExportCheck `json:"checks" yaml:"checks"`
}

// ExportCheck is one check of the exported catalogue.
type ExportCheck struct {
	ID           string   `json:"id" yaml:"id"`
	Scenario     string   `json:"scenario" yaml:"scenario"`
	Official     string   `json:"official,omitempty" yaml:"official,omitempty"`
	Side         string   `json:"side" yaml:"side"`
	Family       string   `json:"family" yaml:"family"`
	Versions     []string `json:"versions" yaml:"versions,flow"`
	Transports   []string `json:"transports,omitempty" yaml:"transports,flow,omitempty"`
	Level        string   `json:"level" yaml:"level"`
	Profile      string   `json:"profile,omitempty" yaml:"profile,omitempty"`
	Title        string   `json:"title" yaml:"title"`
	Spec         string   `json:"spec" yaml:"spec"`
	Source       string   `json:"source,omitempty" yaml:"source,omitempty"`
	Quote        string   `json:"quote" yaml:"quote"`
	Faults       []string `json:"faults" yaml:"faults,flow"`
	Liberties    []string `json:"liberties,omitempty" yaml:"liberties,flow,omitempty"`
	Requirements []string `json:"requirements,omitempty" yaml:"requirements,flow,omitempty"` // official requirement ids
}

// Exported is the catalogue as an Export.
func Exported() Export {
	out := Export{FormatVersion: ExportVersion}
	for _, s := range all {
		var transports []string
		for _, k := range s.Transports {
			transports = append(transports, string(k))
		}
		for _, c := range s.Checks {
			out.Checks = append(out.Checks, ExportCheck{
				ID: c.ID, Scenario: s.ID, Official: s.Official, Side: string(s.Side), Family: s.Family,
				Versions: slices.Clone(s.Versions), Transports: transports, Level: string(c.Level), Profile: c.Profile,
				Title: c.Title, Spec: c.Spec, Source: c.Source, Quote: c.Quote,
				Faults: names(c.Faults), Liberties: names(c.Liberties), Requirements: slices.Clone(c.Requirements),
			})
		}
	}
	slices.SortFunc(out.Checks, func(a, b ExportCheck) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}

func names(fs []*fault.Fault) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// WriteExport writes the exported catalogue as "json" or "yaml" (the shape
// of the golden copy docs/catalogue.yaml).
func WriteExport(w io.Writer, format string) error {
	data := Exported()
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(data)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(data); err != nil {
		return err
	}
	return enc.Close()
}
