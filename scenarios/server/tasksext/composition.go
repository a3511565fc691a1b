package tasksext

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// A multi round-trip request that gathers its input and then hands the
// work to a task (seps/2663-tasks-extension.md, composition with MRTR).

const compositionName = "Alice"

var (
	compositionInputFirst = &scenarios.Check{ID: "tasksext-mrtr-composition/input-before-task", Level: scenarios.Should,
		Spec: extSpec + "#task-creation", Source: sepNote + "#composition-with-multi-round-trip-requests",
		Quote: "Server implementations that use multi round-trip requests in conjunction with task creation (for example, a tool " +
			"that requires elicitation over InputRequiredResult before creating a task) SHOULD resolve all MRTR exchanges " +
			"_synchronously_ before responding with a CreateTaskResult.",
		Title: "test_tool_with_task first answers an InputRequiredResult (resultType \"input_required\", inputRequests, no " +
			"taskId), not a task that asks from inside",
		Faults:       []*fault.Fault{server.MRTRTaskFirst},
		Requirements: []string{"sep-2663-mrtr-synchronous-before-task-creation"}}
	compositionNoState = &scenarios.Check{ID: "tasksext-mrtr-composition/task-without-mrtr-state", Level: scenarios.Should,
		Spec:  sepNote + "#composition-with-multi-round-trip-requests",
		Quote: "The two flows maintain separate state despite sharing field names.",
		Title: "the CreateTaskResult that answers the retry carries neither requestState nor inputRequests (the MRTR phase's " +
			"state does not leak into the task)",
		Faults: []*fault.Fault{server.MRTRStateOnTask}}
	compositionResult = &scenarios.Check{ID: "tasksext-mrtr-composition/result-reflects-input", Level: scenarios.Must,
		Spec: sepNote + "#composition-with-multi-round-trip-requests",
		Quote: "A tools/call that supports both MRTR (SEP-2322) and this extension may use them sequentially by sending one or " +
			"more InputRequiredResult exchanges to gather input synchronously, followed by a CreateTaskResult to hand off to " +
			"asynchronous execution.",
		Title: "the retry carrying the name (" + compositionName + ") is answered with a CreateTaskResult, and the task " +
			"completes with a result whose text names " + compositionName + " (the fixture's contract)",
		Faults:    []*fault.Fault{server.MRTRAnswerDropped},
		Liberties: []*fault.Fault{server.SlowPollInterval, server.ForgetsReadTasks}}
)

var compositionScenario = &scenarios.Scenario{
	ID:       "tasksext-mrtr-composition",
	Title:    "a tool gathers its input through MRTR, then runs as a task",
	Official: "tasks-mrtr-composition",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtToolWithTask, "asks the user's name (input required), then runs as a task")},
	Purpose: "test_tool_with_task is called declaring the extension and elicitation. Its input request is answered with the " +
		"name " + compositionName + " in a retry (with the requestState, if any); the task that answers the retry is polled " +
		"until terminal and its result read.",
	Checks: []*scenarios.Check{compositionInputFirst, compositionNoState, compositionResult},
	Run:    serverside.Body(runComposition),
}

func runComposition(t *serverside.T) {
	s := open(t)
	fx := t.RequireTool(s, fixtures.TasksExtToolWithTask, nil)
	t.Step("call %s declaring the extension", fx.Tool)
	first, err := callTool(t, s, fx, nil, nil)
	if err != nil || first.Error != nil {
		t.Blocked("tools/call of %s failed: %s", fx.Tool, judge.Describe(first, err))
	}
	var round struct { // an InputRequiredResult (2026-07-28/basic/patterns/mrtr.mdx)
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	_ = json.Unmarshal(first.Result, &round)
	if isTask(first) {
		t.Fail(compositionInputFirst, "an InputRequiredResult", "a task (resultType "+judge.StringField(first.Result, "resultType")+")")
		t.NotJudgedRest("the tool created its task before asking for input")
	}
	if round.ResultType != "input_required" || len(round.InputRequests) == 0 {
		t.Blocked("%s answered neither input_required with inputRequests nor a task: %s", fx.Tool, judge.Describe(first, nil))
	}
	t.Pass(compositionInputFirst)

	answers := map[string]any{}
	for key, req := range round.InputRequests {
		answers[key] = answerFor(req)
	}
	retry := map[string]any{"inputResponses": answers}
	if round.RequestState != nil {
		retry["requestState"] = *round.RequestState
	}
	t.Step("retry with the name %s", compositionName)
	second, err := callTool(t, s, fx, nil, retry)
	if err != nil || second.Error != nil {
		t.Fail(compositionResult, "a CreateTaskResult", judge.Describe(second, err))
		t.NotJudgedRest("the retry failed")
	}
	if !isTask(second) {
		t.Fail(compositionResult, "a CreateTaskResult", fmt.Sprintf("resultType %q: %s", judge.StringField(second.Result, "resultType"), judge.Describe(second, nil)))
		t.NotJudgedRest("the retry was answered without a task")
	}
	var leaked []string
	for _, k := range []string{"requestState", "inputRequests"} {
		if hasMember(second.Result, k) {
			leaked = append(leaked, k)
		}
	}
	t.Judge(compositionNoState, len(leaked) == 0, "neither requestState nor inputRequests", "the CreateTaskResult carries "+strings.Join(leaked, " and "))

	task, _ := client.ReadExtTask(second.Result)
	end := waitTerminal(t, s, task, 2*time.Second)
	var result protocol.ToolResult
	_ = json.Unmarshal(end.Task.Result, &result)
	var texts []string
	for _, c := range result.Content {
		texts = append(texts, c.Text)
	}
	t.Judge(compositionResult, end.Task.Status == "completed" && strings.Contains(strings.Join(texts, " "), compositionName),
		"status completed with a result naming "+compositionName, fmt.Sprintf("%s; result %s", describeTask(end.Resp, nil), string(end.Task.Result)))
}
