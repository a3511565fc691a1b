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
	"github.com/mcpconform/mcpconform/transport"
)

// wire-rules judges every session of every scenario through the ledger
// they share: a scenario that judges nothing of the wire rules still
// records what its sessions saw, under its own id, before the handshake too.
var _ = Describe("the wire rules in the ledger", func() {
	DescribeTable("a scenario's sessions record the breaches they saw",
		func(ctx SpecContext, tr transport.Kind, f *fault.Fault, rule client.WireRule) {
			ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{Variant: f}, exe)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ref.Stop)
			ledger := &scenarios.WireLedger{}
			ping, ok := catalogue.All().Find("lifecycle-ping")
			Expect(ok).To(BeTrue())
			res := scenarios.Execute(ctx, ping, scenarios.Env{Target: ref.Target, Version: protocol.V20251125, Transport: tr,
				Gate: &scenarios.Gate{}, Wire: ledger,
				Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second}})
			for _, v := range res.Verdicts {
				Expect(v.Outcome).To(Equal(scenarios.Pass), "%s: %s", v.Check.ID, v.Message)
			}
			kept, total := ledger.Breaches(string(rule))
			Expect(total).To(BeNumerically(">", 0))
			Expect(kept).To(HaveEach(HaveField("Scenario", "lifecycle-ping")))
			for _, other := range client.WireRules {
				if other != rule {
					_, n := ledger.Breaches(string(other))
					Expect(n).To(BeZero(), "%s breaks %s only", f.Name, rule)
				}
			}
		},
		func(tr transport.Kind, f *fault.Fault, _ client.WireRule) string { return string(tr) + " " + f.Name },
		Entry(nil, transport.Stdio, server.StdoutBanner, client.RuleJSONRPCOnly),
		Entry(nil, transport.WS, server.WSBinaryFrames, client.RuleWSTextFrames),
	)

	It("leaves the ledger without breaches for the reference", func(ctx SpecContext) {
		for _, tr := range transports {
			ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{}, exe)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ref.Stop)
			ledger := &scenarios.WireLedger{}
			ping, _ := catalogue.All().Find("lifecycle-ping")
			scenarios.Execute(ctx, ping, scenarios.Env{Target: ref.Target, Version: protocol.V20251125, Transport: tr,
				Gate: &scenarios.Gate{}, Wire: ledger,
				Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second}})
			for _, rule := range client.WireRules {
				_, n := ledger.Breaches(string(rule))
				Expect(n).To(BeZero(), "%s over %s", rule, tr)
			}
		}
	})
})
