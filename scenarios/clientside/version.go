package clientside

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
)

// RuleNegotiatedVersion is the ledger's rule for what a client sent, after
// its handshake, that only a version newer than the negotiated one has
// (2025-11-25/basic/lifecycle.mdx#operation: "Respect the negotiated
// protocol version"); the client wire scenario judges it last.
const RuleNegotiatedVersion = "client-negotiated-version"

// initializeSeen is the peer key set once the connection's client sent
// initialize: what it sent before (a dual-era client's 2026-07-28 probe)
// is the negotiation itself, not a use of a version.
const initializeSeen = "clientside.initialize-seen"

// judgeVersion records, into the run's ledger, a method or params field
// of a newer version than the fake server's in a request or notification
// the client sent after its initialize request on that connection. The
// fake server speaks the scenario's version only, so that is the version
// a client that goes on has negotiated.
func (t *T) judgeVersion(p *server.Peer, msg *jsonrpc.Message) {
	if !msg.IsRequest() && !msg.IsNotification() {
		return
	}
	if msg.Method == protocol.MethodInitialize {
		p.Set(initializeSeen, true)
		return
	}
	if seen, _ := p.Get(initializeSeen).(bool); !seen {
		return
	}
	version := t.Env.Version
	var newer []string
	if since := protocol.NewerThan(version, msg.Method); since != "" {
		newer = append(newer, fmt.Sprintf("the method itself (%s)", since))
	} else {
		for _, f := range protocol.NewerParams(version, msg.Method, msg.Params) {
			newer = append(newer, fmt.Sprintf("params.%s (%s)", f.Path, f.Since))
		}
	}
	if len(newer) == 0 {
		return
	}
	raw, _ := msg.Encode()
	t.Env.Wire.AddBreach(scenarios.WireBreach{Scenario: t.Scenario().ID, Rule: RuleNegotiatedVersion, Raw: raw,
		What: fmt.Sprintf("%s %s at %s carries what only a newer version has: %s", msg.Kind(), msg.Method, version, strings.Join(newer, ", "))})
}
