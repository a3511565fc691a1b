package httprules

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

const mismatchRegion = "us-west1"

var mismatchRelisted = &scenarios.Check{ID: "client-http-header-mismatch/relists-and-retries", Level: scenarios.Should, Spec: httpSpec + "#client-behavior",
	Title:  "refused with -32020 for a missing Mcp-Param header, the client lists the tools again and retries the call with the header the new inputSchema asks for",
	Quote:  "If the server rejects a request with a HeaderMismatch error because required Mcp-Param-* headers are missing or do not match the body, the client SHOULD call tools/list to check for changes to the tool's inputSchema, then retry the original request with the appropriate headers.",
	Faults: []*fault.Fault{client.NoRelistOnMismatch}}

var headerMismatchScenario = &scenarios.Scenario{
	ID:         "client-http-header-mismatch",
	Title:      "a tool whose inputSchema gained an x-mcp-header since the client listed it: -32020, then tools/list and a retry",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientRegionMoved,
		"the client lists tools, then calls it as the toolCalls of $MCP_CONFORMANCE_CONTEXT say")},
	Purpose: "The fake server first lists " + fixtures.ClientRegionMoved + " with a plain region parameter; once called, its inputSchema marks region " +
		"with x-mcp-header Region, and every call without Mcp-Param-Region: " + mismatchRegion + " is refused with -32020 " +
		"HeaderMismatch (400), as a server whose tools changed refuses it.",
	Checks: []*scenarios.Check{mismatchRelisted},
	Run: clientside.Body(func(t *clientside.T) {
		var mu sync.Mutex
		annotatedNow := false
		region := map[string]any{"type": "string"}
		t.Serve(clientside.Script{
			Handlers: map[string]server.Handler{
				protocol.MethodToolsList: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
					mu.Lock()
					prop := region
					if annotatedNow {
						prop = annotated("string", "Region")
					}
					mu.Unlock()
					return map[string]any{"tools": []any{map[string]any{"name": fixtures.ClientRegionMoved, "description": "its region is routed on",
						"inputSchema": oneProperty("region", prop)}}}, nil
				},
				protocol.MethodToolsCall: func(_ context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					mu.Lock()
					annotatedNow = true
					mu.Unlock()
					if got := p.Header().Get(transport.HeaderParamPrefix + "Region"); got != mismatchRegion {
						return nil, &jsonrpc.Error{Code: codes.HeaderMismatch,
							Message: fmt.Sprintf("Header mismatch: Mcp-Param-Region %q does not match arguments.region %q", got, mismatchRegion)}
					}
					return map[string]any{"content": []any{map[string]any{"type": "text", "text": "routed"}}}, nil
				},
			},
			Context: map[string]any{"toolCalls": []any{map[string]any{"name": fixtures.ClientRegionMoved, "arguments": map[string]any{"region": mismatchRegion}}}},
		})
		t.Step("wait for the client's call of %s, refused with -32020, and what it does next", fixtures.ClientRegionMoved)
		done := func(r []clientside.Received) bool {
			calls := clientside.ToolCalls(r, fixtures.ClientRegionMoved)
			return len(calls) > 0 && headerOK(calls[len(calls)-1])
		}
		out := t.Settle(done)
		entries := t.Log().Entries()
		calls := clientside.ToolCalls(entries, fixtures.ClientRegionMoved)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientRegionMoved, out)
		}
		if headerOK(calls[0]) {
			// A client that read the schema anew before its first call (or
			// listed after the change) was never refused: nothing to judge.
			t.Skip(mismatchRelisted, "the client's first call already carried Mcp-Param-Region: it was not refused")
			return
		}
		// After the refusal: a tools/list, then a call with the header.
		relisted, retried := false, false
		var next []string
		for _, r := range entries {
			if !r.At.After(calls[0].At) || !r.Msg.IsRequest() {
				continue
			}
			next = append(next, describe(r))
			switch {
			case r.Msg.Method == protocol.MethodToolsList:
				relisted = true
			case relisted && r.Msg.Method == protocol.MethodToolsCall && clientside.ReadCall(r.Msg).Name == fixtures.ClientRegionMoved && headerOK(r):
				retried = true
			}
		}
		actual := "after the refusal: " + strings.Join(next, ", ")
		if len(next) == 0 {
			actual = "no request after the refusal; " + t.DescribeEnd(out)
		}
		t.Judge(mismatchRelisted, retried, "tools/list, then "+fixtures.ClientRegionMoved+" again with Mcp-Param-Region: "+mismatchRegion, actual)
	}),
}

func headerOK(r clientside.Received) bool {
	h, _ := header(r, transport.HeaderParamPrefix+"Region")
	return h == mismatchRegion
}
