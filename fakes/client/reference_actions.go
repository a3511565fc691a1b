package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
)

// EnvContext is the runner's JSON context for a scenario that needs one
// (fixtures.md, "Launch contract").
const EnvContext = "MCP_CONFORMANCE_CONTEXT"

// What the reference client does once connected. A scenario of the
// official suite names its moves (the official client harnesses know them
// by scenario id); every other scenario says them in the context, in the
// shape the official http-custom-headers scenario uses for its calls:
//
//	{"name": "...", "toolCalls": [{"name": "t", "arguments": {...}}],
//	 "promptGets": [{"name": "p", "arguments": {...}}], "resourceReads": [{"uri": "..."}]}
//
// so a harness that makes the context's calls generically runs every
// mcpconform scenario. The calls go in that order, after tools/list. The
// context is the harness's document, no protocol message: no version's
// schema types it, so its items stay anonymous.
type scenarioContext struct {
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
	PromptGets []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"promptGets"`
	ResourceReads []struct {
		URI string `json:"uri"`
	} `json:"resourceReads"`
}

// scenarioPlans are the moves of the official scenarios that name their
// calls by scenario id rather than in the context. Families add theirs.
var scenarioPlans = map[string]func(ctx context.Context, rc *referenceRun) error{
	"tools_call": func(ctx context.Context, rc *referenceRun) error {
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		_, err := rc.callTool(ctx, fixtures.ClientAddNumbers, map[string]any{"a": 5, "b": 3})
		return err
	},
	"elicitation-sep1034-client-defaults": func(ctx context.Context, rc *referenceRun) error {
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		_, err := rc.callTool(ctx, fixtures.ClientElicitationDefaults, map[string]any{})
		return err
	},
	"sep-2322-client-request-state": func(ctx context.Context, rc *referenceRun) error {
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		for _, name := range []string{fixtures.ClientMRTREchoState, fixtures.ClientMRTRNoState, fixtures.ClientMRTRUnrelated, fixtures.ClientMRTRNoResultType} {
			if _, err := rc.callTool(ctx, name, map[string]any{}); err != nil {
				return err
			}
		}
		return nil
	},
}

// act runs the scenario's moves: its plan, else tools/list and the
// context's calls.
func (rc *referenceRun) act(ctx context.Context) error {
	if plan, ok := scenarioPlans[rc.opts.Scenario]; ok {
		return plan(ctx, rc)
	}
	if isAuthScenario(rc.opts.Scenario) {
		// What the official authorization scenarios have a client do once
		// authorized: list the tools and call test-tool.
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		_, err := rc.callTool(ctx, AuthTestTool, nil)
		return err
	}
	if err := rc.listTools(ctx); err != nil {
		return err
	}
	var sc scenarioContext
	if rc.opts.Context != "" {
		if err := json.Unmarshal([]byte(rc.opts.Context), &sc); err != nil {
			return fmt.Errorf("$%s is not the JSON object expected: %w", EnvContext, err)
		}
	}
	for _, c := range sc.ToolCalls {
		if _, err := rc.callTool(ctx, c.Name, c.Arguments); err != nil {
			return err
		}
	}
	for _, g := range sc.PromptGets {
		if _, err := rc.withInput(ctx, protocol.MethodPromptsGet, map[string]any{"name": g.Name, "arguments": orEmpty(g.Arguments)}); err != nil {
			return err
		}
	}
	for _, r := range sc.ResourceReads {
		if _, err := rc.withInput(ctx, protocol.MethodResourcesRead, map[string]any{"uri": r.URI}); err != nil {
			return err
		}
	}
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// callTool calls a tool, through the MRTR loop at 2026-07-28, and returns
// its result; an error answer or an isError result is an error.
func (rc *referenceRun) callTool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	params := map[string]any{"name": name, "arguments": orEmpty(args)}
	if rc.opts.Fault == TaskAugmentedAtOlderVersion {
		params["task"] = map[string]any{"ttl": 60000}
	}
	resp, err := rc.withInput(ctx, protocol.MethodToolsCall, params)
	if err != nil {
		return nil, err
	}
	var result protocol.ToolResult
	_ = json.Unmarshal(resp.Result, &result)
	if result.IsError {
		return resp.Result, fmt.Errorf("tool %s answered isError: %s", name, abbreviate(resp.Result))
	}
	return resp.Result, nil
}

func abbreviate(raw []byte) string {
	if len(raw) > 300 {
		return string(raw[:300]) + "…"
	}
	return string(raw)
}

// AuthTestTool is the one tool of the official authorization scenarios'
// protected server.
const AuthTestTool = "test-tool"

// isAuthScenario: the official authorization scenarios are auth/*, and
// mcpconform's own ones of the family client-auth-*.
func isAuthScenario(id string) bool {
	return strings.HasPrefix(id, "auth/") || strings.HasPrefix(id, "client-auth-")
}
