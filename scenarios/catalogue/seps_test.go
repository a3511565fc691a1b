package catalogue_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// The 2026-07-28 families map each requirement id of the official lists for
// their design notes to the checks that judge it, or say why none does, in
// a comment block of the family (scenarios/server/mrtr, stateless, tasksext;
// scenarios/client/mrtr, httprules). This keeps those maps complete.
var _ = Describe("the requirement ids of the 2026-07-28 design notes", func() {
	It("are each mapped by a family, naming checks that exist", func() {
		seps := filepath.Join("..", "..", "..", "shared", "official-conformance", "seps")
		if _, err := os.Stat(seps); err != nil {
			Skip("the official requirement lists are not beside the repository: " + err.Error())
		}
		mentions := map[string][]string{} // requirement id -> the comment lines naming it
		// An id, or several in the blocks' brace shorthand:
		// sep-2575-client-declares-{roots,sampling}-capability.
		idPattern := regexp.MustCompile(`sep-\d+-[a-z0-9-]*(?:\{[a-z0-9,-]+\}[a-z0-9-]*)?`)
		Expect(filepath.WalkDir(filepath.Join(".."), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(b), "\n") {
				if !strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				for _, found := range idPattern.FindAllString(line, -1) {
					for _, id := range expandBraces(found) {
						mentions[id] = append(mentions[id], line)
					}
				}
			}
			return nil
		})).To(Succeed())

		checks := map[string]bool{}
		for _, s := range catalogue.All() {
			for _, c := range s.Checks {
				checks[c.ID] = true
			}
		}
		checkPattern := regexp.MustCompile(`\b[a-z0-9]+(?:-[a-z0-9]+)+/[a-z0-9]+(?:-[a-z0-9]+)*\b`)
		for _, sep := range []string{"2322", "2575", "2663", "2243"} {
			b, err := os.ReadFile(filepath.Join(seps, "sep-"+sep+".yaml"))
			Expect(err).NotTo(HaveOccurred())
			var list struct {
				Requirements []struct {
					Check string `yaml:"check"`
				} `yaml:"requirements"`
			}
			Expect(yaml.Unmarshal(b, &list)).To(Succeed())
			n := 0
			var unmapped []string
			for _, r := range list.Requirements {
				if r.Check == "" {
					continue // excluded by the official list itself
				}
				n++
				lines, ok := mentions[r.Check]
				if !ok {
					unmapped = append(unmapped, r.Check)
				}
				for _, line := range lines {
					for _, named := range checkPattern.FindAllString(line, -1) {
						if strings.Contains(named, "sep-") || strings.HasSuffix(named, ".md") {
							continue
						}
						Expect(checks).To(HaveKey(named), "%s is mapped to %s, which is no check of the catalogue", r.Check, named)
					}
				}
			}
			Expect(n).To(BeNumerically(">", 0), "sep-%s.yaml lists requirement ids", sep)
			Expect(unmapped).To(BeEmpty(), "requirement ids of sep-%s.yaml that no family's requirement block maps", sep)
		}
	})
})

// expandBraces turns a{b,c}d into abd and acd.
func expandBraces(s string) []string {
	open, closing := strings.Index(s, "{"), strings.Index(s, "}")
	if open < 0 || closing < open {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[open+1:closing], ",") {
		out = append(out, s[:open]+alt+s[closing+1:])
	}
	return out
}
