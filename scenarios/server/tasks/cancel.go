package tasks

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
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
	cancelDuringElicitationElicitationRelatedTask = &scenarios.Check{ID: "tasks-cancel-during-elicitation/elicitation-related-task", Level: scenarios.Must, Spec: tasksSpec + "#associating-task-related-messages",
		Title:  "the elicitation/create sent from inside the task carries _meta related-task with the task's id",
		Faults: []*fault.Fault{server.ElicitationNoRelatedTask}}
	cancelDuringElicitationInputRequiredObserved = &scenarios.Check{ID: "tasks-cancel-during-elicitation/input-required-observed", Level: scenarios.Should, Spec: inputRequiredSpec,
		Title:  "while its question is outstanding, the task is in input_required",
		Faults: []*fault.Fault{server.SkipInputRequired}}
	cancelDuringElicitationCancelResponseCancelled = &scenarios.Check{ID: "tasks-cancel-during-elicitation/cancel-response-cancelled", Level: scenarios.Must, Spec: cancellationSpec,
		Title:  "the tasks/cancel response already shows status cancelled",
		Faults: []*fault.Fault{server.CancelResponseStale}}
	cancelDuringElicitationStaysCancelled = &scenarios.Check{ID: "tasks-cancel-during-elicitation/stays-cancelled", Level: scenarios.Must, Spec: cancellationSpec,
		Title:  "a late answer to the stale elicitation does not resurrect the task: it remains cancelled",
		Faults: []*fault.Fault{server.ResurrectOnLateAnswer}}
	cancelDuringElicitationResultReturns = &scenarios.Check{ID: "tasks-cancel-during-elicitation/result-returns", Level: scenarios.Must, Spec: tasksSpec + "#result-retrieval",
		Title:  "tasks/result on the cancelled task returns (a result or an error) instead of hanging",
		Faults: []*fault.Fault{server.ResultHangsAfterCancel}}
	cancelDuringElicitationSecondCancelRejected = &scenarios.Check{ID: "tasks-cancel-during-elicitation/second-cancel-rejected", Level: scenarios.Must, Spec: cancellationSpec,
		Title:  "cancelling the already cancelled task is rejected with -32602",
		Faults: []*fault.Fault{server.RecancelAccepted}}
	cancelDuringElicitationSurvivesLateAnswer = &scenarios.Check{ID: "tasks-cancel-during-elicitation/survives-late-answer", Level: scenarios.Must, Spec: "2025-11-25/basic/utilities/cancellation.mdx#timing-considerations",
		Title:  "the server handles the late answer gracefully and keeps serving the session",
		Faults: []*fault.Fault{server.CrashOnLateAnswer}}
)

var cancelDuringElicitationScenario = &scenarios.Scenario{
	ID:       "tasks-cancel-during-elicitation",
	Title:    "a task cancelled while its elicitation is outstanding stays cancelled",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_elicitation (taskSupport optional or required; asks for input from inside the task)"},
	Purpose: "The task asks for input; while the question is open the client cancels the task, then answers the stale " +
		"question anyway (accept). The task must stay cancelled and tasks/result must not hang.",
	Checks: []*scenarios.Check{cancelDuringElicitationElicitationRelatedTask, cancelDuringElicitationInputRequiredObserved, cancelDuringElicitationCancelResponseCancelled, cancelDuringElicitationStaysCancelled, cancelDuringElicitationResultReturns, cancelDuringElicitationSecondCancelRejected, cancelDuringElicitationSurvivesLateAnswer},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskElicitation, nil, "optional", "required")
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
			t.Skip(cancelDuringElicitationStaysCancelled, "not judged: the session ended after the late answer ("+judge.Describe(final, err)+")")
		} else {
			t.Judge(cancelDuringElicitationStaysCancelled, statusOf(final) == "cancelled", "status cancelled", DescribeTask(final, nil))
		}

		t.Step("the server still answers")
		t.SurvivesProbe(a, cancelDuringElicitationSurvivesLateAnswer)
	}),
}

func nextHeld(t *serverside.T, held *client.HeldRequests) *client.Held {
	ctx, cancel := t.Wait()
	defer cancel()
	h, err := held.Next(ctx)
	if err != nil {
		t.Blocked("the task never asked for input: %v", err)
	}
	return h
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

var (
	elicitationRefusedDeclineLeavesInputRequired = &scenarios.Check{ID: "tasks-elicitation-refused/decline-leaves-input-required", Level: scenarios.Should, Spec: inputRequiredSpec,
		Title:  "after the user declines, the task leaves input_required and reaches a terminal status",
		Faults: []*fault.Fault{server.StuckAfterDecline}}
	elicitationRefusedCancelLeavesInputRequired = &scenarios.Check{ID: "tasks-elicitation-refused/cancel-leaves-input-required", Level: scenarios.Should, Spec: inputRequiredSpec,
		Title:  "after the user cancels the question, the task leaves input_required and reaches a terminal status",
		Faults: []*fault.Fault{server.StuckAfterCancelAction}}
)

var refusedElicitationScenario = &scenarios.Scenario{
	ID:       "tasks-elicitation-refused",
	Title:    "a task whose question is declined or cancelled does not stay in input_required",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_elicitation (taskSupport optional or required; asks for input from inside the task)"},
	Purpose: "Decline and cancel are answers: once the receiver has its input the task SHOULD leave input_required (back to " +
		"working, or to a terminal status). Which terminal status is the server's choice; ending as cancelled on a decline " +
		"is one vendor's behaviour, not a requirement.",
	Checks: []*scenarios.Check{elicitationRefusedDeclineLeavesInputRequired, elicitationRefusedCancelLeavesInputRequired},
	Run: serverside.Body(func(t *serverside.T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskElicitation, nil, "optional", "required")
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
			if _, err := waitTerminal(t, a, id); err != nil {
				t.Fail(v.check, "the task to leave input_required and reach a terminal status", err.Error())
				_, _ = cancelTask(t, a, id) // do not leave it hanging
				continue
			}
			t.Pass(v.check)
		}
	}),
}

var (
	toolsCancelDuringElicitationNoResponseAfterCancel = &scenarios.Check{ID: "tools-cancel-during-elicitation/no-response-after-cancel", Level: scenarios.Should, Spec: "2025-11-25/basic/utilities/cancellation.mdx#behavior-requirements",
		Title:  "after notifications/cancelled the server sends no response for the cancelled tools/call",
		Faults: []*fault.Fault{server.RespondsAfterCancel}}
)

var callCancelledScenario = &scenarios.Scenario{
	ID:       "tools-cancel-during-elicitation",
	Title:    "a tools/call cancelled while it waits for an elicitation is never answered",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: []string{protocol.V20251125, protocol.V20250618},
	Needs:    []string{"tool test_elicitation (official fixture: elicits with the given message)"},
	Purpose: "The non-task variant: the client sends notifications/cancelled for a tools/call blocked on its elicitation, " +
		"then answers the elicitation anyway. The server should stop and send no response for the cancelled call.",
	Checks: []*scenarios.Check{toolsCancelDuringElicitationNoResponseAfterCancel},
	Run: serverside.Body(func(t *serverside.T) {
		a := t.Open("A", client.Options{Capabilities: taskClientCaps()})
		fx := t.RequireTool(a, "test_elicitation", map[string]any{"message": "mcpconform: please confirm"})
		held := a.Hold(protocol.MethodElicitationCreate)
		id := jsonrpc.StringID("mcpconform-cancelled-call-1")
		req, _ := jsonrpc.NewRequest(id, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments})
		frame, _ := req.Encode()
		mark := a.Inbox().Mark()
		t.Step("call %s (id %s) and wait for its elicitation", fx.Tool, id)
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			if err := a.SendRaw(ctx, frame); err != nil {
				t.Abort("could not send to the target: %v", err)
			}
		}()
		h := nextHeld(t, held)
		t.Step("send notifications/cancelled for %s, then answer the elicitation anyway", id)
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			_ = a.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": id, "reason": "mcpconform: cancelled by the user"})
		}()
		h.Answer(client.ElicitationAnswer("accept", map[string]any{"username": "mcpconform", "email": "conformance@example.com", "confirm": true}))
		t.Barrier(a)
		stray := quiet(t, a, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) })
		actual := "no response"
		if stray != nil {
			actual = string(stray.Raw)
		}
		t.Judge(toolsCancelDuringElicitationNoResponseAfterCancel, stray == nil, "no response for "+id.String(), actual)
	}),
}
