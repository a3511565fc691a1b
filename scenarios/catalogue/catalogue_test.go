package catalogue_test

import (
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
