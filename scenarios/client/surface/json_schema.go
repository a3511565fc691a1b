package surface

import (
	"context"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The official json-schema-2020-12-preservation: the client hands back, as
// the schema argument of json_schema_echo, the inputSchema it keeps for
// json_schema_2020_12_tool. The spec asks implementations to support JSON
// Schema 2020-12, not to hand a schema back; a client that drops keywords
// while parsing cannot validate by them, so both checks are inferred
// SHOULDs. (The official suite fails the first group at 2025-11-25 and
// skips the second before 2026-07-28.)
const (
	focalTool = "json_schema_2020_12_tool"
	echoTool  = fixtures.ClientJSONSchemaEcho
	dialect   = "https://json-schema.org/draft/2020-12/schema"
)

// focalSchema is the official fixture.
var focalSchema = map[string]any{
	"$schema": dialect,
	"type":    "object",
	"$defs": map[string]any{
		"address": map[string]any{
			"$anchor": "addressDef",
			"type":    "object",
			"properties": map[string]any{
				"street": map[string]any{"type": "string"},
				"city":   map[string]any{"type": "string"},
			},
		},
	},
	"properties": map[string]any{
		"name":          map[string]any{"type": "string"},
		"address":       map[string]any{"$ref": "#/$defs/address"},
		"contactMethod": map[string]any{"type": "string", "enum": []any{"phone", "email"}},
		"phone":         map[string]any{"type": "string"},
		"email":         map[string]any{"type": "string"},
	},
	"allOf": []any{map[string]any{"anyOf": []any{
		map[string]any{"required": []any{"phone"}},
		map[string]any{"required": []any{"email"}},
	}}},
	"if": map[string]any{
		"properties": map[string]any{"contactMethod": map[string]any{"const": "phone"}},
		"required":   []any{"contactMethod"},
	},
	"then":                 map[string]any{"required": []any{"phone"}},
	"else":                 map[string]any{"required": []any{"email"}},
	"additionalProperties": false,
}

const schemaSpec = "2025-11-25/basic/index.mdx#schema-dialect"

var (
	schemaDialectKept = &scenarios.Check{ID: "client-json-schema-preservation/dialect-keywords", Level: scenarios.Should, Spec: schemaSpec,
		Title:  "the schema handed back keeps $schema, $defs (with address) and additionalProperties: false (SEP-1613)",
		Quote:  "Implementations MUST support at least 2020-12 and SHOULD document which additional dialects they support",
		Faults: []*fault.Fault{client.StripsSchemaDialect}}
	schemaVocabularyKept = &scenarios.Check{ID: "client-json-schema-preservation/vocabulary-keywords", Level: scenarios.Should, Spec: schemaSpec,
		Title:  "the schema handed back keeps allOf/anyOf, if/then/else and the $anchor in $defs, and is otherwise the one listed (SEP-2106)",
		Quote:  "Implementations MUST support at least 2020-12 and SHOULD document which additional dialects they support",
		Faults: []*fault.Fault{client.StripsSchemaComposition}}
)

// dialectKeys are judged by schemaDialectKept, the rest of the schema by
// schemaVocabularyKept.
var dialectKeys = []string{"$schema", "$defs", "additionalProperties"}

var schemaScenario = &scenarios.Scenario{
	ID:       "client-json-schema-preservation",
	Official: "json-schema-2020-12-preservation",
	Title:    "the client keeps a tool's JSON Schema 2020-12 inputSchema whole, as the echo of it shows",
	Family:   family,
	Side:     scenarios.ClientSide,
	// The official suite runs it at 2026-07-28 too, where the tool call
	// goes through the stateless wire.
	Versions: append(slices.Clone(withModes), protocol.V20260728),
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientJSONSchemaEcho, "the client calls it with schema = the inputSchema of "+focalTool+" as it keeps it")},
	Purpose: "The fake server lists " + focalTool + ", whose inputSchema uses $schema, $defs with an $anchor, allOf/anyOf, " +
		"if/then/else and additionalProperties, and " + echoTool + "; the client is to call the echo with that schema. An echo " +
		"that is no schema object (absent, not an object, or an object without a single JSON Schema keyword) is the harness's, " +
		"and leaves both checks not judged, saying why.",
	Checks: []*scenarios.Check{schemaDialectKept, schemaVocabularyKept},
	Run: clientside.Body(func(t *clientside.T) {
		t.Serve(clientside.Script{Tools: []clientside.Tool{
			{Name: focalTool, Description: "Tool with JSON Schema 2020-12 features", InputSchema: focalSchema},
			{Name: echoTool, Description: "Echoes back an arbitrary JSON Schema object so the harness can observe what the client preserved.",
				InputSchema: map[string]any{
					"type": "object",
					"properties": map[string]any{"schema": map[string]any{"type": "object",
						"description": "The inputSchema the client observed for " + focalTool + ", passed back verbatim."}},
					"required": []any{"schema"},
				},
				Call: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
					return textResult("echoed"), nil
				}},
		}})
		t.Step("wait for the client to call %s", echoTool)
		out := t.Settle(func(r []clientside.Received) bool { return len(clientside.ToolCalls(r, echoTool)) > 0 })
		calls := clientside.ToolCalls(t.Log().Entries(), echoTool)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+echoTool, out)
		}
		echoed, notSchema := echoedSchema(clientside.ReadCall(calls[0].Msg).Params["arguments"])
		if notSchema != "" {
			// What the harness hands back is its own affair, not the
			// client's: without a schema there is nothing to compare.
			t.SkipRest("the client harness's " + echoTool + " call carries no schema object to compare (" + notSchema + "); it must pass " +
				"the inputSchema it keeps for " + focalTool + " as the schema argument")
		}
		want := canonical(focalSchema)

		var lost []string
		for _, k := range dialectKeys {
			w, g := want[k], echoed[k]
			if k == "$defs" {
				w, g = withoutAnchor(w), withoutAnchor(g)
			}
			if !reflect.DeepEqual(w, g) {
				lost = append(lost, k+" "+describeKey(echoed, k))
			}
		}
		t.Judge(schemaDialectKept, len(lost) == 0, "$schema "+dialect+", $defs.address and additionalProperties false, as listed",
			strings.Join(lost, "; "))

		lost = nil
		for _, k := range sortedKeys(want) {
			if k == "$schema" || k == "additionalProperties" {
				continue
			}
			if k == "$defs" {
				if !reflect.DeepEqual(anchorOf(want), anchorOf(echoed)) {
					lost = append(lost, "$defs.address.$anchor "+jsonText(anchorOf(echoed)))
				}
				continue
			}
			if !reflect.DeepEqual(want[k], echoed[k]) {
				lost = append(lost, k+" "+describeKey(echoed, k))
			}
		}
		for _, k := range sortedKeys(echoed) {
			if _, ok := want[k]; !ok {
				lost = append(lost, k+" added")
			}
		}
		t.Judge(schemaVocabularyKept, len(lost) == 0, "allOf, if, then, else, properties, type and $defs.address.$anchor as listed",
			strings.Join(lost, "; "))
	}),
}

// schemaKeywords are the keywords of JSON Schema 2020-12's vocabularies
// (core, applicator, unevaluated, validation, meta-data, format-annotation,
// content), with draft-07's definitions and dependencies.
var schemaKeywords = []string{"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items", "contains", "properties",
	"patternProperties", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
	"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
	"minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
	"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "format", "contentEncoding",
	"contentMediaType", "contentSchema", "definitions", "dependencies"}

// echoedSchema reads the schema argument of the echo call. notSchema says
// why it is no schema object: absent, not an object, or an object with
// keys none of which is a JSON Schema keyword (a tool definition, say).
// An empty object is a schema (one that kept nothing) and is judged.
func echoedSchema(arguments json.RawMessage) (schema map[string]any, notSchema string) {
	var args map[string]json.RawMessage
	if json.Unmarshal(arguments, &args) != nil {
		return nil, "arguments " + abbreviate(string(arguments))
	}
	raw, ok := args["schema"]
	if !ok {
		return nil, "no schema argument"
	}
	if json.Unmarshal(raw, &schema) != nil || schema == nil {
		return nil, "schema " + abbreviate(string(raw)) + ", not an object"
	}
	if len(schema) > 0 && !slices.ContainsFunc(sortedKeys(schema), func(k string) bool { return slices.Contains(schemaKeywords, k) }) {
		return nil, "schema is an object whose keys (" + strings.Join(sortedKeys(schema), ", ") + ") are no JSON Schema keywords"
	}
	return schema, ""
}

// canonical is v as JSON decodes it (numbers float64, slices []any).
func canonical(v map[string]any) map[string]any {
	b, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func describeKey(m map[string]any, k string) string {
	v, ok := m[k]
	if !ok {
		return "missing"
	}
	return "= " + jsonText(v)
}

// withoutAnchor is $defs less address.$anchor (judged with the vocabulary).
func withoutAnchor(defs any) any {
	d, ok := defs.(map[string]any)
	if !ok {
		return defs
	}
	out := map[string]any{}
	for k, v := range d {
		out[k] = v
	}
	if addr, ok := d["address"].(map[string]any); ok {
		a := map[string]any{}
		for k, v := range addr {
			if k != "$anchor" {
				a[k] = v
			}
		}
		out["address"] = a
	}
	return out
}

func anchorOf(schema map[string]any) any {
	defs, _ := schema["$defs"].(map[string]any)
	addr, _ := defs["address"].(map[string]any)
	return addr["$anchor"]
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
