package tools

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
)

// What a call sends besides its answer: progress and log messages.

// progressTokenSent is the token the call carries; a string, so that a
// server echoing it as a number is caught.
const progressTokenSent = "mcpconform-progress-1"

var (
	progressBound = &scenarios.Check{ID: "tools-call-with-progress/bound-to-token", Level: scenarios.Must, Spec: progressSpec + "#behavior-requirements",
		Quote:  "Progress notifications **MUST** only reference tokens that:",
		Title:  "every notifications/progress during the call carries the progressToken of the call's _meta",
		Faults: []*fault.Fault{server.ProgressForeignToken}}
	progressIncreasing = &scenarios.Check{ID: "tools-call-with-progress/increasing", Level: scenarios.Must, Spec: progressSpec + "#progress-flow",
		Quote:     "The `progress` value **MUST** increase with each notification, even if the total is unknown.",
		Title:     "the progress values notified for the call's token increase with each notification",
		Faults:    []*fault.Fault{server.ProgressBackwards},
		Liberties: []*fault.Fault{server.ProgressFloats}}
	progressStops = &scenarios.Check{ID: "tools-call-with-progress/stops-after-completion", Level: scenarios.Must, Spec: progressSpec + "#implementation-notes",
		Quote: "Progress notifications **MUST** stop after completion",
		Title: "no notifications/progress for the call's token arrives after its answer (watched from a barrier after the answer " +
			"for the quiet window)",
		Faults: []*fault.Fault{server.ProgressAfterCompletion}}
)

var progressScenario = &scenarios.Scenario{
	ID: "tools-call-with-progress", Title: "progress notifications of a tool call", Family: "tools", Side: scenarios.ServerSide,
	Versions: protocol.Judged(), Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ToolWithProgress, "no arguments; notifies progress for the call's progressToken")},
	Purpose: "Calls the progress fixture with _meta.progressToken and reads every notifications/progress that arrived before a " +
		"barrier after the answer. Sending none is allowed (receivers MAY choose not to): then only the silence after the answer " +
		"is judged. Counting from the barrier, not the answer, spares a notification sent before the answer on another HTTP stream.",
	Checks: []*scenarios.Check{progressBound, progressIncreasing, progressStops},
	Run:    serverside.Body(runProgress),
}

func runProgress(t *serverside.T) {
	s := open(t, nil)
	mark := s.Inbox().Mark()
	fx, resp, err := call(t, s, fixtures.ToolWithProgress, nil, map[string]any{"progressToken": progressTokenSent})
	if _, ok := succeeded(t, progressBound, fx, resp, err); !ok {
		t.Skip(progressIncreasing, "the fixture did not succeed (judged by "+progressBound.ID+")")
		t.Skip(progressStops, "the fixture did not succeed (judged by "+progressBound.ID+")")
		return
	}
	t.BarrierOrEnd(s)
	judgeProgressStops(t, s)
	var foreign []string
	var values []float64
	for _, m := range s.Inbox().Matching(mark, client.Method(protocol.NotificationProgress)) {
		var p protocol.ProgressParams
		_ = json.Unmarshal(m.Params, &p)
		var token string
		if json.Unmarshal(p.ProgressToken, &token) != nil || token != progressTokenSent {
			foreign = append(foreign, string(p.ProgressToken))
			continue
		}
		var progress float64 // an absent progress reads 0
		if p.Progress != nil {
			progress = *p.Progress
		}
		values = append(values, progress)
	}
	if len(foreign) == 0 && len(values) == 0 {
		why := "the server sent no notifications/progress; receivers MAY choose not to send any (progress.mdx#behavior-requirements)"
		t.Skip(progressBound, why)
		t.Skip(progressIncreasing, why)
		return
	}
	t.Judge(progressBound, len(foreign) == 0, fmt.Sprintf("every progressToken %q", progressTokenSent),
		fmt.Sprintf("%d notification(s) with progressToken %s", len(foreign), strings.Join(foreign, ", ")))
	if len(values) == 0 {
		t.Skip(progressIncreasing, "no notifications/progress carried the call's token")
		return
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Fail(progressIncreasing, "progress values that increase with each notification", fmt.Sprintf("progress %v", values))
			return
		}
	}
	t.Pass(progressIncreasing)
}

// judgeProgressStops watches the quiet window from the barrier after the
// call's answer for notifications/progress under the call's token.
func judgeProgressStops(t *serverside.T, s *client.Session) {
	after := s.Inbox().Mark()
	ours := func(m *jsonrpc.Message) bool {
		return m.Method == protocol.NotificationProgress && judge.StringField(m.Params, "progressToken") == progressTokenSent
	}
	// One more exchange, so that a server that sends late on its next
	// request's occasion is seen too.
	t.BarrierOrEnd(s)
	t.Step("watch %s after the answer for notifications/progress with token %q", t.QuietWindow(), progressTokenSent)
	ctx, cancel := t.Wait()
	defer cancel()
	qctx, qcancel := context.WithTimeout(ctx, t.QuietWindow())
	defer qcancel()
	if m, err := s.Inbox().WaitFrom(qctx, after, ours); err == nil {
		t.Fail(progressStops, "no notifications/progress for the call's token after its answer", string(m.Params))
		return
	}
	t.Pass(progressStops)
}

var loggingMessages = &scenarios.Check{ID: "tools-call-with-logging/messages", Level: scenarios.Must, Spec: loggingSpec + "#log-message-notifications",
	Quote:  "Servers send log messages using `notifications/message` notifications:",
	Title:  "test_tool_with_logging succeeds and its log messages (notifications/message) arrive, after logging/setLevel debug",
	Faults: []*fault.Fault{server.LoggingSilent}}

var loggingScenario = &scenarios.Scenario{
	ID: "tools-call-with-logging", Title: "log messages sent during a tool call", Family: "tools", Side: scenarios.ServerSide,
	Versions: stateful, Needs: []scenarios.Need{scenarios.NeedsCapability("logging", "without it the server may not log"), scenarios.NeedsFixture(fixtures.ToolWithLogging, "no arguments; logs while it runs")},
	Purpose: "Sets the log level to debug (as the official suite does; a server may log nothing before a level is set), calls " +
		"the logging fixture and waits for its notifications/message up to a barrier after the answer.",
	Checks: []*scenarios.Check{loggingMessages},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		t.Step("logging/setLevel debug")
		_, _ = t.Request(s, protocol.MethodLoggingSetLevel, map[string]any{"level": "debug"}) // judged by the logging family
		mark := s.Inbox().Mark()
		fx, resp, err := call(t, s, fixtures.ToolWithLogging, nil, nil)
		if _, ok := succeeded(t, loggingMessages, fx, resp, err); !ok {
			return
		}
		t.BarrierOrEnd(s)
		n := len(s.Inbox().Matching(mark, client.Method(protocol.NotificationMessage)))
		t.Judge(loggingMessages, n > 0, "at least one notifications/message from the call", "none")
	}),
}
