package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// What the client answers when the server asks, from inside a tool call,
// for its roots, a sampling and a form: each answer it gives (a refusal is
// its right) must be one the schema allows, roots file:// URIs, and the
// form's content what the requestedSchema asks for.

var (
	answersSamplingValid = &scenarios.Check{ID: "client-answers/sampling-valid", Level: scenarios.Must,
		Spec:  "2025-11-25/basic/index.mdx#schema",
		Title: "the result of sampling/createMessage validates against CreateMessageResult of the version in use",
		Quote: "The full specification of the protocol is defined as a TypeScript schema. " +
			"This is the source of truth for all protocol messages and structures.",
		Faults: []*fault.Fault{client.SamplingInvalidResult}}
	answersRootsValid = &scenarios.Check{ID: "client-answers/roots-valid", Level: scenarios.Must,
		Spec:  "2025-11-25/basic/index.mdx#schema",
		Title: "the result of roots/list validates against ListRootsResult of the version in use",
		Quote: "The full specification of the protocol is defined as a TypeScript schema. " +
			"This is the source of truth for all protocol messages and structures.",
		Faults: []*fault.Fault{client.RootsInvalidResult}}
	answersRootsFileURI = &scenarios.Check{ID: "client-answers/roots-file-uri", Level: scenarios.Must,
		Spec:   "2025-11-25/client/roots.mdx#root",
		Title:  "every root the client lists has a file:// URI",
		Quote:  "This MUST be a file:// URI in the current specification.",
		Faults: []*fault.Fault{client.RootsNotFileURI}}
	answersElicitationValid = &scenarios.Check{ID: "client-answers/elicitation-valid", Level: scenarios.Should,
		Spec:   "2025-11-25/client/elicitation.mdx#form-mode-security",
		Title:  "an accepted form's content validates against the requestedSchema: required fields present, types and enum kept",
		Quote:  "Clients SHOULD validate all responses against the provided schema",
		Faults: []*fault.Fault{client.ElicitationOffSchema}}
)

var answersModelessForm = &scenarios.Check{ID: "client-answers/modeless-form", Level: scenarios.Must,
	Spec:   "2025-11-25/client/elicitation.mdx#elicitation-requests",
	Title:  "an elicitation/create without mode is a form: the client answers it as one (accept with content, decline or cancel)",
	Quote:  "Clients MUST treat requests without a mode field as form mode.",
	Faults: []*fault.Fault{client.ModelessElicitationAsURL}}

// answersForm has one required field of each primitive type and no
// defaults, so the client must fill every field in itself.
var answersForm = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":      map[string]any{"type": "string", "description": "Your name"},
		"age":       map[string]any{"type": "integer", "description": "Your age", "minimum": 0},
		"color":     map[string]any{"type": "string", "description": "Favourite colour", "enum": []any{"red", "green", "blue"}},
		"subscribe": map[string]any{"type": "boolean", "description": "Subscribe to the newsletter"},
	},
	"required": []any{"name", "age", "color", "subscribe"},
}

var answersScenario = &scenarios.Scenario{
	ID:       "client-answers",
	Title:    "the client's answers to roots/list, sampling/createMessage and elicitation/create are valid",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: stateful,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientAnswers, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say"),
		scenarios.NeedsOther("the roots, sampling or elicitation capability (each judged only when declared)")},
	Purpose: "The fake server's " + fixtures.ClientAnswers + " asks, on its call's stream, for what the client declared: roots/list, " +
		"a sampling/createMessage, and (from 2025-06-18) a form with four required fields of different types.",
	Checks: []*scenarios.Check{answersSamplingValid, answersRootsValid, answersRootsFileURI, answersElicitationValid, answersModelessForm},
	Run: clientside.Body(func(t *clientside.T) {
		a := newAsker(t)
		hasElicitation := slices.Contains(withElicitation, t.Env.Version)
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{{Name: fixtures.ClientAnswers, Description: "Asks the client for its roots, a sampling and a form",
				Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					defer a.finish()
					caps := declared(t)
					// A conformant server asks only what was declared
					// (wire-rules judges the server side of this).
					if _, ok := caps["roots"]; ok {
						a.ask(ctx, p, req, "roots", protocol.MethodRootsList, map[string]any{})
					}
					if _, ok := caps["sampling"]; ok {
						a.ask(ctx, p, req, "sampling", protocol.MethodSamplingCreateMessage, map[string]any{
							"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Say hello"}}},
							"maxTokens": 50,
						})
					}
					if _, ok := caps["elicitation"]; ok && hasElicitation {
						params := map[string]any{"message": "Please fill in the form", "requestedSchema": answersForm}
						if protocol.Features(t.Env.Version).ElicitationModes {
							params["mode"] = "form"
						}
						a.ask(ctx, p, req, "elicitation", protocol.MethodElicitationCreate, params)
					}
					// At 2025-11-25 a request without mode is a form (the
					// older versions have no mode at all).
					if _, ok := caps["elicitation"]; ok && protocol.Features(t.Env.Version).ElicitationModes && declaresFormMode(caps) {
						a.ask(ctx, p, req, "modeless", protocol.MethodElicitationCreate,
							map[string]any{"message": "Please fill in the form (no mode given)", "requestedSchema": answersForm})
					}
					return textResult("answers received"), nil
				}}},
			Context: toolCalls(fixtures.ClientAnswers),
		})
		t.Step("wait for the client to call %s and answer what it asks", fixtures.ClientAnswers)
		out := t.Settle(func(r []clientside.Received) bool { return len(clientside.ToolCalls(r, fixtures.ClientAnswers)) > 0 })
		if len(clientside.ToolCalls(t.Log().Entries(), fixtures.ClientAnswers)) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientAnswers, out)
		}
		a.wait()

		judgeResult := func(c *scenarios.Check, key, capability, method string) (*exchange, bool) {
			x := a.get(key)
			switch {
			case x == nil:
				t.Skip(c, "the client declares no "+capability+" capability")
			case x.err != nil || x.resp.Error != nil:
				t.Skip(c, "the client did not answer "+method+" with a result ("+x.describe()+"): nothing to validate")
			default:
				if err := protocol.ValidateResult(t.Env.Version, method, x.resp.Result); err != nil {
					t.Fail(c, "a valid "+method+" result at "+t.Env.Version, err.Error()+"; "+x.describe())
				} else {
					t.Pass(c)
				}
				return x, true
			}
			return x, false
		}
		judgeResult(answersSamplingValid, "sampling", "sampling", protocol.MethodSamplingCreateMessage)
		if x, ok := judgeResult(answersRootsValid, "roots", "roots", protocol.MethodRootsList); ok {
			var r protocol.ListRootsResult
			_ = json.Unmarshal(x.resp.Result, &r)
			var bad []string
			for _, raw := range r.Roots {
				var root map[string]any // a uri spelled exactly so, and a string
				_ = json.Unmarshal(raw, &root)
				if uri, ok := root["uri"].(string); ok && !strings.HasPrefix(uri, "file://") {
					bad = append(bad, uri)
				}
			}
			t.Judge(answersRootsFileURI, len(bad) == 0, "file:// URIs only", "roots "+strings.Join(bad, ", "))
		} else {
			t.Skip(answersRootsFileURI, "no roots/list result to judge")
		}

		switch x := a.get("elicitation"); {
		case !hasElicitation:
			t.Skip(answersElicitationValid, t.Env.Version+" has no elicitation")
		case x == nil:
			t.Skip(answersElicitationValid, "the client declares no elicitation capability")
		case x.err != nil || x.resp.Error != nil:
			t.Skip(answersElicitationValid, "the client did not answer the form with a result ("+x.describe()+")")
		default:
			action, content := readElicitResult(x.resp.Result)
			if action != "accept" {
				t.Skip(answersElicitationValid, fmt.Sprintf("the client answered the form with action %q: no content to judge", action))
				break
			}
			bad := offSchema(answersForm, content)
			if err := protocol.ValidateResult(t.Env.Version, protocol.MethodElicitationCreate, x.resp.Result); err != nil {
				bad = append(bad, err.Error())
			}
			t.Judge(answersElicitationValid, len(bad) == 0, "content "+`{"name": string, "age": integer, "color": one of red/green/blue, "subscribe": boolean}`,
				strings.Join(bad, "; ")+"; content "+jsonText(content))
		}

		switch x := a.get("modeless"); {
		case !protocol.Features(t.Env.Version).ElicitationModes:
			t.Skip(answersModelessForm, t.Env.Version+" has no elicitation modes")
		case x == nil:
			t.Skip(answersModelessForm, "the client declares no form-mode elicitation")
		case x.err != nil:
			t.Skip(answersModelessForm, "the client did not answer the form without mode ("+x.err.Error()+")")
		case x.resp.Error != nil:
			t.Fail(answersModelessForm, "the form without mode answered as a form (accept with content, decline or cancel)", x.describe())
		default:
			action, content := readElicitResult(x.resp.Result)
			t.Judge(answersModelessForm, action != "accept" || content != nil,
				"an accepted form carries its content", "accept without content, as for URL mode: "+x.describe())
		}
	}),
}

// declaresFormMode reports whether the elicitation capability covers form
// mode: an empty object does (client/elicitation.mdx#capabilities), as does
// a form member.
func declaresFormMode(caps map[string]json.RawMessage) bool {
	var e map[string]json.RawMessage
	if json.Unmarshal(caps["elicitation"], &e) != nil {
		return false
	}
	_, form := e["form"]
	return form || len(e) == 0
}
