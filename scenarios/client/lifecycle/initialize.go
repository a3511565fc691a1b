// Package lifecycle holds the client-side lifecycle family: what a client
// under test must do to open a session (scenarios.md, client surface).
package lifecycle

import (
	"encoding/json"
	"fmt"
	"slices"

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
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{initializeScenario} }

var (
	initializeFirst = &scenarios.Check{ID: "client-initialize/initialize-first", Level: scenarios.Must, Spec: lifecycleSpec + "#initialization",
		Title:  "the first message the client sends is the initialize request",
		Quote:  "The initialization phase MUST be the first interaction between client and server.",
		Faults: []*fault.Fault{client.RequestBeforeInitialize}}
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
	Purpose: "The fake server holds the client's first request, judges it as the initialize request, answers with the " +
		"requested version (or its own newest when it does not know it) and waits for notifications/initialized.",
	Checks: []*scenarios.Check{initializeFirst, initializeParamsValid, initializeKnownVersion, initializeInitializedSent},
	Run: clientside.Body(func(t *clientside.T) {
		t.Launch(protocol.MethodInitialize)
		c := t.Accept()
		t.Step("wait for the client's first message")
		first, err := t.Next(c, 0, nil)
		if err != nil {
			t.Fail(initializeFirst, "an initialize request", "nothing: "+err.Error())
			t.Blocked("the client sent nothing")
		}
		t.Judge(initializeFirst, first.IsRequest() && first.Method == protocol.MethodInitialize,
			"an initialize request", describeMessage(first))

		t.Step("hold the initialize request and judge its params")
		wait, cancel := t.Wait()
		held, err := c.Held(protocol.MethodInitialize).Next(wait)
		cancel()
		if err != nil {
			t.Blocked("the client sent no initialize request: %v", err)
		}
		req := held.Request
		if verr := protocol.ValidateParams(protocol.SchemaFor(t.Env.Version), protocol.MethodInitialize, req.Params); verr != nil {
			t.Fail(initializeParamsValid, "params valid against InitializeRequest", verr.Error())
		} else {
			t.Pass(initializeParamsValid)
		}
		requested := judge.StringField(req.Params, "protocolVersion")
		t.Judge(initializeKnownVersion, protocol.IsKnown(requested),
			"one of the MCP revisions "+fmt.Sprint(protocol.Supported()), fmt.Sprintf("protocolVersion %q", requested))

		answer := requested
		if !slices.Contains(protocol.JudgedStateful(), answer) {
			answer = t.Env.Version
		}
		mark := c.Inbox().Mark()
		t.Step("answer initialize with protocolVersion %s, then wait for notifications/initialized", answer)
		held.Answer(map[string]any{
			"protocolVersion": answer,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mcpconform-fake-server", "version": "0.1.0"},
		})
		_, err = t.Next(c, mark, func(m *jsonrpc.Message) bool {
			return m.Kind() == jsonrpc.KindNotification && m.Method == protocol.NotificationInitialized
		})
		t.Judge(initializeInitializedSent, err == nil, "notifications/initialized after the initialize response",
			"none within the response timeout")
		t.Finish()
	}),
}

// describeMessage names what the client sent, compactly.
func describeMessage(m *jsonrpc.Message) string {
	params, _ := json.Marshal(m.Params)
	return fmt.Sprintf("%s %s %s", m.Kind(), m.Method, judge.Abbreviate(string(params), 200))
}
