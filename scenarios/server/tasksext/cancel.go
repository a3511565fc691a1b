package tasksext

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// tasks/cancel: an acknowledgement, cooperative cancellation, and a
// cancelled task that stays cancelled (ext-tasks/tasks.md#task-cancellation).

const stayQuote = "If the status is cancelled, the server MUST return a Task object with status cancelled."

var (
	cancelAckEmpty = &scenarios.Check{ID: "tasksext-cancel/ack-empty", Level: scenarios.Must,
		Spec:         extSpec + "#response-2",
		Quote:        "On success, the server MUST acknowledge the request with an empty result.",
		Title:        "tasks/cancel of a working task is acknowledged with an empty result (resultType and _meta only)",
		Faults:       []*fault.Fault{server.CancelAckNotEmpty},
		Liberties:    []*fault.Fault{server.CancelAppliedLate, server.CancelNotHonoured},
		Requirements: []string{"sep-2663-cancel-ack-empty-result"}}
	cancelStaysCancelled = &scenarios.Check{ID: "tasksext-cancel/stays-cancelled", Level: scenarios.Must,
		Spec: extSpec + "#response", Quote: stayQuote,
		Title: "once tasks/get reads a cancelled slow_compute, it keeps reading cancelled (terminal statuses are final: the " +
			"page's state diagram); a task purged afterwards (-32602) passes. Cancellation is cooperative: a task that ends " +
			"otherwise is not judged",
		Faults:       []*fault.Fault{server.CancelledThenCompleted},
		Liberties:    []*fault.Fault{server.CancelAppliedLate, server.ForgetsReadTasks, server.SlowPollInterval},
		Requirements: []string{"sep-2663-tasks-get-status-cancelled"}}
	cancelInputStaysCancelled = &scenarios.Check{ID: "tasksext-cancel/input-stays-cancelled", Level: scenarios.Must,
		Spec: extSpec + "#response", Quote: stayQuote,
		Title: "confirm_delete cancelled while it waits in input_required reads cancelled, and a late tasks/update with the " +
			"answer does not resume it",
		Faults:       []*fault.Fault{server.UpdateResurrectsCancelled},
		Liberties:    []*fault.Fault{server.CancelAppliedLate, server.ForgetsReadTasks},
		Requirements: []string{"sep-2663-tasks-get-status-cancelled"}}
	cancelTerminalAck = &scenarios.Check{ID: "tasksext-cancel/terminal-ack-empty", Level: scenarios.Must,
		Spec:  extSpec + "#response-2",
		Quote: "On success, the server MUST acknowledge the request with an empty result.",
		Title: "tasks/cancel of a slow_compute task that already completed is acknowledged with the same empty result (-32602 is " +
			"for unknown tasks; one whose ttlMs has elapsed may be gone, and is not judged)",
		Faults:    []*fault.Fault{server.CancelTerminalRefused, server.CancelAckNotEmpty},
		Liberties: []*fault.Fault{server.CancelAppliedLate, server.CancelNotHonoured}}
)

var cancelScenario = &scenarios.Scenario{
	ID:       "tasksext-cancel",
	Title:    "tasks/cancel is acknowledged, and a cancelled task stays cancelled, also after a late answer",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "works for `seconds`"), scenarios.NeedsFixture(fixtures.TasksExtConfirmDelete, "parks in input_required")},
	Purpose: "A long slow_compute task is cancelled and polled: if it reads cancelled, it is watched for a while. A short one " +
		"is cancelled once it completed. A " +
		"confirm_delete task is cancelled while it waits for input, then answered late, and watched the same way.",
	Checks: []*scenarios.Check{cancelAckEmpty, cancelStaysCancelled, cancelTerminalAck, cancelInputStaysCancelled},
	Run:    serverside.Body(runCancel),
}

func runCancel(t *serverside.T) {
	s := open(t)
	tools, err := t.ListTools(s)
	if err != nil {
		t.Blocked("%v", err)
	}
	slow := t.Fixture(fixtures.TasksExtSlowCompute, map[string]any{"seconds": 60, "label": "cancel"})
	if _, ok := tools[slow.Tool]; !ok {
		why := fmt.Sprintf("the target lists no tool %q for the fixture %s", slow.Tool, fixtures.TasksExtSlowCompute)
		t.Skip(cancelAckEmpty, why)
		t.Skip(cancelStaysCancelled, why)
		t.Skip(cancelTerminalAck, why)
	} else {
		task, _ := createTask(t, s, slow)
		t.Step("tasks/cancel %s", task.TaskID)
		ctx, cancel := t.Wait()
		ack, err := s.ExtCancelTask(ctx, task.TaskID)
		cancel()
		if err != nil || ack.Error != nil {
			t.Fail(cancelAckEmpty, "an empty result", judge.Describe(ack, err))
		} else {
			empty, extra := emptyAck(ack.Result)
			t.Judge(cancelAckEmpty, empty, "an empty result (resultType and _meta only)", "members "+strings.Join(extra, ", "))
		}
		judgeStays(t, s, task, cancelStaysCancelled, nil)
		judgeTerminalCancel(t, s)
	}

	confirm := t.Fixture(fixtures.TasksExtConfirmDelete, map[string]any{"filename": "keep.txt"})
	if _, ok := tools[confirm.Tool]; !ok {
		t.Skip(cancelInputStaysCancelled, fmt.Sprintf("the target lists no tool %q for the fixture %s", confirm.Tool, fixtures.TasksExtConfirmDelete))
		return
	}
	task, _ := createTask(t, s, confirm)
	t.Step("poll until %s asks for input", task.TaskID)
	polls, err := waitTask(t, s, task, time.Second, leftWorking)
	asking := lastPoll(t, polls, err, "ask for input")
	if asking.Task.Status != "input_required" {
		t.Blocked("confirm_delete reached %s without asking for input", asking.Task.Status)
	}
	t.Step("tasks/cancel while it waits")
	ctx, cancel := t.Wait()
	ack, cerr := s.ExtCancelTask(ctx, task.TaskID)
	cancel()
	if cerr != nil || ack.Error != nil {
		t.Blocked("tasks/cancel failed: %s", judge.Describe(ack, cerr))
	}
	judgeStays(t, s, asking.Task, cancelInputStaysCancelled, func() {
		answers := map[string]any{}
		for k, req := range asking.Task.InputRequests {
			answers[k] = answerFor(req)
		}
		t.Step("answer the cancelled task's question late (tasks/update)")
		ctx, cancel := t.Wait()
		defer cancel()
		_, _ = s.ExtUpdateTask(ctx, task.TaskID, answers) // an error or an ack: either is fine
	})
}

// judgeStays polls a cancelled task until terminal; if it reads cancelled,
// runs then (a late answer) and watches it keep reading cancelled.
func judgeStays(t *serverside.T, s *client.Session, task client.ExtTask, c *scenarios.Check, then func()) {
	t.Step("poll %s until terminal", task.TaskID)
	polls, err := waitTask(t, s, task, 0, terminal)
	if err != nil {
		t.NotJudged(c, fmt.Sprintf("the task did not end soon after the cancel (%v); cancellation is cooperative "+
			"(ext-tasks/tasks.md#task-cancellation)", err))
		return
	}
	end := polls[len(polls)-1]
	switch {
	case end.Resp.Error != nil:
		t.NotJudged(c, "the task was purged before it read terminal ("+judge.Describe(end.Resp, nil)+")")
		return
	case end.Task.Status != "cancelled":
		t.NotJudged(c, "the task ended "+end.Task.Status+", which a cancel that came too late allows")
		return
	}
	if then != nil {
		then()
	}
	t.Step("watch %s keep reading cancelled", task.TaskID)
	if changed := watchStays(t, s, end.Task); changed != nil {
		t.Fail(c, "status cancelled (or the task purged)", describeTask(changed, nil))
		return
	}
	t.Pass(c)
}

// judgeTerminalCancel cancels a slow_compute task once it completed.
func judgeTerminalCancel(t *serverside.T, s *client.Session) {
	fx := t.Fixture(fixtures.TasksExtSlowCompute, map[string]any{"seconds": 0, "label": server.LabelCancelTerminal})
	sent := time.Now()
	task, _ := createTask(t, s, fx)
	end := waitTerminal(t, s, task, time.Second)
	t.Step("tasks/cancel the finished task %s", task.TaskID)
	ctx, cancel := t.Wait()
	ack, err := s.ExtCancelTask(ctx, task.TaskID)
	cancel()
	switch {
	case err == nil && ack.Error == nil:
		empty, extra := emptyAck(ack.Result)
		t.Judge(cancelTerminalAck, empty, "an empty result (resultType and _meta only)", "members "+strings.Join(extra, ", "))
	case err == nil && mayBeGone(end.Task, sent):
		t.NotJudged(cancelTerminalAck, "the task's ttlMs had elapsed, so it may be gone ("+judge.Describe(ack, nil)+")")
	default:
		t.Fail(cancelTerminalAck, "an empty result", judge.Describe(ack, err))
	}
}
