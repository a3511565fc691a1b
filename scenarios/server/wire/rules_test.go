package wire

import (
	"context"
	"fmt"
	"strings"
	"time"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = g.Describe("wire-rules' account of the breaches", func() {
	breach := func(scenario, what string, raw string) scenarios.WireBreach {
		return scenarios.WireBreach{Scenario: scenario, Rule: "jsonrpc-only", What: what, Raw: []byte(raw)}
	}

	g.It("names the scenario and what was seen, and shows the start of the frame with bad bytes escaped", func() {
		text := Describe([]scenarios.WireBreach{breach("lifecycle-ping", "a line on stdout that is not JSON", "Server starting\xff\x1b[0m")}, 1)
		Expect(text).To(Equal("1 breach(es)\n- in lifecycle-ping: a line on stdout that is not JSON\n  Server starting\\xff\\x1b[0m"))
	})

	g.It("counts repeats, the ones only tallied too, and stays bounded", func() {
		all := []scenarios.WireBreach{breach("a", "same", "x"), breach("b", "same", "x")}
		all[1].Also = 40
		for i := range 10 {
			all = append(all, breach("c", fmt.Sprintf("other %d", i), strings.Repeat("z", 5000)))
		}
		text := Describe(all, 52)
		Expect(text).To(HavePrefix("52 breach(es)\n- in a: same (seen 42 times, in 2 scenarios)\n  x\n"))
		Expect(strings.Count(text, "\n- in ")).To(Equal(shown))
		Expect(text).To(HaveSuffix("\nand 8 more kind(s) of breach"))
		Expect(text).To(ContainSubstring(strings.Repeat("z", rawShown) + "…"))
		Expect(text).NotTo(ContainSubstring(strings.Repeat("z", rawShown+1)))
		Expect(len(text)).To(BeNumerically("<", 800))
	})
})

var _ = g.Describe("wire-rules against the reference", func() {
	run := func(ctx context.Context, kind transport.Kind, ledger *scenarios.WireLedger) *scenarios.Result {
		g.GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{})
		Expect(err).NotTo(HaveOccurred())
		sctx, cancel := context.WithCancel(context.Background())
		l, err := kind.Listen(ctx, "127.0.0.1:0", transport.Options{})
		Expect(err).NotTo(HaveOccurred())
		done := make(chan struct{})
		go func() { defer close(done); _ = e.Serve(sctx, l) }()
		g.DeferCleanup(func() { cancel(); _ = l.Close(); <-done })
		env := scenarios.Env{Target: client.Target{Kind: kind, URL: l.Addr()}, Version: protocol.V20251125, Transport: kind,
			Gate: &scenarios.Gate{}, Wire: ledger, Profiles: []string{WebSocketProfile},
			Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second}}
		return scenarios.Execute(ctx, rulesScenario, env)
	}
	verdict := func(res *scenarios.Result, c *scenarios.Check) scenarios.Verdict {
		for _, v := range res.Verdicts {
			if v.Check.ID == c.ID {
				return v
			}
		}
		g.Fail("no verdict for " + c.ID)
		return scenarios.Verdict{}
	}

	g.It("passes what applies on the transport and skips the rules of other transports, saying why", func(ctx g.SpecContext) {
		res := run(ctx, transport.WS, &scenarios.WireLedger{})
		for _, c := range []*scenarios.Check{rulesJSONRPCOnly, rulesUTF8, rulesJSONRPCVersion, rulesRequestID,
			rulesNegotiatedCapabilities, rulesWSTextFrames, rulesWSSubprotocol} {
			Expect(verdict(res, c).Outcome).To(Equal(scenarios.Pass), "%s: %s", c.ID, verdict(res, c).Message)
		}
		v := verdict(res, rulesContentType)
		Expect(v.Outcome).To(Equal(scenarios.Skip))
		Expect(v.Message).To(Equal("a rule of the http transport; this run is over ws"))

		res = run(ctx, transport.HTTP, &scenarios.WireLedger{})
		Expect(verdict(res, rulesContentType).Outcome).To(Equal(scenarios.Pass))
		Expect(verdict(res, rulesWSTextFrames).Outcome).To(Equal(scenarios.Skip))
	})

	g.It("fails a rule on a breach that only another scenario's session saw, naming that scenario", func(ctx g.SpecContext) {
		ledger := &scenarios.WireLedger{}
		ledger.AddBreach(scenarios.WireBreach{Scenario: "lifecycle-ping", Rule: string(client.RuleRequestID),
			What: "the request ping has id null", Raw: []byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), Also: 2})
		res := run(ctx, transport.WS, ledger)
		v := verdict(res, rulesRequestID)
		Expect(v.Outcome).To(Equal(scenarios.Fail))
		Expect(v.Message).To(ContainSubstring("3 breach(es)\n- in lifecycle-ping: the request ping has id null (seen 3 times)\n  {\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}"))
		Expect(verdict(res, rulesUTF8).Outcome).To(Equal(scenarios.Pass), "a breach fails its own rule only")
	})
})

var _ = g.Describe("the wire ledger's breaches", func() {
	g.It("keeps the first of each rule and counts every one", func() {
		l := &scenarios.WireLedger{}
		for i := range scenarios.WireBreachKeep + 5 {
			l.AddBreach(scenarios.WireBreach{Scenario: fmt.Sprint(i), Rule: "utf8", Also: 1})
		}
		kept, total := l.Breaches("utf8")
		Expect(kept).To(HaveLen(scenarios.WireBreachKeep))
		Expect(kept[0].Scenario).To(Equal("0"))
		Expect(total).To(Equal(2 * (scenarios.WireBreachKeep + 5)))
		kept, total = l.Breaches("request-id")
		Expect(kept).To(BeEmpty())
		Expect(total).To(BeZero())
	})
})
