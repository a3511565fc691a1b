package catalogue_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// The pages that say in words what each family judges name every family of
// the catalogue, so a new family cannot go undescribed.
var _ = Describe("docs/families.md and docs/authorization.md", func() {
	It("describe every family of the catalogue", func() {
		var text string
		for _, f := range []string{"families.md", "authorization.md"} {
			b, err := os.ReadFile(filepath.Join("..", "..", "docs", f))
			Expect(err).NotTo(HaveOccurred())
			text += string(b)
		}
		for _, s := range catalogue.All() {
			named := strings.Contains(text, "**"+s.Family+"**") || strings.Contains(text, "`"+s.Family+"`")
			Expect(named).To(BeTrue(), "family %s (scenario %s) is described nowhere", s.Family, s.ID)
		}
	})
})
