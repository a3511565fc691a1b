package catalogue_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// golden is the checked-in export: a change of the catalogue (a check
// added, removed, re-levelled, re-quoted, or a fault moved) shows in review
// as a change of this file. MCPCONFORM_UPDATE_GOLDEN=1 rewrites it.
var golden = filepath.Join("..", "..", "docs", "catalogue.yaml")

var _ = Describe("the exported catalogue", func() {
	It("equals its golden copy, docs/catalogue.yaml", func() {
		var got bytes.Buffer
		Expect(catalogue.WriteExport(&got, "yaml")).To(Succeed())
		if os.Getenv("MCPCONFORM_UPDATE_GOLDEN") == "1" {
			Expect(os.WriteFile(golden, got.Bytes(), 0o644)).To(Succeed())
		}
		want, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.String()).To(Equal(string(want)),
			"the catalogue changed: review the change, then MCPCONFORM_UPDATE_GOLDEN=1 go test ./scenarios/catalogue and commit docs/catalogue.yaml with it")
	})

	It("lists every check once, with its level, page, sentence and a fault", func() {
		var got bytes.Buffer
		Expect(catalogue.WriteExport(&got, "json")).To(Succeed())
		var export catalogue.Export
		Expect(json.Unmarshal(got.Bytes(), &export)).To(Succeed())
		Expect(export.FormatVersion).To(Equal(catalogue.ExportVersion))
		n := 0
		for _, s := range catalogue.All() {
			n += len(s.Checks)
		}
		Expect(export.Checks).To(HaveLen(n))
		seen := map[string]bool{}
		for _, c := range export.Checks {
			Expect(seen[c.ID]).To(BeFalse(), c.ID)
			seen[c.ID] = true
			Expect(c.Level).To(BeElementOf("MUST", "SHOULD", "MAY"), c.ID)
			Expect(c.Spec).NotTo(BeEmpty(), c.ID)
			Expect(c.Quote).NotTo(BeEmpty(), c.ID)
			Expect(c.Faults).NotTo(BeEmpty(), c.ID)
			Expect(c.Versions).NotTo(BeEmpty(), c.ID)
		}
	})
})
