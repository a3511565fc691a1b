package suites_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// judgedScenarios names the scenarios whose checks a run judged.
func judgedScenarios(o suites.RunOutcome) map[string]bool {
	out := map[string]bool{}
	for _, ids := range [][]string{o.Passed, o.Failed, o.Skipped, o.Errored} {
		for _, id := range ids {
			scenario, _, _ := strings.Cut(id, "/")
			out[scenario] = true
		}
	}
	return out
}

var _ = Describe("a self-test run of one variant", func() {
	selfTest := func(ctx SpecContext, name string, tr transport.Kind, sweep bool) suites.RunOutcome {
		report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
			Exe: exe, Transports: []transport.Kind{tr}, Versions: []string{"2025-11-25"},
			Faults: []string{name}, SkipReference: true, Sweep: sweep,
			Timing: scenarios.Timing{ResponseTimeout: 2 * time.Second},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Problems).To(BeEmpty())
		Expect(report.Outcomes).To(HaveLen(1))
		return report.Outcomes[0]
	}

	It("holds only the scenarios of the checks that name the fault, unless swept", func(ctx SpecContext) {
		Expect(judgedScenarios(selfTest(ctx, "ping-error", transport.HTTP, false))).To(Equal(map[string]bool{"lifecycle-ping": true}))
		swept := judgedScenarios(selfTest(ctx, "ping-error", transport.HTTP, true))
		Expect(swept).To(HaveKey("lifecycle-ping"))
		Expect(swept).To(HaveKey("lifecycle-initialize"))
		Expect(len(swept)).To(BeNumerically(">", 20))
	})

	It("holds the handshake's, the ledger judges and the scenarios that show the fault when a judge's check names it", func(ctx SpecContext) {
		judged := judgedScenarios(selfTest(ctx, "content-type-html", transport.HTTP, false))
		Expect(judged).To(Equal(map[string]bool{"lifecycle-initialize": true, "wire-rules": true, "wire-schema": true}))
		// Only a cancelled task's traffic shows this one (fault.ShownBy).
		judged = judgedScenarios(selfTest(ctx, "status-notification-no-ttl", transport.Stdio, false))
		Expect(judged).To(HaveKey("tasks-cancel-during-elicitation"))
		Expect(judged).To(HaveKey("wire-schema"))
		Expect(judged).NotTo(HaveKey("lifecycle-ping"))
	})
})
