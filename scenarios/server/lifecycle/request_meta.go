package lifecycle

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// 2026-07-28: which _meta fields of a request are required
// (basic/index.mdx#meta), probed with server/discover as the official
// server-stateless scenario does, and the id its refusals carry.

const malformedMeta = "A request missing any required field is malformed; the server **MUST** reject it with JSON-RPC error code " +
	"`-32602` (Invalid params). On HTTP, the response status **MUST** be `400 Bad Request`."

var (
	requestMetaNoVersion = &scenarios.Check{ID: "lifecycle-request-meta/no-protocol-version", Level: scenarios.Must, Spec: metaSpec,
		Quote: malformedMeta,
		Title: "server/discover with no _meta at all, and with a _meta that has clientInfo and clientCapabilities but no " +
			"protocolVersion, are each refused with -32602 (over HTTP, where MCP-Protocol-Version names 2026-07-28, with status " +
			"400); over stdio and WebSocket, where nothing else marks the request as 2026-07-28, a dual-era server's -32601 also passes",
		Faults:    []*fault.Fault{server.DiscoverWithoutVersionServed},
		Liberties: []*fault.Fault{server.DiscoverWithoutVersionLegacy}}
	requestMetaNoCapabilities = &scenarios.Check{ID: "lifecycle-request-meta/no-client-capabilities", Level: scenarios.Must, Spec: metaSpec,
		Quote:  malformedMeta,
		Title:  "server/discover whose _meta has protocolVersion and clientInfo but no clientCapabilities is refused with -32602 (over HTTP with status 400)",
		Faults: []*fault.Fault{server.MissingMetaAccepted}}
	requestMetaClientInfoOptional = &scenarios.Check{ID: "lifecycle-request-meta/client-info-optional", Level: scenarios.Must, Spec: metaSpec,
		Quote: "Client requests carry the following `io.modelcontextprotocol/*` fields in `_meta`; fields marked as required " +
			"**MUST** be included on every request.",
		Title: "server/discover whose _meta has protocolVersion and clientCapabilities but no clientInfo (the table marks it " +
			"not required; clients SHOULD send it) is served with a DiscoverResult (over HTTP with status 200)",
		Faults: []*fault.Fault{server.ClientInfoRequired}}
	requestMetaErrorID = &scenarios.Check{ID: "lifecycle-request-meta/error-id", Level: scenarios.Must, Spec: "2026-07-28/basic/index.mdx#error-responses",
		Quote: "Error responses **MUST** include the same ID as the request they correspond to (except in error cases where the " +
			"ID could not be read due a malformed request).",
		Title:  "each refusal of these probes (a well-formed request whose id is readable) carries the probe's id",
		Faults: []*fault.Fault{server.MetaRefusalWithoutID}}
)

var requestMetaScenario = &scenarios.Scenario{
	ID:       "lifecycle-request-meta",
	Title:    "which _meta fields a request needs, and the id of their refusal",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateless(),
	Purpose: "server/discover, which every 2026-07-28 server implements, is sent without _meta, without protocolVersion, without " +
		"clientCapabilities (refusals: -32602) and without clientInfo (served). Each is sent as a raw frame and its answer is the " +
		"first response after it, whatever its id, so that the id of a refusal can be judged. Over stdio and WebSocket a request " +
		"with no protocolVersion carries nothing that makes it a 2026-07-28 request, and a dual-era server may take it for a " +
		"legacy client's (versioning.mdx, Backward Compatibility): -32601 passes there too.",
	Checks: []*scenarios.Check{requestMetaNoVersion, requestMetaNoCapabilities, requestMetaClientInfoOptional, requestMetaErrorID},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		meta := s.RequestMeta()
		without := func(key string) map[string]any {
			m := map[string]any{}
			for k, v := range meta {
				if k != key {
					m[k] = v
				}
			}
			return m
		}
		legacyAllowed := t.Env.Transport != transport.HTTP
		var badIDs []string
		refusals := 0
		probe := func(n int, what string, params map[string]any, deliberate bool) (*jsonrpc.Message, int, string) {
			id := jsonrpc.StringID(fmt.Sprintf("mcpconform-request-meta-%d", n))
			t.Step("send server/discover %s", what)
			resp, err := firstAnswer(t, s, id, params, deliberate)
			status, note := serverside.StatusNote(s, id)
			if err == nil && resp.Error != nil {
				refusals++
				if !sameID(resp.ID, id) {
					badIDs = append(badIDs, fmt.Sprintf("%s: id %s", what, orNone(resp.ID)))
				}
			}
			if err != nil {
				return nil, status, judge.Describe(resp, err) + note
			}
			return resp, status, judge.Describe(resp, err) + note
		}

		resp, status, got := probe(1, "with _meta but no "+protocol.MetaClientCapabilities,
			map[string]any{"_meta": without(protocol.MetaClientCapabilities)}, true)
		skipIfVersionRefused(t, resp, nil)
		t.Judge(requestMetaNoCapabilities, judge.IsErrorCode(resp, codes.InvalidParams) && (status == 0 || status == http.StatusBadRequest),
			"error -32602 (over HTTP with status 400)", got)

		resp, status, got = probe(2, "with _meta but no "+protocol.MetaClientInfo,
			map[string]any{"_meta": without(protocol.MetaClientInfo)}, false)
		t.Judge(requestMetaClientInfoOptional, resp != nil && resp.Error == nil && resp.Result != nil && (status == 0 || status == http.StatusOK),
			"a DiscoverResult (over HTTP with status 200)", got)

		resp, status, got = probe(3, "with params {} (no _meta)", map[string]any{}, true)
		resp2, status2, got2 := probe(4, "with _meta but no "+protocol.MetaProtocolVersion,
			map[string]any{"_meta": without(protocol.MetaProtocolVersion)}, true)
		refused := func(resp *jsonrpc.Message, status int) bool {
			if judge.IsErrorCode(resp, codes.InvalidParams) {
				return status == 0 || status == http.StatusBadRequest
			}
			return legacyAllowed && judge.IsErrorCode(resp, codes.MethodNotFound)
		}
		want := "error -32602 (over HTTP with status 400)"
		if legacyAllowed {
			want = "error -32602, or -32601 as a dual-era server's answer to a legacy request"
		}
		t.Judge(requestMetaNoVersion, refused(resp, status) && refused(resp2, status2), want+", for each",
			"no _meta: "+got+"; no protocolVersion: "+got2)

		if refusals == 0 {
			t.NotJudged(requestMetaErrorID, "no probe was refused with a JSON-RPC error")
			return
		}
		t.Judge(requestMetaErrorID, len(badIDs) == 0, fmt.Sprintf("each of the %d refusals with its request's id", refusals),
			strings.Join(badIDs, "; "))
	}),
}

// firstAnswer sends server/discover with params as a raw frame (marked as
// invalid on purpose where deliberate) and returns the first response that
// follows it, whatever its id: a refusal that lost the id is still an answer.
func firstAnswer(t *serverside.T, s *client.Session, id jsonrpc.ID, params map[string]any, deliberate bool) (*jsonrpc.Message, error) {
	req, err := jsonrpc.NewRequest(id, protocol.MethodServerDiscover, params)
	if err != nil {
		t.Abort("%v", err)
	}
	frame, err := req.Encode()
	if err != nil {
		t.Abort("%v", err)
	}
	mark := s.Inbox().Mark()
	ctx, cancel := t.Wait()
	defer cancel()
	sendCtx := ctx
	if deliberate {
		sendCtx = t.Deliberately(ctx, "server/discover without a required _meta field")
	}
	if err := s.SendRaw(sendCtx, frame); err != nil {
		var hs *transport.HTTPStatusError
		if !errors.As(err, &hs) {
			return nil, err
		}
		if m, derr := jsonrpc.Decode([]byte(hs.Body)); derr != nil || !isResponse(m) {
			return nil, err
		}
		// A refusal whose body answers no id: the transport reports it,
		// and delivers the body too; it is taken from the inbox so that
		// the next probe's wait does not meet it.
	}
	return s.Inbox().WaitFrom(ctx, mark, isResponse)
}

func orNone(id jsonrpc.ID) string {
	if id.IsZero() {
		return "absent"
	}
	return id.String()
}
