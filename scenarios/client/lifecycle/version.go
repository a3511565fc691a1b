package lifecycle

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

var negotiatedVersion = &scenarios.Check{ID: "client-negotiated-version/nothing-newer", Level: scenarios.Must, Spec: lifecycleSpec + "#operation",
	Title: "after its handshake the client sends nothing that only a version newer than the negotiated one has: no method, " +
		"and no params field (a task augmentation, a 2026-07-28 _meta key) that the negotiated version's schema lacks and a newer one's has",
	Quote:  "Respect the negotiated protocol version",
	Faults: []*fault.Fault{client.NewerMetaAfterNegotiation, client.TaskAugmentedAtOlderVersion}}

// olderThanNewest are the judged stateful versions some judged version is
// newer than: where a client can use something of a newer version.
var olderThanNewest = protocol.Where(func(v protocol.Version) bool {
	return v.Judged && v.Era == protocol.Stateful && len(protocol.Where(func(n protocol.Version) bool { return n.Judged && n.Name > v.Name })) > 0
})

var negotiatedVersionScenario = &scenarios.Scenario{
	ID:       "client-negotiated-version",
	Title:    "what the client sends, in every scenario, after a handshake at an older version, has nothing of a newer version",
	Family:   "lifecycle",
	Side:     scenarios.ClientSide,
	Versions: olderThanNewest,
	// Last on each transport and version: it judges what the fake server
	// of every other scenario saw, which the driver adds to the ledger.
	Last: true,
	Purpose: "In every scenario the fake server, which speaks the judged version only, looks at each request and notification " +
		"the client sends after its initialize request and adds to a ledger what the negotiated version's schema lacks and a " +
		"newer version's has: the method, or a params field, read from the generated schemas of every version. This scenario " +
		"runs last: it has the client open a session itself (told the scenario initialize), then judges its traffic with the ledger.",
	Checks: []*scenarios.Check{negotiatedVersion},
	Run: clientside.Body(func(t *clientside.T) {
		t.Serve(clientside.Script{Tell: "initialize"})
		t.Step("wait for the client's initialize request and notifications/initialized")
		out := t.Settle(func(r []clientside.Received) bool { return initializedAt(r) >= 0 })
		if initializedAt(t.Log().Entries()) < 0 {
			t.Missed("notifications/initialized", out)
		}
		kept, total := t.Env.Wire.Breaches(clientside.RuleNegotiatedVersion)
		t.Step("%d message(s) with something of a newer version in every scenario so far", total)
		if total == 0 {
			t.Pass(negotiatedVersion)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d message(s)", total)
		for i, k := range kept {
			if i == 3 {
				fmt.Fprintf(&b, "\nand %d more", total-i)
				break
			}
			fmt.Fprintf(&b, "\n- in %s: %s", k.Scenario, k.What)
		}
		t.Fail(negotiatedVersion, "nothing of a version newer than "+t.Env.Version+" after the handshake, in every scenario", b.String())
	}),
}
