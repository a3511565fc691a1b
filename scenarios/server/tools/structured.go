package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Structured content against the tool's outputSchema (tools.mdx#output-schema,
// since 2025-06-18). The official suite has no such fixture; mcpconform's is
// fixtures.StructuredContent (no arguments; lists an outputSchema).

var sinceOutputSchema = protocol.Where(func(v protocol.Version) bool {
	return v.Judged && v.ResultHas(protocol.MethodToolsList, "tools", "outputSchema")
})

var (
	structuredConforms = &scenarios.Check{ID: "tools-call-structured-content/conforms", Level: scenarios.Must, Spec: toolsSpec + "#output-schema",
		Quote: "Servers **MUST** provide structured results that conform to this schema.",
		Title: "test_structured_content succeeds with structuredContent that validates against the outputSchema it is listed " +
			"with (type, properties, required, additionalProperties, items, enum, const; other keywords are not judged)",
		Faults: []*fault.Fault{server.StructuredOffSchema}}
	structuredText = &scenarios.Check{ID: "tools-call-structured-content/text-too", Level: scenarios.Should, Spec: toolsSpec + "#structured-content",
		Quote:  "For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.",
		Title:  "the result also carries the structured content serialized as JSON in a text item",
		Faults: []*fault.Fault{server.StructuredNoText}}
)

var structuredScenario = &scenarios.Scenario{
	ID: "tools-call-structured-content", Title: "structured content conforms to the tool's outputSchema", Family: "tools", Side: scenarios.ServerSide,
	Versions: sinceOutputSchema, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.StructuredContent, "no arguments; listed with an outputSchema, returns structuredContent")},
	Purpose: "Reads the fixture's outputSchema from tools/list, calls it, and validates structuredContent against it.",
	Checks:  []*scenarios.Check{structuredConforms, structuredText},
	Run:     serverside.Body(runStructured),
}

func runStructured(t *serverside.T) {
	s := open(t, nil)
	fx := t.RequireTool(s, fixtures.StructuredContent, nil)
	schema, ok := listedOutputSchema(t, s, fx.Tool)
	if !ok {
		t.SkipRest("the tool " + fx.Tool + " is listed without an outputSchema")
	}
	t.Step("call %s", fx.Tool)
	resp, err := t.Request(s, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments})
	r, okCall := succeeded(t, structuredConforms, fx, resp, err)
	if !okCall {
		t.Skip(structuredText, "the fixture did not succeed (judged by "+structuredConforms.ID+")")
		return
	}
	if len(r.StructuredContent) == 0 || string(r.StructuredContent) == "null" {
		t.Fail(structuredConforms, "structuredContent, as the tool declares an outputSchema", judge.Describe(resp, nil))
		t.Skip(structuredText, "no structuredContent")
		return
	}
	var value any
	_ = json.Unmarshal(r.StructuredContent, &value)
	problems := validate(schema, value, "structuredContent")
	t.Judge(structuredConforms, len(problems) == 0, "structuredContent valid against the outputSchema", strings.Join(problems, "; "))
	for _, it := range r.Content {
		var v any
		if it.Type == "text" && json.Unmarshal([]byte(it.Text), &v) == nil && reflect.DeepEqual(v, value) {
			t.Pass(structuredText)
			return
		}
	}
	t.Fail(structuredText, "a text item holding the structuredContent as JSON", types(r))
}

// listedOutputSchema reads a tool's outputSchema from tools/list.
func listedOutputSchema(t *serverside.T, s *client.Session, name string) (map[string]any, bool) {
	tool, _ := listedTool(t, s, name)
	var schema map[string]any
	_ = json.Unmarshal(tool.OutputSchema, &schema)
	return schema, schema != nil
}

// validate judges value against the subset of JSON Schema a tool's output
// schema commonly uses; each problem names its JSON path.
func validate(schema map[string]any, value any, path string) []string {
	var out []string
	if typ, ok := schema["type"].(string); ok && !typeMatches(typ, value) {
		return []string{fmt.Sprintf("%s is %s, not %s", path, kindOf(value), typ)}
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, value) }) {
		out = append(out, fmt.Sprintf("%s = %v is not in enum %v", path, value, enum))
	}
	if c, ok := schema["const"]; ok && !reflect.DeepEqual(c, value) {
		out = append(out, fmt.Sprintf("%s = %v is not const %v", path, value, c))
	}
	switch v := value.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if req, ok := schema["required"].([]any); ok {
			for _, k := range req {
				if name, _ := k.(string); name != "" {
					if _, present := v[name]; !present {
						out = append(out, fmt.Sprintf("%s.%s is required", path, name))
					}
				}
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sub, ok := props[k].(map[string]any); ok {
				out = append(out, validate(sub, v[k], path+"."+k)...)
			} else if ap, ok := schema["additionalProperties"].(bool); ok && !ap {
				out = append(out, fmt.Sprintf("%s.%s is not allowed (additionalProperties: false)", path, k))
			} else if sub, ok := schema["additionalProperties"].(map[string]any); ok {
				out = append(out, validate(sub, v[k], path+"."+k)...)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range v {
				out = append(out, validate(items, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return out
}

func typeMatches(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	}
	return true // an unknown type keyword is not judged
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
