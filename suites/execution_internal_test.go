package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/runner"
	"github.com/mcpconform/mcpconform/scenarios"
)

var _ = Describe("a scenario that changes what its target lists", func() {
	It("starts after the other scenarios of its target that read, not after ledger judges or other targets", func() {
		type planned struct {
			target string
			s      *scenarios.Scenario
		}
		plan := []planned{
			{"stdio", &scenarios.Scenario{ID: "reads"}},
			{"stdio", &scenarios.Scenario{ID: "changes", ChangesTarget: true}},
			{"stdio", &scenarios.Scenario{ID: "ledger", Last: true}},
			{"stdio", &scenarios.Scenario{ID: "changes-too", ChangesTarget: true}},
			{"http", &scenarios.Scenario{ID: "reads-elsewhere"}},
		}
		jobs := make([]runner.Job[struct{}], len(plan))
		for i, p := range plan {
			jobs[i].Key = p.target + "|" + p.s.ID
		}
		afterReaders(jobs, func(i int) (string, *scenarios.Scenario) { return plan[i].target, plan[i].s })
		Expect(jobs[0].After).To(BeEmpty())
		Expect(jobs[1].After).To(Equal([]string{"stdio|reads"}))
		Expect(jobs[2].After).To(BeEmpty())
		Expect(jobs[3].After).To(Equal([]string{"stdio|reads", "stdio|changes"}), "one after another")
		Expect(jobs[4].After).To(BeEmpty())
	})
})
