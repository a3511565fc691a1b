package suites_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
)

var _ = Describe("the fault catalogue", func() {
	It("gives every check in the catalogue a fault that must kill it", func() {
		Expect(scenarios.Validate(server.Killers())).To(Succeed())
	})

	It("refuses a catalogue with a check that no fault kills", func() {
		killers := server.Killers()
		delete(killers, "lifecycle-ping/empty-result")
		Expect(scenarios.Validate(killers)).To(MatchError(ContainSubstring("lifecycle-ping/empty-result has no fault")))
	})

	It("names only checks that exist", func() {
		known := map[string]bool{}
		for _, c := range scenarios.AllChecks() {
			known[c.ID] = true
		}
		for _, f := range server.Faults() {
			Expect(known).To(HaveKey(f.Kills), "fault %s", f.Name)
		}
	})

	// Each fault, on every transport and version where it can show, must
	// fail exactly the check it declares and nothing else.
	entries := []TableEntry{}
	for _, f := range server.Faults() {
		entries = append(entries, Entry(f.Name, f.Name))
	}
	DescribeTable("kills exactly its own check",
		func(ctx SpecContext, name string) {
			report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
				Exe: exe, Transports: transports, Versions: versions,
				Faults: []string{name}, SkipReference: true, Parallel: 6,
				ResponseTimeout: 2 * time.Second,
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(report.Outcomes).NotTo(BeEmpty())
			f, _ := server.FindFault(name)
			for _, o := range report.Outcomes {
				Expect(o.Failed).To(ConsistOf(f.Checks()), "%s", o.Run)
			}
			Expect(report.Problems).To(BeEmpty())
		},
		entries,
	)

	It("reports the reference itself as clean in the self-test", func(ctx SpecContext) {
		report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
			Exe: exe, Transports: transports, Versions: versions, Faults: []string{"ping-error"},
			ResponseTimeout: 3 * time.Second,
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.OK()).To(BeTrue(), "%v", report.Problems)
	}, SpecTimeout(2*time.Minute))
})
