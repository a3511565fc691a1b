package catalogue_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
)

// The client scenarios' scripts are built inside their bodies, so which
// tools a script offers is held to its scenario's needs when it is served
// (clientside.FixtureProblems, a harness error in every run and selftest);
// what can be read without running anything is held here.
var _ = Describe("the fixtures the fake server offers a client", func() {
	It("are each named in the needs of a client scenario", func() {
		named := map[string]bool{}
		for _, s := range catalogue.All().Side(scenarios.ClientSide) {
			for _, n := range s.Needs {
				if n.Fixture != "" {
					named[n.Fixture] = true
				}
			}
		}
		for _, f := range fixtures.Table {
			if f.Side == fixtures.ToClient {
				Expect(named).To(HaveKey(f.Name), "no client scenario needs the fixture %s", f.Name)
			}
		}
	})
})
