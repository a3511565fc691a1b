package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

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

// 2026-07-28: stateless requests with per-request _meta, server/discover and
// the -32020/-32021/-32022 errors (scenarios.md S6).

const (
	discoverSpec   = "2026-07-28/server/discover.mdx"
	versioningSpec = "2026-07-28/basic/versioning.mdx#protocol-version-negotiation"
	metaSpec       = "2026-07-28/basic/index.mdx#meta"
)

var (
	unsupportedVersionError32022 = &scenarios.Check{ID: "lifecycle-unsupported-version/error-32022", Level: scenarios.Must, Spec: versioningSpec,
		Quote: "If the server does not implement the requested version (whether the version is unknown to the server, or is a known " +
			"version the server has chosen not to support), it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support",
		Title: "a list request the server offers (not server/discover, which a stdio probe may see answered for any version), " +
			"declaring version 1900-01-01, is answered with -32022, data.supported and data.requested (over HTTP with status 400)",
		Faults:       []*fault.Fault{server.UnsupportedVersionWrongCode},
		Liberties:    []*fault.Fault{server.DiscoverAnyVersion},
		Requirements: []string{"sep-2575-server-unsupported-version-error", "sep-2575-http-server-unsupported-version-400"}}
)

// probeMethods are requests a server that declares the capability must
// refuse at an unsupported version, in order of preference.
var probeMethods = []struct{ capability, method string }{
	{"tools", protocol.MethodToolsList},
	{"prompts", protocol.MethodPromptsList},
	{"resources", protocol.MethodResourcesList},
}

var unsupportedVersionScenario = &scenarios.Scenario{
	ID:       "lifecycle-unsupported-version",
	Title:    "a request at an unknown version gets UnsupportedProtocolVersionError",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateless(),
	Purpose: "server/discover at the judged version names the server's capabilities; a list request of one of them is sent at the " +
		"judged version (a server that refuses that version itself is not judged), then declaring 1900-01-01. server/discover itself is no probe: stdio.mdx's backward-compatibility probe expects a DiscoverResult " +
		"from a modern server whatever version the client prefers, so a server may answer it at any version.",
	Checks: []*scenarios.Check{unsupportedVersionError32022},
	Run: serverside.Body(func(t *serverside.T) {
		const bogus = "1900-01-01"
		s := t.Open("A", client.Options{})
		method := ""
		for _, p := range probeMethods {
			if s.HasCapability(p.capability) {
				method = p.method
				break
			}
		}
		if method == "" {
			t.SkipRest("the server declares none of tools, prompts and resources, so no request but server/discover is sure to exist, " +
				"and server/discover may be answered at any version (stdio.mdx, Backward Compatibility)")
		}
		t.Step("send %s at %s", method, t.Env.Version)
		resp, err := t.Request(s, method, map[string]any{})
		skipIfVersionRefused(t, resp, err)
		t.Step("send %s declaring protocol version %s", method, bogus)
		id := jsonrpc.StringID("mcpconform-version-1")
		meta := s.RequestMeta()
		meta[protocol.MetaProtocolVersion] = bogus
		// Sent raw: whatever answers a request at another version is not
		// held to the session version's schema (wire-schema), only to this check.
		resp, err = rawRequest(t, s, id, method, map[string]any{"_meta": meta}, http.Header{"MCP-Protocol-Version": {bogus}})
		judgeModernError(t, s, unsupportedVersionError32022, id, resp, err, codes.UnsupportedProtocolVersion,
			"data.supported (non-empty) and data.requested \""+bogus+"\"", func(data json.RawMessage) bool {
				var d protocol.UnsupportedVersionData
				return json.Unmarshal(data, &d) == nil && len(d.Supported) > 0 && d.Requested == bogus
			})
	}),
}

var (
	missingMetaInvalidParams = &scenarios.Check{ID: "lifecycle-missing-meta/invalid-params", Level: scenarios.Must, Spec: metaSpec,
		Quote: "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params).",
		Title: "a request missing io.modelcontextprotocol/clientCapabilities is rejected with -32602 (over HTTP with status 400); " +
			"not judged when the server refuses the version itself (-32022)",
		Faults: []*fault.Fault{server.MissingMetaAccepted}}
)

var missingMetaScenario = &scenarios.Scenario{
	ID:       "lifecycle-missing-meta",
	Title:    "a request without the required _meta fields is rejected",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateless(),
	Purpose:  "clientCapabilities is left out (protocolVersion stays, so no header/body mismatch muddles the verdict).",
	Checks:   []*scenarios.Check{missingMetaInvalidParams},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list without io.modelcontextprotocol/clientCapabilities")
		id := jsonrpc.StringID("mcpconform-meta-1")
		resp, err := t.Do(s, client.Call{
			ID: id, Method: protocol.MethodToolsList, Params: map[string]any{}, NoMeta: true,
			Meta:      map[string]any{protocol.MetaProtocolVersion: t.Env.Version, protocol.MetaClientInfo: client.DefaultClientInfo},
			Deviation: t.Deviation("_meta without " + protocol.MetaClientCapabilities),
		})
		skipIfVersionRefused(t, resp, err)
		judgeModernError(t, s, missingMetaInvalidParams, id, resp, err, codes.InvalidParams, "", nil)
	}),
}

var (
	missingCapabilityError32021 = &scenarios.Check{ID: "lifecycle-missing-capability/error-32021", Level: scenarios.Must, Spec: metaSpec,
		Quote: "If processing a request requires a capability the client did not include in io.modelcontextprotocol/clientCapabilities, " +
			"the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities.",
		Title:        "calling a tool that needs sampling, declaring no capabilities, gives -32021 with data.requiredCapabilities (over HTTP with status 400)",
		Faults:       []*fault.Fault{server.MissingCapabilityWrongCode},
		Requirements: []string{"sep-2575-server-rejects-undeclared-capability", "sep-2575-missing-capability-http-400"}}
)

var missingCapabilityScenario = &scenarios.Scenario{
	ID:       "lifecycle-missing-capability",
	Title:    "a tool needing an undeclared client capability gets -32021",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateless(),
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.MissingCapability, "needs the client's sampling capability")},
	Checks:   []*scenarios.Check{missingCapabilityError32021},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{Capabilities: map[string]any{}})
		tool := t.RequireTool(s, fixtures.MissingCapability, nil).Tool
		t.Step("call %s declaring no client capabilities", tool)
		id := jsonrpc.StringID("mcpconform-capability-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsCall,
			Params: map[string]any{"name": tool, "arguments": map[string]any{}}})
		skipIfVersionRefused(t, resp, err)
		judgeModernError(t, s, missingCapabilityError32021, id, resp, err, codes.MissingRequiredClientCapability,
			"data.requiredCapabilities", func(data json.RawMessage) bool {
				var d protocol.MissingCapabilityData
				return json.Unmarshal(data, &d) == nil && len(d.RequiredCapabilities) > 0
			})
	}),
}

var (
	headerMismatchError32020 = &scenarios.Check{ID: "lifecycle-header-mismatch/error-32020", Level: scenarios.Must, Spec: "2026-07-28/basic/transports/streamable-http.mdx#server-validation",
		Quote: "When rejecting a request due to header validation failure, servers MUST return HTTP status 400 Bad Request and MUST include " +
			"a JSON-RPC error response using the following error code:",
		Title: "a tools/list POST with Mcp-Method: prompts/list is rejected with HTTP 400 and error -32020; not judged when the server " +
			"refuses the version itself (-32022)",
		Faults:       []*fault.Fault{server.HeaderMismatchAccepted},
		Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}
	headerMismatchProtocolVersion = &scenarios.Check{ID: "lifecycle-header-mismatch/protocol-version", Level: scenarios.Must,
		Spec: "2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header",
		Quote: "If the values do not match, the server **MUST** reject the request with `400 Bad Request` and a `HeaderMismatch` " +
			"JSON-RPC error",
		Title: "a server/discover whose _meta declares the judged version, sent with MCP-Protocol-Version: " + bogusHeaderVersion +
			", is rejected with HTTP 400 and a JSON-RPC error: -32020 (HeaderMismatch), or -32022 (UnsupportedProtocolVersionError) " +
			"where the server takes the header's version, which it does not implement, for the requested one",
		Faults:       []*fault.Fault{server.VersionHeaderUnchecked},
		Liberties:    []*fault.Fault{server.VersionHeaderUnsupportedFirst},
		Requirements: []string{"sep-2575-http-server-header-mismatch-400"}}
)

// bogusHeaderVersion is the MCP-Protocol-Version that contradicts the body.
const bogusHeaderVersion = "1900-01-01"

var headerMismatchScenario = &scenarios.Scenario{
	ID:         "lifecycle-header-mismatch",
	Title:      "an Mcp-Method header that contradicts the body gets HeaderMismatch",
	Family:     "lifecycle",
	Side:       scenarios.ServerSide,
	Versions:   protocol.JudgedStateless(),
	Transports: []transport.Kind{transport.HTTP},
	Purpose: "Two POSTs whose headers contradict the body: Mcp-Method, then MCP-Protocol-Version. The version probe puts the " +
		"version the server serves in _meta (the body is what the header mirrors) and another in the header, so that only the " +
		"mismatch or the header's own version can refuse it: a server may take the header's version, which it does not " +
		"implement, for the requested one and answer UnsupportedProtocolVersionError, as the page orders neither refusal before " +
		"the other (the official suite puts an unknown version in _meta instead, with the same two readings).",
	Checks: []*scenarios.Check{headerMismatchError32020, headerMismatchProtocolVersion},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list with the header Mcp-Method: prompts/list")
		id := jsonrpc.StringID("mcpconform-header-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsList, Params: map[string]any{},
			Header: http.Header{"Mcp-Method": {protocol.MethodPromptsList}}})
		skipIfVersionRefused(t, resp, err)
		status, note := serverside.StatusNote(s, id)
		ok := err == nil && judge.IsErrorCode(resp, codes.HeaderMismatch) && status == http.StatusBadRequest
		t.Judge(headerMismatchError32020, ok, "HTTP 400 with error -32020", judge.Describe(resp, err)+note)

		t.Step("send server/discover at %s with the header MCP-Protocol-Version: %s", t.Env.Version, bogusHeaderVersion)
		id = jsonrpc.StringID("mcpconform-header-2")
		resp, err = t.Do(s, client.Call{ID: id, Method: protocol.MethodServerDiscover, Params: map[string]any{},
			Header: http.Header{"MCP-Protocol-Version": {bogusHeaderVersion}}})
		status, note = serverside.StatusNote(s, id)
		ok = err == nil && (judge.IsErrorCode(resp, codes.HeaderMismatch) || judge.IsErrorCode(resp, codes.UnsupportedProtocolVersion)) &&
			status == http.StatusBadRequest
		t.Judge(headerMismatchProtocolVersion, ok, "HTTP 400 with error -32020 (or -32022)", judge.Describe(resp, err)+note)
	}),
}

// headerSender is a connection that sends a frame with HTTP header
// overrides (*transport.HTTPClientConn).
type headerSender interface {
	SendWithHeaders(ctx context.Context, frame []byte, h http.Header) error
}

// rawRequest sends a request frame as built here, with header overrides
// where the transport carries headers, and waits for the response with its
// id. Its answer is not correlated by the session, so the session does not
// validate it against its version's schema.
func rawRequest(t *serverside.T, s *client.Session, id jsonrpc.ID, method string, params any, header http.Header) (*jsonrpc.Message, error) {
	req, err := jsonrpc.NewRequest(id, method, params)
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
	if hs, ok := transport.As[headerSender](s.Conn()); ok && len(header) > 0 {
		t.Transcript().Record(jsonrpc.Sent, s.Label(), frame)
		err = hs.SendWithHeaders(ctx, frame, header)
	} else {
		err = s.SendRaw(ctx, frame)
	}
	if err != nil {
		return nil, err
	}
	return s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool { return isResponse(m) && sameID(m.ID, id) })
}

// skipIfVersionRefused stops a scenario whose request declared the judged
// version and was refused with UnsupportedProtocolVersionError: a server
// that does not implement the version (go-sdk's stateful server answers
// "2026-07-28 is not supported") cannot be judged on what the version
// asks, and whether it must implement it is the handshake's verdict.
func skipIfVersionRefused(t *serverside.T, resp *jsonrpc.Message, err error) {
	if err == nil && judge.IsErrorCode(resp, codes.UnsupportedProtocolVersion) {
		t.NotJudgedRest(fmt.Sprintf("the target refuses %s itself (%s), so it cannot be judged on what %s asks",
			t.Env.Version, judge.Describe(resp, err), t.Env.Version))
	}
}

// judgeModernError judges a 2026-07-28 error: the code, what its data must
// hold, and over HTTP the 400 status the spec pairs with these errors.
func judgeModernError(t *serverside.T, s *client.Session, check *scenarios.Check, id jsonrpc.ID, resp *jsonrpc.Message, err error,
	code int, dataWant string, dataOK func(json.RawMessage) bool) {
	status, note := serverside.StatusNote(s, id)
	want := fmt.Sprintf("error %d", code)
	ok := err == nil && judge.IsErrorCode(resp, code)
	if dataOK != nil {
		want += " with " + dataWant
		ok = ok && dataOK(resp.Error.Data)
	}
	if status != 0 {
		want += " and HTTP 400"
		ok = ok && status == http.StatusBadRequest
	}
	t.Judge(check, ok, want, judge.Describe(resp, err)+note)
}
