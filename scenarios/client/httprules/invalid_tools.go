package httprules

import (
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const validTool = fixtures.ClientValidTool

const rejectQuote = "Rejection means the client MUST exclude the invalid tool from the result of tools/list."

var (
	invalidValidKept = &scenarios.Check{ID: "client-http-invalid-tool-headers/valid-kept", Level: scenarios.Should, Spec: toolsSpec,
		Title: "the valid tool listed beside the invalid ones is kept and called (the official suite fails a client that drops it; " +
			"the spec gives it as the purpose of rejecting tool by tool, without a keyword, hence a warning)",
		Quote:        "This ensures that a single malformed tool definition does not prevent other valid tools from being used.",
		Faults:       []*fault.Fault{client.RejectsAnnotatedTools},
		Requirements: []string{"sep-2243-client-reject-invalid-tool"}}
	invalidEmpty = &scenarios.Check{ID: "client-http-invalid-tool-headers/rejects-empty", Level: scenarios.Must, Spec: toolsSpec,
		Title: "a tool whose x-mcp-header is empty is rejected: never called", Quote: rejectQuote,
		Faults:       []*fault.Fault{client.AcceptsEmptyHeader},
		Requirements: []string{"sep-2243-x-mcp-header-not-empty", "sep-2243-client-reject-invalid-tool"}}
	invalidToken = &scenarios.Check{ID: "client-http-invalid-tool-headers/rejects-bad-characters", Level: scenarios.Must, Spec: toolsSpec,
		Title: "a tool whose x-mcp-header is no HTTP token (a space, a colon, a non-ASCII letter, a tab) is rejected: never called", Quote: rejectQuote,
		Faults:       []*fault.Fault{client.AcceptsBadHeaderChars},
		Requirements: []string{"sep-2243-x-mcp-header-charset", "sep-2243-client-reject-invalid-tool"}}
	invalidUnique = &scenarios.Check{ID: "client-http-invalid-tool-headers/rejects-duplicates", Level: scenarios.Must, Spec: toolsSpec,
		Title: "a tool whose x-mcp-header values repeat, in the same or another case, is rejected: never called", Quote: rejectQuote,
		Faults:       []*fault.Fault{client.AcceptsDuplicateHeaders},
		Requirements: []string{"sep-2243-x-mcp-header-unique", "sep-2243-client-reject-invalid-tool"}}
	invalidPrimitive = &scenarios.Check{ID: "client-http-invalid-tool-headers/rejects-non-primitive", Level: scenarios.Must, Spec: toolsSpec,
		Title: "a tool with x-mcp-header on an object, array, null or number property is rejected: never called (the official suite " +
			"counts number as primitive; the spec does not: \"Parameters with type number are not permitted\")", Quote: rejectQuote,
		Faults:       []*fault.Fault{client.AcceptsNonPrimitiveHeader},
		Requirements: []string{"sep-2243-x-mcp-header-primitive-only", "sep-2243-client-reject-invalid-tool"}}
	invalidReachable = &scenarios.Check{ID: "client-http-invalid-tool-headers/rejects-unreachable", Level: scenarios.Must, Spec: toolsSpec,
		Title: "a tool with x-mcp-header under items, anyOf or a $ref'd $defs entry is rejected: never called (not in the official suite)", Quote: rejectQuote,
		Faults:       []*fault.Fault{client.AcceptsUnreachableHeader},
		Requirements: []string{"sep-2243-client-reject-invalid-tool"}}
)

// invalidTool is one tool the client must reject, with the check that
// judges it.
type invalidTool struct {
	name   string
	check  *scenarios.Check
	schema map[string]any
}

func oneProperty(name string, prop map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{name: prop}, "required": []any{name}}
}

func twoHeaders(first, second string) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{
		"field1": annotated("string", first), "field2": annotated("string", second),
	}, "required": []any{"field1", "field2"}}
}

// invalidTools are the official scenario's ten and four of mcpconform's
// (number, items, anyOf, $defs).
var invalidTools = []invalidTool{
	{"invalid_empty_header", invalidEmpty, oneProperty("value", annotated("string", ""))},
	{"invalid_object_header", invalidPrimitive, oneProperty("data", annotated("object", "Data"))},
	{"invalid_array_header", invalidPrimitive, oneProperty("items", map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "x-mcp-header": "Items"})},
	{"invalid_null_header", invalidPrimitive, oneProperty("nil", annotated("null", "Nil"))},
	{"invalid_number_header", invalidPrimitive, oneProperty("ratio", annotated("number", "Ratio"))},
	{"invalid_duplicate_same_case", invalidUnique, twoHeaders("Region", "Region")},
	{"invalid_duplicate_diff_case", invalidUnique, twoHeaders("MyField", "myfield")},
	{"invalid_space_in_name", invalidToken, oneProperty("value", annotated("string", "My Region"))},
	{"invalid_colon_in_name", invalidToken, oneProperty("value", annotated("string", "Region:Primary"))},
	{"invalid_non_ascii_name", invalidToken, oneProperty("value", annotated("string", "Région"))},
	{"invalid_control_char_name", invalidToken, oneProperty("value", annotated("string", "Region\t1"))},
	{"invalid_items_path", invalidReachable, oneProperty("tags", map[string]any{"type": "array", "items": annotated("string", "Tag")})},
	{"invalid_anyof_path", invalidReachable, oneProperty("choice", map[string]any{"anyOf": []any{annotated("string", "Choice")}})},
	{"invalid_ref_path", invalidReachable, map[string]any{"type": "object",
		"$defs":      map[string]any{"ref": annotated("string", "Ref")},
		"properties": map[string]any{"ref": map[string]any{"$ref": "#/$defs/ref"}}, "required": []any{"ref"}}},
}

var invalidToolsScenario = &scenarios.Scenario{
	ID:         "client-http-invalid-tool-headers",
	Official:   "http-invalid-tool-headers",
	Title:      "tools whose x-mcp-header annotations break a constraint are rejected, the valid one is kept",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs:      []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientValidTool, "the client lists tools and calls it")},
	Purpose: "The fake server lists " + validTool + " (a string region mirrored as Region) and fourteen invalid_* tools, each breaking " +
		"one x-mcp-header constraint of server/tools.mdx. A client calling any invalid tool did not exclude it; a client that exits " +
		"with an error is allowed, as in the official scenario.",
	Checks: []*scenarios.Check{invalidValidKept, invalidEmpty, invalidToken, invalidUnique, invalidPrimitive, invalidReachable},
	Run: clientside.Body(func(t *clientside.T) {
		var tools []clientside.Tool
		for _, it := range invalidTools {
			tools = append(tools, clientside.Tool{Name: it.name, Description: "an invalid x-mcp-header: must be rejected", InputSchema: it.schema})
		}
		// Listed last, so that a client calling in list order has called
		// whatever it kept of the invalid ones once the wait ends.
		tools = append(tools, clientside.Tool{Name: validTool, Description: "a valid x-mcp-header",
			InputSchema: oneProperty("region", annotated("string", "Region"))})
		t.Serve(clientside.Script{Tools: tools})
		t.Step("wait for the client to list the tools and call %s", validTool)
		out := t.Settle(func(r []clientside.Received) bool { return len(clientside.ToolCalls(r, validTool)) > 0 })
		entries := t.Log().Entries()
		if len(t.Log().Requests(protocol.MethodToolsList)) == 0 {
			t.Missed("tools/list", out)
		}
		t.Judge(invalidValidKept, len(clientside.ToolCalls(entries, validTool)) > 0, "a call of "+validTool,
			"none: "+t.DescribeEnd(out))
		called := map[*scenarios.Check][]string{}
		for _, it := range invalidTools {
			if n := len(clientside.ToolCalls(entries, it.name)); n > 0 {
				called[it.check] = append(called[it.check], fmt.Sprintf("%s (%d calls)", it.name, n))
			}
		}
		for _, c := range []*scenarios.Check{invalidEmpty, invalidToken, invalidUnique, invalidPrimitive, invalidReachable} {
			t.Judge(c, len(called[c]) == 0, "no call of a tool that breaks the constraint", "called "+listed(called[c]))
		}
	}),
}
