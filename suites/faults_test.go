package suites_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/authref"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/internal/ahead"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
)

// selfTestRun is a self-test made ahead of the spec that judges it.
type selfTestRun struct {
	report *suites.SelfTestReport
	err    error
}

// selfTestAhead registers a self-test of the variants named for the spec
// whose full text is key, in two parts. The variants whose recorded runs
// wait (a response timeout, a 5 s poll interval) weigh 1: they mostly
// sleep, and started with the others they would end the self-test alone.
// The rest keep the cores busy: they weigh selfTestWeight. opts is read
// when the work starts (exe is built by then). Self-tests are the longest
// work: they start first.
func selfTestAhead(key string, side scenarios.Side, variants fault.Set, opts func() suites.SelfTestOptions) []ahead.Work[selfTestRun] {
	waiting, busy := splitByWait(side, variants)
	var parts []ahead.Work[selfTestRun]
	for _, part := range []struct {
		name     string
		variants []string
		weight   int
	}{{"waiting", waiting, 1}, {"busy", busy, selfTestWeight}} {
		if len(part.variants) == 0 {
			continue
		}
		parts = append(parts, ahead.AddPart(pool, key, part.name, part.weight, func(ctx context.Context) selfTestRun {
			o := opts()
			o.Faults = part.variants
			report, err := suites.SelfTest(ctx, o)
			return selfTestRun{report, err}
		}).First())
	}
	return parts
}

// waitingRun is the recorded duration from which a self-test's run counts
// as waiting: one response timeout (5 s), or a poll interval of 5 s.
const waitingRun = 5 * time.Second

// splitByWait splits the side's variants by their longest recorded run.
func splitByWait(side scenarios.Side, variants fault.Set) (waiting, busy []string) {
	recorded := suites.RecordedDurations().SelfTest
	for _, v := range variants {
		longest := 0.0
		for _, ms := range recorded[suites.Run{Side: side, Fault: v}.VariantKey()] {
			longest = max(longest, ms)
		}
		if time.Duration(longest)*time.Millisecond >= waitingRun {
			waiting = append(waiting, v.Name)
		} else {
			busy = append(busy, v.Name)
		}
	}
	return waiting, busy
}

// partReports gets the reports of a self-test's parts.
func partReports(parts []ahead.Work[selfTestRun]) []*suites.SelfTestReport {
	var out []*suites.SelfTestReport
	for _, part := range parts {
		r := part.Get()
		Expect(r.err).NotTo(HaveOccurred())
		out = append(out, r.report)
	}
	return out
}

const faultCatalogue = "the fault catalogue"

var _ = Describe(faultCatalogue, func() {
	// Each fault, on every transport and version where it can show, must
	// fail exactly the checks that name it and nothing else; each liberty,
	// wherever it applies, must fail and warn nothing. A run mostly waits
	// on its target, so the runs of every variant of one reference peer go
	// side by side in one self-test; a failure names its run (variant,
	// transport, version).
	for _, side := range []struct {
		name              string
		side              scenarios.Side
		faults, liberties fault.Set
	}{
		{"server", scenarios.ServerSide, server.Faults(), server.Liberties()},
		{"client", scenarios.ClientSide, client.Faults(), client.Liberties()},
		{"authorization server", scenarios.AuthServerSide, authref.Faults(), authref.Liberties()},
	} {
		kills := "kills exactly its own checks, for every fault of the reference " + side.name
		killsRun := selfTestAhead(faultCatalogue+" "+kills, side.side, side.faults, func() suites.SelfTestOptions {
			return suites.SelfTestOptions{
				Exe: exe, Transports: transports, Versions: versions, SkipReference: true, Parallel: 32,
				// Generous: the runs are dense in CPU, and a fault that must
				// go unanswered costs its wait whatever it is. A fault that
				// sends what must not come (an answer after a cancel) is seen
				// only within the quiet window: a busy machine is slow to
				// send it.
				Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, QuietWindow: time.Second},
			}
		})
		// The faults that no run at these versions can show (the 2025-03-26
		// authorization's) run on their own, where they can.
		if others := outsideVersions(side.faults); len(others) > 0 {
			killsRun = append(killsRun, ahead.AddPart(pool, faultCatalogue+" "+kills, "other versions", 1, func(ctx context.Context) selfTestRun {
				report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
					Exe: exe, Transports: transports, Versions: protocol.Judged(), SkipReference: true, Parallel: 32, Faults: others,
					Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, QuietWindow: time.Second},
				})
				return selfTestRun{report, err}
			}).First())
		}
		It(kills, func(ctx SpecContext) {
			seen := map[string]bool{}
			for _, report := range partReports(killsRun) {
				for _, o := range report.Outcomes {
					seen[o.Fault.Name] = true
					kills := suites.KillsOn(o.Fault, o.Transport, o.Version)
					Expect(o.Failed).To(ConsistOf(kills), "%s\n%s", o.Run, strings.Join(o.Problems, "\n"))
				}
				Expect(report.Problems).To(BeEmpty())
			}
			for _, f := range side.faults {
				Expect(seen).To(HaveKey(f.Name), "fault %s ran somewhere", f.Name)
			}
		})

		passes := "passes every check with a liberty, for every liberty of the reference " + side.name
		passesRun := selfTestAhead(faultCatalogue+" "+passes, side.side, side.liberties, func() suites.SelfTestOptions {
			return suites.SelfTestOptions{
				Exe: exe, Transports: transports, Versions: protocol.Judged(), SkipReference: true, Parallel: 32,
				Timing: scenarios.Timing{ResponseTimeout: 2 * time.Second},
			}
		})
		It(passes, func(ctx SpecContext) {
			judged := 0
			for _, report := range partReports(passesRun) {
				judged += len(report.Outcomes)
				for _, o := range report.Outcomes {
					Expect(o.Failed).To(BeEmpty(), "%s", o.Run)
				}
				Expect(report.Problems).To(BeEmpty())
			}
			Expect(judged).NotTo(BeZero())
		})
	}

	const clean = "reports the reference itself as clean in the self-test"
	cleanRun := runAhead(faultCatalogue+" "+clean, 2*time.Minute, func(ctx context.Context) selfTestRun {
		report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
			Exe: exe, Transports: transports, Versions: versions, Faults: []string{"ping-error"},
			Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second},
		})
		return selfTestRun{report, err}
	})
	It(clean, func(ctx SpecContext) {
		r := cleanRun.Get()
		report, err := r.report, r.err
		Expect(err).NotTo(HaveOccurred())
		Expect(report.OK()).To(BeTrue(), "%v", report.Problems)
	}, SpecTimeout(2*time.Minute))
})

// outsideVersions names the faults of set that no transport at the fault
// runs' versions can show.
func outsideVersions(set fault.Set) []string {
	var out []string
	for _, f := range set {
		shown := false
		for _, tr := range transports {
			for _, v := range versions {
				shown = shown || f.ObservableOn(tr, v)
			}
		}
		if !shown {
			out = append(out, f.Name)
		}
	}
	return out
}
