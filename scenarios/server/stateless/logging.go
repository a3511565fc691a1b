package stateless

import (
	"fmt"

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

// Logging by request (logging.mdx#per-request-log-level): the level travels
// in each request's _meta, and a request without one gets no log.

var (
	loggingNoneWithoutLevel = &scenarios.Check{ID: "stateless-logging/none-without-level", Level: scenarios.Must, Spec: loggingSpec + "#per-request-log-level",
		Quote:        "The server **MUST NOT** emit `notifications/message` for a request that does not include this field.",
		Title:        "a call of the logging fixture whose _meta carries no io.modelcontextprotocol/logLevel brings no notifications/message",
		Faults:       []*fault.Fault{server.LogsWithoutLevel},
		Requirements: []string{"sep-2575-server-no-log-without-loglevel"}}
	loggingInvalidLevel = &scenarios.Check{ID: "stateless-logging/invalid-level-refused", Level: scenarios.Should, Spec: loggingSpec + "#error-handling",
		Quote: "If the `io.modelcontextprotocol/logLevel` value carried in a request's `_meta` is not a recognized log level, " +
			"the server **SHOULD** reject that request with a standard JSON-RPC error:",
		Title:  `a tools/list whose _meta logLevel is "verbose" (no syslog level) is rejected with -32602 (Invalid log level)`,
		Faults: []*fault.Fault{server.LogLevelUnchecked}}
)

var loggingDeclared = &scenarios.Check{ID: "stateless-logging/capability-declared", Level: scenarios.Must, Spec: loggingSpec + "#capabilities",
	Quote:  "Servers that emit log message notifications **MUST** declare the `logging` capability:",
	Title:  "a server that sent notifications/message for the call with logLevel debug declares logging in server/discover",
	Faults: []*fault.Fault{server.ModernLoggingUndeclared}}

var loggingScenario = &scenarios.Scenario{
	ID:       "stateless-logging",
	Title:    "log messages only for a request that asks for them",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.LoggingTool, "the official server-stateless fixture; or else test_tool_with_logging"),
		scenarios.NeedsFixture(fixtures.ToolWithLogging, "logs while it runs; used where test_logging_tool is not listed")},
	Purpose: "The logging fixture is called with logLevel debug (logging is a MAY; a server that logs must declare logging in " +
		"server/discover), then without " +
		"a logLevel: no notifications/message may come for that call (a barrier request after its answer collects what the " +
		"connection carried). Then tools/list declaring the level \"verbose\" must be rejected with -32602.",
	Checks: []*scenarios.Check{loggingNoneWithoutLevel, loggingDeclared, loggingInvalidLevel},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		tool := loggingFixture(t, s)
		call := func(meta map[string]any) int {
			mark := s.Inbox().Mark()
			id := jsonrpc.StringID(fmt.Sprintf("mcpconform-log-%d", mark))
			resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsCall, Meta: meta,
				Params: map[string]any{"name": tool, "arguments": map[string]any{}}})
			skipIfVersionRefused(t, resp, err)
			if err != nil {
				t.Blocked("%s was not answered: %v", tool, err)
			}
			t.BarrierOrEnd(s)
			return len(s.Inbox().Matching(mark, client.Method(protocol.NotificationMessage)))
		}
		t.Step("call %s with logLevel debug", tool)
		asked := call(map[string]any{protocol.MetaLogLevel: "debug"})
		if asked == 0 {
			t.Skip(loggingDeclared, "the call with logLevel debug brought no notifications/message")
		} else {
			t.Judge(loggingDeclared, s.HasCapability("logging"), "the logging capability in server/discover",
				fmt.Sprintf("%d notifications/message, capabilities %v", asked, s.ServerCapabilities))
		}
		t.Step("call %s without a logLevel", tool)
		got := call(nil)
		t.Judge(loggingNoneWithoutLevel, got == 0, "no notifications/message",
			fmt.Sprintf("%d notifications/message (with logLevel debug the same call brought %d)", got, asked))

		t.Step("send tools/list with logLevel \"verbose\"")
		resp, err := t.Do(s, client.Call{Method: protocol.MethodToolsList, Params: map[string]any{},
			Meta: map[string]any{protocol.MetaLogLevel: "verbose"}, Deviation: t.Deviation(`logLevel "verbose", which is no syslog level`)})
		t.Judge(loggingInvalidLevel, err == nil && judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
	}),
}

// loggingFixture is the target's test_logging_tool (the official
// server-stateless fixture), or else its test_tool_with_logging.
func loggingFixture(t *serverside.T, s *client.Session) string {
	t.Step("list tools to find %s or %s", fixtures.LoggingTool, fixtures.ToolWithLogging)
	tools, err := t.ListTools(s)
	if err != nil {
		t.SkipRest("tools/list could not be read: " + err.Error())
	}
	for _, name := range []string{fixtures.LoggingTool, fixtures.ToolWithLogging} {
		if fx := t.Fixture(name, nil); tools[fx.Tool].Name != "" {
			return fx.Tool
		}
	}
	t.SkipRest("the target lists neither test_logging_tool nor test_tool_with_logging (map one with --fixture or the config file)")
	return ""
}
