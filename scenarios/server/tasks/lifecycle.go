package tasks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// S7 (v1). Tasks lifecycle beyond S1-S3: tool-level negotiation, blocking
// and exact tasks/result, isError → failed, listing with opaque cursors,
// and the -32602 cases.

var (
	toolNegotiationForbiddenRejected = &scenarios.Check{ID: "tasks-tool-negotiation/forbidden-rejected", Level: scenarios.Should, Spec: tasksSpec + "#tool-level-negotiation",
		Title:  "a task-augmented call of a tool whose taskSupport is forbidden (or absent) gets -32601",
		Faults: []*fault.Fault{server.ForbiddenRunsAsTask}}
	toolNegotiationRequiredRejected = &scenarios.Check{ID: "tasks-tool-negotiation/required-rejected", Level: scenarios.Must, Spec: tasksSpec + "#tool-level-negotiation",
		Title:  "a plain call of a tool whose taskSupport is required gets -32601 (the page's error section also allows -32600)",
		Faults: []*fault.Fault{server.RequiredRunsInline}}
)

var toolNegotiationScenario = &scenarios.Scenario{
	ID:       "tasks-tool-negotiation",
	Title:    "execution.taskSupport forbidden and required are enforced",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_forbidden (taskSupport forbidden or absent)", "tool test_task_required (taskSupport required)"},
	Checks:   []*scenarios.Check{toolNegotiationForbiddenRejected, toolNegotiationRequiredRejected},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		tools, err := t.ListTools(a)
		if err != nil {
			t.Blocked("%v", err)
		}
		if fx, why := taskTool(t, tools, fixtureTaskForbidden, nil, "forbidden"); why != "" {
			t.Skip(toolNegotiationForbiddenRejected, why)
		} else {
			t.Step("call %s as a task", fx.Tool)
			ctx, cancel := t.Wait()
			_, resp, err := a.CallToolAsTask(ctx, fx.Tool, fx.Arguments, nil)
			cancel()
			t.Judge(toolNegotiationForbiddenRejected, err == nil && judge.IsErrorCode(resp, codes.MethodNotFound),
				"error -32601", judge.Describe(resp, err))
		}
		if fx, why := taskTool(t, tools, fixtureTaskRequired, nil, "required"); why != "" {
			t.Skip(toolNegotiationRequiredRejected, why)
		} else {
			t.Step("call %s without a task", fx.Tool)
			ctx, cancel := t.Wait()
			resp, err := a.CallTool(ctx, fx.Tool, fx.Arguments)
			cancel()
			// tasks.mdx#tool-level-negotiation says -32601; #protocol-errors
			// allows -32600 for the same case: both readings are accepted.
			ok := err == nil && (judge.IsErrorCode(resp, codes.MethodNotFound) || judge.IsErrorCode(resp, codes.InvalidRequest))
			t.Judge(toolNegotiationRequiredRejected, ok, "error -32601 (or -32600)", judge.Describe(resp, err))
		}
	}),
}

var (
	resultBlocksUntilTerminal = &scenarios.Check{ID: "tasks-result/blocks-until-terminal", Level: scenarios.Must, Spec: tasksSpec + "#result-retrieval",
		Title:  "tasks/result sent while the task works returns only once it is terminal",
		Faults: []*fault.Fault{server.ResultReturnsEarly}}
	resultExactResult = &scenarios.Check{ID: "tasks-result/exact-result", Level: scenarios.Must, Spec: tasksSpec + "#result-retrieval",
		Title:  "tasks/result returns a CallToolResult with the same content a plain call of the tool returns",
		Faults: []*fault.Fault{server.ResultWrapped}}
	resultRelatedTaskMeta = &scenarios.Check{ID: "tasks-result/related-task-meta", Level: scenarios.Must, Spec: tasksSpec + "#related-task-metadata",
		Title:  "the tasks/result response carries _meta related-task with the task's id",
		Faults: []*fault.Fault{server.ResultNoRelatedTask}}
)

var taskResultScenario = &scenarios.Scenario{
	ID:       "tasks-result",
	Title:    "tasks/result blocks until the task is terminal and returns exactly the tool's result",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_working (taskSupport optional or required; exact-result needs optional, to call it plainly too)"},
	Checks:   []*scenarios.Check{resultBlocksUntilTerminal, resultExactResult, resultRelatedTaskMeta},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		tools, err := t.ListTools(a)
		if err != nil {
			t.Blocked("%v", err)
		}
		fx, why := taskTool(t, tools, fixtureTaskWorking, map[string]any{"ms": 300}, "optional", "required")
		if why != "" {
			t.SkipRest(why)
		}
		optional := tools[fx.Tool].Execution.TaskSupport == "optional"
		id, _ := createTask(t, a, fx)
		res, err := waitResult(t, a, id)
		if err != nil || res.Error != nil {
			t.Fail(resultExactResult, "a CallToolResult", judge.Describe(res, err))
			t.Blocked("tasks/result gave no result")
		}
		after, gerr := getTask(t, a, id)
		t.Judge(resultBlocksUntilTerminal, gerr == nil && client.IsTerminal(statusOf(after)),
			"a terminal status right after tasks/result returned", DescribeTask(after, gerr))

		rt, has := relatedTaskID(res.Result)
		t.Judge(resultRelatedTaskMeta, has && rt == id, "_meta related-task.taskId = "+id, fmt.Sprintf("present=%v taskId=%q", has, rt))

		if !optional {
			t.Skip(resultExactResult, "tool "+fx.Tool+" is taskSupport required, so there is no plain call to compare with")
			return
		}
		t.Step("call %s plainly to compare", fx.Tool)
		ctx, cancel := t.Wait()
		plain, perr := a.CallTool(ctx, fx.Tool, fx.Arguments)
		cancel()
		if perr != nil || plain.Error != nil {
			t.Blocked("the plain call failed: %s", judge.Describe(plain, perr))
		}
		if verr := judge.ValidateResult(t.Env.Version, protocol.MethodToolsCall, res.Result); verr != nil {
			t.Fail(resultExactResult, "a result valid against CallToolResult", verr.Error())
			return
		}
		got, want := withoutMeta(res.Result), withoutMeta(plain.Result)
		t.Judge(resultExactResult, reflect.DeepEqual(got, want), "the plain call's result "+string(plain.Result), string(res.Result))
	}),
}

// withoutMeta decodes a result and drops _meta for comparison.
func withoutMeta(raw json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	delete(m, "_meta")
	return m
}

var (
	failingStatusFailed = &scenarios.Check{ID: "tasks-failing/status-failed", Level: scenarios.Should, Spec: tasksSpec + "#task-execution-errors",
		Title:  "a task whose tool result has isError: true reaches status failed",
		Faults: []*fault.Fault{server.IserrorCompleted}}
	failingResultIsError = &scenarios.Check{ID: "tasks-failing/result-is-error", Level: scenarios.Must, Spec: tasksSpec + "#task-execution-errors",
		Title:  "tasks/result returns that CallToolResult with isError: true (exactly what the call returned)",
		Faults: []*fault.Fault{server.FailingResultSwallowed}}
)

var failingTaskScenario = &scenarios.Scenario{
	ID:       "tasks-failing",
	Title:    "a tool error inside a task ends it as failed, and tasks/result returns the tool error",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_failing (taskSupport optional or required; returns isError: true)"},
	Checks:   []*scenarios.Check{failingStatusFailed, failingResultIsError},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskFailing, nil, "optional", "required")
		id, _ := createTask(t, a, fx)
		res, err := waitResult(t, a, id)
		isErr := false
		if err == nil && res.Error == nil {
			var r struct {
				IsError bool `json:"isError"`
			}
			_ = json.Unmarshal(res.Result, &r)
			isErr = r.IsError
		}
		t.Judge(failingResultIsError, isErr, "a CallToolResult with isError: true", judge.Describe(res, err))
		final, gerr := getTask(t, a, id)
		t.Judge(failingStatusFailed, gerr == nil && statusOf(final) == "failed", "status failed", DescribeTask(final, gerr))
	}),
}

var (
	listOwnTasksListed = &scenarios.Check{ID: "tasks-list/own-tasks-listed", Level: scenarios.Must, Spec: tasksSpec + "#task-listing",
		Title:  "every task retrievable via tasks/get appears in tasks/list, across all pages, exactly once",
		Faults: []*fault.Fault{server.ListCursorSkips}}
	listBadCursorRejected = &scenarios.Check{ID: "tasks-list/bad-cursor-rejected", Level: scenarios.Must, Spec: tasksSpec + "#protocol-errors",
		Title:  "tasks/list with a cursor the server never issued gets -32602",
		Faults: []*fault.Fault{server.BadCursorAccepted}}
)

var taskListScenario = &scenarios.Scenario{
	ID:       "tasks-list",
	Title:    "tasks/list pages through the session's tasks with opaque cursors",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"capabilities.tasks.list", "tool test_task_working"},
	Checks:   []*scenarios.Check{listOwnTasksListed, listBadCursorRejected},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		if !serverTasksCapability(a, "list") {
			t.SkipRest("the server does not declare capabilities.tasks.list")
		}
		fx := requireTaskTool(t, a, fixtureTaskWorking, map[string]any{"ms": 50}, "optional", "required")
		var created []string
		for range 5 {
			id, _ := createTask(t, a, fx)
			created = append(created, id)
		}
		t.Step("page through tasks/list")
		listed, err := listAll(t, a)
		if err != nil {
			t.Fail(listOwnTasksListed, "every created task listed", err.Error())
		} else {
			seen := map[string]int{}
			for _, id := range listed {
				seen[id]++
			}
			var missing, twice []string
			for _, id := range created {
				if seen[id] == 0 {
					missing = append(missing, id)
				}
				if seen[id] > 1 {
					twice = append(twice, id)
				}
			}
			t.Judge(listOwnTasksListed, len(missing) == 0 && len(twice) == 0,
				"all of "+strings.Join(created, ", ")+" exactly once",
				fmt.Sprintf("missing [%s], listed twice [%s]", strings.Join(missing, ", "), strings.Join(twice, ", ")))
		}
		t.Step("tasks/list with a forged cursor")
		ctx, cancel := t.Wait()
		resp, _, _, lerr := a.ListTasks(ctx, "mcpconform-forged-cursor-"+randomHex(4))
		cancel()
		t.Judge(listBadCursorRejected, lerr == nil && judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, lerr))
	}),
}

var (
	cancelTerminalRejected = &scenarios.Check{ID: "tasks-cancel-terminal/rejected", Level: scenarios.Must, Spec: cancellationSpec,
		Title:  "tasks/cancel for a completed task gets -32602 and the task stays completed",
		Faults: []*fault.Fault{server.CancelTerminalAccepted}}
)

var terminalCancelScenario = &scenarios.Scenario{
	ID:       "tasks-cancel-terminal",
	Title:    "cancelling a finished task is rejected",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_working"},
	Checks:   []*scenarios.Check{cancelTerminalRejected},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskWorking, map[string]any{"ms": 50}, "optional", "required")
		id, _ := createTask(t, a, fx)
		if _, err := waitTerminal(t, a, id); err != nil {
			t.Blocked("the task did not finish: %v", err)
		}
		resp, err := cancelTask(t, a, id)
		t.Judge(cancelTerminalRejected, err == nil && judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", DescribeTask(resp, err))
	}),
}

var (
	unknownIdInvalidParams = &scenarios.Check{ID: "tasks-unknown-id/invalid-params", Level: scenarios.Must, Spec: tasksSpec + "#protocol-errors",
		Title:  "tasks/get, tasks/result and tasks/cancel with a nonexistent taskId each get -32602",
		Faults: []*fault.Fault{server.UnknownIdWrongCode}}
)

var unknownTaskScenario = &scenarios.Scenario{
	ID:       "tasks-unknown-id",
	Title:    "task operations on an id that never existed get -32602",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Checks:   []*scenarios.Check{unknownIdInvalidParams},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		never := "mcpconform-never-" + randomHex(8)
		for _, method := range []string{protocol.MethodTasksGet, protocol.MethodTasksResult, protocol.MethodTasksCancel} {
			t.Step("%s with taskId %s", method, never)
			resp, err := t.Request(a, method, map[string]any{"taskId": never})
			if !(err == nil && judge.IsErrorCode(resp, codes.InvalidParams)) {
				t.Fail(unknownIdInvalidParams, "error -32602 for "+method, judge.Describe(resp, err))
				return
			}
		}
		t.Pass(unknownIdInvalidParams)
	}),
}
