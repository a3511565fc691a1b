package suites_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// wire-schema judges every session of every scenario on a transport and
// version, through the ledger they share: a message only another
// scenario's session received still fails it.
var _ = Describe("the wire ledger", func() {
	scenario := func(id string) *scenarios.Scenario {
		GinkgoHelper()
		s, ok := catalogue.All().Find(id)
		Expect(ok).To(BeTrue(), "no scenario %s", id)
		return s
	}

	It("runs wire-schema last on each transport and version", func() {
		cfg := suites.Config{Side: scenarios.ServerSide, Env: scenarios.Env{Version: protocol.V20251125, Transport: transport.WS}}
		applicable := cfg.Applicable()
		Expect(applicable).NotTo(BeEmpty())
		Expect(applicable[len(applicable)-1].ID).To(Equal("wire-schema"))
	})

	DescribeTable("fails wire-schema on an invalid message that another scenario's session received",
		func(ctx SpecContext, tr transport.Kind) {
			ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{Variant: server.StatusNotificationNoTTL}, exe)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ref.Stop)
			env := func(ledger *scenarios.WireLedger) scenarios.Env {
				return scenarios.Env{Target: ref.Target, Version: protocol.V20251125, Transport: tr, Gate: &scenarios.Gate{}, Wire: ledger,
					Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second}}
			}
			wire := scenario("wire-schema")

			By("wire-schema alone: its own traffic has no cancellation, so nothing is wrong")
			alone := scenarios.Execute(ctx, wire, env(&scenarios.WireLedger{}))
			Expect(alone.Verdicts).To(HaveLen(1))
			Expect(alone.Verdicts[0].Outcome).To(Equal(scenarios.Pass), alone.Verdicts[0].Message)

			By("a scenario that cancels a task: it judges nothing of the notification's schema and passes")
			ledger := &scenarios.WireLedger{}
			cancel := scenarios.Execute(ctx, scenario("tasks-cancel-during-elicitation"), env(ledger))
			for _, v := range cancel.Verdicts {
				Expect(v.Outcome).NotTo(Equal(scenarios.Fail), "%s: %s", v.Check.ID, v.Message)
			}
			Expect(ledger.All()).To(ContainElement(SatisfyAll(
				HaveField("Scenario", "tasks-cancel-during-elicitation"),
				HaveField("What", "notification "+protocol.NotificationTasksStatus),
				HaveField("Err", ContainSubstring("$.params.ttl: required property is missing")),
				HaveField("Raw", ContainSubstring(`"status":"cancelled"`)),
			)))

			By("wire-schema after it, sharing the ledger: fails, naming the scenario, the message and the path")
			res := scenarios.Execute(ctx, wire, env(ledger))
			Expect(res.Verdicts).To(HaveLen(1))
			v := res.Verdicts[0]
			Expect(v.Check.ID).To(Equal("wire-schema/messages-valid"))
			Expect(v.Outcome).To(Equal(scenarios.Fail))
			Expect(v.Message).To(ContainSubstring("in tasks-cancel-during-elicitation: the notification notifications/tasks/status is invalid: $.params.ttl: required property is missing"))
		},
		func(tr transport.Kind) string { return string(tr) },
		Entry(nil, transport.Stdio), Entry(nil, transport.HTTP), Entry(nil, transport.WS),
	)
})
