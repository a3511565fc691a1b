package suites_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
)

var _ = Describe("the fault catalogue", func() {
	// Each fault, on every transport and version where it can show, must
	// fail exactly the check it declares and nothing else.
	entries := []TableEntry{}
	for _, f := range append(server.Faults(), client.Faults()...) {
		entries = append(entries, Entry(f.Name, f))
	}
	DescribeTable("kills exactly its own check",
		func(ctx SpecContext, f *fault.Fault) {
			report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
				Exe: exe, Transports: transports, Versions: versions,
				Faults: []string{f.Name}, SkipReference: true, Parallel: 6,
				Timing: scenarios.Timing{ResponseTimeout: 2 * time.Second},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(report.Outcomes).NotTo(BeEmpty())
			var kills []string
			for _, c := range catalogue.All().Killers()[f] {
				kills = append(kills, c.ID)
			}
			for _, o := range report.Outcomes {
				Expect(o.Failed).To(ConsistOf(kills), "%s", o.Run)
			}
			Expect(report.Problems).To(BeEmpty())
		},
		entries,
	)

	// Each liberty, on every transport and version where it applies, must
	// fail and warn nothing, and pass the checks that name it somewhere.
	libertyEntries := []TableEntry{}
	for _, l := range append(server.Liberties(), client.Liberties()...) {
		libertyEntries = append(libertyEntries, Entry(l.Name, l))
	}
	DescribeTable("passes every check with a liberty",
		func(ctx SpecContext, l *fault.Fault) {
			report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
				Exe: exe, Transports: transports, Versions: protocol.Judged(),
				Faults: []string{l.Name}, SkipReference: true, Parallel: 6,
				Timing: scenarios.Timing{ResponseTimeout: 2 * time.Second},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(report.Outcomes).NotTo(BeEmpty())
			for _, o := range report.Outcomes {
				Expect(o.Failed).To(BeEmpty(), "%s", o.Run)
			}
			Expect(report.Problems).To(BeEmpty())
		},
		libertyEntries,
	)

	It("reports the reference itself as clean in the self-test", func(ctx SpecContext) {
		report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
			Exe: exe, Transports: transports, Versions: versions, Faults: []string{"ping-error"},
			Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.OK()).To(BeTrue(), "%v", report.Problems)
	}, SpecTimeout(2*time.Minute))
})
