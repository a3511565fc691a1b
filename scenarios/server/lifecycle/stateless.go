package lifecycle

import (
	"encoding/json"
	"fmt"
	"net/http"

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

// 2026-07-28: stateless requests with per-request _meta, server/discover and
// the -32020/-32021/-32022 errors (scenarios.md S6).

const (
	discoverSpec   = "2026-07-28/server/discover.mdx"
	versioningSpec = "2026-07-28/basic/versioning.mdx#protocol-version-negotiation"
	metaSpec       = "2026-07-28/basic/index.mdx#meta"
)

var (
	unsupportedVersionError32022 = &scenarios.Check{ID: "lifecycle-unsupported-version/error-32022", Level: scenarios.Must, Spec: versioningSpec,
		Title:  "a request declaring version 1900-01-01 is answered with -32022, data.supported and data.requested (over HTTP with status 400)",
		Faults: []*fault.Fault{server.UnsupportedVersionWrongCode}}
)

var unsupportedVersionScenario = &scenarios.Scenario{
	ID:       "lifecycle-unsupported-version",
	Title:    "a request at an unknown version gets UnsupportedProtocolVersionError",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateless(),
	Checks:   []*scenarios.Check{unsupportedVersionError32022},
	Run: serverside.Body(func(t *serverside.T) {
		const bogus = "1900-01-01"
		s := t.Connect("A", client.Options{})
		t.Step("send server/discover declaring protocol version %s", bogus)
		id := jsonrpc.StringID("mcpconform-version-1")
		resp, err := t.Do(s, client.Call{
			ID: id, Method: protocol.MethodServerDiscover, Params: map[string]any{},
			Meta:   map[string]any{protocol.MetaProtocolVersion: bogus},
			Header: http.Header{"MCP-Protocol-Version": {bogus}},
		})
		judgeModernError(t, s, unsupportedVersionError32022, id, resp, err, codes.UnsupportedProtocolVersion,
			"data.supported (non-empty) and data.requested \""+bogus+"\"", func(data json.RawMessage) bool {
				var d struct {
					Supported []string `json:"supported"`
					Requested string   `json:"requested"`
				}
				return json.Unmarshal(data, &d) == nil && len(d.Supported) > 0 && d.Requested == bogus
			})
	}),
}

var (
	missingMetaInvalidParams = &scenarios.Check{ID: "lifecycle-missing-meta/invalid-params", Level: scenarios.Must, Spec: metaSpec,
		Title:  "a request missing io.modelcontextprotocol/clientCapabilities is rejected with -32602 (over HTTP with status 400)",
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
			Meta: map[string]any{protocol.MetaProtocolVersion: t.Env.Version, protocol.MetaClientInfo: client.DefaultClientInfo},
		})
		judgeModernError(t, s, missingMetaInvalidParams, id, resp, err, codes.InvalidParams, "", nil)
	}),
}

var (
	missingCapabilityError32021 = &scenarios.Check{ID: "lifecycle-missing-capability/error-32021", Level: scenarios.Must, Spec: metaSpec,
		Title:  "calling a tool that needs sampling, declaring no capabilities, gives -32021 with data.requiredCapabilities (over HTTP with status 400)",
		Faults: []*fault.Fault{server.MissingCapabilityWrongCode}}
)

var missingCapabilityScenario = &scenarios.Scenario{
	ID:       "lifecycle-missing-capability",
	Title:    "a tool needing an undeclared client capability gets -32021",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateless(),
	Needs:    []string{"tool test_missing_capability (needs the client's sampling capability)"},
	Checks:   []*scenarios.Check{missingCapabilityError32021},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{Capabilities: map[string]any{}})
		tool := t.RequireTool(s, "test_missing_capability", nil).Tool
		t.Step("call %s declaring no client capabilities", tool)
		id := jsonrpc.StringID("mcpconform-capability-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsCall,
			Params: map[string]any{"name": tool, "arguments": map[string]any{}}})
		judgeModernError(t, s, missingCapabilityError32021, id, resp, err, codes.MissingRequiredClientCapability,
			"data.requiredCapabilities", func(data json.RawMessage) bool {
				var d struct {
					Required map[string]any `json:"requiredCapabilities"`
				}
				return json.Unmarshal(data, &d) == nil && len(d.Required) > 0
			})
	}),
}

var (
	headerMismatchError32020 = &scenarios.Check{ID: "lifecycle-header-mismatch/error-32020", Level: scenarios.Must, Spec: "2026-07-28/basic/transports/streamable-http.mdx#server-validation",
		Title:  "a tools/list POST with Mcp-Method: prompts/list is rejected with HTTP 400 and error -32020",
		Faults: []*fault.Fault{server.HeaderMismatchAccepted}}
)

var headerMismatchScenario = &scenarios.Scenario{
	ID:         "lifecycle-header-mismatch",
	Title:      "an Mcp-Method header that contradicts the body gets HeaderMismatch",
	Family:     "lifecycle",
	Side:       scenarios.ServerSide,
	Versions:   protocol.JudgedStateless(),
	Transports: []transport.Kind{transport.HTTP},
	Checks:     []*scenarios.Check{headerMismatchError32020},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list with the header Mcp-Method: prompts/list")
		id := jsonrpc.StringID("mcpconform-header-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsList, Params: map[string]any{},
			Header: http.Header{"Mcp-Method": {protocol.MethodPromptsList}}})
		status, note := serverside.StatusNote(s, id)
		ok := err == nil && judge.IsErrorCode(resp, codes.HeaderMismatch) && status == http.StatusBadRequest
		t.Judge(headerMismatchError32020, ok, "HTTP 400 with error -32020", judge.Describe(resp, err)+note)
	}),
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
