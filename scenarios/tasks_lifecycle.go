package scenarios

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// S7 (v1). Tasks lifecycle beyond S1-S3: tool-level negotiation, blocking
// and exact tasks/result, isError → failed, listing with opaque cursors,
// and the -32602 cases.

func init() {
	Register(toolNegotiationScenario, taskResultScenario, failingTaskScenario, taskListScenario, terminalCancelScenario, unknownTaskScenario)
}

var toolNegotiationScenario = &Scenario{
	ID:       "tasks-tool-negotiation",
	Title:    "execution.taskSupport forbidden and required are enforced",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_forbidden (taskSupport forbidden or absent)", "tool test_task_required (taskSupport required)"},
	Checks: []Check{
		{ID: "tasks-tool-negotiation/forbidden-rejected", Level: Should, Spec: tasksSpec + "#tool-level-negotiation",
			Title: "a task-augmented call of a tool whose taskSupport is forbidden (or absent) gets -32601"},
		{ID: "tasks-tool-negotiation/required-rejected", Level: Must, Spec: tasksSpec + "#tool-level-negotiation",
			Title: "a plain call of a tool whose taskSupport is required gets -32601 (the page's error section also allows -32600)"},
	},
	Run: func(t *T) {
		a := openTaskSession(t, "A", 0)
		tools, err := listTools(t, a)
		if err != nil {
			t.Blocked("%v", err)
		}
		if fx, why := taskTool(t, tools, fixtureTaskForbidden, nil, "forbidden"); why != "" {
			t.Skip("tasks-tool-negotiation/forbidden-rejected", why)
		} else {
			t.Step("call %s as a task", fx.Tool)
			ctx, cancel := t.Wait()
			_, resp, err := a.CallToolAsTask(ctx, fx.Tool, fx.Arguments, nil)
			cancel()
			t.Judge("tasks-tool-negotiation/forbidden-rejected", err == nil && isErrorCode(resp, codes.MethodNotFound),
				"error -32601", Describe(resp, err))
		}
		if fx, why := taskTool(t, tools, fixtureTaskRequired, nil, "required"); why != "" {
			t.Skip("tasks-tool-negotiation/required-rejected", why)
		} else {
			t.Step("call %s without a task", fx.Tool)
			ctx, cancel := t.Wait()
			resp, err := a.CallTool(ctx, fx.Tool, fx.Arguments)
			cancel()
			// tasks.mdx#tool-level-negotiation says -32601; #protocol-errors
			// allows -32600 for the same case: both readings are accepted.
			ok := err == nil && (isErrorCode(resp, codes.MethodNotFound) || isErrorCode(resp, codes.InvalidRequest))
			t.Judge("tasks-tool-negotiation/required-rejected", ok, "error -32601 (or -32600)", Describe(resp, err))
		}
	},
}

var taskResultScenario = &Scenario{
	ID:       "tasks-result",
	Title:    "tasks/result blocks until the task is terminal and returns exactly the tool's result",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_working (taskSupport optional or required; exact-result needs optional, to call it plainly too)"},
	Checks: []Check{
		{ID: "tasks-result/blocks-until-terminal", Level: Must, Spec: tasksSpec + "#result-retrieval",
			Title: "tasks/result sent while the task works returns only once it is terminal"},
		{ID: "tasks-result/exact-result", Level: Must, Spec: tasksSpec + "#result-retrieval",
			Title: "tasks/result returns a CallToolResult with the same content a plain call of the tool returns"},
		{ID: "tasks-result/related-task-meta", Level: Must, Spec: tasksSpec + "#related-task-metadata",
			Title: "the tasks/result response carries _meta related-task with the task's id"},
	},
	Run: func(t *T) {
		a := openTaskSession(t, "A", 0)
		tools, err := listTools(t, a)
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
			t.Fail("tasks-result/exact-result", "a CallToolResult", Describe(res, err))
			t.Blocked("tasks/result gave no result")
		}
		after, gerr := getTask(t, a, id)
		t.Judge("tasks-result/blocks-until-terminal", gerr == nil && client.IsTerminal(statusOf(after)),
			"a terminal status right after tasks/result returned", DescribeTask(after, gerr))

		rt, has := relatedTaskID(res.Result)
		t.Judge("tasks-result/related-task-meta", has && rt == id, "_meta related-task.taskId = "+id, fmt.Sprintf("present=%v taskId=%q", has, rt))

		if !optional {
			t.Skip("tasks-result/exact-result", "tool "+fx.Tool+" is taskSupport required, so there is no plain call to compare with")
			return
		}
		t.Step("call %s plainly to compare", fx.Tool)
		ctx, cancel := t.Wait()
		plain, perr := a.CallTool(ctx, fx.Tool, fx.Arguments)
		cancel()
		if perr != nil || plain.Error != nil {
			t.Blocked("the plain call failed: %s", Describe(plain, perr))
		}
		if verr := validateResult(t.Env.Version, protocol.MethodToolsCall, res.Result); verr != nil {
			t.Fail("tasks-result/exact-result", "a result valid against CallToolResult", verr.Error())
			return
		}
		got, want := withoutMeta(res.Result), withoutMeta(plain.Result)
		t.Judge("tasks-result/exact-result", reflect.DeepEqual(got, want), "the plain call's result "+string(plain.Result), string(res.Result))
	},
}

// withoutMeta decodes a result and drops _meta for comparison.
func withoutMeta(raw json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	delete(m, "_meta")
	return m
}

var failingTaskScenario = &Scenario{
	ID:       "tasks-failing",
	Title:    "a tool error inside a task ends it as failed, and tasks/result returns the tool error",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_failing (taskSupport optional or required; returns isError: true)"},
	Checks: []Check{
		{ID: "tasks-failing/status-failed", Level: Should, Spec: tasksSpec + "#task-execution-errors",
			Title: "a task whose tool result has isError: true reaches status failed"},
		{ID: "tasks-failing/result-is-error", Level: Must, Spec: tasksSpec + "#task-execution-errors",
			Title: "tasks/result returns that CallToolResult with isError: true (exactly what the call returned)"},
	},
	Run: func(t *T) {
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
		t.Judge("tasks-failing/result-is-error", isErr, "a CallToolResult with isError: true", Describe(res, err))
		final, gerr := getTask(t, a, id)
		t.Judge("tasks-failing/status-failed", gerr == nil && statusOf(final) == "failed", "status failed", DescribeTask(final, gerr))
	},
}

var taskListScenario = &Scenario{
	ID:       "tasks-list",
	Title:    "tasks/list pages through the session's tasks with opaque cursors",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"capabilities.tasks.list", "tool test_task_working"},
	Checks: []Check{
		{ID: "tasks-list/own-tasks-listed", Level: Must, Spec: tasksSpec + "#task-listing",
			Title: "every task retrievable via tasks/get appears in tasks/list, across all pages, exactly once"},
		{ID: "tasks-list/bad-cursor-rejected", Level: Must, Spec: tasksSpec + "#protocol-errors",
			Title: "tasks/list with a cursor the server never issued gets -32602"},
	},
	Run: func(t *T) {
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
			t.Fail("tasks-list/own-tasks-listed", "every created task listed", err.Error())
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
			t.Judge("tasks-list/own-tasks-listed", len(missing) == 0 && len(twice) == 0,
				"all of "+strings.Join(created, ", ")+" exactly once",
				fmt.Sprintf("missing [%s], listed twice [%s]", strings.Join(missing, ", "), strings.Join(twice, ", ")))
		}
		t.Step("tasks/list with a forged cursor")
		ctx, cancel := t.Wait()
		resp, _, _, lerr := a.ListTasks(ctx, "mcpconform-forged-cursor-"+randomHex(4))
		cancel()
		t.Judge("tasks-list/bad-cursor-rejected", lerr == nil && isErrorCode(resp, codes.InvalidParams), "error -32602", Describe(resp, lerr))
	},
}

var terminalCancelScenario = &Scenario{
	ID:       "tasks-cancel-terminal",
	Title:    "cancelling a finished task is rejected",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_working"},
	Checks: []Check{
		{ID: "tasks-cancel-terminal/rejected", Level: Must, Spec: cancellationSpec,
			Title: "tasks/cancel for a completed task gets -32602 and the task stays completed"},
	},
	Run: func(t *T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskWorking, map[string]any{"ms": 50}, "optional", "required")
		id, _ := createTask(t, a, fx)
		if _, err := waitTerminal(t, a, id); err != nil {
			t.Blocked("the task did not finish: %v", err)
		}
		resp, err := cancelTask(t, a, id)
		t.Judge("tasks-cancel-terminal/rejected", err == nil && isErrorCode(resp, codes.InvalidParams), "error -32602", DescribeTask(resp, err))
	},
}

var unknownTaskScenario = &Scenario{
	ID:       "tasks-unknown-id",
	Title:    "task operations on an id that never existed get -32602",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Checks: []Check{
		{ID: "tasks-unknown-id/invalid-params", Level: Must, Spec: tasksSpec + "#protocol-errors",
			Title: "tasks/get, tasks/result and tasks/cancel with a nonexistent taskId each get -32602"},
	},
	Run: func(t *T) {
		a := openTaskSession(t, "A", 0)
		never := "mcpconform-never-" + randomHex(8)
		for _, method := range []string{protocol.MethodTasksGet, protocol.MethodTasksResult, protocol.MethodTasksCancel} {
			t.Step("%s with taskId %s", method, never)
			resp, err := t.Request(a, method, map[string]any{"taskId": never})
			if !(err == nil && isErrorCode(resp, codes.InvalidParams)) {
				t.Fail("tasks-unknown-id/invalid-params", "error -32602 for "+method, Describe(resp, err))
				return
			}
		}
		t.Pass("tasks-unknown-id/invalid-params")
	},
}
