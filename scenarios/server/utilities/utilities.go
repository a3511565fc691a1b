// Package utilities is the server utilities family (scenarios.md S8): logging/setLevel and filtering, and pagination. (The cancellation of a plain in-flight request is judged by the cancellation family.)
package utilities

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
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{loggingScenario, paginationScenario, listChangedScenario}
}

const (
	loggingSpec    = "2025-11-25/server/utilities/logging.mdx"
	paginationSpec = "2025-11-25/server/utilities/pagination.mdx"
)

// logging/setLevel exists in the session versions only (2026-07-28 moved
// the level into _meta); pagination is judged on resources there too.
var versions = protocol.JudgedStateful()

// Fixtures that log during a call: mcpconform's test_logging_levels (one
// message at each of debug, info, warning and error), else the official
// test_tool_with_logging (info messages).
var loggingFixtures = []string{fixtures.LoggingLevels, fixtures.ToolWithLogging}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

var (
	loggingAccepted = &scenarios.Check{ID: "logging-set-level/accepted", Level: scenarios.Must, Spec: loggingSpec + "#setting-log-level",
		Quote:  "To configure the minimum log level, clients MAY send a logging/setLevel request:",
		Title:  "a server that declares logging answers logging/setLevel (level warning) with an empty result",
		Faults: []*fault.Fault{server.SetLevelRefused}}
	loggingInvalidLevel = &scenarios.Check{ID: "logging-set-level/invalid-level", Level: scenarios.Should, Spec: loggingSpec + "#error-handling",
		Quote:  "Servers SHOULD return standard JSON-RPC errors for common failure cases:",
		Title:  `logging/setLevel with level "verbose" (no syslog level) answers -32602 (Invalid log level)`,
		Faults: []*fault.Fault{server.InvalidLevelAccepted}}
	loggingFiltered = &scenarios.Check{ID: "logging-set-level/filtered", Level: scenarios.Should, Spec: loggingSpec,
		Quote: "Clients can control logging verbosity by setting minimum log levels, with servers sending notifications containing severity levels, optional logger names, and arbitrary JSON-serializable data.",
		Title: "after logging/setLevel warning, a fixture tool that logs sends no notifications/message below warning " +
			"(the level is a minimum; no MUST states it)",
		Faults: []*fault.Fault{server.SetLevelIgnored}}
)

var loggingScenario = &scenarios.Scenario{
	ID: "logging-set-level", Title: "logging/setLevel is accepted, invalid levels refused, and lower levels filtered", Family: "utilities",
	Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsCapability("logging"),
		scenarios.NeedsFixture(fixtures.LoggingLevels, "for filtering: logs at each level during the call"),
		scenarios.NeedsFixture(fixtures.ToolWithLogging, "for filtering, when "+fixtures.LoggingLevels+" is not listed: logs during the call")},
	Checks: []*scenarios.Check{loggingAccepted, loggingInvalidLevel, loggingFiltered},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("logging/setLevel verbose")
		resp, err := t.Do(s, client.Call{Method: protocol.MethodLoggingSetLevel, Params: map[string]any{"level": "verbose"},
			Deviation: t.Deviation(`level "verbose", which is no syslog level`)})
		t.Judge(loggingInvalidLevel, err == nil && judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))

		t.Step("logging/setLevel warning")
		resp, err = t.Request(s, protocol.MethodLoggingSetLevel, map[string]any{"level": "warning"})
		if !t.Judge(loggingAccepted, err == nil && resp.Error == nil && judge.IsEmptyObject(resp.Result), "an empty result", judge.Describe(resp, err)) {
			t.Blocked("the level was not set")
		}

		tools, err := t.ListTools(s)
		if err != nil {
			t.Blocked("%v", err)
		}
		var fx scenarios.Fixture
		for _, name := range loggingFixtures {
			if f := t.Fixture(name, nil); tools[f.Tool].Name != "" {
				fx = f
				break
			}
		}
		if fx.Tool == "" {
			t.Skip(loggingFiltered, "the target lists no tool that logs ("+strings.Join(loggingFixtures, ", ")+"; map one with --fixture)")
			return
		}
		mark := s.Inbox().Mark()
		t.Step("call %s", fx.Tool)
		ctx, cancel := t.Wait()
		resp, err = s.CallTool(ctx, fx.Tool, fx.Arguments)
		cancel()
		if err != nil || resp.Error != nil || isError(resp.Result) {
			t.Fail(loggingFiltered, "a successful call of "+fx.Tool, judge.Describe(resp, err))
			return
		}
		t.BarrierOrEnd(s) // log messages sent out of the call's stream are in by then
		var below, seen []string
		for _, m := range s.Inbox().Matching(mark, client.Method(protocol.NotificationMessage)) {
			lv := judge.StringField(m.Params, "level")
			seen = append(seen, lv)
			if i := slices.Index(logLevels, lv); i >= 0 && i < slices.Index(logLevels, "warning") {
				below = append(below, lv)
			}
		}
		t.Judge(loggingFiltered, len(below) == 0, "no notifications/message below warning",
			fmt.Sprintf("levels received: %v", seen))
	}),
}

func isError(raw json.RawMessage) bool {
	var r protocol.ToolResult
	_ = json.Unmarshal(raw, &r)
	return r.IsError
}

var (
	paginationInvalidCursor = &scenarios.Check{ID: "pagination/invalid-cursor", Level: scenarios.Should, Spec: paginationSpec + "#error-handling",
		Quote:  "Invalid cursors SHOULD result in an error with code -32602 (Invalid params).",
		Title:  "resources/list and resources/templates/list with a cursor the server never gave answer -32602",
		Faults: []*fault.Fault{server.InvalidCursorAccepted}, Liberties: []*fault.Fault{server.ResourcePagesOfOne, server.ResourcesUnpaginated}}
	paginationLastPageEnds = &scenarios.Check{ID: "pagination/last-page-ends", Level: scenarios.Must, Spec: paginationSpec + "#response-format",
		Quote: "An optional nextCursor field if more results exist",
		Title: fmt.Sprintf("following nextCursor through resources/list and resources/templates/list ends (no cursor repeats, within %d pages)",
			serverside.MaxPages),
		Faults: []*fault.Fault{server.LastPageNeverEnds}, Liberties: []*fault.Fault{server.ResourcePagesOfOne, server.ResourcesUnpaginated}}
)

// listMethods the family pages through: the resources lists. tools/list and
// prompts/list belong to their own families (tools-list-pagination,
// prompts-list); all share serverside's paging judges.
var listMethods = []struct{ method, key, capability string }{
	{protocol.MethodResourcesList, "resources", "resources"},
	{protocol.MethodResourcesTemplatesList, "resourceTemplates", "resources"},
}

var paginationScenario = &scenarios.Scenario{
	ID: "pagination", Title: "list methods page to an end and refuse invalid cursors", Family: "utilities",
	Side: scenarios.ServerSide, Versions: protocol.Judged(), Needs: []scenarios.Need{scenarios.NeedsCapability("resources", "resources/list and resources/templates/list are paged")},
	Checks: []*scenarios.Check{paginationInvalidCursor, paginationLastPageEnds},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		var endless, accepted []string
		for _, lm := range listMethods {
			p := t.PageThrough(s, lm.method)
			if p.Refused != "" {
				t.Blocked("%s %s", lm.method, p.Refused)
			}
			if p.Endless != "" {
				endless = append(endless, lm.method+": "+p.Endless)
			}
			if refused, actual := t.InvalidCursor(s, lm.method); !refused {
				accepted = append(accepted, lm.method+": "+actual)
			}
		}
		t.Judge(paginationLastPageEnds, len(endless) == 0, "a last page without nextCursor", strings.Join(endless, "; "))
		t.Judge(paginationInvalidCursor, len(accepted) == 0, "error -32602", strings.Join(accepted, "; "))
	}),
}

var listChangedUndeclared = &scenarios.Check{ID: "list-changed-undeclared/none-sent", Level: scenarios.Must, Spec: "2025-11-25/basic/lifecycle.mdx#operation",
	Quote: "Only use capabilities that were successfully negotiated",
	Title: "while the client lists tools, prompts, resources and resource templates, no notifications/<feature>/list_changed " +
		"arrives for a feature whose capability does not declare listChanged: true",
	Faults: []*fault.Fault{server.ListChangedUndeclared}}

// listFeatures are the features with a list and a list_changed notification.
var listFeatures = []struct{ capability, method, notification string }{
	{"tools", protocol.MethodToolsList, protocol.NotificationToolsListChanged},
	{"prompts", protocol.MethodPromptsList, protocol.NotificationPromptsListChanged},
	{"resources", protocol.MethodResourcesList, protocol.NotificationResourcesListChanged},
	{"resources", protocol.MethodResourcesTemplatesList, protocol.NotificationResourcesListChanged},
}

var listChangedScenario = &scenarios.Scenario{
	ID: "list-changed-undeclared", Title: "list_changed notifications only for features that declare listChanged", Family: "utilities",
	Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("a feature (tools, prompts or resources) whose capability leaves listChanged out or false")},
	Purpose: "The client lists every feature the server offers, then sends the probe as a barrier; a list_changed notification " +
		"for a feature that did not declare listChanged uses a capability that was not negotiated.",
	Checks: []*scenarios.Check{listChangedUndeclared},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		declared := func(capability string) (offered, listChanged bool) {
			c, ok := s.ServerCapabilities[capability].(map[string]any)
			lc, _ := c["listChanged"].(bool)
			return ok, lc
		}
		var undeclared []string
		for _, f := range listFeatures {
			if _, lc := declared(f.capability); !lc && !slices.Contains(undeclared, f.notification) {
				undeclared = append(undeclared, f.notification)
			}
		}
		if len(undeclared) == 0 {
			t.SkipRest("every feature the server offers declares listChanged: true")
		}
		mark := s.Inbox().Mark()
		for _, f := range listFeatures {
			if offered, _ := declared(f.capability); offered {
				t.Step("%s", f.method)
				if _, err := t.Request(s, f.method, map[string]any{}); err != nil {
					t.Blocked("%s: %v", f.method, err)
				}
			}
		}
		t.BarrierOrEnd(s)
		var got []string
		for _, m := range s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool { return slices.Contains(undeclared, m.Method) }) {
			got = append(got, m.Method)
		}
		t.Judge(listChangedUndeclared, len(got) == 0, "none of "+strings.Join(undeclared, ", "), strings.Join(got, ", "))
	}),
}
