// Package lifecycle holds the client-side lifecycle family: what a client
// under test must do to open a session (scenarios.md, client surface).
package lifecycle

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/scenarios/judge"
)

const lifecycleSpec = "2025-11-25/basic/lifecycle.mdx"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{initializeScenario, negotiatedVersionScenario}
}

var (
	initializeFirst = &scenarios.Check{ID: "client-initialize/initialize-first", Level: scenarios.Must, Spec: lifecycleSpec + "#initialization",
		Title:     "the first message the client sends is the initialize request",
		Quote:     "The initialization phase MUST be the first interaction between client and server.",
		Faults:    []*fault.Fault{client.RequestBeforeInitialize},
		Liberties: []*fault.Fault{client.ProbesDiscoverFirst}}
	initializeParamsValid = &scenarios.Check{ID: "client-initialize/params-valid", Level: scenarios.Must, Spec: lifecycleSpec + "#initialization",
		Title:  "the initialize params validate against InitializeRequest: protocolVersion, capabilities and clientInfo",
		Quote:  "The client MUST initiate this phase by sending an initialize request containing:",
		Faults: []*fault.Fault{client.InitNoClientInfo}}
	initializeKnownVersion = &scenarios.Check{ID: "client-initialize/known-version", Level: scenarios.Must, Spec: lifecycleSpec + "#version-negotiation",
		Title:  "the requested protocolVersion is an MCP revision; any revision passes",
		Quote:  "In the initialize request, the client MUST send a protocol version it supports.",
		Faults: []*fault.Fault{client.InitUnsupportedVersion}}
	initializeInitializedSent = &scenarios.Check{ID: "client-initialize/initialized-sent", Level: scenarios.Must, Spec: lifecycleSpec + "#initialization",
		Title:  "after the initialize response the client sends notifications/initialized",
		Quote:  "After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations",
		Faults: []*fault.Fault{client.SkipsInitialized}}
)

var initializeScenario = &scenarios.Scenario{
	ID:       "client-initialize",
	Official: "initialize",
	Title:    "the client opens a session with initialize, then notifications/initialized",
	Family:   "lifecycle",
	Side:     scenarios.ClientSide,
	Versions: protocol.JudgedStateful(),
	Purpose: "The fake server, a server of the judged version only, logs what the client sends, answers initialize with that " +
		"version and waits for notifications/initialized. A server/discover probe before initialize (a dual-era client's) is allowed.",
	Checks: []*scenarios.Check{initializeFirst, initializeParamsValid, initializeKnownVersion, initializeInitializedSent},
	Run: clientside.Body(func(t *clientside.T) {
		t.Serve(clientside.Script{})
		t.Step("wait for the client's initialize request and notifications/initialized")
		out := t.Settle(func(r []clientside.Received) bool { return initializedAt(r) >= 0 })
		entries := t.Log().Entries()
		// A dual-era client MAY probe with a 2026-07-28 request first and
		// fall back to initialize when it is refused (2026-07-28
		// streamable-http.mdx, Backward Compatibility); the probe is not
		// the interaction the rule is about.
		var first *clientside.Received
		for i := range entries {
			if entries[i].Msg.Method != protocol.MethodServerDiscover {
				first = &entries[i]
				break
			}
		}
		if first == nil {
			t.Missed("an initialize request", out)
		}
		t.Judge(initializeFirst, first.Msg.IsRequest() && first.Msg.Method == protocol.MethodInitialize,
			"an initialize request", describeMessage(first.Msg))

		inits := clientside.Requests(entries, protocol.MethodInitialize, "")
		if len(inits) == 0 {
			t.Blocked("the client sent no initialize request")
		}
		req := inits[0].Msg
		if verr := protocol.ValidateParams(protocol.SchemaFor(t.Env.Version), protocol.MethodInitialize, req.Params); verr != nil {
			t.Fail(initializeParamsValid, "params valid against InitializeRequest", verr.Error())
		} else {
			t.Pass(initializeParamsValid)
		}
		requested := judge.StringField(req.Params, "protocolVersion")
		t.Judge(initializeKnownVersion, protocol.IsKnown(requested),
			"one of the MCP revisions "+fmt.Sprint(protocol.Supported()), fmt.Sprintf("protocolVersion %q", requested))
		t.Judge(initializeInitializedSent, initializedAt(entries) >= 0, "notifications/initialized after the initialize response",
			"none: "+t.DescribeEnd(out))
	}),
}

// initializedAt is the index of the first notifications/initialized that
// follows an initialize request, or -1.
func initializedAt(entries []clientside.Received) int {
	seenInit := false
	for i, r := range entries {
		switch {
		case r.Msg.IsRequest() && r.Msg.Method == protocol.MethodInitialize:
			seenInit = true
		case seenInit && r.Msg.Kind() == jsonrpc.KindNotification && r.Msg.Method == protocol.NotificationInitialized:
			return i
		}
	}
	return -1
}

// describeMessage names what the client sent, compactly.
func describeMessage(m *jsonrpc.Message) string {
	params, _ := json.Marshal(m.Params)
	return fmt.Sprintf("%s %s %s", m.Kind(), m.Method, judge.Abbreviate(string(params), 200))
}
