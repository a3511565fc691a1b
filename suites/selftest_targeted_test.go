package suites_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/ahead"
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

// oneVariantRun names a self-test of one variant (name) over one
// transport at 2025-11-25, swept or not.
type oneVariantRun struct {
	name  string
	tr    transport.Kind
	sweep bool
}

const oneVariant = "a self-test run of one variant"

var _ = Describe(oneVariant, func() {
	// selfTests makes the self-tests of runs, one after the other, ahead of
	// the spec text.
	selfTests := func(text string, runs ...oneVariantRun) ahead.Work[[]selfTestRun] {
		return runAhead(oneVariant+" "+text, 0, func(ctx context.Context) []selfTestRun {
			var out []selfTestRun
			for _, r := range runs {
				report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
					Exe: exe, Transports: []transport.Kind{r.tr}, Versions: []string{"2025-11-25"},
					Faults: []string{r.name}, SkipReference: true, Sweep: r.sweep,
					Timing: scenarios.Timing{ResponseTimeout: 2 * time.Second},
				})
				out = append(out, selfTestRun{report, err})
			}
			return out
		})
	}
	outcome := func(r selfTestRun) suites.RunOutcome {
		report, err := r.report, r.err
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Problems).To(BeEmpty())
		Expect(report.Outcomes).To(HaveLen(1))
		return report.Outcomes[0]
	}

	const onlyNamed = "holds only the scenarios of the checks that name the fault, unless swept"
	onlyNamedRuns := selfTests(onlyNamed, oneVariantRun{"ping-error", transport.HTTP, false}, oneVariantRun{"ping-error", transport.HTTP, true})
	It(onlyNamed, func(ctx SpecContext) {
		runs := onlyNamedRuns.Get()
		Expect(judgedScenarios(outcome(runs[0]))).To(Equal(map[string]bool{"lifecycle-ping": true}))
		swept := judgedScenarios(outcome(runs[1]))
		Expect(swept).To(HaveKey("lifecycle-ping"))
		Expect(swept).To(HaveKey("lifecycle-initialize"))
		Expect(len(swept)).To(BeNumerically(">", 20))
	})

	const judgeNames = "holds the handshake's, the ledger judges and the scenarios that show the fault when a judge's check names it"
	judgeNamesRuns := selfTests(judgeNames, oneVariantRun{"content-type-html", transport.HTTP, false}, oneVariantRun{"status-notification-no-ttl", transport.Stdio, false})
	It(judgeNames, func(ctx SpecContext) {
		runs := judgeNamesRuns.Get()
		judged := judgedScenarios(outcome(runs[0]))
		Expect(judged).To(Equal(map[string]bool{"lifecycle-initialize": true, "wire-rules": true, "wire-schema": true}))
		// Only a cancelled task's traffic shows this one (fault.ShownBy).
		judged = judgedScenarios(outcome(runs[1]))
		Expect(judged).To(HaveKey("tasks-cancel-during-elicitation"))
		Expect(judged).To(HaveKey("wire-schema"))
		Expect(judged).NotTo(HaveKey("lifecycle-ping"))
	})
})
