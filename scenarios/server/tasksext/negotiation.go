package tasksext

import (
	"encoding/json"
	"fmt"
	"net/http"
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

// Capability negotiation: the extension is the single handshake point, per
// request (ext-tasks/tasks.md#capability-negotiation).

const whyUndeclared = "it creates tasks for every client, so a plain call of a tool that needs a task is answered with one too"

var (
	negotiationNoLegacyCapability = &scenarios.Check{ID: "tasksext-negotiation/no-legacy-capability", Level: scenarios.Must,
		Spec: extSpec + "#capability-negotiation", Source: sepNote + "#backwards-compatibility",
		Quote: "Servers that previously advertised these MUST migrate to declaring io.modelcontextprotocol/tasks, and MUST NOT continue " +
			"to advertise the legacy capabilities under any protocol version that includes this extension.",
		Title:        "a server declaring the extension in server/discover does not also declare the 2025-11-25 capabilities.tasks",
		Faults:       []*fault.Fault{server.LegacyTasksCapabilityAdvertised},
		Requirements: []string{"sep-2663-migrate-from-legacy-capabilities"}}
	negotiationUndeclaredNoTask = &scenarios.Check{ID: "tasksext-negotiation/undeclared-no-task", Level: scenarios.Must,
		Spec:  extSpec + "#capability-negotiation",
		Quote: "A server MUST NOT return CreateTaskResult to a client that did not include the extension capability on its request, regardless of prior declarations.",
		Title: "slow_compute called without the extension in the request's capabilities (with the removed 2025-11-25 task " +
			"parameter, which must be ignored) is answered without a task",
		Faults:    []*fault.Fault{server.TaskForUndeclaredClient},
		Liberties: []*fault.Fault{server.AnswersSynchronously},
		// sep-2663-legacy-task-param-ignored: the call carries the removed task parameter
		Requirements: []string{"sep-2663-server-rejects-undeclared-client", "sep-2663-legacy-task-param-ignored"}}
	negotiationLegacyOnlyUndeclared = &scenarios.Check{ID: "tasksext-negotiation/legacy-only-undeclared", Level: scenarios.Must,
		Spec: extSpec + "#capability-negotiation", Source: sepNote + "#backwards-compatibility",
		Quote:        "Servers MUST treat clients declaring only the legacy capability as non-declaring with respect to this extension.",
		Title:        "slow_compute called by a client that declares only the 2025-11-25 tasks capability is answered without a task",
		Faults:       []*fault.Fault{server.LegacyClientCapabilityHonoured, server.TaskForUndeclaredClient},
		Requirements: []string{"sep-2663-legacy-capability-treated-as-non-declaring"}}
	negotiationRequired32021 = &scenarios.Check{ID: "tasksext-negotiation/required-32021", Level: scenarios.Must,
		Spec: extSpec + "#capability-negotiation",
		Quote: "If a server is unable to service a request to a client that does not declare this extension capability without returning " +
			"CreateTaskResult, the server MUST return an error with the code -32021 (Missing Required Client Capability), indicating the " +
			"required extension in the error response",
		Title:        "failing_job, which needs a task, called without the extension gets error -32021 (over HTTP with status 400)",
		Faults:       []*fault.Fault{server.RequiredTaskWrongCode, server.TaskForUndeclaredClient},
		Requirements: []string{"sep-2663-server-returns-missing-capability-when-required"}}
	negotiationRequiredNamesExtension = &scenarios.Check{ID: "tasksext-negotiation/required-names-extension", Level: scenarios.Must,
		Spec: extSpec + "#capability-negotiation",
		Quote: "If a server is unable to service a request to a client that does not declare this extension capability without returning " +
			"CreateTaskResult, the server MUST return an error with the code -32021 (Missing Required Client Capability), indicating the " +
			"required extension in the error response",
		Title:        "that -32021 names the extension in data.requiredCapabilities.extensions[\"io.modelcontextprotocol/tasks\"]",
		Faults:       []*fault.Fault{server.RequiredTaskNoData},
		Requirements: []string{"sep-2663-server-returns-missing-capability-data-shape"}}
	negotiationMethodsUndeclared = &scenarios.Check{ID: "tasksext-negotiation/methods-undeclared", Level: scenarios.Must,
		Spec:         extSpec + "#protocol-errors",
		Quote:        "Servers MUST return this error for non-declaring clients issuing tasks/get, tasks/update, and tasks/cancel requests.",
		Title:        "tasks/get, tasks/update and tasks/cancel of an existing task, sent without the extension, each get error -32021",
		Faults:       []*fault.Fault{server.TasksMethodsServeUndeclared},
		Requirements: []string{"sep-2663-tasks-methods-non-declaring"}}
)

var negotiationScenario = &scenarios.Scenario{
	ID:       "tasksext-negotiation",
	Title:    "tasks only for requests that declare the extension; -32021 where one is needed",
	Official: "tasks-capability-negotiation",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "may run as a task"), scenarios.NeedsFixture(fixtures.TasksExtFailingJob, "needs a task")},
	Purpose: "The same session sends requests whose per-request capabilities declare the extension and requests whose do not: " +
		"what the server answers the latter is judged, including a client that declares only the 2025-11-25 capability and " +
		"a call carrying the removed task parameter.",
	Checks: []*scenarios.Check{negotiationNoLegacyCapability, negotiationUndeclaredNoTask, negotiationLegacyOnlyUndeclared,
		negotiationRequired32021, negotiationRequiredNamesExtension, negotiationMethodsUndeclared},
	Run: serverside.Body(runNegotiation),
}

func runNegotiation(t *serverside.T) {
	s := open(t)
	_, legacy := s.ServerCapabilities["tasks"]
	t.Judge(negotiationNoLegacyCapability, !legacy, "capabilities without tasks (the extension replaces it)",
		fmt.Sprintf("capabilities.tasks present: %v", legacy))

	tools, err := t.ListTools(s)
	if err != nil {
		t.Blocked("%v", err)
	}
	slow := t.Fixture(fixtures.TasksExtSlowCompute, map[string]any{"seconds": 0.2, "label": "negotiation"})
	if _, ok := tools[slow.Tool]; !ok {
		why := fmt.Sprintf("the target lists no tool %q for the fixture %s", slow.Tool, fixtures.TasksExtSlowCompute)
		t.Skip(negotiationUndeclaredNoTask, why)
		t.Skip(negotiationLegacyOnlyUndeclared, why)
	} else {
		t.Step("call %s without the extension, with the removed task parameter", slow.Tool)
		resp, err := callTool(t, s, slow, undeclared(plainCaps()), map[string]any{"task": map[string]any{"ttl": 60000}})
		t.Judge(negotiationUndeclaredNoTask, err == nil && !isTask(resp), "a result that is no task (or an error)", describeTask(resp, err))

		t.Step("call %s declaring only the 2025-11-25 tasks capability", slow.Tool)
		legacyCaps := plainCaps()
		legacyCaps["tasks"] = map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		resp, err = callTool(t, s, slow, undeclared(legacyCaps), nil)
		t.Judge(negotiationLegacyOnlyUndeclared, err == nil && !isTask(resp), "a result that is no task (or an error)", describeTask(resp, err))
	}

	failing := t.Fixture(fixtures.TasksExtFailingJob, nil)
	if _, ok := tools[failing.Tool]; !ok {
		why := fmt.Sprintf("the target lists no tool %q for the fixture %s", failing.Tool, fixtures.TasksExtFailingJob)
		t.Skip(negotiationRequired32021, why)
		t.Skip(negotiationRequiredNamesExtension, why)
	} else {
		t.Step("call %s, which needs a task, without the extension", failing.Tool)
		id := jsonrpc.StringID("mcpconform-tasksext-required-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsCall, Meta: undeclared(plainCaps()),
			Params: map[string]any{"name": failing.Tool, "arguments": argsOf(failing)}})
		status, note := serverside.StatusNote(s, id)
		ok := err == nil && judge.IsErrorCode(resp, codes.MissingRequiredClientCapability) && (status == 0 || status == http.StatusBadRequest)
		want := "error -32021"
		if status != 0 {
			want += " with HTTP 400"
		}
		t.Judge(negotiationRequired32021, ok, want, describeTask(resp, err)+note)
		if err != nil || !judge.IsErrorCode(resp, codes.MissingRequiredClientCapability) {
			t.NotJudged(negotiationRequiredNamesExtension, "the answer was not -32021")
		} else {
			var data protocol.MissingCapabilityData
			_ = json.Unmarshal(resp.Error.Data, &data)
			var extensions map[string]json.RawMessage
			_ = json.Unmarshal(data.RequiredCapabilities["extensions"], &extensions)
			_, named := extensions[protocol.ExtensionTasks]
			t.Judge(negotiationRequiredNamesExtension, named, "data.requiredCapabilities.extensions naming "+protocol.ExtensionTasks,
				"data: "+strings.TrimSpace(string(resp.Error.Data)))
		}
	}

	judgeMethodsUndeclared(t, s, tools)
}

func argsOf(fx scenarios.Fixture) map[string]any {
	if fx.Arguments == nil {
		return map[string]any{}
	}
	return fx.Arguments
}

// judgeMethodsUndeclared creates a task declaring the extension, then sends
// the extension's methods for it without the extension.
func judgeMethodsUndeclared(t *serverside.T, s *client.Session, tools map[string]protocol.Tool) {
	slow := t.Fixture(fixtures.TasksExtSlowCompute, map[string]any{"seconds": 1, "label": "undeclared-methods"})
	if _, ok := tools[slow.Tool]; !ok {
		t.Skip(negotiationMethodsUndeclared, fmt.Sprintf("the target lists no tool %q for the fixture %s", slow.Tool, fixtures.TasksExtSlowCompute))
		return
	}
	task, _ := createTask(t, s, slow)
	var bad []string
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{protocol.MethodTasksGet, map[string]any{"taskId": task.TaskID}},
		{protocol.MethodTasksUpdate, map[string]any{"taskId": task.TaskID, "inputResponses": map[string]any{}}},
		{protocol.MethodTasksCancel, map[string]any{"taskId": task.TaskID}},
	} {
		t.Step("%s without the extension", c.method)
		resp, err := t.Do(s, client.Call{Method: c.method, Params: c.params, Meta: undeclared(plainCaps())})
		if err != nil || !judge.IsErrorCode(resp, codes.MissingRequiredClientCapability) {
			bad = append(bad, c.method+": "+describeTask(resp, err))
		}
	}
	t.Judge(negotiationMethodsUndeclared, len(bad) == 0, "error -32021 for each", strings.Join(bad, "; "))
	// Leave nothing running behind.
	ctx, cancel := t.Wait()
	defer cancel()
	_, _ = s.ExtCancelTask(ctx, task.TaskID)
}
