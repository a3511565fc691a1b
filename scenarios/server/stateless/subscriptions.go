package stateless

import (
	"context"
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
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// subscriptions/listen (basic/patterns/subscriptions.mdx, SEP-2575): the
// long-lived stream that carries list changes at 2026-07-28.

const (
	subscriptionsSpec = "2026-07-28/basic/patterns/subscriptions.mdx"
	methodAck         = "notifications/subscriptions/acknowledged"
)

var (
	listenAck = &scenarios.Check{ID: "stateless-subscriptions/ack-first", Level: scenarios.Must, Spec: subscriptionsSpec + "#acknowledgment",
		Quote: "The server **MUST** send `notifications/subscriptions/acknowledged` as the first message carrying the subscription's " +
			"ID in `_meta` under `io.modelcontextprotocol/subscriptionId`, and **MUST NOT** send any notification on the subscription before it.",
		Title:        "each of two subscriptions/listen requests gets notifications/subscriptions/acknowledged tagged with its id, before anything else tagged with it",
		Faults:       []*fault.Fault{server.ListenNoAck},
		Requirements: []string{"sep-2575-server-sends-subscription-ack"}}
	listenTagged = &scenarios.Check{ID: "stateless-subscriptions/tagged", Level: scenarios.Must, Spec: metaSpec,
		Quote: "On notifications delivered via a [`subscriptions/listen`][subscriptions-listen] stream, the server **MUST** include " +
			"`io.modelcontextprotocol/subscriptionId` in `_meta` so the client can correlate the notification with the originating subscription request.",
		Title: "every list_changed notification that arrives while the subscriptions are open carries _meta io.modelcontextprotocol/subscriptionId " +
			"naming one of them (at 2026-07-28 list changes travel on listen streams only)",
		Faults:       []*fault.Fault{server.ListenUntagged},
		Requirements: []string{"sep-2575-server-tags-subscription-id"}}
	listenFilter = &scenarios.Check{ID: "stateless-subscriptions/filter-honored", Level: scenarios.Must, Spec: subscriptionsSpec + "#opening-a-stream",
		Quote:        "The server **MUST NOT** send notification types the client has not explicitly requested.",
		Title:        "the subscription that asked for toolsListChanged only gets no prompts list change, the one that asked for promptsListChanged only no tools list change",
		Faults:       []*fault.Fault{server.ListenFilterIgnored},
		Requirements: []string{"sep-2575-server-honors-notification-filter"}}
	listenTools = &scenarios.Check{ID: "stateless-subscriptions/tools-list-changed", Level: scenarios.Should, Spec: "2026-07-28/server/tools.mdx#list-changed-notification",
		Quote: "When the list of available tools changes, servers that declared the `listChanged` capability **SHOULD** send a notification " +
			"to clients that have opened a `subscriptions/listen` stream with `toolsListChanged: true`:",
		Title:        "after test_trigger_tool_change, the toolsListChanged subscription gets notifications/tools/list_changed (when tools.listChanged is declared)",
		Faults:       []*fault.Fault{server.ListenNoToolsChanged},
		Requirements: []string{"sep-2575-server-sends-tools-list-changed-on-subscription"}}
	listenPrompts = &scenarios.Check{ID: "stateless-subscriptions/prompts-list-changed", Level: scenarios.Should, Spec: promptsSpec + "#list-changed-notification",
		Quote: "When the list of available prompts changes, servers that declared the `listChanged` capability **SHOULD** send a notification " +
			"to clients that have opened a `subscriptions/listen` stream with `promptsListChanged: true`:",
		Title:        "after test_trigger_prompt_change, the promptsListChanged subscription gets notifications/prompts/list_changed (when prompts.listChanged is declared)",
		Faults:       []*fault.Fault{server.ListenNoPromptsChanged},
		Requirements: []string{"sep-2575-server-sends-prompts-list-changed-on-subscription"}}
)

var subscriptionsScenario = &scenarios.Scenario{
	ID:       "stateless-subscriptions",
	Title:    "subscriptions/listen streams acknowledge, tag and filter list changes",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.TriggerToolChange, "changes the tool list; it and/or test_trigger_prompt_change"),
		scenarios.NeedsFixture(fixtures.TriggerPromptChange, "changes the prompt list; it and/or test_trigger_tool_change")},
	// The triggers change the lists every other scenario reads (go-sdk's
	// adds a prompt whose prompts/get result is not valid).
	ChangesTarget: true,
	Purpose: "Two subscriptions/listen requests stay open: T asks for toolsListChanged, P for promptsListChanged. Each must be " +
		"acknowledged first. Then the trigger fixtures change the tool and the prompt list: T must hear of tools only, P of " +
		"prompts only (a SHOULD where the server declares listChanged; the MUST NOT of the filter holds always, watched for a " +
		"quiet window), and every list change must be tagged with its subscription's id. The streams are then cancelled " +
		"(over HTTP by closing them, elsewhere with notifications/cancelled).",
	Checks: []*scenarios.Check{listenAck, listenTagged, listenFilter, listenTools, listenPrompts},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("list tools to find the trigger fixtures")
		tools, err := t.ListTools(s)
		if err != nil {
			t.SkipRest("tools/list could not be read: " + err.Error())
		}
		toolTrigger := t.Fixture(fixtures.TriggerToolChange, nil).Tool
		promptTrigger := t.Fixture(fixtures.TriggerPromptChange, nil).Tool
		_, hasTool := tools[toolTrigger]
		_, hasPrompt := tools[promptTrigger]
		if !hasTool && !hasPrompt {
			t.SkipRest("the target lists neither test_trigger_tool_change nor test_trigger_prompt_change: no list change can be caused")
		}

		idT, idP := jsonrpc.StringID("mcpconform-listen-tools"), jsonrpc.StringID("mcpconform-listen-prompts")
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		mark := s.Inbox().Mark()
		answers := make(chan string, 2)
		for _, l := range []struct {
			id     jsonrpc.ID
			filter string
		}{{idT, "toolsListChanged"}, {idP, "promptsListChanged"}} {
			t.Step("send subscriptions/listen %s with %s: true (left open)", l.id.Key(), l.filter)
			go func() {
				resp, err := s.Do(ctx, client.Call{ID: l.id, Method: protocol.MethodSubscriptionsListen,
					Params: map[string]any{"notifications": map[string]any{l.filter: true}}})
				if ctx.Err() == nil {
					answers <- fmt.Sprintf("subscriptions/listen %s answered %s", l.id.Key(), judge.Describe(resp, err))
				}
			}()
		}
		defer func() {
			if _, http := transport.As[*transport.HTTPClientConn](s.Conn()); !http {
				for _, id := range []jsonrpc.ID{idT, idP} {
					wctx, wcancel := t.Wait()
					_ = s.Notify(wctx, protocol.NotificationCancelled, map[string]any{"requestId": id})
					wcancel()
				}
			}
			cancel()
		}()

		t.Step("wait for both acknowledgements")
		for _, id := range []jsonrpc.ID{idT, idP} {
			wctx, wcancel := t.Wait()
			_, _ = s.Inbox().WaitFrom(wctx, mark, func(m *jsonrpc.Message) bool { return m.Method == methodAck && tagOf(m) == id.Key() })
			wcancel()
		}
		toolsDeclared, promptsDeclared := listChanged(s, "tools"), listChanged(s, "prompts")
		heard := func(method string, not jsonrpc.ID) bool {
			wctx, wcancel := t.Wait()
			defer wcancel()
			_, err := s.Inbox().WaitFrom(wctx, mark, func(m *jsonrpc.Message) bool { return m.Method == method && tagOf(m) != not.Key() })
			return err == nil
		}
		switch {
		case !hasTool:
			t.Skip(listenTools, "the target lists no test_trigger_tool_change")
		default:
			t.Step("call %s", toolTrigger)
			if resp, err := t.Request(s, protocol.MethodToolsCall, map[string]any{"name": toolTrigger, "arguments": map[string]any{}}); err != nil || resp.Error != nil {
				t.Blocked("%s answered %s", toolTrigger, judge.Describe(resp, err))
			}
			if !toolsDeclared {
				t.Skip(listenTools, "server/discover does not declare tools.listChanged")
				break
			}
			t.Judge(listenTools, heard(protocol.NotificationToolsListChanged, idP), "notifications/tools/list_changed on the toolsListChanged stream",
				"none within the answer timeout"+pending(answers))
		}
		switch {
		case !hasPrompt:
			t.Skip(listenPrompts, "the target lists no test_trigger_prompt_change")
		default:
			t.Step("call %s", promptTrigger)
			if resp, err := t.Request(s, protocol.MethodToolsCall, map[string]any{"name": promptTrigger, "arguments": map[string]any{}}); err != nil || resp.Error != nil {
				t.Blocked("%s answered %s", promptTrigger, judge.Describe(resp, err))
			}
			if !promptsDeclared {
				t.Skip(listenPrompts, "server/discover does not declare prompts.listChanged")
				break
			}
			t.Judge(listenPrompts, heard(protocol.NotificationPromptsListChanged, idT), "notifications/prompts/list_changed on the promptsListChanged stream",
				"none within the answer timeout"+pending(answers))
		}

		t.Step("watch the streams for a quiet window")
		qctx, qcancel := context.WithTimeout(ctx, t.QuietWindow())
		_, _ = s.Inbox().WaitFrom(qctx, mark, func(*jsonrpc.Message) bool { return false })
		qcancel()

		got := s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool { return m.Method != "" && m.ID.IsZero() })
		var ackProblems, untagged, strays []string
		for _, id := range []jsonrpc.ID{idT, idP} {
			first := ""
			for _, m := range got {
				if tagOf(m) == id.Key() {
					first = m.Method
					break
				}
			}
			if first != methodAck {
				ackProblems = append(ackProblems, fmt.Sprintf("%s: first message tagged with it %q", id.Key(), first))
			}
		}
		for _, m := range got {
			tag := tagOf(m)
			switch {
			case !strings.HasSuffix(m.Method, "/list_changed"):
			case tag != idT.Key() && tag != idP.Key():
				untagged = append(untagged, fmt.Sprintf("%s with subscriptionId %q", m.Method, tag))
			case tag == idT.Key() && m.Method != protocol.NotificationToolsListChanged,
				tag == idP.Key() && m.Method != protocol.NotificationPromptsListChanged:
				strays = append(strays, fmt.Sprintf("%s on %s", m.Method, tag))
			}
		}
		t.Judge(listenAck, len(ackProblems) == 0, methodAck+" first on each subscription", strings.Join(ackProblems, "; ")+pending(answers))
		t.Judge(listenTagged, len(untagged) == 0, "subscriptionId "+idT.Key()+" or "+idP.Key()+" on every list change", strings.Join(untagged, "; "))
		t.Judge(listenFilter, len(strays) == 0, "only the list changes each subscription asked for", strings.Join(strays, "; "))
	}),
}

// tagOf is _meta io.modelcontextprotocol/subscriptionId of a message, as
// JSON ("" when absent).
func tagOf(m *jsonrpc.Message) string {
	var p protocol.Meta
	if json.Unmarshal(m.Params, &p) != nil {
		if json.Unmarshal(m.Result, &p) != nil {
			return ""
		}
	}
	return jsonrpc.ID(p.Meta[protocol.MetaSubscriptionID]).Key()
}

// listChanged reports capabilities.<feature>.listChanged in server/discover.
func listChanged(s *client.Session, feature string) bool {
	c, _ := s.ServerCapabilities[feature].(map[string]any)
	v, _ := c["listChanged"].(bool)
	return v
}

// pending describes listen requests that were answered (they should stay
// open), for the failure message.
func pending(answers chan string) string {
	var out []string
	for {
		select {
		case a := <-answers:
			out = append(out, a)
		default:
			if len(out) == 0 {
				return ""
			}
			return " (" + strings.Join(out, "; ") + ")"
		}
	}
}
