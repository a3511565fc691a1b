package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The official tools-list, tools-call-simple-text and tools-call-elicitation.

var (
	listInputSchemas = &scenarios.Check{ID: "tools-list/input-schemas", Level: scenarios.Must, Spec: toolsSpec + "#tool",
		Quote:  "MUST be a valid JSON Schema object (not `null`)",
		Title:  "every tool tools/list names has a name and an inputSchema that is a JSON Schema object",
		Faults: []*fault.Fault{server.ToolMissingInputSchema}}
	// 2026-07-28 added the sentence; the order before it is no rule.
	listDeterministicOrder = &scenarios.Check{ID: "tools-list/deterministic-order", Level: scenarios.Should,
		Spec:  "2026-07-28/server/tools.mdx#capabilities",
		Quote: "Servers **SHOULD** return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed).",
		Title: "a second tools/list, sent right after the first with the same params and no change between them, names the same " +
			"tools in the same order (a different set is no verdict: the set changed)",
		Versions: []string{protocol.V20260728},
		Faults:   []*fault.Fault{server.ToolsOrderUnstable}}
	simpleTextResult = &scenarios.Check{ID: "tools-call-simple-text/text", Level: scenarios.Must, Spec: toolsSpec + "#calling-tools",
		Quote:  "To invoke a tool, clients send a `tools/call` request:",
		Title:  "test_simple_text succeeds (no isError) with a non-empty text item",
		Faults: []*fault.Fault{server.SimpleTextIsError}}
	elicitationMessage = &scenarios.Check{ID: "tools-call-elicitation/request", Level: scenarios.Must, Spec: elicitationSpec + "#creating-elicitation-requests",
		Quote:  "To request information from a user, servers send an `elicitation/create` request.",
		Title:  "test_elicitation sends elicitation/create with the message it was called with while its call is open",
		Faults: []*fault.Fault{server.ElicitationMessageIgnored}}
	elicitationResult = &scenarios.Check{ID: "tools-call-elicitation/result", Level: scenarios.Must, Spec: toolsSpec + "#calling-tools",
		Quote:  "To invoke a tool, clients send a `tools/call` request:",
		Title:  "test_elicitation succeeds (no isError) once the user accepted",
		Faults: []*fault.Fault{server.ElicitationResultError}}
)

var listScenario = &scenarios.Scenario{
	ID: "tools-list", Title: "tools/list names every tool with an inputSchema object", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsCapability("tools")},
	Purpose: "Every tool the target lists is checked: a name, and an inputSchema that is a JSON Schema object (2025-11-25: " +
		"\"MUST be a valid JSON Schema object (not null)\"; the schema of every version requires inputSchema, an object). " +
		"At 2026-07-28 the tools are listed a second time, and the order of their names compared.",
	Checks: []*scenarios.Check{listInputSchemas, listDeterministicOrder},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		resp, err := t.Request(s, protocol.MethodToolsList, map[string]any{})
		if err != nil || resp == nil || resp.Error != nil {
			t.Fail(listInputSchemas, "a tools/list result", judge.Describe(resp, err))
			judgeToolOrder(t, s, resp, err)
			return
		}
		var r protocol.ToolsPage
		_ = json.Unmarshal(resp.Result, &r)
		var bad []string
		for i, tool := range r.Tools {
			var schema map[string]json.RawMessage
			switch {
			case tool.Name == "":
				bad = append(bad, fmt.Sprintf("tool %d has no name", i))
			case json.Unmarshal(tool.InputSchema, &schema) != nil || schema == nil:
				bad = append(bad, fmt.Sprintf("%s: inputSchema %s", tool.Name, judge.Abbreviate(string(tool.InputSchema), 80)))
			}
		}
		t.Judge(listInputSchemas, len(bad) == 0, fmt.Sprintf("each of the %d tools with a name and an inputSchema object", len(r.Tools)), strings.Join(bad, "; "))
		judgeToolOrder(t, s, resp, err)
	}),
}

// judgeToolOrder lists the tools again, with the id the fault
// tools-order-unstable answers in another order, and compares the order of
// the names with the first list's.
func judgeToolOrder(t *serverside.T, s *client.Session, first *jsonrpc.Message, err error) {
	if !listDeterministicOrder.JudgedAt(t.Env.Version) {
		t.Skip(listDeterministicOrder, "a rule of 2026-07-28's page")
		return
	}
	if err != nil || first == nil || first.Error != nil {
		t.NotJudged(listDeterministicOrder, "the first tools/list was not answered with a result")
		return
	}
	t.Step("send tools/list again")
	again, err := t.Do(s, client.Call{ID: jsonrpc.StringID(server.RepeatedToolsListID), Method: protocol.MethodToolsList, Params: map[string]any{}})
	if err != nil || again.Error != nil {
		t.NotJudged(listDeterministicOrder, "the second tools/list was not answered with a result: "+judge.Describe(again, err))
		return
	}
	a, b := toolNames(first), toolNames(again)
	if !sameSet(a, b) {
		t.NotJudged(listDeterministicOrder, fmt.Sprintf("the set of tools changed between the lists: [%s], then [%s]",
			strings.Join(a, ", "), strings.Join(b, ", ")))
		return
	}
	t.Judge(listDeterministicOrder, slices.Equal(a, b), "the same order: "+strings.Join(a, ", "), strings.Join(b, ", "))
}

func toolNames(m *jsonrpc.Message) []string {
	var r protocol.ToolsPage
	_ = json.Unmarshal(m.Result, &r)
	names := make([]string, 0, len(r.Tools))
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

var simpleTextScenario = &scenarios.Scenario{
	ID: "tools-call-simple-text", Title: "test_simple_text answers a text", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.SimpleText, "no arguments; answers a non-empty text item")},
	Purpose: "The simplest fixture: a call must succeed with a text item; a fixture that answers isError fails.",
	Checks:  []*scenarios.Check{simpleTextResult},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		fx, resp, err := call(t, s, fixtures.SimpleText, map[string]any{}, nil)
		if r, ok := succeeded(t, simpleTextResult, fx, resp, err); ok {
			text := len(r.Content) > 0 && r.Content[0].Type == "text" && r.Content[0].Text != ""
			t.Judge(simpleTextResult, text, "a non-empty text item", types(r))
		}
	}),
}

const elicitationAsk = "mcpconform: please confirm the order"

var elicitationScenario = &scenarios.Scenario{
	ID: "tools-call-elicitation", Title: "a tool asks the user from inside its call", Family: "tools", Side: scenarios.ServerSide,
	Versions: protocol.StatefulWith(protocol.MethodElicitationCreate), Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.Elicitation, "argument message; sends elicitation/create with it, then succeeds")},
	Purpose: "The fake client declares form elicitation and accepts with the form's defaults; the fixture must ask with the " +
		"message it was given during the call, then succeed.",
	Checks: []*scenarios.Check{elicitationMessage, elicitationResult},
	Run: serverside.Body(func(t *serverside.T) {
		caps := elicitationCaps()
		if !protocol.Features(t.Env.Version).ElicitationModes {
			caps = map[string]any{"elicitation": map[string]any{}}
		}
		rec := newRecorder()
		s := t.Open("A", client.Options{Capabilities: caps,
			Handlers: map[string]client.RequestHandler{protocol.MethodElicitationCreate: rec.handler(acceptDefaults)}})
		fx, resp, err := call(t, s, fixtures.Elicitation, map[string]any{"message": elicitationAsk}, nil)
		if r, ok := succeeded(t, elicitationResult, fx, resp, err); ok {
			t.Judge(elicitationResult, len(r.Content) > 0, "non-empty content", types(r))
		}
		params, ok := rec.first()
		if !ok {
			t.Fail(elicitationMessage, "an elicitation/create before the call's answer", "none arrived")
			return
		}
		var p protocol.ElicitParams
		_ = json.Unmarshal(params, &p)
		want, _ := fx.Arguments["message"].(string)
		if want == "" {
			t.Judge(elicitationMessage, p.Message != "", "an elicitation/create with a message", "an empty message")
			return
		}
		t.Judge(elicitationMessage, p.Message == want, fmt.Sprintf("an elicitation/create with the message %q", want), fmt.Sprintf("message %q", p.Message))
	}),
}
