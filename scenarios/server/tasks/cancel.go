package tasks

import (
	"fmt"
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

// S3. Cancel during elicitation (2025-11-25 tasks v1), its decline/cancel
// variants, and the non-task variant with notifications/cancelled.

const (
	cancellationSpec  = tasksSpec + "#task-cancellation"
	inputRequiredSpec = tasksSpec + "#input-required-status"
)

var (
	cancelDuringElicitationElicitationRelatedTask = &scenarios.Check{ID: "tasks-cancel-during-elicitation/elicitation-related-task", Level: scenarios.Must, Spec: tasksSpec + "#input-required-status",
		Quote:  "The receiver MUST include the `io.modelcontextprotocol/related-task` metadata in the request to associate it with the task.",
		Title:  "the elicitation/create sent from inside the task carries _meta related-task with the task's id",
		Faults: []*fault.Fault{server.ElicitationNoRelatedTask}}
	cancelDuringElicitationInputRequiredObserved = &scenarios.Check{ID: "tasks-cancel-during-elicitation/input-required-observed", Level: scenarios.Should, Spec: inputRequiredSpec,
		Quote:  "When the task receiver has messages for the requestor that are necessary to complete the task, the receiver SHOULD move the task to the `input_required` status.",
		Title:  "while its question is outstanding, the task is in input_required",
		Faults: []*fault.Fault{server.SkipInputRequired}}
	cancelDuringElicitationCancelResponseCancelled = &scenarios.Check{ID: "tasks-cancel-during-elicitation/cancel-response-cancelled", Level: scenarios.Must, Spec: cancellationSpec,
		Quote:  "Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to `cancelled` status before sending the response.",
		Title:  "the tasks/cancel response already shows status cancelled",
		Faults: []*fault.Fault{server.CancelResponseStale}}
	cancelDuringElicitationStaysCancelled = &scenarios.Check{ID: "tasks-cancel-during-elicitation/stays-cancelled", Level: scenarios.Must, Spec: cancellationSpec,
		Quote: "Once a task is cancelled, it MUST remain in `cancelled` status even if execution continues to completion or fails.",
		Title: "a late answer to the stale elicitation does not resurrect the task: it reads cancelled, or is gone (-32602: " +
			"receivers may delete cancelled tasks at once)",
		Faults:    []*fault.Fault{server.ResurrectOnLateAnswer},
		Liberties: []*fault.Fault{server.DeletesCancelledTasks}}
	cancelDuringElicitationResultReturns = &scenarios.Check{ID: "tasks-cancel-during-elicitation/result-returns", Level: scenarios.Must, Spec: tasksSpec + "#result-retrieval",
		Quote:     "When a receiver receives a `tasks/result` request for a task in a terminal status (`completed`, `failed`, or `cancelled`), it MUST return the final result of the underlying request, whether that is a successful result or a JSON-RPC error.",
		Title:     "tasks/result on the cancelled task returns (a result or an error) instead of hanging",
		Faults:    []*fault.Fault{server.ResultHangsAfterCancel},
		Liberties: []*fault.Fault{server.DeletesCancelledTasks}}
	cancelDuringElicitationSecondCancelRejected = &scenarios.Check{ID: "tasks-cancel-during-elicitation/second-cancel-rejected", Level: scenarios.Must, Spec: cancellationSpec,
		Quote:     "Receivers MUST reject cancellation requests for tasks already in a terminal status (`completed`, `failed`, or `cancelled`) with error code `-32602` (Invalid params).",
		Title:     "cancelling the already cancelled task is rejected with -32602 (also the code for a task already deleted)",
		Faults:    []*fault.Fault{server.RecancelAccepted},
		Liberties: []*fault.Fault{server.DeletesCancelledTasks}}
	cancelDuringElicitationSurvivesLateAnswer = &scenarios.Check{ID: "tasks-cancel-during-elicitation/survives-late-answer", Level: scenarios.Must, Spec: "2025-11-25/basic/utilities/cancellation.mdx#timing-considerations",
		Quote:  "Both parties MUST handle these race conditions gracefully:",
		Title:  "the server handles the late answer gracefully and keeps serving the session",
		Faults: []*fault.Fault{server.CrashOnLateAnswer}}
)

var cancelDuringElicitationScenario = &scenarios.Scenario{
	ID:       "tasks-cancel-during-elicitation",
	Title:    "a task cancelled while its elicitation is outstanding stays cancelled",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskElicitation, "taskSupport optional or required; asks for input from inside the task")},
	Purpose: "The task asks for input; while the question is open the client cancels the task, then answers the stale " +
		"question anyway (accept). The task must stay cancelled and tasks/result must not hang.",
	Checks: []*scenarios.Check{cancelDuringElicitationElicitationRelatedTask, cancelDuringElicitationInputRequiredObserved, cancelDuringElicitationCancelResponseCancelled, cancelDuringElicitationStaysCancelled, cancelDuringElicitationResultReturns, cancelDuringElicitationSecondCancelRejected, cancelDuringElicitationSurvivesLateAnswer},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtures.TaskElicitation, nil, "optional", "required")
		held := a.Hold(protocol.MethodElicitationCreate)
		id, _ := createTask(t, a, fx)
		h := taskElicitation(t, a, held, id)

		rt, has := relatedTaskID(h.Request.Params)
		t.Judge(cancelDuringElicitationElicitationRelatedTask, has && rt == id,
			"_meta[\""+protocol.MetaRelatedTask+"\"].taskId = "+id, fmt.Sprintf("present=%v taskId=%q", has, rt))

		judgeInputRequired(t, a, id, cancelDuringElicitationInputRequiredObserved)

		resp, err := cancelTask(t, a, id)
		t.Judge(cancelDuringElicitationCancelResponseCancelled, err == nil && statusOf(resp) == "cancelled",
			"a Task with status cancelled", DescribeTask(resp, err))

		res, err := waitResult(t, a, id)
		t.Judge(cancelDuringElicitationResultReturns, err == nil, "a response to tasks/result", judge.Describe(res, err))

		again, err := cancelTask(t, a, id)
		t.Judge(cancelDuringElicitationSecondCancelRejected, err == nil && judge.IsErrorCode(again, codes.InvalidParams),
			"error -32602", judge.Describe(again, err))

		t.Step("answer the stale elicitation: accept")
		mark := a.Inbox().Mark()
		h.Answer(client.ElicitationAnswer("accept", map[string]any{"confirm": true}))
		// No message acknowledges an answer, so give the server a bounded
		// window: a status notification for the task ends it at once.
		quiet(t, a, mark, func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationTasksStatus && strings.Contains(string(m.Params), id)
		})
		final, err := getTask(t, a, id)
		if serverside.Gone(a, err) {
			t.NotJudged(cancelDuringElicitationStaysCancelled, "the session ended after the late answer ("+judge.Describe(final, err)+")")
		} else {
			t.Judge(cancelDuringElicitationStaysCancelled, staysCancelled(final),
				"status cancelled, or -32602 for a task the server deleted (tasks.mdx: receivers MAY delete cancelled tasks, including immediately after cancellation)",
				DescribeTask(final, nil))
		}

		t.Step("the server still answers")
		t.SurvivesProbe(a, cancelDuringElicitationSurvivesLateAnswer)
	}),
}

// staysCancelled: a cancelled task, read again, is still cancelled, or gone:
// tasks.mdx#task-cancellation lets receivers delete cancelled tasks at any
// time, and a deleted task's id is a nonexistent one (-32602,
// tasks.mdx#protocol-errors). Any other status brought it back.
func staysCancelled(m *jsonrpc.Message) bool {
	return statusOf(m) == "cancelled" || judge.IsErrorCode(m, codes.InvalidParams)
}

// judgeInputRequired: by the time the question arrives the task should read
// input_required (a notification saying so counts as well).
func judgeInputRequired(t *serverside.T, s *client.Session, id string, check *scenarios.Check) {
	resp, err := getTask(t, s, id)
	if err == nil && statusOf(resp) == "input_required" {
		t.Pass(check)
		return
	}
	for _, o := range s.TaskHistory(id) {
		if o.Status == "input_required" {
			t.Pass(check)
			return
		}
	}
	t.Fail(check, "status input_required while the elicitation is outstanding", DescribeTask(resp, err))
}

const leavesInputRequired = "When the receiver receives all required input, the task SHOULD transition out of `input_required` status (typically back to `working`)."

var (
	elicitationRefusedDeclineLeavesInputRequired = &scenarios.Check{ID: "tasks-elicitation-refused/decline-leaves-input-required", Level: scenarios.Should, Spec: inputRequiredSpec,
		Quote:     leavesInputRequired,
		Title:     "after the user declines, the task leaves input_required (back to working, or to a terminal status)",
		Faults:    []*fault.Fault{server.StuckAfterDecline},
		Liberties: []*fault.Fault{server.DeclinedResumesWorking, server.SlowPollNoNotifications}}
	elicitationRefusedCancelLeavesInputRequired = &scenarios.Check{ID: "tasks-elicitation-refused/cancel-leaves-input-required", Level: scenarios.Should, Spec: inputRequiredSpec,
		Quote:     leavesInputRequired,
		Title:     "after the user cancels the question, the task leaves input_required (back to working, or to a terminal status)",
		Faults:    []*fault.Fault{server.StuckAfterCancelAction},
		Liberties: []*fault.Fault{server.DeclinedResumesWorking, server.SlowPollNoNotifications}}
)

var refusedElicitationScenario = &scenarios.Scenario{
	ID:       "tasks-elicitation-refused",
	Title:    "a task whose question is declined or cancelled does not stay in input_required",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskElicitation, "taskSupport optional or required; asks for input from inside the task")},
	Purpose: "Decline and cancel are answers: once the receiver has its input the task SHOULD leave input_required (back to " +
		"working, or to a terminal status). Which terminal status is the server's choice; ending as cancelled on a decline " +
		"is one vendor's behaviour, not a requirement.",
	Checks: []*scenarios.Check{elicitationRefusedDeclineLeavesInputRequired, elicitationRefusedCancelLeavesInputRequired},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtures.TaskElicitation, nil, "optional", "required")
		held := a.Hold(protocol.MethodElicitationCreate)
		for _, v := range []struct {
			action string
			check  *scenarios.Check
		}{
			{"decline", elicitationRefusedDeclineLeavesInputRequired},
			{"cancel", elicitationRefusedCancelLeavesInputRequired},
		} {
			id, _ := createTask(t, a, fx)
			h := taskElicitation(t, a, held, id)
			t.Step("answer the elicitation: %s", v.action)
			h.Answer(client.ElicitationAnswer(v.action, nil))
			t.Step("wait for %s to leave input_required", id)
			tk, err := waitStatus(t, a, id, func(st string) bool { return st != "input_required" })
			if err != nil {
				t.Fail(v.check, "the task to leave input_required (back to working, or to a terminal status)", err.Error())
			} else {
				t.Pass(v.check)
			}
			if (err != nil || !client.IsTerminal(tk.Status)) && serverTasksCapability(a, "cancel") {
				_, _ = cancelTask(t, a, id) // do not leave it running
			}
		}
	}),
}
