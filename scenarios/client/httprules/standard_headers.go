package httprules

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// The official http-standard-headers fixtures.
const (
	hyphenatedTool = "my-hyphenated-tool"
	spacedResource = "file:///path/to/file%20name.txt"
	queryResource  = "https://example.com/resource?id=123"
	// unicodePrompt is mcpconform's: a name outside the header-safe set,
	// which Mcp-Name carries Base64-encoded.
	unicodePrompt = "test_prompt_世界"
)

var (
	standardMethod = &scenarios.Check{ID: "client-http-standard-headers/mcp-method", Level: scenarios.Must, Spec: httpSpec + "#sending-messages",
		Title:        "every POST of a request carries Mcp-Method equal to the body's method (header values are case-sensitive)",
		Quote:        "The client MUST include the request metadata headers on each POST request.",
		Faults:       []*fault.Fault{client.McpMethodUppercase},
		Liberties:    []*fault.Fault{client.LowercaseHeaderNames},
		Requirements: []string{"sep-2243-client-includes-standard-headers"}}
	standardName = &scenarios.Check{ID: "client-http-standard-headers/mcp-name", Level: scenarios.Must, Spec: httpSpec + "#standard-request-headers",
		Title:        "tools/call and prompts/get carry Mcp-Name equal to params.name, resources/read to params.uri (after decoding a =?base64?…?= value)",
		Quote:        "These headers are REQUIRED for compliance.",
		Faults:       []*fault.Fault{client.NoMcpName},
		Liberties:    []*fault.Fault{client.LowercaseHeaderNames},
		Requirements: []string{"sep-2243-client-includes-standard-headers"}}
	standardNameEncoded = &scenarios.Check{ID: "client-http-standard-headers/mcp-name-encoded", Level: scenarios.Must, Spec: httpSpec + "#standard-request-headers",
		Title:        "an Mcp-Name whose name is not a safe plain header value (the prompt " + unicodePrompt + ") is sent as =?base64?…?= (not in the official suite)",
		Quote:        "If the Mcp-Name source value cannot be safely represented as a plain ASCII header value, clients MUST encode it using the Base64 sentinel format described in Value Encoding.",
		Faults:       []*fault.Fault{client.McpNameRaw},
		Requirements: []string{"sep-2243-client-includes-standard-headers"}}
)

var standardHeadersScenario = &scenarios.Scenario{
	ID:         "client-http-standard-headers",
	Official:   "http-standard-headers",
	Title:      "the standard request headers of 2026-07-28: Mcp-Method on every request, Mcp-Name on tools/call, resources/read and prompts/get",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientHeaders, "the client calls it, as every tool the fake server lists"),
		scenarios.NeedsFixture(fixtures.ClientHeadersPrompt, "the client gets it, as every prompt the fake server lists"),
		scenarios.NeedsOther("the client also calls " + hyphenatedTool + " and reads the resources the fake server lists")},
	Purpose: "The fake server offers the official scenario's tools " + fixtures.ClientHeaders + " and " + hyphenatedTool + ", resources " +
		spacedResource + " and " + queryResource + ", and prompt " + fixtures.ClientHeadersPrompt + ". Every request's Mcp-Method is judged, " +
		"and the Mcp-Name of each tools/call, resources/read and prompts/get the client makes.",
	Checks: []*scenarios.Check{standardMethod, standardName, standardNameEncoded},
	Run: clientside.Body(func(t *clientside.T) {
		resources := []any{
			map[string]any{"uri": spacedResource, "name": "File with spaces"},
			map[string]any{"uri": queryResource, "name": "Resource with query string"},
		}
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{
				{Name: fixtures.ClientHeaders, Description: "answers at once"},
				{Name: hyphenatedTool, Description: "a name with hyphens"},
			},
			Prompts: []clientside.Prompt{{Name: fixtures.ClientHeadersPrompt, Get: noMessages}, {Name: unicodePrompt, Get: noMessages}},
			Handlers: map[string]server.Handler{
				protocol.MethodResourcesList: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
					return map[string]any{"resources": resources}, nil
				},
				protocol.MethodResourcesRead: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					return map[string]any{"contents": []any{}}, nil
				},
			},
			Capabilities: map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "resources": map[string]any{}},
		})
		t.Step("wait for the client to call both tools, read both resources and get the prompt")
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.Requests(r, protocol.MethodToolsCall, fixtures.ClientHeaders)) > 0 &&
				len(clientside.Requests(r, protocol.MethodToolsCall, hyphenatedTool)) > 0 &&
				len(clientside.Requests(r, protocol.MethodResourcesRead, spacedResource)) > 0 &&
				len(clientside.Requests(r, protocol.MethodResourcesRead, queryResource)) > 0 &&
				len(clientside.Requests(r, protocol.MethodPromptsGet, fixtures.ClientHeadersPrompt)) > 0
		})
		reqs := requests(t.Log().Entries())
		if len(reqs) == 0 {
			t.Missed("a request", out)
		}
		var wrong []string
		for _, r := range reqs {
			if h, ok := header(r, transport.HeaderMethod); !ok {
				wrong = append(wrong, describe(r)+": no Mcp-Method")
			} else if h != r.Msg.Method {
				wrong = append(wrong, fmt.Sprintf("%s: Mcp-Method %q", describe(r), h))
			}
		}
		t.Judge(standardMethod, len(wrong) == 0, "Mcp-Method equal to the method on every request", listed(wrong))

		named := map[string]string{protocol.MethodToolsCall: "name", protocol.MethodPromptsGet: "name", protocol.MethodResourcesRead: "uri"}
		wrong = nil
		seen := map[string]bool{}
		for _, r := range reqs {
			field, ok := named[r.Msg.Method]
			if !ok {
				continue
			}
			seen[r.Msg.Method] = true
			var params map[string]json.RawMessage
			_ = json.Unmarshal(r.Msg.Params, &params)
			var want string
			_ = json.Unmarshal(params[field], &want)
			h, present := header(r, transport.HeaderName)
			decoded, valid := transport.DecodeHeaderValue(h)
			switch {
			case !present:
				wrong = append(wrong, describe(r)+": no Mcp-Name")
			case !valid:
				wrong = append(wrong, fmt.Sprintf("%s: Mcp-Name %q is a malformed =?base64?…?= value", describe(r), h))
			case decoded != want:
				wrong = append(wrong, fmt.Sprintf("%s: Mcp-Name %q, params.%s %q", describe(r), h, field, want))
			}
		}
		var raw []string
		encoded := 0
		for _, r := range clientside.Requests(reqs, protocol.MethodPromptsGet, unicodePrompt) {
			encoded++
			if h, ok := header(r, transport.HeaderName); ok && !strings.HasPrefix(h, "=?base64?") {
				raw = append(raw, fmt.Sprintf("%s: Mcp-Name %q", describe(r), h))
			}
		}
		if encoded == 0 {
			t.Skip(standardNameEncoded, "the client did not get the prompt "+unicodePrompt)
		} else {
			// A missing or wrong Mcp-Name is mcp-name's failure.
			t.Judge(standardNameEncoded, len(raw) == 0, "Mcp-Name =?base64?"+base64.StdEncoding.EncodeToString([]byte(unicodePrompt))+"?=", listed(raw))
		}

		var unexercised []string
		for _, m := range []string{protocol.MethodToolsCall, protocol.MethodResourcesRead, protocol.MethodPromptsGet} {
			if !seen[m] {
				unexercised = append(unexercised, m)
			}
		}
		switch {
		case len(seen) == 0:
			t.Missed("a tools/call, resources/read or prompts/get", out)
		case len(wrong) > 0:
			t.Fail(standardName, "Mcp-Name equal to the name or URI of every tools/call, resources/read and prompts/get", listed(wrong))
		case len(unexercised) > 0:
			t.PassWith(standardName, fmt.Sprintf("the client made no %v: those were not judged", unexercised))
		default:
			t.Pass(standardName)
		}
	}),
}

func noMessages(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
	return map[string]any{"messages": []any{}}, nil
}
