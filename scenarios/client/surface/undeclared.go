package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// A server that breaks its own rule on purpose: it asks the client for
// what the client did not declare. A client that answers with a result
// supports the feature without declaring it, which each feature's page
// forbids; an error (any code; roots.mdx suggests -32601) or silence is
// what a client without the feature does. A URL-mode elicitation to a
// client that declared form mode only must get -32602.

var (
	undeclaredSampling = &scenarios.Check{ID: "client-undeclared/sampling-refused", Level: scenarios.Must,
		Spec:      "2025-11-25/client/sampling.mdx#capabilities",
		Title:     "a client that declared no sampling capability does not answer sampling/createMessage with a result",
		Quote:     "Clients that support sampling MUST declare the sampling capability during initialization",
		Faults:    []*fault.Fault{client.AnswersUndeclaredSampling},
		Liberties: []*fault.Fault{client.DeclaresNoClientFeatures}}
	undeclaredRoots = &scenarios.Check{ID: "client-undeclared/roots-refused", Level: scenarios.Must,
		Spec:      "2025-11-25/client/roots.mdx#capabilities",
		Title:     "a client that declared no roots capability does not answer roots/list with a result",
		Quote:     "Clients that support roots MUST declare the roots capability during initialization",
		Faults:    []*fault.Fault{client.AnswersUndeclaredRoots},
		Liberties: []*fault.Fault{client.DeclaresNoClientFeatures}}
	undeclaredElicitation = &scenarios.Check{ID: "client-undeclared/elicitation-refused", Level: scenarios.Must,
		Spec:      "2025-11-25/client/elicitation.mdx#capabilities",
		Title:     "a client that declared no elicitation capability does not answer elicitation/create with a result (from 2025-06-18)",
		Quote:     "Clients that support elicitation MUST declare the elicitation capability during initialization",
		Faults:    []*fault.Fault{client.AnswersUndeclaredElicitation},
		Liberties: []*fault.Fault{client.DeclaresNoClientFeatures}}
	undeclaredSamplingTools = &scenarios.Check{ID: "client-undeclared/sampling-tools-unused", Level: scenarios.Must,
		Spec: "2025-11-25/client/sampling.mdx#tools-in-sampling",
		Title: "a client that declared sampling without tools does not use the tools of a tool-enabled sampling/createMessage " +
			"(no tool_use content, no stopReason toolUse)",
		Quote:  "Clients MUST declare support for tool use via the sampling.tools capability to receive tool-enabled sampling requests.",
		Faults: []*fault.Fault{client.SamplingToolUseUndeclared}}
	undeclaredURLMode = &scenarios.Check{ID: "client-undeclared/url-mode-refused", Level: scenarios.Must,
		Spec:      "2025-11-25/client/elicitation.mdx#error-handling",
		Title:     "a client that declared elicitation without url mode answers a URL-mode elicitation/create with -32602",
		Quote:     "Server sends an elicitation/create request with a mode not declared in client capabilities: -32602 (Invalid params)",
		Faults:    []*fault.Fault{client.AcceptsUndeclaredURLMode},
		Liberties: []*fault.Fault{client.ElicitationFormOnly}}
)

var undeclaredScenario = &scenarios.Scenario{
	ID:       "client-undeclared",
	Title:    "asked for a feature (or an elicitation mode) it did not declare, the client refuses instead of answering",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: stateful,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientUndeclaredRequests, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say")},
	Purpose: "The fake server's " + fixtures.ClientUndeclaredRequests + " sends, on its call's stream, sampling/createMessage, roots/list and " +
		"elicitation/create for each of those capabilities the client left out, and a URL-mode elicitation when the client " +
		"declared elicitation without url. A check whose capability the client declared is skipped.",
	Checks: []*scenarios.Check{undeclaredSampling, undeclaredRoots, undeclaredElicitation, undeclaredSamplingTools, undeclaredURLMode},
	Run: clientside.Body(func(t *clientside.T) {
		a := newAsker(t)
		hasElicitation := slices.Contains(withElicitation, t.Env.Version)
		hasModes := slices.Contains(withModes, t.Env.Version)
		form := map[string]any{"message": "Your name?", "requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}
		if hasModes {
			form["mode"] = "form"
		}
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{{Name: fixtures.ClientUndeclaredRequests, Description: "Asks the client for what it did not declare",
				Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					defer a.finish()
					caps := declared(t)
					if _, ok := caps["sampling"]; !ok {
						a.ask(ctx, p, req, "sampling", protocol.MethodSamplingCreateMessage, map[string]any{
							"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Say hello"}}},
							"maxTokens": 50,
						})
					}
					if _, ok := caps["sampling"]; ok && hasModes && !declaresSamplingTools(caps) {
						a.ask(ctx, p, req, "sampling-tools", protocol.MethodSamplingCreateMessage, map[string]any{
							"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "What is the weather in Paris?"}}},
							"maxTokens": 50,
							"tools": []any{map[string]any{"name": "get_weather", "description": "Get the current weather in a city",
								"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
									"required": []any{"city"}}}},
						})
					}
					if _, ok := caps["roots"]; !ok {
						a.ask(ctx, p, req, "roots", protocol.MethodRootsList, map[string]any{})
					}
					_, elicits := caps["elicitation"]
					if !elicits && hasElicitation {
						a.ask(ctx, p, req, "elicitation", protocol.MethodElicitationCreate, form)
					}
					if elicits && hasModes && !declaresURLMode(caps) {
						a.ask(ctx, p, req, "url", protocol.MethodElicitationCreate, map[string]any{
							"mode": "url", "message": "Please verify your account", "url": "https://example.com/verify",
							"elicitationId": "mcpconform-url-1",
						})
					}
					return textResult("done"), nil
				}}},
			Context: toolCalls(fixtures.ClientUndeclaredRequests),
		})
		t.Step("wait for the client to call %s and answer (or refuse) what it is asked", fixtures.ClientUndeclaredRequests)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientUndeclaredRequests)) > 0
		})
		if len(clientside.ToolCalls(t.Log().Entries(), fixtures.ClientUndeclaredRequests)) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientUndeclaredRequests, out)
		}
		a.wait()
		refused := func(c *scenarios.Check, key, capability, method string) {
			x := a.get(key)
			switch {
			case x == nil:
				t.Skip(c, "the client declares the "+capability+" capability: nothing undeclared to ask")
			case x.err != nil:
				t.PassWith(c, "the client did not answer "+method+" ("+x.err.Error()+")")
			case x.resp.Error != nil:
				t.PassWith(c, fmt.Sprintf("refused with error %d", x.resp.Error.Code))
			default:
				t.Fail(c, "an error for "+method+": the "+capability+" capability was not declared", x.describe())
			}
		}
		refused(undeclaredSampling, "sampling", "sampling", protocol.MethodSamplingCreateMessage)
		refused(undeclaredRoots, "roots", "roots", protocol.MethodRootsList)
		if hasElicitation {
			refused(undeclaredElicitation, "elicitation", "elicitation", protocol.MethodElicitationCreate)
		} else {
			t.Skip(undeclaredElicitation, t.Env.Version+" has no elicitation")
		}
		switch x := a.get("sampling-tools"); {
		case !hasModes:
			t.Skip(undeclaredSamplingTools, t.Env.Version+" has no tools in sampling")
		case x == nil:
			t.Skip(undeclaredSamplingTools, "the client declares no sampling, or declares sampling.tools")
		case x.err != nil || x.resp.Error != nil:
			t.PassWith(undeclaredSamplingTools, "the client did not answer the tool-enabled request with a result ("+x.describe()+")")
		default:
			used := usesTools(x.resp.Result)
			t.Judge(undeclaredSamplingTools, used == "", "a result without tool use (sampling.tools was not declared)", used+"; "+x.describe())
		}
		switch x := a.get("url"); {
		case !hasModes:
			t.Skip(undeclaredURLMode, t.Env.Version+" has no elicitation modes")
		case x == nil:
			t.Skip(undeclaredURLMode, "the client declares no elicitation, or declares url mode")
		default:
			t.Judge(undeclaredURLMode, x.err == nil && x.resp.Error != nil && x.resp.Error.Code == codes.InvalidParams,
				fmt.Sprintf("error %d (Invalid params) for a URL-mode elicitation/create", codes.InvalidParams), x.describe())
		}
	}),
}

// declaresSamplingTools reports whether the sampling capability names tools.
func declaresSamplingTools(caps map[string]json.RawMessage) bool {
	var sampling map[string]json.RawMessage
	if json.Unmarshal(caps["sampling"], &sampling) != nil {
		return false
	}
	_, ok := sampling["tools"]
	return ok
}

// usesTools says how a CreateMessageResult uses tools ("" when it does
// not): stopReason toolUse, or tool_use content (one block or an array).
func usesTools(result json.RawMessage) string {
	var r protocol.CreateMessageResult
	_ = json.Unmarshal(result, &r)
	var blocks []protocol.Content
	if json.Unmarshal(r.Content, &blocks) != nil {
		var one protocol.Content
		_ = json.Unmarshal(r.Content, &one)
		blocks = append(blocks, one)
	}
	for _, b := range blocks {
		if b.Type == "tool_use" {
			return "tool_use content"
		}
	}
	if r.StopReason == "toolUse" {
		return "stopReason toolUse"
	}
	return ""
}
