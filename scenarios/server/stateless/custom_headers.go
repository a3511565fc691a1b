package stateless

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

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
	"github.com/mcpconform/mcpconform/transport"
)

// Custom headers from tool parameters (streamable-http.mdx "Server Behavior
// for Custom Headers", SEP-2243): a server that annotates a parameter with
// x-mcp-header validates its Mcp-Param-{Name} header against the body.

const customSpec = httpSpec + "#server-behavior-for-custom-headers"

var (
	paramMismatch = &scenarios.Check{ID: "stateless-http-custom-headers/mismatch-refused", Level: scenarios.Must, Spec: customSpec,
		Quote: "Servers **MUST** reject requests with a `400 Bad Request` HTTP status and JSON-RPC error code `-32020` " +
			"(`HeaderMismatch`) if any validation fails.",
		Title:        "a call whose Mcp-Param header names another value than the body's parameter gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.ParamHeaderUnchecked},
		Requirements: []string{"sep-2243-server-validate-param-match", "sep-2243-server-reject-param-mismatch"}}
	paramMissing = &scenarios.Check{ID: "stateless-http-custom-headers/missing-refused", Level: scenarios.Must, Spec: customSpec,
		Quote:        "| Client omits header but value is in body | Non-conforming client | Server MUST reject the request |",
		Title:        "a call whose body has the parameter but no Mcp-Param header gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.ParamHeaderOptional},
		Requirements: []string{"sep-2243-server-reject-param-mismatch", "sep-2243-server-reject-missing-required"}}
	paramAbsent = &scenarios.Check{ID: "stateless-http-custom-headers/absent-not-expected", Level: scenarios.Must, Spec: customSpec,
		Quote:        "| Parameter not in arguments | Client MUST omit the header | Server MUST NOT expect the header |",
		Title:        "calls whose parameter is absent, or null, and that carry no Mcp-Param header are not refused with -32020",
		Faults:       []*fault.Fault{server.ParamHeaderRequired},
		Requirements: []string{"sep-2243-server-not-expect-null"}}
	paramDecoded = &scenarios.Check{ID: "stateless-http-custom-headers/encoded-decoded", Level: scenarios.Must, Spec: httpSpec + "#value-encoding",
		Quote:        "Servers and intermediaries that need to inspect these values **MUST** decode them accordingly.",
		Title:        "a call whose non-ASCII parameter comes Base64-encoded (=?base64?…?=) in its Mcp-Param header matches its body: no -32020",
		Faults:       []*fault.Fault{server.ParamNotDecoded},
		Requirements: []string{"sep-2243-server-decode-base64"}}
	paramInvalidChars = &scenarios.Check{ID: "stateless-http-custom-headers/invalid-chars-refused", Level: scenarios.Must, Spec: customSpec,
		Quote:        "Servers **MUST** reject requests with a recognized `Mcp-Param-{Name}` header that contains invalid characters (see Value Encoding).",
		Title:        "a call whose Mcp-Param header carries the non-ASCII value as raw UTF-8 (not Base64-encoded) gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.ParamCharsUnchecked},
		Requirements: []string{"sep-2243-server-reject-param-mismatch", "sep-2243-server-reject-invalid-param-chars"}}
	paramBadBase64 = &scenarios.Check{ID: "stateless-http-custom-headers/invalid-base64-refused", Level: scenarios.Must, Spec: customSpec,
		Source: "seps/2243-http-standardization.md",
		Quote: "| Invalid Base64 padding    | `=?base64?SGVsbG8?=`     | Server MUST reject with 400 and error code `-32001`; " +
			"Intermediary MAY reject with 400 status code |",
		Title: "calls whose parameter is Hello and whose Mcp-Param header is =?base64?SGVsbG8?= (the padding missing) or " +
			"=?base64?SGVs!!!bG8=?= (characters outside the alphabet) each get HTTP 400 and error -32020 (the design note's table " +
			"names -32001, the page's code for a failed header validation is -32020: \"Servers **MUST** reject requests with a " +
			"`400 Bad Request` HTTP status and JSON-RPC error code `-32020` (`HeaderMismatch`) if any validation fails.\")",
		Faults:       []*fault.Fault{server.ParamBase64Lenient},
		Requirements: []string{"sep-2243-server-reject-invalid-param-chars", "sep-2243-server-reject-param-mismatch"}}
)

// Malformed Base64 of "Hello" (the design note's table): unpadded, and
// with characters outside the alphabet.
const (
	unpaddedHello = "=?base64?SGVsbG8?="
	badCharsHello = "=?base64?SGVs!!!bG8=?="
)

// nonASCIIValue needs the Base64 form in a header.
const nonASCIIValue = "Grüße aus Köln"

var customHeadersScenario = &scenarios.Scenario{
	ID:         "stateless-http-custom-headers",
	Official:   "http-custom-header-server-validation",
	Title:      "Mcp-Param headers of x-mcp-header parameters are validated",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs:      []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.XMcpHeader, "or any tool with a string property annotated x-mcp-header: the first such tool listed is used")},
	Purpose: "tools/list finds a tool with a top-level string property annotated x-mcp-header. Calls of it, sent by hand: the " +
		"right header (a precondition: any answer but -32020; a tool error is fine), a header of another value, none although the body has the value, none for an absent " +
		"and a null value, the Base64 form of a non-ASCII value, that value as raw UTF-8, and Hello in Base64 without its padding and with characters outside the alphabet.",
	Checks: []*scenarios.Check{paramMismatch, paramMissing, paramAbsent, paramDecoded, paramInvalidChars, paramBadBase64},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		tool, prop, name := findParamTool(t, s)
		raw := newRawHTTP(t, s)
		header := "Mcp-Param-" + name
		n := 0
		call := func(args map[string]any, value string, send bool) rawAnswer {
			n++
			id := jsonrpc.StringID(fmt.Sprintf("mcpconform-param-%d", n))
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodToolsCall,
				"params": map[string]any{"name": tool, "arguments": args, "_meta": s.RequestMeta()}})
			h := http.Header{transport.HeaderProtocolVersion: {t.Env.Version}, transport.HeaderMethod: {protocol.MethodToolsCall},
				transport.HeaderName: {transport.EncodeHeaderValue(tool)}}
			if send {
				h.Set(header, value)
			}
			a := raw.do(http.MethodPost, h, body, id)
			if a.err != nil {
				t.Blocked("tools/call of %s was not answered: %v", tool, a.err)
			}
			return a
		}
		refused := func(a rawAnswer) bool {
			return a.status == http.StatusBadRequest && a.answer != nil && judge.IsErrorCode(a.answer, codes.HeaderMismatch)
		}
		mismatch := func(a rawAnswer) bool { return a.answer != nil && judge.IsErrorCode(a.answer, codes.HeaderMismatch) }

		t.Step("call %s with %s: us-west1 and %s us-west1", tool, prop, header)
		if a := call(map[string]any{prop: "us-west1"}, "us-west1", true); a.answer == nil || mismatch(a) {
			if a.answer != nil && judge.IsErrorCode(a.answer, codes.UnsupportedProtocolVersion) {
				t.NotJudgedRest("the target refuses " + t.Env.Version + " itself")
			}
			t.Blocked("a call whose header matches its body was not served: %s", a)
		}
		t.Step("call %s with %s: us-west1 and %s: eu-west1", tool, prop, header)
		a := call(map[string]any{prop: "us-west1"}, "eu-west1", true)
		t.Judge(paramMismatch, refused(a), "HTTP 400 with error -32020", a.String())

		t.Step("call %s with %s: us-west1 and no %s", tool, prop, header)
		a = call(map[string]any{prop: "us-west1"}, "", false)
		t.Judge(paramMissing, refused(a), "HTTP 400 with error -32020", a.String())

		t.Step("call %s without %s, then with %s: null, neither with %s", tool, prop, prop, header)
		absent := call(map[string]any{}, "", false)
		null := call(map[string]any{prop: nil}, "", false)
		t.Judge(paramAbsent, !mismatch(absent) && !mismatch(null), "no error -32020 for either call",
			"absent: "+absent.String()+"; null: "+null.String())

		encoded := transport.EncodeHeaderValue(nonASCIIValue)
		t.Step("call %s with %s: %q and %s: %s", tool, prop, nonASCIIValue, header, encoded)
		a = call(map[string]any{prop: nonASCIIValue}, encoded, true)
		t.Judge(paramDecoded, a.answer != nil && !mismatch(a), "an answer that is not error -32020", a.String())

		t.Step("call %s with %s: %q and the raw UTF-8 in %s", tool, prop, nonASCIIValue, header)
		a = call(map[string]any{prop: nonASCIIValue}, nonASCIIValue, true)
		t.Judge(paramInvalidChars, refused(a), "HTTP 400 with error -32020", a.String())

		t.Step("call %s with %s: Hello and %s: %s, then %s", tool, prop, header, unpaddedHello, badCharsHello)
		unpadded := call(map[string]any{prop: "Hello"}, unpaddedHello, true)
		badChars := call(map[string]any{prop: "Hello"}, badCharsHello, true)
		t.Judge(paramBadBase64, refused(unpadded) && refused(badChars), "HTTP 400 with error -32020 for each",
			"unpadded: "+unpadded.String()+"; outside the alphabet: "+badChars.String())
	}),
}

// findParamTool is the first listed tool with a top-level string property
// annotated x-mcp-header: the tool, the property and the header's name.
func findParamTool(t *serverside.T, s *client.Session) (tool, prop, name string) {
	t.Step("list tools to find one with an x-mcp-header string parameter")
	pages, err := listPages(t, s, protocol.MethodToolsList)
	if err != nil && len(pages) == 0 {
		t.SkipRest("tools/list could not be read: " + err.Error())
	}
	for _, p := range pages {
		var r protocol.ToolsPage
		_ = json.Unmarshal(p.result, &r)
		for _, tl := range r.Tools {
			// The input schema is the tool author's JSON Schema, which no
			// MCP schema types; x-mcp-header is an annotation inside it.
			var schema struct {
				Properties map[string]struct {
					Type   any    `json:"type"`
					Header string `json:"x-mcp-header"`
				} `json:"properties"`
			}
			_ = json.Unmarshal(tl.InputSchema, &schema)
			for prop, sc := range schema.Properties {
				if sc.Header != "" && sc.Type == "string" {
					return tl.Name, prop, sc.Header
				}
			}
		}
	}
	t.SkipRest("the target lists no tool with a string property annotated x-mcp-header")
	return "", "", ""
}

var toolHeadersValid = &scenarios.Check{ID: "stateless-tool-headers/annotations-valid", Level: scenarios.Must, Spec: "2026-07-28/server/tools.mdx#x-mcp-header",
	Quote: "**Constraints on `x-mcp-header` values:**",
	Title: "every x-mcp-header annotation of every listed tool keeps the constraints: not empty, an HTTP token, unique " +
		"case-insensitively in its inputSchema, on an integer, string or boolean property statically reachable from the root",
	Faults: []*fault.Fault{server.InvalidXMcpHeader},
	Requirements: []string{"sep-2243-x-mcp-header-not-empty", "sep-2243-x-mcp-header-charset", "sep-2243-x-mcp-header-unique",
		"sep-2243-x-mcp-header-primitive-only"}}

var toolHeadersScenario = &scenarios.Scenario{
	ID:       "stateless-tool-headers",
	Title:    "x-mcp-header annotations of the listed tools are valid",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsCapability("tools")},
	Purpose: "Every page of tools/list is read and each tool's inputSchema walked as a client over Streamable HTTP does " +
		"before it mirrors parameters (a tool that breaks a constraint is dropped by such a client).",
	Checks: []*scenarios.Check{toolHeadersValid},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		pages, err := listPages(t, s, protocol.MethodToolsList)
		if err != nil && len(pages) == 0 {
			t.Blocked("%v", err)
		}
		var bad []string
		annotated := 0
		for _, p := range pages {
			var r protocol.ToolsPage
			_ = json.Unmarshal(p.result, &r)
			for _, tl := range r.Tools {
				ok, violations := transport.ToolParamHeaders(tl.InputSchema)
				annotated += len(ok) + len(violations)
				for _, v := range violations {
					bad = append(bad, tl.Name+": "+v.String())
				}
			}
		}
		if annotated == 0 {
			t.SkipRest("no listed tool carries an x-mcp-header annotation")
		}
		t.Judge(toolHeadersValid, len(bad) == 0, "every annotation within the constraints", strings.Join(bad, "; "))
	}),
}
