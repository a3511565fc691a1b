package catalogue_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// The official requirement lists of the 2026-07-28 design notes that
// mcpconform accounts for id by id: MRTR, stateless, the tasks extension,
// the HTTP headers, caching and resource-not-found.
var accountedSeps = []string{"2322", "2575", "2663", "2243", "2549", "2164"}

// Every requirement id of those lists is named by a check's Requirements or
// said unjudged in the catalogue's table, never both, and neither names an
// id that no list has (a typo, or an id the official suite dropped).
var _ = Describe("the requirement ids of the 2026-07-28 design notes", func() {
	It("are each judged by a check or said unjudged, and every id named is an official one", func() {
		seps := filepath.Join("..", "..", "..", "shared", "official-conformance", "seps")
		if _, err := os.Stat(seps); err != nil {
			Skip("the official requirement lists are not beside the repository: " + err.Error())
		}
		listed := map[string]string{} // requirement id -> its list
		files, err := filepath.Glob(filepath.Join(seps, "sep-*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		for _, f := range files {
			for _, id := range requirementIDs(f) {
				listed[id] = filepath.Base(f)
			}
		}

		judgedBy := map[string][]string{} // requirement id -> the checks naming it
		for _, c := range catalogue.All().Checks() {
			for _, id := range c.Requirements {
				judgedBy[id] = append(judgedBy[id], c.ID)
			}
		}
		unjudged := catalogue.UnjudgedRequirements()

		for _, sep := range accountedSeps {
			ids := requirementIDs(filepath.Join(seps, "sep-"+sep+".yaml"))
			Expect(ids).NotTo(BeEmpty(), "sep-%s.yaml lists requirement ids", sep)
			var missing, both []string
			for _, id := range ids {
				_, said := unjudged[id]
				switch {
				case len(judgedBy[id]) == 0 && !said:
					missing = append(missing, id)
				case len(judgedBy[id]) > 0 && said:
					both = append(both, id)
				}
			}
			Expect(missing).To(BeEmpty(), "requirement ids of sep-%s.yaml that no check names and the unjudged table lacks", sep)
			Expect(both).To(BeEmpty(), "requirement ids of sep-%s.yaml that checks name although the unjudged table has them", sep)
		}

		var unknown []string
		for id, checks := range judgedBy {
			if _, ok := listed[id]; !ok {
				unknown = append(unknown, id+" (named by "+strings.Join(checks, ", ")+")")
			}
		}
		for id := range unjudged {
			if _, ok := listed[id]; !ok {
				unknown = append(unknown, id+" (in the unjudged table)")
			}
		}
		sort.Strings(unknown)
		Expect(unknown).To(BeEmpty(), "requirement ids that no official list has")
	})
})

// requirementIDs reads the check ids of one official list; a requirement
// without one is excluded by the list itself.
func requirementIDs(path string) []string {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var list struct {
		Requirements []struct {
			Check string `yaml:"check"`
		} `yaml:"requirements"`
	}
	Expect(yaml.Unmarshal(b, &list)).To(Succeed(), path)
	var out []string
	for _, r := range list.Requirements {
		if r.Check != "" {
			out = append(out, r.Check)
		}
	}
	return out
}
