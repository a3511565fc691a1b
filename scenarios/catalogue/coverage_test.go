package catalogue_test

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// officialDir holds the official suite's own lists beside the repository.
var officialDir = filepath.Join("..", "..", "..", "shared", "official-conformance")

func readOfficial(name string, v any) {
	path := filepath.Join(officialDir, name)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		Skip("the official lists are not beside the repository: " + err.Error())
	}
	Expect(err).NotTo(HaveOccurred())
	Expect(yaml.Unmarshal(b, v)).To(Succeed(), path)
}

var _ = Describe("the coverage map of the official suite", func() {
	It("maps every official scenario at every revision where it applies, full, partial with what is missing, or absent with why", func() {
		for _, v := range catalogue.OfficialVersions() {
			cov := catalogue.CoverageOf(v)
			Expect(cov).NotTo(BeEmpty(), v)
			for _, c := range cov {
				switch c.Status {
				case catalogue.Full:
					Expect(c.Scenarios).NotTo(BeEmpty(), "%s %s at %s", c.Side, c.Official, v)
					Expect(c.Checks).To(BeNumerically(">", 0), "%s %s at %s", c.Side, c.Official, v)
				case catalogue.Partial:
					Expect(c.Scenarios).NotTo(BeEmpty(), "%s %s at %s", c.Side, c.Official, v)
					Expect(c.Why).NotTo(BeEmpty(), "%s %s at %s", c.Side, c.Official, v)
				case catalogue.Absent:
					Expect(c.Scenarios).To(BeEmpty(), "%s %s at %s", c.Side, c.Official, v)
					Expect(c.Why).NotTo(BeEmpty(), "%s %s at %s", c.Side, c.Official, v)
				default:
					Fail("status " + string(c.Status))
				}
			}
		}
	})

	It("judges every client scenario of both lists, authorization included", func() {
		for _, v := range catalogue.OfficialVersions() {
			for _, c := range catalogue.CoverageOf(v) {
				if c.Side == scenarios.ClientSide && c.Scored() {
					Expect(c.Status).To(Equal(catalogue.Full), "client %s at %s", c.Official, v)
				}
			}
		}
	})

	It("holds the official scenarios to the revisions' own requirement lists", func() {
		for _, v := range catalogue.OfficialVersions() {
			var list struct {
				Server, Client []string
				NotScored      []struct{ Scenario, Leg, Reason string } `yaml:"not_scored"`
			}
			readOfficial(filepath.Join("requirements", v+".yaml"), &list)
			want := map[string]string{}
			for _, n := range list.Server {
				want["server "+n] = catalogue.Scored
			}
			for _, n := range list.Client {
				want["client "+n] = catalogue.Scored
			}
			for _, n := range list.NotScored {
				want[n.Leg+" "+n.Scenario] = n.Reason
			}
			got := map[string]string{}
			for _, c := range catalogue.CoverageOf(v) {
				if c.List != "unlisted" {
					got[string(c.Side)+" "+c.Official] = c.List
				}
			}
			Expect(got).To(Equal(want), "official.yaml against requirements/%s.yaml", v)
		}
	})

	It("holds the authorization scenarios to the official suite's own description of them", func() {
		var auth struct {
			Scenarios []struct {
				Name, Side, IntroducedIn, RemovedIn string
				ExtensionID                         string `yaml:"extensionId"`
			}
		}
		readOfficial("auth-scenarios.yaml", &auth)
		Expect(auth.Scenarios).NotTo(BeEmpty())
		byName := map[string]catalogue.OfficialScenario{}
		for _, o := range catalogue.OfficialScenarios() {
			byName[o.Name] = o
		}
		for _, a := range auth.Scenarios {
			o, ok := byName[a.Name]
			Expect(ok).To(BeTrue(), a.Name)
			side := a.Side
			if side == "authorization" { // the official name of the side mcpconform calls authserver
				side = string(scenarios.AuthServerSide)
			}
			Expect(string(o.Side)).To(Equal(side), a.Name)
			Expect(o.Extension).To(Equal(a.ExtensionID), a.Name)
			if a.IntroducedIn != "" {
				Expect(o.Versions).NotTo(BeEmpty(), a.Name)
				Expect(o.Versions[0]).To(Equal(a.IntroducedIn), a.Name)
			}
			if a.RemovedIn != "" {
				Expect(o.Versions).NotTo(ContainElement(a.RemovedIn), a.Name)
			}
		}
	})

	It("says which official scenarios apply at no revision with a list, and what takes their names", func() {
		outside := catalogue.OutsideRevisions()
		Expect(outside).NotTo(BeEmpty())
		for _, o := range outside {
			Expect(o.Revisions).To(BeEmpty(), o.Name)
			for _, v := range catalogue.OfficialVersions() {
				Expect(slices.Contains(o.Versions, v)).To(BeFalse(), o.Name)
			}
		}
	})
})
