package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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

// The official elicitation-sep1034-client-defaults: a form whose five
// optional fields all have defaults. The spec makes pre-populating them a
// SHOULD of clients that support defaults, and validating the answer
// against the schema a SHOULD; the official suite fails a client that leaves
// a field out, and so does its run (it fails on warnings).

var defaultsSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
		"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
		"status":   map[string]any{"type": "string", "description": "User status", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
	},
	"required": []any{},
}

var (
	defaultsApplied = &scenarios.Check{ID: "client-elicitation-defaults/defaults-applied", Level: scenarios.Should,
		Spec:   "2025-11-25/client/elicitation.mdx#requested-schema",
		Title:  "the accepted form carries every field the schema gives a default (name, age, score, status, verified)",
		Quote:  "Clients that support defaults SHOULD pre-populate form fields with these values.",
		Faults: []*fault.Fault{client.IgnoresElicitationDefaults}}
	defaultsContentValid = &scenarios.Check{ID: "client-elicitation-defaults/content-valid", Level: scenarios.Should,
		Spec:   "2025-11-25/client/elicitation.mdx#form-mode-security",
		Title:  "the accepted content validates against the requestedSchema: each field of its type, status one of the enum",
		Quote:  "Clients SHOULD validate all responses against the provided schema",
		Faults: []*fault.Fault{client.ElicitationOffSchema}}
)

var defaultsScenario = &scenarios.Scenario{
	ID:       "client-elicitation-defaults",
	Official: "elicitation-sep1034-client-defaults",
	Title:    "an accepted form fills in the defaults of the fields the user left alone, with the schema's types",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: withModes,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientElicitationDefaults, "the client calls it and accepts the form it asks for"),
		scenarios.NeedsOther("the elicitation capability")},
	Purpose: "The fake server's " + fixtures.ClientElicitationDefaults + " sends elicitation/create with a form of five optional fields (string, integer, " +
		"number, enum, boolean), each with a default, and keeps the answer. A client that declares no elicitation is not judged.",
	Checks: []*scenarios.Check{defaultsApplied, defaultsContentValid},
	Run: clientside.Body(func(t *clientside.T) {
		a := newAsker(t)
		params := map[string]any{
			"mode":            "form",
			"message":         "Test client default value handling - please accept with defaults",
			"requestedSchema": defaultsSchema,
		}
		t.Serve(clientside.Script{Tools: []clientside.Tool{{
			Name:        fixtures.ClientElicitationDefaults,
			Description: "Tests that client applies defaults for omitted elicitation fields",
			Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				defer a.finish()
				if _, ok := declared(t)["elicitation"]; !ok {
					return textResult("This tool needs the client's elicitation capability."), nil
				}
				x := a.ask(ctx, p, req, "form", protocol.MethodElicitationCreate, params)
				return textResult("Elicitation completed: " + x.describe()), nil
			},
		}}})
		t.Step("wait for the client to call %s and answer its form", fixtures.ClientElicitationDefaults)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientElicitationDefaults)) > 0
		})
		if len(clientside.ToolCalls(t.Log().Entries(), fixtures.ClientElicitationDefaults)) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientElicitationDefaults, out)
		}
		a.wait()
		if _, ok := declared(t)["elicitation"]; !ok {
			t.SkipRest("the client declares no elicitation capability")
		}
		x := a.get("form")
		if x == nil || x.err != nil || x.resp.Error != nil {
			t.Lost("an answer to the elicitation/create", x.describe())
		}
		action, content := readElicitResult(x.resp.Result)
		if action != "accept" {
			t.SkipRest(fmt.Sprintf("the client answered the form with action %q: nothing to judge (the official scenario expects accept)", action))
		}
		var missing []string
		for _, name := range sortedProps(defaultsSchema) {
			if _, ok := content[name]; !ok {
				missing = append(missing, name)
			}
		}
		t.Judge(defaultsApplied, len(missing) == 0, "content with name, age, score, status and verified",
			"missing: "+strings.Join(missing, ", ")+"; content "+jsonText(content))
		bad := offSchema(defaultsSchema, content)
		t.Judge(defaultsContentValid, len(bad) == 0, "every field of the schema's type, status in the enum", strings.Join(bad, "; "))
	}),
}

// readElicitResult reads an ElicitResult's action and content.
func readElicitResult(raw json.RawMessage) (string, map[string]any) {
	var r protocol.ElicitResult
	_ = json.Unmarshal(raw, &r)
	return r.Action, r.Content
}

func sortedProps(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// offSchema lists what in content breaks a flat requestedSchema
// (client/elicitation.mdx#requested-schema): a missing required field, a
// value of another type, a value outside the enum, a field the schema does
// not have.
func offSchema(schema map[string]any, content map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	var bad []string
	required, _ := schema["required"].([]any)
	for _, r := range required {
		if name, _ := r.(string); name != "" {
			if _, ok := content[name]; !ok {
				bad = append(bad, "required "+name+" missing")
			}
		}
	}
	names := make([]string, 0, len(content))
	for n := range content {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		v := content[name]
		prop, ok := props[name].(map[string]any)
		if !ok {
			bad = append(bad, name+" is not a field of the schema")
			continue
		}
		if why := typeMismatch(prop, v); why != "" {
			bad = append(bad, fmt.Sprintf("%s = %s: %s", name, jsonText(v), why))
		}
	}
	return bad
}

func typeMismatch(prop map[string]any, v any) string {
	switch prop["type"] {
	case "string":
		s, ok := v.(string)
		if !ok {
			return "not a string"
		}
		if enum, ok := prop["enum"].([]any); ok && !slices.Contains(enum, any(s)) {
			return "not one of the enum " + jsonText(enum)
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return "not an integer"
		}
	case "number":
		if _, ok := v.(float64); !ok {
			return "not a number"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return "not a boolean"
		}
	}
	return ""
}
