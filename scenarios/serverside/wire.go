package serverside

import (
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/scenarios"
)

// Breaches are the wire-rule breaches a session saw (the handshake and what
// came before it included), as the ledger keeps them, under the id of the
// scenario that ran it.
func Breaches(scenario string, s *client.Session) []scenarios.WireBreach {
	var out []scenarios.WireBreach
	for _, b := range s.WireBreaches() {
		out = append(out, scenarios.WireBreach{Scenario: scenario, Rule: string(b.Rule), What: b.What, Raw: b.Raw, Also: b.Also})
	}
	return out
}
