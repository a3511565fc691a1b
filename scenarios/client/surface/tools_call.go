package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The official tools_call: list the tools, call add_numbers with numbers.
const addNumbersTool = fixtures.ClientAddNumbers

var (
	toolsCallRequestValid = &scenarios.Check{ID: "client-tools-call/request-valid", Level: scenarios.Must,
		Spec:  "2025-11-25/basic/index.mdx#schema",
		Title: "the tools/call request validates against CallToolRequest of the version in use (name a string, arguments an object)",
		Quote: "The full specification of the protocol is defined as a TypeScript schema. " +
			"This is the source of truth for all protocol messages and structures.",
		Faults: []*fault.Fault{client.ToolCallArgumentsNotObject}}
	// Inferred, hence a SHOULD: the page describes inputSchema as the
	// parameters the tool expects and gives no keyword for the caller.
	toolsCallArgumentsMatch = &scenarios.Check{ID: "client-tools-call/arguments-match-schema", Level: scenarios.Should,
		Spec:   "2025-11-25/server/tools.mdx#tool",
		Title:  "the arguments of add_numbers match its inputSchema: a and b are numbers",
		Quote:  "inputSchema: JSON Schema defining expected parameters",
		Faults: []*fault.Fault{client.ToolCallArgumentsText}}
)

var toolsCallScenario = &scenarios.Scenario{
	ID:       "client-tools-call",
	Official: "tools_call",
	Title:    "the client lists the tools and calls add_numbers with the arguments its inputSchema asks for",
	Family:   family,
	Side:     scenarios.ClientSide,
	// The official suite scores tools_call at 2026-07-28 too.
	Versions: append(append([]string(nil), stateful...), protocol.V20260728),
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientAddNumbers, "the client calls it with numbers a and b")},
	Purpose: "The fake server offers the official scenario's one tool, add_numbers(a, b), whose inputSchema asks for two numbers, " +
		"and answers with their sum.",
	Checks: []*scenarios.Check{toolsCallRequestValid, toolsCallArgumentsMatch},
	Run: clientside.Body(func(t *clientside.T) {
		t.Serve(clientside.Script{Tools: []clientside.Tool{{
			Name:        addNumbersTool,
			Description: "Adds two numbers",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"a": map[string]any{"type": "number", "description": "First number"},
					"b": map[string]any{"type": "number", "description": "Second number"},
				},
				"required": []any{"a", "b"},
			},
			Call: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				a, b := number(clientside.ReadCall(req).Arguments["a"]), number(clientside.ReadCall(req).Arguments["b"])
				return textResult(fmt.Sprintf("The sum of %v and %v is %v.", a, b, a+b)), nil
			},
		}}})
		t.Step("wait for the client to call %s", addNumbersTool)
		out := t.Settle(func(r []clientside.Received) bool { return len(clientside.ToolCalls(r, addNumbersTool)) > 0 })
		calls := clientside.ToolCalls(t.Log().Entries(), addNumbersTool)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+addNumbersTool, out)
		}
		req := calls[0].Msg
		if err := protocol.ValidateParams(t.Env.Version, protocol.MethodToolsCall, req.Params); err != nil {
			t.Fail(toolsCallRequestValid, "tools/call params valid at "+t.Env.Version, err.Error())
			t.NotJudged(toolsCallArgumentsMatch, "the request itself is invalid (client-tools-call/request-valid)")
			return
		}
		t.Pass(toolsCallRequestValid)
		var args map[string]json.RawMessage
		_ = json.Unmarshal(clientside.ReadCall(req).Params["arguments"], &args)
		var wrong []string
		for _, name := range []string{"a", "b"} {
			raw, ok := args[name]
			var n float64
			switch {
			case !ok:
				wrong = append(wrong, name+" missing")
			case json.Unmarshal(raw, &n) != nil:
				wrong = append(wrong, fmt.Sprintf("%s = %s, not a number", name, raw))
			}
		}
		t.Judge(toolsCallArgumentsMatch, len(wrong) == 0, "arguments a and b, both numbers", strings.Join(wrong, "; "))
	}),
}

func number(v any) float64 {
	f, _ := v.(float64)
	return f
}
