package suites_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
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

var _ = Describe("the order of a self-test's runs", func() {
	ping := suites.Run{Side: scenarios.ServerSide, Fault: server.PingError, Transport: transport.Stdio, Version: "2025-11-25"}

	It("estimates a run by its scenarios' recorded durations and what its variant was recorded to add", func() {
		// An empty table gives each scenario 1 ms.
		bare := suites.Durations{}
		own := bare.Estimate(ping, false)
		Expect(own).To(Equal(time.Millisecond), "ping-error runs lifecycle-ping alone")
		all := bare.Estimate(ping, true)
		Expect(all).To(BeNumerically(">", 20*time.Millisecond), "a sweep runs the whole catalogue")

		slow := suites.Durations{SelfTest: map[string]map[string]float64{"server ping-error": {"stdio 2025-11-25": 5000}}}
		Expect(slow.Estimate(ping, false)).To(Equal(5 * time.Second))
		Expect(slow.Estimate(ping, true)).To(Equal(all + 5*time.Second - own))
		elsewhere := ping
		elsewhere.Transport = transport.HTTP
		Expect(slow.Estimate(elsewhere, false)).To(Equal(time.Millisecond), "recorded over stdio only")
	})

	It("records each run's duration by variant, transport and version", func() {
		var table suites.Durations
		table.RecordSelfTest(&suites.SelfTestReport{Outcomes: []suites.RunOutcome{
			{Run: ping, Duration: 1500 * time.Millisecond},
			{Run: ping, Duration: 2500 * time.Millisecond},
			{Run: suites.Run{Side: scenarios.ClientSide, Transport: transport.WS, Version: "2026-07-28"}, Duration: 0},
		}})
		Expect(table.SelfTest).To(Equal(map[string]map[string]float64{
			"server ping-error": {"stdio 2025-11-25": 2500},
			"client reference":  {"ws 2026-07-28": 1},
		}))
	})

	// Started last, a run that waits out a timeout ends the self-test long
	// after the others: the scenarios of the runs the table says are
	// longest start first.
	It("starts the runs the table says are longest first, and reports them in their own order", func(ctx SpecContext) {
		started := func(long string) []string {
			var progress strings.Builder
			report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
				Exe: exe, Transports: []transport.Kind{transport.Stdio}, Versions: []string{"2025-11-25"},
				Faults: []string{server.PingError.Name, server.AnswersNotifications.Name}, SkipReference: true, Parallel: 1,
				Progress:  &progress,
				Durations: &suites.Durations{SelfTest: map[string]map[string]float64{"server " + long: {"stdio 2025-11-25": 60000}}},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(report.Problems).To(BeEmpty())
			var faults []string
			for _, o := range report.Outcomes {
				faults = append(faults, o.Fault.Name)
				Expect(o.Duration).To(BeNumerically(">", 0))
			}
			Expect(faults).To(Equal([]string{"answers-notifications", "ping-error"}), "the report keeps the catalogue's order")
			var order []string
			for line := range strings.Lines(progress.String()) {
				order = append(order, strings.Fields(line)[2])
			}
			return order
		}
		Expect(started("ping-error")).To(Equal([]string{"ping-error", "answers-notifications"}))
		Expect(started("answers-notifications")).To(Equal([]string{"answers-notifications", "ping-error"}))
	}, SpecTimeout(time.Minute))
})

var _ = Describe("a self-test whose checks cannot be judged", func() {
	// No run is run again: a check the self-test could not judge (every
	// answer times out here) is a problem of the self-test.
	It("reports them as problems", func(ctx SpecContext) {
		report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
			Exe: exe, Transports: []transport.Kind{transport.HTTP}, Versions: []string{"2025-11-25"},
			Faults: []string{"ping-error"}, SkipReference: true,
			Timing: scenarios.Timing{ResponseTimeout: time.Nanosecond},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Outcomes).To(HaveLen(1))
		Expect(report.Outcomes[0].Errored).NotTo(BeEmpty())
		Expect(report.Problems).To(ContainElement(HavePrefix("server ping-error over http at 2025-11-25: ")))
	}, SpecTimeout(time.Minute))
})
