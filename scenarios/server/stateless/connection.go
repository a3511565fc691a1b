package stateless

import (
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// No state from earlier requests on a connection (basic/index.mdx#statelessness):
// what a request declares is all the server may rely on. The official
// sep-2575 list excludes the sentence as unobservable and names this, a
// request refused for what it left out, as its observable consequence.

var connectionCapabilities = &scenarios.Check{ID: "stateless-connection-state/capabilities-per-request", Level: scenarios.Must,
	Spec: "2026-07-28/basic/index.mdx#statelessness",
	Quote: "Servers **MUST NOT** rely on prior requests over the same connection to establish context (e.g., capabilities, " +
		"protocol version, client identity).",
	Title: "on one connection, after a call of test_missing_capability that declared sampling, a call that declares no " +
		"capabilities is still refused with -32021",
	Faults: []*fault.Fault{server.RemembersCapabilities}}

var connectionStateScenario = &scenarios.Scenario{
	ID:       "stateless-connection-state",
	Title:    "capabilities are read from each request, not from the connection",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.MissingCapability, "needs the client's sampling capability")},
	Purpose: "On one connection (one process over stdio, one WebSocket; over HTTP each POST is its own): " +
		"test_missing_capability declaring no capabilities (it must be refused, -32021, or nothing is judged: " +
		"lifecycle-missing-capability judges that), then declaring sampling, then declaring none again: refused as the first.",
	Checks: []*scenarios.Check{connectionCapabilities},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{Capabilities: map[string]any{}})
		tool := t.RequireTool(s, fixtures.MissingCapability, nil).Tool
		call := func(n string, caps map[string]any) (*jsonrpc.Message, error) {
			resp, err := t.Do(s, client.Call{ID: jsonrpc.StringID("mcpconform-connection-" + n), Method: protocol.MethodToolsCall,
				Params: map[string]any{"name": tool, "arguments": map[string]any{}},
				Meta:   map[string]any{protocol.MetaClientCapabilities: caps}})
			skipIfVersionRefused(t, resp, err)
			return resp, err
		}
		t.Step("call %s declaring no capabilities", tool)
		if resp, err := call("1", map[string]any{}); err != nil || !judge.IsErrorCode(resp, codes.MissingRequiredClientCapability) {
			t.NotJudgedRest("the first call without sampling was not refused with -32021 (" + judge.Describe(resp, err) +
				"); lifecycle-missing-capability judges that")
		}
		t.Step("call %s declaring sampling", tool)
		first, ferr := call("2", map[string]any{"sampling": map[string]any{}})
		t.Step("call %s declaring no capabilities again", tool)
		resp, err := call("3", map[string]any{})
		t.Judge(connectionCapabilities, err == nil && judge.IsErrorCode(resp, codes.MissingRequiredClientCapability),
			"error -32021, as for the first call", judge.Describe(resp, err)+" (the call declaring sampling answered "+judge.Describe(first, ferr)+")")
	}),
}
