package tasksext

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

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
	"github.com/mcpconform/mcpconform/transport"
)

// A task from creation to its result: resultType "task", durable creation,
// the detailed task by status, the removed tasks/result, unknown ids, and
// the Mcp-Name routing header.

var (
	lifecycleResultTypeTask = &scenarios.Check{ID: "tasksext-lifecycle/result-type-task", Level: scenarios.Must,
		Spec:         extSpec + "#polymorphic-results",
		Quote:        "Servers MUST set resultType to \"task\" when returning a CreateTaskResult so that clients can distinguish it from a standard result.",
		Title:        "a tools/call answered with a task (taskId and status) says resultType \"task\"; a plain result is not judged here",
		Faults:       []*fault.Fault{server.CreateResultTypeComplete},
		Liberties:    []*fault.Fault{server.AnswersSynchronously},
		Requirements: []string{"sep-2663-result-type-task-on-create"}}
	lifecycleDurable = &scenarios.Check{ID: "tasksext-lifecycle/durable", Level: scenarios.Must,
		Spec: extSpec + "#task-creation",
		Quote: "A server MUST NOT return CreateTaskResult until the task is durably created — that is, until a tasks/get for the " +
			"returned taskId would resolve.",
		Title:  "the first tasks/get, sent as soon as the CreateTaskResult arrived, resolves the task (no -32602)",
		Faults: []*fault.Fault{server.CreatedNotDurable},
		// sep-2663-tasks-get-status-working: its first tasks/get reads the working task
		// sep-2663-routing-headers-accepted-on-tasks-get: over HTTP its tasks/get carries matching Mcp-Method and Mcp-Name
		Requirements: []string{"sep-2663-durable-create-strong-consistency", "sep-2663-tasks-get-status-working",
			"sep-2663-routing-headers-accepted-on-tasks-get"}}
	lifecycleCompletedResult = &scenarios.Check{ID: "tasksext-lifecycle/completed-result", Level: scenarios.Must,
		Spec: extSpec + "#response",
		Quote: "If the status is completed, the server MUST return a Task object with status completed and a result field containing " +
			"the final result of the task.",
		Title: "tasks/get of the completed slow_compute inlines a result that is a CallToolResult (resultType may be left out " +
			"of the inlined result)",
		Faults:       []*fault.Fault{server.CompletedEmptyResult},
		Liberties:    []*fault.Fault{server.SlowPollInterval, server.NoPollInterval, server.ForgetsReadTasks},
		Requirements: []string{"sep-2663-tasks-get-status-completed"}}
	lifecycleTasksResultRemoved = &scenarios.Check{ID: "tasksext-lifecycle/tasks-result-removed", Level: scenarios.Must,
		Spec: extSpec + "#task-polling", Source: sepNote + "#backwards-compatibility",
		Quote:        "tasks/result is removed; clients calling it MUST receive -32601 (Method Not Found).",
		Title:        "tasks/result for the finished task gets error -32601 (over HTTP with status 404)",
		Faults:       []*fault.Fault{server.TasksResultServed},
		Requirements: []string{"sep-2663-tasks-result-removed-method-not-found"}}
	lifecycleUnknownGet = &scenarios.Check{ID: "tasksext-lifecycle/unknown-get-32602", Level: scenarios.Must,
		Spec:         extSpec + "#protocol-errors",
		Quote:        "Servers MUST return this error for tasks/get.",
		Title:        "tasks/get of a task id that never existed gets error -32602 (Invalid params)",
		Faults:       []*fault.Fault{server.GetUnknownWrongCode},
		Requirements: []string{"sep-2663-tasks-get-invalid-task-id-32602"}}
	lifecycleUnknownUpdateCancel = &scenarios.Check{ID: "tasksext-lifecycle/unknown-update-cancel-32602", Level: scenarios.Should,
		Spec:   extSpec + "#protocol-errors",
		Quote:  "Servers SHOULD return this error for tasks/update and tasks/cancel.",
		Title:  "tasks/update and tasks/cancel of a task id that never existed each get error -32602",
		Faults: []*fault.Fault{server.UnknownTaskAcked},
		Requirements: []string{"sep-2663-update-error-unknown-task-id", "sep-2663-cancel-error-unknown-task-id",
			"sep-2663-tasks-update-cancel-invalid-task-id-32602"}}
	lifecycleMcpNameMismatch = &scenarios.Check{ID: "tasksext-lifecycle/mcp-name-mismatch", Level: scenarios.Must,
		Spec: "2026-07-28/basic/transports/streamable-http.mdx#server-validation", Source: "seps/2243-http-standardization.md",
		Quote: "Servers that process the request body MUST reject requests where the values specified in the headers do not match " +
			"the values in the request body.",
		Title: "over Streamable HTTP, a tasks/get whose Mcp-Name is not its params.taskId is rejected (error -32020, HTTP 400), " +
			"while the matching header of every other tasks/get was served",
		Faults:       []*fault.Fault{server.HeaderMismatchAccepted},
		Requirements: []string{"sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get"}}
	lifecycleSyncToolPlain = &scenarios.Check{ID: "tasksext-lifecycle/sync-tool-plain", Level: scenarios.Must,
		Spec:  extSpec + "#polymorphic-results",
		Quote: "Servers MUST NOT set resultType to \"task\" on result types other than CreateTaskResult.",
		Title: "greet, which never runs as a task, called declaring the extension (and once more with the removed 2025-11-25 task " +
			"parameter) answers a CallToolResult: resultType \"complete\", no taskId, a non-empty content",
		Faults:       []*fault.Fault{server.SyncResultSaysTask},
		Requirements: []string{"sep-2663-no-task-result-type-on-others", "sep-2663-legacy-task-param-ignored"}}
	lifecycleTasksListRemoved = &scenarios.Check{ID: "tasksext-lifecycle/tasks-list-removed", Level: scenarios.Must,
		Spec: "2025-11-25/basic/index.mdx#messages", Source: extSpec + "#security-considerations",
		Quote: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title: "tasks/list, which the extension does not define (\"Because there is no tasks/list, a server cannot inadvertently " +
			"leak the existence of one caller's tasks to another.\"), gets error -32601 (over HTTP with status 404)",
		Faults: []*fault.Fault{server.TasksListServed}}
	lifecycleMcpMethodMismatch = &scenarios.Check{ID: "tasksext-lifecycle/mcp-method-mismatch", Level: scenarios.Must,
		Spec: "2026-07-28/basic/transports/streamable-http.mdx#server-validation", Source: "seps/2243-http-standardization.md",
		Quote: "Servers that process the request body MUST reject requests where the values specified in the headers do not match " +
			"the values in the request body.",
		Title: "over Streamable HTTP, a tasks/get whose Mcp-Method says tasks/update, and a tools/call of greet whose Mcp-Method " +
			"says tasks/get, are each rejected (error -32020, HTTP 400)",
		Faults: []*fault.Fault{server.MethodHeaderUncheckedOnTasks, server.HeaderMismatchAccepted}}
)

var lifecycleScenario = &scenarios.Scenario{
	ID:       "tasksext-lifecycle",
	Title:    "a task from tools/call to its inlined result, polled with tasks/get",
	Official: "tasks-lifecycle",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtGreet, "answers at once, never as a task"),
		scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "works for `seconds`, may run as a task")},
	Purpose: "greet, which never runs as a task, is called declaring the extension; tasks/list, which the extension removed, " +
		"follows, and over HTTP a tasks/get and a tools/call whose Mcp-Method contradicts the body. Then slow_compute is called " +
		"declaring the extension. A server may answer it without a task (then only that answer is " +
		"judged); a task is polled at the pollIntervalMs it suggests until terminal, and its outcome judged. Unknown ids, the " +
		"removed tasks/result and, over HTTP, a contradicting Mcp-Name follow.",
	Checks: []*scenarios.Check{lifecycleSyncToolPlain, lifecycleTasksListRemoved, lifecycleMcpMethodMismatch, lifecycleResultTypeTask,
		lifecycleDurable, lifecycleCompletedResult, lifecycleTasksResultRemoved, lifecycleUnknownGet, lifecycleUnknownUpdateCancel,
		lifecycleMcpNameMismatch},
	Run: serverside.Body(runLifecycle),
}

func runLifecycle(t *serverside.T) {
	s := open(t)
	judgeSyncTool(t, s)
	judgeTasksListRemoved(t, s)
	judgeMethodMismatch(t, s)
	fx := t.RequireTool(s, fixtures.TasksExtSlowCompute, map[string]any{"seconds": 0.3, "label": "lifecycle"})
	t.Step("call %s declaring the extension", fx.Tool)
	resp, err := callTool(t, s, fx, nil, nil)
	if err != nil || resp.Error != nil {
		t.Blocked("tools/call of %s failed: %s", fx.Tool, judge.Describe(resp, err))
	}
	resultType := judge.StringField(resp.Result, "resultType")
	if !isTask(resp) {
		t.Judge(lifecycleResultTypeTask, resultType != "task", "a result that is no task does not say resultType \"task\"", "resultType "+resultType)
		t.NotJudgedRest(fmt.Sprintf("%s was answered without a task, as a server may (ext-tasks/tasks.md#capability-negotiation)", fx.Tool))
	}
	t.Judge(lifecycleResultTypeTask, resultType == "task", "resultType \"task\" on a result carrying taskId and status", fmt.Sprintf("resultType %q", resultType))
	task, _ := client.ReadExtTask(resp.Result)

	t.Step("tasks/get at once")
	ctx, cancel := t.Wait()
	first, gerr := s.ExtGetTask(ctx, task.TaskID)
	cancel()
	t.Judge(lifecycleDurable, gerr == nil && first.Error == nil && judge.StringField(first.Result, "taskId") == task.TaskID,
		"the task (taskId "+task.TaskID+")", describeTask(first, gerr))

	end := waitTerminal(t, s, task, time.Second)
	judgeCompleted(t, lifecycleCompletedResult, end, "completed")

	t.Step("tasks/result on the finished task")
	id := jsonrpc.StringID("mcpconform-tasksext-result-1")
	res, rerr := t.Do(s, client.Call{ID: id, Method: protocol.MethodTasksResult, Params: map[string]any{"taskId": task.TaskID}})
	status, note := serverside.StatusNote(s, id)
	t.Judge(lifecycleTasksResultRemoved, rerr == nil && judge.IsErrorCode(res, codes.MethodNotFound) && (status == 0 || status == http.StatusNotFound),
		"error -32601 (over HTTP with 404)", judge.Describe(res, rerr)+note)

	never := "mcpconform-never-" + strings.ReplaceAll(task.TaskID, "/", "")
	t.Step("tasks/get, tasks/update and tasks/cancel of an id that never existed")
	ctx, cancel = t.Wait()
	unknown, uerr := s.ExtGetTask(ctx, never)
	cancel()
	t.Judge(lifecycleUnknownGet, uerr == nil && judge.IsErrorCode(unknown, codes.InvalidParams), "error -32602", judge.Describe(unknown, uerr))
	var bad []string
	for _, method := range []string{protocol.MethodTasksUpdate, protocol.MethodTasksCancel} {
		params := map[string]any{"taskId": never}
		if method == protocol.MethodTasksUpdate {
			params["inputResponses"] = map[string]any{}
		}
		r, err := t.Request(s, method, params)
		if err != nil || !judge.IsErrorCode(r, codes.InvalidParams) {
			bad = append(bad, method+": "+judge.Describe(r, err))
		}
	}
	t.Judge(lifecycleUnknownUpdateCancel, len(bad) == 0, "error -32602 for each", strings.Join(bad, "; "))

	if t.Env.Transport != transport.HTTP {
		t.Skip(lifecycleMcpNameMismatch, "Mcp-Name is a Streamable HTTP header; this transport carries none")
		return
	}
	t.Step("tasks/get of the task with Mcp-Name naming another task")
	mid := jsonrpc.StringID("mcpconform-tasksext-name-1")
	mm, merr := t.Do(s, client.Call{ID: mid, Method: protocol.MethodTasksGet, Params: map[string]any{"taskId": task.TaskID},
		Header: http.Header{"Mcp-Name": {never}}})
	mstatus, mnote := serverside.StatusNote(s, mid)
	t.Judge(lifecycleMcpNameMismatch, merr == nil && judge.IsErrorCode(mm, codes.HeaderMismatch) && mstatus == http.StatusBadRequest,
		"error -32020 with HTTP 400", describeTask(mm, merr)+mnote)
}

// judgeSyncTool calls greet declaring the extension, then with the
// 2025-11-25 task parameter, and judges each answer a plain CallToolResult.
func judgeSyncTool(t *serverside.T, s *client.Session) {
	tools, err := t.ListTools(s)
	if err != nil {
		t.Blocked("%v", err)
	}
	fx := t.Fixture(fixtures.TasksExtGreet, map[string]any{"name": "World"})
	if _, ok := tools[fx.Tool]; !ok {
		t.Skip(lifecycleSyncToolPlain, fmt.Sprintf("the target lists no tool %q for the fixture %s", fx.Tool, fixtures.TasksExtGreet))
		return
	}
	var bad []string
	for _, extra := range []map[string]any{nil, {"task": map[string]any{"ttl": 60000, "pollInterval": 100}}} {
		what := "declaring the extension"
		if extra != nil {
			what += ", with the task parameter"
		}
		t.Step("call %s %s", fx.Tool, what)
		resp, err := callTool(t, s, fx, nil, extra)
		if err != nil || resp.Error != nil {
			bad = append(bad, what+": "+judge.Describe(resp, err))
			continue
		}
		var r protocol.ToolResult
		_ = json.Unmarshal(resp.Result, &r)
		resultType, taskID := judge.StringField(resp.Result, "resultType"), judge.StringField(resp.Result, "taskId")
		if resultType != "complete" || taskID != "" || len(r.Content) == 0 {
			bad = append(bad, fmt.Sprintf("%s: resultType %q, taskId %q, %d content items", what, resultType, taskID, len(r.Content)))
		}
	}
	t.Judge(lifecycleSyncToolPlain, len(bad) == 0, "a CallToolResult each time (resultType \"complete\", no taskId, content)", strings.Join(bad, "; "))
}

func judgeTasksListRemoved(t *serverside.T, s *client.Session) {
	t.Step("tasks/list, which the extension removed")
	id := jsonrpc.StringID("mcpconform-tasksext-list-1")
	res, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodTasksList, Params: map[string]any{}})
	status, note := serverside.StatusNote(s, id)
	t.Judge(lifecycleTasksListRemoved, err == nil && judge.IsErrorCode(res, codes.MethodNotFound) && (status == 0 || status == http.StatusNotFound),
		"error -32601 (over HTTP with 404)", judge.Describe(res, err)+note)
}

// judgeMethodMismatch sends two requests whose Mcp-Method names another
// method than the body: a tasks/get (of an id that never existed, so a
// served request shows as -32602) and a tools/call of greet.
func judgeMethodMismatch(t *serverside.T, s *client.Session) {
	if t.Env.Transport != transport.HTTP {
		t.Skip(lifecycleMcpMethodMismatch, "Mcp-Method is a Streamable HTTP header; this transport carries none")
		return
	}
	greet := t.Fixture(fixtures.TasksExtGreet, map[string]any{"name": "header-mismatch"})
	probes := []struct {
		id     string
		method string
		params map[string]any
		header string
	}{
		{"mcpconform-tasksext-method-1", protocol.MethodTasksGet, map[string]any{"taskId": "mcpconform-never-method-header"}, protocol.MethodTasksUpdate},
		{"mcpconform-tasksext-method-2", protocol.MethodToolsCall, map[string]any{"name": greet.Tool, "arguments": greet.Arguments}, protocol.MethodTasksGet},
	}
	var bad []string
	for _, p := range probes {
		t.Step("%s with Mcp-Method: %s", p.method, p.header)
		id := jsonrpc.StringID(p.id)
		resp, err := t.Do(s, client.Call{ID: id, Method: p.method, Params: p.params, Header: http.Header{"Mcp-Method": {p.header}}})
		status, note := serverside.StatusNote(s, id)
		if err != nil || !judge.IsErrorCode(resp, codes.HeaderMismatch) || status != http.StatusBadRequest {
			bad = append(bad, p.method+": "+judge.Describe(resp, err)+note)
		}
	}
	t.Judge(lifecycleMcpMethodMismatch, len(bad) == 0, "error -32020 with HTTP 400 for each", strings.Join(bad, "; "))
}

// judgeCompleted judges a terminal poll that must read completed with a
// CallToolResult inlined.
func judgeCompleted(t *serverside.T, c *scenarios.Check, end client.ExtPoll, want string) {
	if end.Task.Status != want {
		t.Fail(c, "status "+want, describeTask(end.Resp, nil))
		return
	}
	var result map[string]any
	if len(end.Task.Result) == 0 || json.Unmarshal(end.Task.Result, &result) != nil || result == nil {
		t.Fail(c, "a result object", "result "+string(end.Task.Result))
		return
	}
	if _, ok := result["resultType"]; !ok {
		result["resultType"] = "complete" // the page's own examples inline it without
	}
	raw, _ := json.Marshal(result)
	if verr := judge.ValidateResult(protocol.V20260728, protocol.MethodToolsCall, raw); verr != nil {
		t.Fail(c, "a result that is a CallToolResult", verr.Error())
		return
	}
	t.Pass(c)
}

var (
	toolErrorCompleted = &scenarios.Check{ID: "tasksext-tool-error/completed", Level: scenarios.Must,
		Spec: extSpec + "#task-execution-errors",
		Quote: "The failed status MUST NOT be used to represent non-JSON-RPC errors, such as a tool result that completed with isError: true. " +
			"Errors within the context of a protocol method result MUST use the completed status with the error details in the result field.",
		Title:        "failing_job, whose tool result has isError, ends completed with that result (isError true), not failed",
		Faults:       []*fault.Fault{server.IsErrorFailed},
		Liberties:    []*fault.Fault{server.SlowPollInterval},
		Requirements: []string{"sep-2663-failed-status-jsonrpc-only", "sep-2663-tool-error-uses-completed-status"}}
)

var toolErrorScenario = &scenarios.Scenario{
	ID:       "tasksext-tool-error",
	Title:    "a tool error (isError) ends the task completed, not failed",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"), scenarios.NeedsFixture(fixtures.TasksExtFailingJob, "as a task, completes with isError")},
	Checks:   []*scenarios.Check{toolErrorCompleted},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t)
		fx := t.RequireTool(s, fixtures.TasksExtFailingJob, nil)
		task, _ := createTask(t, s, fx)
		end := waitTerminal(t, s, task, 2*time.Second)
		var r protocol.ToolResult
		_ = json.Unmarshal(end.Task.Result, &r)
		t.Judge(toolErrorCompleted, end.Task.Status == "completed" && r.IsError, "status completed with a result whose isError is true",
			fmt.Sprintf("%s; result %s", describeTask(end.Resp, nil), string(end.Task.Result)))
	}),
}

var (
	protocolErrorFailed = &scenarios.Check{ID: "tasksext-protocol-error/failed-with-error", Level: scenarios.Must,
		Spec:   extSpec + "#task-execution-errors",
		Quote:  "If the underlying request resulted in a JSON-RPC error, the task uses failed status and the error field MUST contain that JSON-RPC error.",
		Title:  "protocol_error_job, whose request ends in a JSON-RPC error, ends failed with error {code, message} and no result",
		Faults: []*fault.Fault{server.ProtocolErrorCompleted},
		// sep-2663-failed-includes-statusmessage: the MUST half (the error field)
		Requirements: []string{"sep-2663-tasks-get-status-failed", "sep-2663-failed-includes-statusmessage"}}
	protocolErrorStatusMessage = &scenarios.Check{ID: "tasksext-protocol-error/status-message", Level: scenarios.Should,
		Spec: extSpec + "#task-execution-errors",
		Quote: "The tasks/get response SHOULD include a statusMessage field with diagnostic information about the failure, and MUST " +
			"include the error field with the JSON-RPC error.",
		Title:  "the failed task's tasks/get carries a statusMessage",
		Faults: []*fault.Fault{server.FailedNoStatusMessage},
		// the SHOULD half (statusMessage)
		Requirements: []string{"sep-2663-failed-includes-statusmessage"}}
)

var protocolErrorScenario = &scenarios.Scenario{
	ID:       "tasksext-protocol-error",
	Title:    "a JSON-RPC error during execution ends the task failed, with the error",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"), scenarios.NeedsFixture(fixtures.TasksExtProtocolError, "as a task, fails with a JSON-RPC error")},
	Checks:   []*scenarios.Check{protocolErrorFailed, protocolErrorStatusMessage},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t)
		fx := t.RequireTool(s, fixtures.TasksExtProtocolError, nil)
		task, _ := createTask(t, s, fx)
		end := waitTerminal(t, s, task, 2*time.Second)
		var e protocol.ErrorObject
		_ = json.Unmarshal(end.Task.Error, &e)
		ok := end.Task.Status == "failed" && e.Code != nil && e.Message != nil && len(end.Task.Result) == 0
		t.Judge(protocolErrorFailed, ok, "status failed with error {code, message} and no result",
			fmt.Sprintf("%s; error %s; result %s", describeTask(end.Resp, nil), string(end.Task.Error), string(end.Task.Result)))
		if end.Task.Status != "failed" {
			t.NotJudged(protocolErrorStatusMessage, "the task did not end failed")
			return
		}
		t.Judge(protocolErrorStatusMessage, end.Task.StatusMessage != nil && *end.Task.StatusMessage != "", "a statusMessage", "none")
	}),
}
