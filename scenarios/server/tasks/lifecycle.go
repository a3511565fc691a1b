package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
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
)

// S7 (v1). Tasks lifecycle beyond S1-S3: tool-level negotiation, blocking
// and exact tasks/result, isError → failed, listing with opaque cursors,
// and the -32602 cases.

var (
	toolNegotiationForbiddenRejected = &scenarios.Check{ID: "tasks-tool-negotiation/forbidden-rejected", Level: scenarios.Should, Spec: tasksSpec + "#tool-level-negotiation",
		Quote:  "Servers SHOULD return a `-32601` (Method not found) error if a client attempts to do so.",
		Title:  "a task-augmented call of a tool whose taskSupport is forbidden (or absent) gets -32601",
		Faults: []*fault.Fault{server.ForbiddenRunsAsTask}}
	toolNegotiationRequiredRejected = &scenarios.Check{ID: "tasks-tool-negotiation/required-rejected", Level: scenarios.Must, Spec: tasksSpec + "#tool-level-negotiation",
		Quote:  "Servers MUST return a `-32601` (Method not found) error if a client does not attempt to do so.",
		Title:  "a plain call of a tool whose taskSupport is required gets -32601 (the page's error section also allows -32600)",
		Faults: []*fault.Fault{server.RequiredRunsInline}}
)

var toolNegotiationScenario = &scenarios.Scenario{
	ID:       "tasks-tool-negotiation",
	Title:    "execution.taskSupport forbidden and required are enforced",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskForbidden, "taskSupport forbidden or absent"), scenarios.NeedsFixture(fixtures.TaskRequired, "taskSupport required")},
	Checks:   []*scenarios.Check{toolNegotiationForbiddenRejected, toolNegotiationRequiredRejected},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		tools, err := t.ListTools(a)
		if err != nil {
			t.Blocked("%v", err)
		}
		if fx, why := taskTool(t, tools, fixtures.TaskForbidden, nil, "forbidden"); why != "" {
			t.Skip(toolNegotiationForbiddenRejected, why)
		} else {
			t.Step("call %s as a task", fx.Tool)
			ctx, cancel := t.Wait()
			_, resp, err := a.CallToolAsTask(ctx, fx.Tool, fx.Arguments, nil)
			cancel()
			t.Judge(toolNegotiationForbiddenRejected, err == nil && judge.IsErrorCode(resp, codes.MethodNotFound),
				"error -32601", judge.Describe(resp, err))
		}
		if fx, why := taskTool(t, tools, fixtures.TaskRequired, nil, "required"); why != "" {
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
		Quote:     "When a receiver receives a `tasks/result` request for a task in any other non-terminal status (`working` or `input_required`), it MUST block the response until the task reaches a terminal status.",
		Title:     "tasks/result sent while the task works answers (a result or an error) only once it is terminal",
		Faults:    []*fault.Fault{server.ResultReturnsEarly, server.ResultErrorWhileWorking},
		Liberties: []*fault.Fault{server.SlowPollNoNotifications}}
	resultCompletesUncancelled = &scenarios.Check{ID: "tasks-result/completes-uncancelled", Level: scenarios.Must, Spec: tasksSpec + "#result-retrieval",
		Quote: "When a receiver receives a `tasks/result` request for a task in a terminal status (`completed`, `failed`, or `cancelled`), it MUST return the final result of the underlying request, whether that is a successful result or a JSON-RPC error.",
		Title: "a task nobody cancelled runs to its end: test_task_working reaches completed, and tasks/result returns the tool's " +
			"result (not an error, not isError)",
		Faults:    []*fault.Fault{server.CancelsOwnTasks},
		Liberties: []*fault.Fault{server.NondeterministicOutput, server.SlowPollNoNotifications}}
	resultExactResult = &scenarios.Check{ID: "tasks-result/exact-result", Level: scenarios.Must, Spec: tasksSpec + "#result-retrieval",
		Quote: "For tasks in a terminal status, receivers MUST return from `tasks/result` exactly what the underlying request would have returned, whether that is a successful result or a JSON-RPC error.",
		Title: "tasks/result returns a CallToolResult, the same as a plain call of the tool returns (for a tool that answers two " +
			"plain calls differently: of the same shape)",
		Faults:    []*fault.Fault{server.ResultWrapped},
		Liberties: []*fault.Fault{server.NondeterministicOutput}}
	resultRelatedTaskMeta = &scenarios.Check{ID: "tasks-result/related-task-meta", Level: scenarios.Must, Spec: tasksSpec + "#related-task-metadata",
		Quote:  "The `tasks/result` operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.",
		Title:  "the tasks/result response carries _meta related-task with the task's id",
		Faults: []*fault.Fault{server.ResultNoRelatedTask}}
)

var taskResultScenario = &scenarios.Scenario{
	ID:       "tasks-result",
	Title:    "tasks/result blocks until the task is terminal and returns exactly the tool's result",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskWorking, "taskSupport optional or required; runs for a while, then completes; exact-result needs optional, to call it plainly too")},
	Purpose: "A task is created and tasks/result sent at once. Whatever it answers, and when, is judged against the task's " +
		"status right after (blocking); the result, fetched again once the task is terminal if the first answer came early, " +
		"is judged on its own (completed with the tool's result, related-task _meta, the same as a plain call).",
	Checks: []*scenarios.Check{resultBlocksUntilTerminal, resultCompletesUncancelled, resultExactResult, resultRelatedTaskMeta},
	Run:    serverside.Body(runTaskResult),
}

func runTaskResult(t *serverside.T) {
	a := openTaskSession(t, "A", 0)
	tools, err := t.ListTools(a)
	if err != nil {
		t.Blocked("%v", err)
	}
	// Long enough that an early answer is still early when tasks/get asks
	// right after, even on a busy machine (300 ms was not, under load).
	fx, why := taskTool(t, tools, fixtures.TaskWorking, map[string]any{"ms": 1000}, "optional", "required")
	if why != "" {
		t.SkipRest(why)
	}
	optional := tools[fx.Tool].Execution.TaskSupport == "optional"
	id, _ := createTask(t, a, fx)
	res, err := waitResult(t, a, id)
	if err != nil {
		t.Blocked("tasks/result was not answered: %v", err)
	}
	// Blocking is judged on any answer, a result or an error: an early
	// error must not hide behind the result's own checks.
	after, gerr := getTask(t, a, id)
	early := gerr == nil && after.Error == nil && !client.IsTerminal(statusOf(after))
	t.Judge(resultBlocksUntilTerminal, gerr == nil && client.IsTerminal(statusOf(after)),
		"a terminal status right after tasks/result answered ("+judge.Describe(res, nil)+")", DescribeTask(after, gerr))

	final, werr := waitTerminal(t, a, id)
	if werr != nil {
		t.Blocked("the task did not finish: %v", werr)
	}
	if early {
		// The early answer says nothing of the result: ask again now.
		if res, err = waitResult(t, a, id); err != nil {
			t.Blocked("tasks/result on the finished task was not answered: %v", err)
		}
	}
	// How the task ended: the first terminal status a response showed (a
	// terminal status that changes later is transitions-legal's affair,
	// what notifications say notifications-agree's).
	ended := final.Status
	for _, o := range a.TaskHistory(id) {
		if o.Source != "notification" && client.IsTerminal(o.Status) {
			ended = o.Status
			break
		}
	}
	t.Judge(resultCompletesUncancelled, ended == "completed" && res.Error == nil && !isErrorResult(res.Result),
		"status completed, and tasks/result returns the tool's result", fmt.Sprintf("status %s; tasks/result: %s", ended, judge.Describe(res, nil)))

	if res.Error != nil {
		t.NotJudged(resultRelatedTaskMeta, "tasks/result answered a JSON-RPC error ("+judge.Describe(res, nil)+")")
	} else {
		rt, has := relatedTaskID(res.Result)
		t.Judge(resultRelatedTaskMeta, has && rt == id, "_meta related-task.taskId = "+id, fmt.Sprintf("present=%v taskId=%q", has, rt))
	}

	switch {
	case ended != "completed" || res.Error != nil:
		t.NotJudged(resultExactResult, fmt.Sprintf("the task ended %s (tasks/result: %s), so there is no tool result to compare", ended, judge.Describe(res, nil)))
		return
	case !optional:
		t.Skip(resultExactResult, "tool "+fx.Tool+" is taskSupport required, so there is no plain call to compare with")
		return
	}
	if verr := judge.ValidateResult(t.Env.Version, protocol.MethodToolsCall, res.Result); verr != nil {
		t.Fail(resultExactResult, "a result valid against CallToolResult", verr.Error())
		return
	}
	plainCall := func() *jsonrpc.Message {
		t.Step("call %s plainly to compare", fx.Tool)
		ctx, cancel := taskWait(t, a, id) // a plain call runs as long as the task did
		defer cancel()
		plain, perr := a.CallTool(ctx, fx.Tool, fx.Arguments)
		if perr != nil || plain.Error != nil {
			t.Blocked("the plain call failed: %s", judge.Describe(plain, perr))
		}
		return plain
	}
	plain := plainCall()
	got, want := withoutMeta(res.Result), withoutMeta(plain.Result)
	if reflect.DeepEqual(got, want) {
		t.Pass(resultExactResult)
		return
	}
	// Different: is the tool itself deterministic? Two plain calls tell.
	again := withoutMeta(plainCall().Result)
	if reflect.DeepEqual(again, want) {
		t.Fail(resultExactResult, "the plain call's result (twice the same) "+string(plain.Result), string(res.Result))
		return
	}
	if diff := shapeDiff(got, want); diff != "" {
		t.Fail(resultExactResult, "a result of the plain call's shape (the tool answers two plain calls differently, so only "+
			"the shape is compared): "+string(plain.Result), diff+": "+string(res.Result))
		return
	}
	t.Pass(resultExactResult)
}

// isErrorResult reads isError from a CallToolResult.
func isErrorResult(raw json.RawMessage) bool {
	var r protocol.ToolResult
	_ = json.Unmarshal(raw, &r)
	return r.IsError
}

// shapeDiff compares two CallToolResults (without _meta) by shape: the
// same fields, the same isError, as many content items of the same types,
// structuredContent on both or neither. It says how they differ, or "".
func shapeDiff(got, want map[string]any) string {
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if k, w := keys(got), keys(want); !slices.Equal(k, w) {
		return fmt.Sprintf("fields %v instead of %v", k, w)
	}
	if !reflect.DeepEqual(got["isError"], want["isError"]) {
		return fmt.Sprintf("isError %v instead of %v", got["isError"], want["isError"])
	}
	types := func(m map[string]any) []string {
		items, _ := m["content"].([]any)
		var out []string
		for _, it := range items {
			obj, _ := it.(map[string]any)
			typ, _ := obj["type"].(string)
			out = append(out, typ)
		}
		return out
	}
	if g, w := types(got), types(want); !slices.Equal(g, w) {
		return fmt.Sprintf("content types %v instead of %v", g, w)
	}
	return ""
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
		Quote:  "For tasks that wrap tool call requests, when the tool result has `isError` set to `true`, the task should reach `failed` status.",
		Title:  "a task whose tool result has isError: true reaches status failed",
		Faults: []*fault.Fault{server.IserrorCompleted}}
	failingResultIsError = &scenarios.Check{ID: "tasks-failing/result-is-error", Level: scenarios.Must, Spec: tasksSpec + "#task-execution-errors",
		Quote:  "If the request completed with a JSON-RPC response, `tasks/result` MUST return a successful JSON-RPC response containing that result.",
		Title:  "tasks/result returns that CallToolResult with isError: true (exactly what the call returned)",
		Faults: []*fault.Fault{server.FailingResultSwallowed}}
)

var failingTaskScenario = &scenarios.Scenario{
	ID:       "tasks-failing",
	Title:    "a tool error inside a task ends it as failed, and tasks/result returns the tool error",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskFailing, "taskSupport optional or required; returns isError: true")},
	Checks:   []*scenarios.Check{failingStatusFailed, failingResultIsError},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtures.TaskFailing, nil, "optional", "required")
		id, _ := createTask(t, a, fx)
		res, err := waitResult(t, a, id)
		final, gerr := getTask(t, a, id)
		if statusOf(final) == "cancelled" {
			// Nobody cancelled it: the tool never ran to its error.
			// tasks-result/completes-uncancelled judges such a server.
			t.NotJudgedRest("the task ended cancelled though nobody cancelled it, so the tool never returned its error")
		}
		isErr := err == nil && res.Error == nil && isErrorResult(res.Result)
		t.Judge(failingResultIsError, isErr, "a CallToolResult with isError: true", judge.Describe(res, err))
		t.Judge(failingStatusFailed, gerr == nil && statusOf(final) == "failed", "status failed", DescribeTask(final, gerr))
	}),
}

var (
	listOwnTasksListed = &scenarios.Check{ID: "tasks-list/own-tasks-listed", Level: scenarios.Must, Spec: tasksSpec + "#task-listing",
		Quote: "If a task is retrievable via `tasks/get` for a requestor, it MUST be retrievable via `tasks/list` for that requestor.",
		Title: "every task still retrievable via tasks/get appears in tasks/list, across all pages (a task whose ttl passed may be " +
			"gone from both; a task listed twice is no violation)",
		Faults:    []*fault.Fault{server.ListCursorSkips},
		Liberties: []*fault.Fault{server.ShortTTL}}
	listPagesEnd = &scenarios.Check{ID: "tasks-list/pages-end", Level: scenarios.Must, Spec: "2025-11-25/server/utilities/pagination.mdx#response-format",
		Quote: "An optional `nextCursor` field if more results exist",
		Title: fmt.Sprintf("following nextCursor, tasks/list reaches a page without one (no cursor given twice, a new one for at most %d pages)",
			serverside.MaxPages),
		Faults: []*fault.Fault{server.TaskListNeverEnds}}
	listBadCursorRejected = &scenarios.Check{ID: "tasks-list/bad-cursor-rejected", Level: scenarios.Must, Spec: tasksSpec + "#protocol-errors",
		Quote:  "Invalid or nonexistent cursor in `tasks/list`: `-32602` (Invalid params)",
		Title:  "tasks/list with a cursor the server never issued gets -32602",
		Faults: []*fault.Fault{server.BadCursorAccepted}}
)

var taskListScenario = &scenarios.Scenario{
	ID:       "tasks-list",
	Title:    "tasks/list pages through the session's tasks with opaque cursors",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsCapability("tasks.list"), scenarios.NeedsFixture(fixtures.TaskWorking, "taskSupport optional or required")},
	Checks:   []*scenarios.Check{listPagesEnd, listOwnTasksListed, listBadCursorRejected},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtures.TaskWorking, map[string]any{"ms": 50}, "optional", "required")
		first, resp := createTask(t, a, fx)
		created := []string{first}
		// A server may keep tasks briefly: it MAY override the requested
		// ttl and delete a task once it has passed. When its ttl is short
		// enough to wait out, the first task is let expire, so that the
		// listing is judged with a task gone.
		if ttl := createdTTL(resp); ttl > 0 && ttl <= expiryWaitLimit(t) {
			t.Step("the server keeps tasks %s: wait for %s to expire", ttl, first)
			waitExpired(t, a, first, ttl)
		}
		for range 4 {
			id, _ := createTask(t, a, fx)
			created = append(created, id)
		}
		// The paging judge every list shares; the listing below is judged
		// only on a list that ends.
		p := t.PageThrough(a, protocol.MethodTasksList)
		t.Judge(listPagesEnd, p.Endless == "", "a last page without nextCursor", p.Endless)
		var listed []string
		var err error
		if p.Endless == "" {
			t.Step("page through tasks/list")
			listed, err = listAll(t, a)
		}
		if p.Endless != "" {
			t.Skip(listOwnTasksListed, "the listing does not end ("+p.Endless+"): tasks-list/pages-end judges it")
		} else if err != nil {
			t.Fail(listOwnTasksListed, "every created task listed", err.Error())
		} else {
			var unlisted []string
			for _, id := range created {
				if !contains(listed, id) {
					unlisted = append(unlisted, id)
				}
			}
			// A task missing from the list is a violation only while
			// tasks/get still retrieves it (it may have expired).
			var retrievable []string
			for _, id := range unlisted {
				g, gerr := getTask(t, a, id)
				if gerr != nil {
					t.Blocked("tasks/get for the unlisted task %s was not answered: %v", id, gerr)
				}
				if g.Error == nil {
					retrievable = append(retrievable, id)
				}
			}
			t.Judge(listOwnTasksListed, len(retrievable) == 0,
				"every task of "+strings.Join(created, ", ")+" that tasks/get still retrieves listed",
				fmt.Sprintf("retrievable via tasks/get but not listed: [%s] (listed: %s)", strings.Join(retrievable, ", "), strings.Join(listed, ", ")))
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
		Quote:     "Receivers MUST reject cancellation requests for tasks already in a terminal status (`completed`, `failed`, or `cancelled`) with error code `-32602` (Invalid params).",
		Title:     "tasks/cancel for a finished task gets -32602",
		Faults:    []*fault.Fault{server.CancelTerminalAccepted},
		Liberties: []*fault.Fault{server.SlowPollNoNotifications, server.InformativeTaskErrors}}
)

var terminalCancelScenario = &scenarios.Scenario{
	ID:       "tasks-cancel-terminal",
	Title:    "cancelling a finished task is rejected",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskWorking, "taskSupport optional or required")},
	Checks:   []*scenarios.Check{cancelTerminalRejected},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtures.TaskWorking, map[string]any{"ms": 50}, "optional", "required")
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
		Quote:     "Invalid or nonexistent `taskId` in `tasks/get`, `tasks/result`, or `tasks/cancel`: `-32602` (Invalid params)",
		Title:     "tasks/get, tasks/result and tasks/cancel with a nonexistent taskId each get -32602",
		Faults:    []*fault.Fault{server.UnknownIdWrongCode},
		Liberties: []*fault.Fault{server.InformativeTaskErrors}}
)

var unknownTaskScenario = &scenarios.Scenario{
	ID:       "tasks-unknown-id",
	Title:    "task operations on an id that never existed get -32602",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls},
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

// createdTTL reads task.ttl from a CreateTaskResult (0 when absent or null:
// unlimited, and when it is no integer, which decodes to 0 or not at all).
// The decode's error is not read: it may be another member's.
func createdTTL(resp *jsonrpc.Message) time.Duration {
	if resp == nil {
		return 0
	}
	var r protocol.CreateTaskResult
	_ = json.Unmarshal(resp.Result, &r)
	if r.Task.TTL == nil {
		return 0
	}
	return time.Duration(*r.Task.TTL) * time.Millisecond
}

// expiryWaitLimit is the longest ttl the list scenario waits out: two
// answer timeouts, and no more than a third of the scenario's time left.
func expiryWaitLimit(t *serverside.T) time.Duration {
	limit := 2 * t.Env.Timing.ResponseTimeout
	if dl, ok := t.Ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl)/3)
	}
	return limit
}

// waitExpired polls a task, at its pace, until tasks/get no longer finds it
// or its ttl and one task wait have passed. A task kept longer is no
// violation (receivers MAY delete it), so nothing is judged here.
func waitExpired(t *serverside.T, s *client.Session, id string, ttl time.Duration) {
	ctx, cancel := context.WithTimeout(t.Ctx, ttl+taskWaitBound(t.Env.Timing, pollIntervalOf(s.TaskHistory(id), t.Env.Timing.Poll)))
	defer cancel()
	_, err := s.WaitTaskStatus(ctx, id, func(string) bool { return false })
	var gone *client.TaskError
	if errors.As(err, &gone) {
		t.Step("%s is gone: %s", id, gone.Error())
	}
}
