package catalogue_test

import (
	"bytes"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

var _ = Describe("docs/fixtures.md", func() {
	page := filepath.Join("..", "..", "docs", "fixtures.md")

	It("is the fixtures table and the scenarios' needs, generated", func() {
		var got bytes.Buffer
		Expect(catalogue.WriteFixturesDoc(&got)).To(Succeed())
		if os.Getenv("MCPCONFORM_UPDATE_GOLDEN") == "1" {
			Expect(os.WriteFile(page, got.Bytes(), 0o644)).To(Succeed())
		}
		want, err := os.ReadFile(page)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.String()).To(Equal(string(want)),
			"the fixtures or the needs changed: MCPCONFORM_UPDATE_GOLDEN=1 go test ./scenarios/catalogue and commit docs/fixtures.md")
	})

	It("has a scenario for every fixture of mcpconform's own a server under test offers (the official ones are the contract either way)", func() {
		var unused []string
		for _, f := range fixtures.Table {
			if f.Side == fixtures.ByServer && !f.Official && len(catalogue.Needing(f.Name)) == 0 {
				unused = append(unused, f.Name)
			}
		}
		Expect(unused).To(BeEmpty(), "fixtures no scenario names among its needs")
	})
})
