package stateless

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Progress and completion at 2026-07-28: the official tools-call-with-progress
// and completion-complete scenarios, on stateless requests.

const (
	progressSpec = "2026-07-28/basic/patterns/progress.mdx"
)

var (
	progressTokenMatches = &scenarios.Check{ID: "stateless-tools-call-with-progress/token-matches", Level: scenarios.Must, Spec: progressSpec + "#behavior-requirements",
		Quote:  "Progress notifications **MUST** only reference tokens that:",
		Title:  "every notifications/progress during the call carries the progressToken the call's _meta gave (none at all is allowed)",
		Faults: []*fault.Fault{server.ModernProgressForeignToken}}
	progressIncreasing = &scenarios.Check{ID: "stateless-tools-call-with-progress/increasing", Level: scenarios.Must, Spec: progressSpec + "#progress-flow",
		Quote:  "The `progress` value **MUST** increase with each notification, even if the total is unknown.",
		Title:  "the progress values of the call's notifications increase strictly",
		Faults: []*fault.Fault{server.ModernProgressBackwards}}
)

var progressScenario = &scenarios.Scenario{
	ID:       "stateless-tools-call-with-progress",
	Official: "tools-call-with-progress",
	Title:    "progress of a call is bound to its token and increases",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []string{"tool test_tool_with_progress"},
	Purpose: "test_tool_with_progress is called with _meta progressToken; the notifications/progress that arrive before the " +
		"answer (and, on a shared connection, before a barrier request after it) must name that token and increase. A " +
		"server may send none.",
	Checks: []*scenarios.Check{progressTokenMatches, progressIncreasing},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		tool := t.RequireTool(s, "test_tool_with_progress", nil).Tool
		const token = "mcpconform-progress-1"
		mark := s.Inbox().Mark()
		t.Step("call %s with progressToken %s", tool, token)
		resp, err := t.Do(s, client.Call{Method: protocol.MethodToolsCall, Params: map[string]any{"name": tool, "arguments": map[string]any{}},
			Meta: map[string]any{"progressToken": token}})
		skipIfVersionRefused(t, resp, err)
		if err != nil {
			t.Blocked("%s was not answered: %v", tool, err)
		}
		t.BarrierOrEnd(s)
		var foreign, values []string
		last, increasing := -1.0, true
		for _, m := range s.Inbox().Matching(mark, client.Method(protocol.NotificationProgress)) {
			var p struct {
				Token    json.RawMessage `json:"progressToken"`
				Progress float64         `json:"progress"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if jsonrpc.ID(p.Token).Key() != jsonrpc.StringID(token).Key() {
				foreign = append(foreign, string(p.Token))
				continue
			}
			values = append(values, fmt.Sprint(p.Progress))
			if p.Progress <= last {
				increasing = false
			}
			last = p.Progress
		}
		t.Judge(progressTokenMatches, len(foreign) == 0, "progressToken \""+token+"\" on every notifications/progress",
			"other tokens: "+strings.Join(foreign, ", "))
		t.Judge(progressIncreasing, increasing, "strictly increasing progress", "progress "+strings.Join(values, ", "))
	}),
}
