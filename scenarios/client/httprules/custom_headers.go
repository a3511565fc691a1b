package httprules

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

const customSpec = httpSpec + "#custom-headers-from-tool-parameters"

var (
	customMirrored = &scenarios.Check{ID: "client-http-custom-headers/mirrored", Level: scenarios.Must, Spec: customSpec,
		Title:        "every x-mcp-header parameter the call gives a value has its Mcp-Param-{Name} header (nested properties too)",
		Quote:        "When a server's tool definition includes x-mcp-header annotations, conforming clients MUST mirror the designated parameter values into HTTP headers.",
		Faults:       []*fault.Fault{client.NoParamHeaders},
		Liberties:    []*fault.Fault{client.LowercaseHeaderNames},
		Requirements: []string{"sep-2243-client-supports-custom-headers", "sep-2243-client-mirrors-designated-params"}}
	customConverted = &scenarios.Check{ID: "client-http-custom-headers/values-converted", Level: scenarios.Must, Spec: httpSpec + "#value-encoding",
		Title:        "a value that is safe as plain text is mirrored as its string form: a string as is (empty too), an integer in decimal, a boolean as true or false",
		Quote:        "Clients MUST encode parameter values before including them in HTTP headers to ensure safe transmission and prevent injection attacks.",
		Faults:       []*fault.Fault{client.ParamBooleanCapitalized},
		Requirements: []string{"sep-2243-client-encode-values"}}
	customBase64 = &scenarios.Check{ID: "client-http-custom-headers/base64-unsafe", Level: scenarios.Must, Spec: httpSpec + "#value-encoding",
		Title:        "a value with non-ASCII or control characters (CR, LF, tab) or white space at an end is sent as =?base64?{Base64 of its UTF-8}?=",
		Quote:        "When a value cannot be safely represented as a plain ASCII header value (e.g., it contains non-ASCII characters, control characters, or has leading/trailing whitespace), clients MUST use Base64 encoding of the UTF-8 representation with the following format:",
		Faults:       []*fault.Fault{client.ParamNoBase64},
		Requirements: []string{"sep-2243-client-base64-unsafe"}}
	customSentinel = &scenarios.Check{ID: "client-http-custom-headers/sentinel-encoded", Level: scenarios.Must, Spec: httpSpec + "#value-encoding",
		Title:        "a plain value that looks like =?base64?…?= is itself Base64-encoded",
		Quote:        "To avoid ambiguity, clients MUST also Base64-encode any plain-ASCII value that matches the sentinel pattern (i.e., starts with =?base64? and ends with ?=).",
		Faults:       []*fault.Fault{client.ParamSentinelPlain},
		Requirements: []string{"sep-2243-client-base64-unsafe"}}
	customOnlyAnnotated = &scenarios.Check{ID: "client-http-custom-headers/only-annotated", Level: scenarios.Should, Spec: customSpec,
		Title: "no Mcp-Param-* header for a parameter without x-mcp-header (the official suite fails it; the spec names the header after the " +
			"annotation and states no rule for other parameters, hence a warning)",
		Quote:  "The x-mcp-header property specifies the name portion used to construct the header name Mcp-Param-{name}.",
		Faults: []*fault.Fault{client.ParamUnannotated}}
	customOmitNull = &scenarios.Check{ID: "client-http-custom-headers/omit-null", Level: scenarios.Must, Spec: customSpec,
		Title:        "an annotated parameter whose value is null, or that the call leaves out, has no header",
		Quote:        "Parameter value is null | Client MUST omit the header",
		Faults:       []*fault.Fault{client.ParamNullSent},
		Requirements: []string{"sep-2243-client-omit-null"}}
)

func annotated(typ, header string) map[string]any {
	return map[string]any{"type": typ, "x-mcp-header": header}
}

// The official tools, as the spec allows them: priority is an integer
// (server/tools.mdx: "Parameters with type number are not permitted", so
// the official number-typed priority and float_val would make a conformant
// client reject the whole tool); float_val is left out. Added: a nested
// property (a chain of properties keys is allowed) and a value that looks
// like the Base64 sentinel.
var (
	customSchema = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"region":             annotated("string", "Region"),
			"priority":           annotated("integer", "Priority"),
			"verbose":            annotated("boolean", "Verbose"),
			"debug":              annotated("boolean", "Debug"),
			"empty_val":          annotated("string", "EmptyVal"),
			"method_val":         annotated("string", "Method"),
			"non_ascii_val":      annotated("string", "NonAscii"),
			"whitespace_val":     annotated("string", "Whitespace"),
			"leading_space_val":  annotated("string", "LeadingSpace"),
			"trailing_space_val": annotated("string", "TrailingSpace"),
			"internal_space_val": annotated("string", "InternalSpace"),
			"control_char_val":   annotated("string", "ControlChar"),
			"crlf_val":           annotated("string", "CrLf"),
			"tab_val":            annotated("string", "Tab"),
			"sentinel_val":       annotated("string", "Sentinel"),
			"target": map[string]any{"type": "object", "properties": map[string]any{
				"zone": annotated("string", "Zone"),
			}},
			"query": map[string]any{"type": "string", "description": "not mirrored"},
		},
		"required": []any{"region", "priority", "query"},
	}
	customNullSchema = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"region":   annotated("string", "Region"),
			"priority": annotated("integer", "Priority"),
			"verbose":  annotated("boolean", "Verbose"),
			"debug":    annotated("boolean", "Debug"),
			"query":    map[string]any{"type": "string"},
		},
		"required": []any{"region", "priority", "query"},
	}
	customCalls = []any{
		map[string]any{"name": fixtures.ClientCustomHeaders, "arguments": map[string]any{
			"region": "us-west1", "priority": 42, "verbose": false, "debug": true, "empty_val": "", "method_val": "test-method",
			"non_ascii_val": "Hello, 世界", "whitespace_val": " padded ", "leading_space_val": " us-west1", "trailing_space_val": "us-west1 ",
			"internal_space_val": "us west 1", "control_char_val": "line1\nline2", "crlf_val": "line1\r\nline2", "tab_val": "\tindented",
			"sentinel_val": "=?base64?literal?=", "target": map[string]any{"zone": "eu-1"}, "query": "SELECT * FROM users",
		}},
		map[string]any{"name": fixtures.ClientCustomHeadersNull, "arguments": map[string]any{
			"region": "us-east1", "priority": 1, "verbose": nil, "query": "SELECT 1",
		}},
	}
)

var customHeadersScenario = &scenarios.Scenario{
	ID:         "client-http-custom-headers",
	Official:   "http-custom-headers",
	Title:      "Mcp-Param-{Name} headers mirrored from x-mcp-header parameters, converted and encoded",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs: []scenarios.Need{
		scenarios.NeedsFixture(fixtures.ClientCustomHeaders, "the client lists tools, then calls it as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, with their exact arguments"),
		scenarios.NeedsFixture(fixtures.ClientCustomHeadersNull, "likewise, with the exact arguments of its toolCall, null included")},
	Purpose: "The fake server offers the official scenario's " + fixtures.ClientCustomHeaders + " and " + fixtures.ClientCustomHeadersNull + " (priority typed integer, " +
		"as the spec allows no number; no float_val; a nested and a sentinel-like parameter added); the context lists a call of each. " +
		"Each call's Mcp-Param-* headers are compared with the arguments it carries.",
	Checks: []*scenarios.Check{customMirrored, customConverted, customBase64, customSentinel, customOnlyAnnotated, customOmitNull},
	Run: clientside.Body(func(t *clientside.T) {
		schemas := map[string]map[string]any{fixtures.ClientCustomHeaders: customSchema, fixtures.ClientCustomHeadersNull: customNullSchema}
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{
				{Name: fixtures.ClientCustomHeaders, Description: "parameters mirrored into headers", InputSchema: customSchema},
				{Name: fixtures.ClientCustomHeadersNull, Description: "null and absent mirrored parameters", InputSchema: customNullSchema},
			},
			Context: map[string]any{"toolCalls": customCalls},
		})
		t.Step("wait for the client to call %s and %s", fixtures.ClientCustomHeaders, fixtures.ClientCustomHeadersNull)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientCustomHeaders)) > 0 && len(clientside.ToolCalls(r, fixtures.ClientCustomHeadersNull)) > 0
		})
		entries := t.Log().Entries()
		calls := append(clientside.ToolCalls(entries, fixtures.ClientCustomHeaders), clientside.ToolCalls(entries, fixtures.ClientCustomHeadersNull)...)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientCustomHeaders+" or "+fixtures.ClientCustomHeadersNull, out)
		}
		var missing, converted, unsafe, sentinel, extra, notOmitted []string
		judged := map[*scenarios.Check]int{}
		for _, c := range calls {
			call := clientside.ReadCall(c.Msg)
			schema, _ := json.Marshal(schemas[call.Name])
			params, _ := transport.ToolParamHeaders(schema)
			args := call.Params["arguments"]
			names := map[string]bool{}
			for _, p := range params {
				name := transport.HeaderParamPrefix + p.Name
				names[http.CanonicalHeaderKey(name)] = true
				where := fmt.Sprintf("%s %s", call.Name, name)
				raw, present := transport.ParamArgument(p, args)
				text, notNull := transport.ParamText(raw)
				h, sent := header(c, name)
				if !present || !notNull {
					judged[customOmitNull]++
					if sent {
						notOmitted = append(notOmitted, fmt.Sprintf("%s: %q for a value that is %s", where, h, map[bool]string{true: "null", false: "absent"}[present]))
					}
					continue
				}
				judged[customMirrored]++
				if !sent {
					missing = append(missing, where)
					continue
				}
				decoded, valid := transport.DecodeHeaderValue(h)
				switch {
				case strings.HasPrefix(text, "=?base64?") && strings.HasSuffix(text, "?="):
					judged[customSentinel]++
					if h == text || !valid || decoded != text {
						sentinel = append(sentinel, fmt.Sprintf("%s: %q for %q", where, h, text))
					}
				case transport.EncodeHeaderValue(text) != text:
					judged[customBase64]++
					if !strings.HasPrefix(h, "=?base64?") || !valid || decoded != text {
						unsafe = append(unsafe, fmt.Sprintf("%s: %q for %q", where, h, text))
					}
				default:
					// A plain value sent Base64-encoded decodes to the
					// same text: the spec does not forbid it.
					judged[customConverted]++
					if !valid || decoded != text {
						converted = append(converted, fmt.Sprintf("%s: %q for %s", where, h, raw))
					}
				}
			}
			for k, vs := range c.Header {
				if strings.HasPrefix(http.CanonicalHeaderKey(k), transport.HeaderParamPrefix) && !names[http.CanonicalHeaderKey(k)] {
					extra = append(extra, fmt.Sprintf("%s %s: %q", call.Name, k, vs))
				}
			}
		}
		judge := func(c *scenarios.Check, bad []string, expected string) {
			if judged[c] == 0 {
				t.Skip(c, "the client's calls gave no parameter of this kind a value")
				return
			}
			t.Judge(c, len(bad) == 0, expected, listed(bad))
		}
		judge(customMirrored, missing, "an Mcp-Param header for every annotated parameter with a value")
		judge(customConverted, converted, "the value's string form: strings as is, integers in decimal, booleans as true or false")
		judge(customBase64, unsafe, "=?base64?{Base64 of the UTF-8 value}?=")
		judge(customSentinel, sentinel, "the sentinel-like value itself Base64-encoded")
		t.Judge(customOnlyAnnotated, len(extra) == 0, "Mcp-Param headers for annotated parameters only", listed(extra))
		if len(clientside.ToolCalls(entries, fixtures.ClientCustomHeadersNull)) == 0 {
			t.Fail(customOmitNull, "a call of "+fixtures.ClientCustomHeadersNull+", whose verbose is null", "none: "+t.DescribeEnd(out))
			return
		}
		judge(customOmitNull, notOmitted, "no header for a null or absent annotated parameter")
	}),
}
