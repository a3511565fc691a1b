package scenarios

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// 2026-07-28: stateless requests with per-request _meta, server/discover and
// the -32020/-32021/-32022 errors (scenarios.md S6).

func init() {
	Register(
		discoverScenario,
		unsupportedVersionScenario,
		missingMetaScenario,
		missingCapabilityScenario,
		headerMismatchScenario,
	)
}

const (
	discoverSpec   = "2026-07-28/server/discover.mdx"
	versioningSpec = "2026-07-28/basic/versioning.mdx#protocol-version-negotiation"
	metaSpec       = "2026-07-28/basic/index.mdx#meta"
)

var discoverScenario = &Scenario{
	ID:       "lifecycle-discover",
	Title:    "server/discover describes the server",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: modernVersions,
	Checks: []Check{
		{ID: "lifecycle-discover/result-schema", Level: Must, Spec: discoverSpec + "#response",
			Title: "servers MUST implement server/discover; its result validates against DiscoverResult (resultType, supportedVersions, capabilities)"},
		{ID: "lifecycle-discover/server-info", Level: Should, Spec: discoverSpec + "#discoverresult",
			Title: "the result carries _meta[\"io.modelcontextprotocol/serverInfo\"] with name and version"},
	},
	Run: func(t *T) {
		s := t.Connect("A", client.Options{})
		t.Step("send server/discover")
		resp, err := t.Request(s, protocol.MethodServerDiscover, map[string]any{})
		if err != nil || resp.Error != nil {
			t.Fail("lifecycle-discover/result-schema", "a DiscoverResult", Describe(resp, err))
			t.Blocked("server/discover was not answered with a result")
		}
		if verr := validateResult(t.Env.Version, protocol.MethodServerDiscover, resp.Result); verr != nil {
			t.Fail("lifecycle-discover/result-schema", "a result valid against DiscoverResult", verr.Error())
		} else {
			t.Pass("lifecycle-discover/result-schema")
		}
		var result struct {
			Meta map[string]struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(resp.Result, &result)
		info, ok := result.Meta[protocol.MetaServerInfo]
		t.Judge("lifecycle-discover/server-info", ok && info.Name != "" && info.Version != "",
			"_meta[\""+protocol.MetaServerInfo+"\"] with name and version",
			fmt.Sprintf("%+v", result.Meta))
	},
}

var unsupportedVersionScenario = &Scenario{
	ID:       "lifecycle-unsupported-version",
	Title:    "a request at an unknown version gets UnsupportedProtocolVersionError",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: modernVersions,
	Checks: []Check{
		{ID: "lifecycle-unsupported-version/error-32022", Level: Must, Spec: versioningSpec,
			Title: "a request declaring version 1900-01-01 is answered with -32022, data.supported and data.requested (over HTTP with status 400)"},
	},
	Run: func(t *T) {
		const bogus = "1900-01-01"
		s := t.Connect("A", client.Options{})
		t.Step("send server/discover declaring protocol version %s", bogus)
		id := jsonrpc.StringID("mcpconform-version-1")
		resp, err := t.Do(s, client.Call{
			ID: id, Method: protocol.MethodServerDiscover, Params: map[string]any{},
			Meta:   map[string]any{protocol.MetaProtocolVersion: bogus},
			Header: http.Header{"MCP-Protocol-Version": {bogus}},
		})
		judgeModernError(t, s, "lifecycle-unsupported-version/error-32022", id, resp, err, codes.UnsupportedProtocolVersion,
			"data.supported (non-empty) and data.requested \""+bogus+"\"", func(data json.RawMessage) bool {
				var d struct {
					Supported []string `json:"supported"`
					Requested string   `json:"requested"`
				}
				return json.Unmarshal(data, &d) == nil && len(d.Supported) > 0 && d.Requested == bogus
			})
	},
}

var missingMetaScenario = &Scenario{
	ID:       "lifecycle-missing-meta",
	Title:    "a request without the required _meta fields is rejected",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: modernVersions,
	Purpose:  "clientCapabilities is left out (protocolVersion stays, so no header/body mismatch muddles the verdict).",
	Checks: []Check{
		{ID: "lifecycle-missing-meta/invalid-params", Level: Must, Spec: metaSpec,
			Title: "a request missing io.modelcontextprotocol/clientCapabilities is rejected with -32602 (over HTTP with status 400)"},
	},
	Run: func(t *T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list without io.modelcontextprotocol/clientCapabilities")
		id := jsonrpc.StringID("mcpconform-meta-1")
		resp, err := t.Do(s, client.Call{
			ID: id, Method: protocol.MethodToolsList, Params: map[string]any{}, NoMeta: true,
			Meta: map[string]any{protocol.MetaProtocolVersion: t.Env.Version, protocol.MetaClientInfo: client.DefaultClientInfo},
		})
		judgeModernError(t, s, "lifecycle-missing-meta/invalid-params", id, resp, err, codes.InvalidParams, "", nil)
	},
}

var missingCapabilityScenario = &Scenario{
	ID:       "lifecycle-missing-capability",
	Title:    "a tool needing an undeclared client capability gets -32021",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: modernVersions,
	Needs:    []string{"tool test_missing_capability (needs the client's sampling capability)"},
	Checks: []Check{
		{ID: "lifecycle-missing-capability/error-32021", Level: Must, Spec: metaSpec,
			Title: "calling a tool that needs sampling, declaring no capabilities, gives -32021 with data.requiredCapabilities (over HTTP with status 400)"},
	},
	Run: func(t *T) {
		s := t.Connect("A", client.Options{Capabilities: map[string]any{}})
		tool := requireTool(t, s, "test_missing_capability", nil).Tool
		t.Step("call %s declaring no client capabilities", tool)
		id := jsonrpc.StringID("mcpconform-capability-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsCall,
			Params: map[string]any{"name": tool, "arguments": map[string]any{}}})
		judgeModernError(t, s, "lifecycle-missing-capability/error-32021", id, resp, err, codes.MissingRequiredClientCapability,
			"data.requiredCapabilities", func(data json.RawMessage) bool {
				var d struct {
					Required map[string]any `json:"requiredCapabilities"`
				}
				return json.Unmarshal(data, &d) == nil && len(d.Required) > 0
			})
	},
}

var headerMismatchScenario = &Scenario{
	ID:         "lifecycle-header-mismatch",
	Title:      "an Mcp-Method header that contradicts the body gets HeaderMismatch",
	Family:     "lifecycle",
	Side:       ServerSide,
	Versions:   modernVersions,
	Transports: []string{client.KindHTTP},
	Checks: []Check{
		{ID: "lifecycle-header-mismatch/error-32020", Level: Must, Spec: "2026-07-28/basic/transports/streamable-http.mdx#server-validation",
			Title: "a tools/list POST with Mcp-Method: prompts/list is rejected with HTTP 400 and error -32020"},
	},
	Run: func(t *T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list with the header Mcp-Method: prompts/list")
		id := jsonrpc.StringID("mcpconform-header-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsList, Params: map[string]any{},
			Header: http.Header{"Mcp-Method": {protocol.MethodPromptsList}}})
		status, note := statusNote(s, id)
		ok := err == nil && isErrorCode(resp, codes.HeaderMismatch) && status == http.StatusBadRequest
		t.Judge("lifecycle-header-mismatch/error-32020", ok, "HTTP 400 with error -32020", Describe(resp, err)+note)
	},
}

// judgeModernError judges a 2026-07-28 error: the code, what its data must
// hold, and over HTTP the 400 status the spec pairs with these errors.
func judgeModernError(t *T, s *client.Session, checkID string, id jsonrpc.ID, resp *jsonrpc.Message, err error,
	code int, dataWant string, dataOK func(json.RawMessage) bool) {
	status, note := statusNote(s, id)
	want := fmt.Sprintf("error %d", code)
	ok := err == nil && isErrorCode(resp, code)
	if dataOK != nil {
		want += " with " + dataWant
		ok = ok && dataOK(resp.Error.Data)
	}
	if status != 0 {
		want += " and HTTP 400"
		ok = ok && status == http.StatusBadRequest
	}
	t.Judge(checkID, ok, want, Describe(resp, err)+note)
}

// requireTool resolves a fixture to the target's tool and skips the rest of
// the scenario when the target does not list it.
func requireTool(t *T, s *client.Session, fixture string, defaults map[string]any) Fixture {
	t.Step("list tools to find the fixture %s", fixture)
	tools, err := listTools(t, s)
	if err != nil {
		t.SkipRest(fmt.Sprintf("the fixture %s could not be looked up: %v", fixture, err))
	}
	fx := t.Env.Fixture(fixture, defaults)
	if _, ok := tools[fx.Tool]; !ok {
		t.SkipRest(fmt.Sprintf("the target lists no tool %q for the fixture %s (map one with --fixture or the config file)", fx.Tool, fixture))
	}
	return fx
}
