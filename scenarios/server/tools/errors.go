package tools

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The two error channels of a tool call (tools.mdx#error-handling): an
// unknown tool is a protocol error; arguments that fail the input schema
// are a tool execution error the model can correct (SEP-1303, 2025-11-25).

// unknownToolName is a name no server lists.
const unknownToolName = "mcpconform_no_such_tool"

var (
	unknownIsProtocolError = &scenarios.Check{ID: "tools-call-unknown-tool/protocol-error", Level: scenarios.Should, Spec: toolsSpec + "#error-handling",
		Quote: "**Protocol Errors**: Standard JSON-RPC errors for issues like:",
		Title: "a call of a tool the server does not list is answered with a JSON-RPC error, not a result (a warning: the page " +
			"files unknown tools under protocol errors, but with no MUST or SHOULD)",
		Faults: []*fault.Fault{server.UnknownToolAsResult}}
	unknownInvalidParams = &scenarios.Check{ID: "tools-call-unknown-tool/invalid-params", Level: scenarios.Should, Spec: toolsSpec + "#error-handling",
		Quote:  `"message": "Unknown tool: invalid_tool_name"`,
		Title:  "that error is -32602, as the page's example of an unknown tool (a warning: the page shows it, no sentence requires it)",
		Faults: []*fault.Fault{server.UnknownToolInternalError}}
)

var unknownToolScenario = &scenarios.Scenario{
	ID: "tools-call-unknown-tool", Title: "calling a tool the server does not have", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsCapability("tools")},
	Purpose: "Calls " + unknownToolName + ", which no server lists: nothing runs, and the answer is a protocol error.",
	Checks:  []*scenarios.Check{unknownIsProtocolError, unknownInvalidParams},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		tools, err := t.ListTools(s)
		if err != nil {
			t.Blocked("%v", err)
		}
		if _, listed := tools[unknownToolName]; listed {
			t.SkipRest("the target lists a tool named " + unknownToolName)
		}
		t.Step("call %s", unknownToolName)
		resp, err := t.Request(s, protocol.MethodToolsCall, map[string]any{"name": unknownToolName, "arguments": map[string]any{}})
		if !t.Judge(unknownIsProtocolError, err == nil && resp.Error != nil, "a JSON-RPC error", judge.Describe(resp, err)) {
			t.Skip(unknownInvalidParams, "no JSON-RPC error to read a code from")
			return
		}
		t.Judge(unknownInvalidParams, resp.Error.Code == codes.InvalidParams, "error -32602", judge.Describe(resp, err))
	}),
}

var (
	invalidRejected = &scenarios.Check{ID: "tools-call-invalid-arguments/rejected", Level: scenarios.Must, Spec: toolsSpec + "#security-considerations",
		Quote:  "Validate all tool inputs",
		Title:  "json_schema_2020_12_tool called with arguments its inputSchema refuses does not succeed",
		Faults: []*fault.Fault{server.ValidationSkipped}}
	invalidAsToolError = &scenarios.Check{ID: "tools-call-invalid-arguments/tool-error", Level: scenarios.Should, Spec: toolsSpec + "#error-handling",
		Quote:  "Input validation errors (e.g., date in wrong format, value out of range)",
		Title:  "the refusal is a tool execution error (a result with isError: true), not a JSON-RPC error (SEP-1303)",
		Faults: []*fault.Fault{server.ValidationAsProtocolError}}
)

var invalidArgumentsScenario = &scenarios.Scenario{
	ID: "tools-call-invalid-arguments", Title: "arguments that fail the input schema (SEP-1303)", Family: "tools", Side: scenarios.ServerSide,
	Versions: only1125, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.JSONSchema202012Tool, "its inputSchema has additionalProperties: false and a string name")},
	Purpose: "Calls the 2020-12 fixture with a number for name and a property its schema forbids. 2025-11-25 moved input " +
		"validation errors to tool execution errors so that a model can correct its call.",
	Checks: []*scenarios.Check{invalidRejected, invalidAsToolError},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		fx := t.RequireTool(s, fixtures.JSONSchema202012Tool, nil)
		t.Step("call %s with invalid arguments", fx.Tool)
		resp, err := t.Request(s, protocol.MethodToolsCall, map[string]any{"name": fx.Tool,
			"arguments": map[string]any{"name": 42, "mcpconform_unexpected": true}})
		if err != nil || resp == nil {
			t.Fail(invalidRejected, "an answer that refuses the arguments", judge.Describe(resp, err))
			return
		}
		var r protocol.ToolResult
		_ = json.Unmarshal(resp.Result, &r)
		refused := resp.Error != nil || r.IsError
		t.Judge(invalidRejected, refused, "a JSON-RPC error or a result with isError: true", judge.Describe(resp, nil))
		if !refused {
			t.Skip(invalidAsToolError, "the arguments were accepted")
			return
		}
		t.Judge(invalidAsToolError, resp.Error == nil && r.IsError, "a CallToolResult with isError: true", judge.Describe(resp, nil))
	}),
}
