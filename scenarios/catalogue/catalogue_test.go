package catalogue_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

func TestCatalogue(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "catalogue")
}

var _ = Describe("the catalogue", func() {
	It("is consistent, and every check names a fault of the reference peer of its side", func() {
		Expect(catalogue.All()).NotTo(BeEmpty())
		Expect(catalogue.Validate()).To(Succeed())
	})

	It("has scenarios of both sides", func() {
		Expect(catalogue.All().Side(scenarios.ServerSide)).NotTo(BeEmpty())
		Expect(catalogue.All().Side(scenarios.ClientSide)).NotTo(BeEmpty())
	})

	It("gives every check the sentence it rests on", func() {
		for _, c := range catalogue.All().Checks() {
			Expect(c.Quote).NotTo(BeEmpty(), "check %s quotes no sentence", c.ID)
		}
	})

	It("quotes sentences that stand on the page (or design note) each check cites", func() {
		root := filepath.Join("..", "..", "..", "shared", "mcp-spec")
		if _, err := os.Stat(filepath.Join(root, "docs")); err != nil {
			Skip("the spec sources are not beside the repository (they are optional)")
		}
		markup := regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)|<[^>]+>`)
		normal := func(s string) string {
			s = markup.ReplaceAllStringFunc(s, func(m string) string {
				if strings.HasPrefix(m, "[") {
					return m[1:strings.Index(m, "]")]
				}
				return ""
			})
			s = strings.NewReplacer("**", "", "`", "", "&quot;", "\"", "&#x5F;", "_").Replace(s)
			return strings.Join(strings.Fields(s), " ")
		}
		read := func(ref string) string {
			page, _, _ := strings.Cut(ref, "#")
			dir := "docs"
			switch {
			case strings.HasPrefix(page, "seps/"), strings.HasPrefix(page, "ext-auth/"):
				dir = ""
			case strings.HasPrefix(page, "official-conformance/"):
				// The official suite's requirement texts, where the
				// extension's own page is not beside the spec (DPoP, WIF).
				dir = ".."
			case strings.HasPrefix(page, "seeds/"):
				dir = ".." // the vendor documents, beside the spec
			}
			path := filepath.Join(root, dir, page)
			if strings.HasPrefix(page, "ext-skills/") {
				// The skills extension's page is not beside the spec; the
				// sentences the checks quote from it are kept word for word.
				path = filepath.Join("..", "..", "docs", "skills-requirements.md")
			}
			if strings.HasPrefix(page, "rfc") || strings.HasPrefix(page, "draft-") {
				// The RFC texts are not stored beside the repository; the
				// sentences the checks quote from them are, checked word
				// for word, in the project's requirements list.
				path = filepath.Join("..", "..", "docs", "auth-client-requirements.md")
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return ""
			}
			return normal(string(b))
		}
		var missing []string
		for _, c := range catalogue.All().Checks() {
			text := read(c.Spec)
			if c.Source != "" {
				text += " " + read(c.Source)
			}
			if !strings.Contains(text, normal(c.Quote)) {
				missing = append(missing, fmt.Sprintf("%s: %q is not on %s %s", c.ID, c.Quote, c.Spec, c.Source))
			}
		}
		Expect(missing).To(BeEmpty())
	})

	It("lists the scenarios sorted by id", func() {
		all := catalogue.All()
		for i := 1; i < len(all); i++ {
			Expect(all[i-1].ID < all[i].ID).To(BeTrue(), "%s before %s", all[i-1].ID, all[i].ID)
		}
	})

	It("gives every fault of both reference peers a check to kill", func() {
		killers := catalogue.All().Killers()
		for _, f := range append(server.Faults(), client.Faults()...) {
			Expect(killers[f]).NotTo(BeEmpty(), "fault %s kills no check", f.Name)
		}
	})

	It("refuses a real check once its faults are taken away", func() {
		victim := catalogue.All().Checks()[0]
		saved := victim.Faults
		victim.Faults = nil
		defer func() { victim.Faults = saved }()
		Expect(catalogue.Validate()).To(MatchError(ContainSubstring(victim.ID + " has no fault")))
	})
})
