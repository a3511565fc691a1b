package scenarios

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// S3. Cancel during elicitation (2025-11-25 tasks v1), its decline/cancel
// variants, and the non-task variant with notifications/cancelled.

func init() {
	Register(cancelDuringElicitationScenario, refusedElicitationScenario, callCancelledScenario)
}

const (
	cancellationSpec  = tasksSpec + "#task-cancellation"
	inputRequiredSpec = tasksSpec + "#input-required-status"
)

var cancelDuringElicitationScenario = &Scenario{
	ID:       "tasks-cancel-during-elicitation",
	Title:    "a task cancelled while its elicitation is outstanding stays cancelled",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_elicitation (taskSupport optional or required; asks for input from inside the task)"},
	Purpose: "The task asks for input; while the question is open the client cancels the task, then answers the stale " +
		"question anyway (accept). The task must stay cancelled and tasks/result must not hang.",
	Checks: []Check{
		{ID: "tasks-cancel-during-elicitation/elicitation-related-task", Level: Must, Spec: tasksSpec + "#associating-task-related-messages",
			Title: "the elicitation/create sent from inside the task carries _meta related-task with the task's id"},
		{ID: "tasks-cancel-during-elicitation/input-required-observed", Level: Should, Spec: inputRequiredSpec,
			Title: "while its question is outstanding, the task is in input_required"},
		{ID: "tasks-cancel-during-elicitation/cancel-response-cancelled", Level: Must, Spec: cancellationSpec,
			Title: "the tasks/cancel response already shows status cancelled"},
		{ID: "tasks-cancel-during-elicitation/stays-cancelled", Level: Must, Spec: cancellationSpec,
			Title: "a late answer to the stale elicitation does not resurrect the task: it remains cancelled"},
		{ID: "tasks-cancel-during-elicitation/result-returns", Level: Must, Spec: tasksSpec + "#result-retrieval",
			Title: "tasks/result on the cancelled task returns (a result or an error) instead of hanging"},
		{ID: "tasks-cancel-during-elicitation/second-cancel-rejected", Level: Must, Spec: cancellationSpec,
			Title: "cancelling the already cancelled task is rejected with -32602"},
		{ID: "tasks-cancel-during-elicitation/survives-late-answer", Level: Must, Spec: "2025-11-25/basic/utilities/cancellation.mdx#timing-considerations",
			Title: "the server handles the late answer gracefully and keeps serving the session"},
	},
	Run: func(t *T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskElicitation, nil, "optional", "required")
		held := a.Hold(protocol.MethodElicitationCreate)
		id, _ := createTask(t, a, fx)
		h := taskElicitation(t, a, held, id)

		rt, has := relatedTaskID(h.Request.Params)
		t.Judge("tasks-cancel-during-elicitation/elicitation-related-task", has && rt == id,
			"_meta[\""+protocol.MetaRelatedTask+"\"].taskId = "+id, fmt.Sprintf("present=%v taskId=%q", has, rt))

		judgeInputRequired(t, a, id, "tasks-cancel-during-elicitation/input-required-observed")

		resp, err := cancelTask(t, a, id)
		t.Judge("tasks-cancel-during-elicitation/cancel-response-cancelled", err == nil && statusOf(resp) == "cancelled",
			"a Task with status cancelled", DescribeTask(resp, err))

		res, err := waitResult(t, a, id)
		t.Judge("tasks-cancel-during-elicitation/result-returns", err == nil, "a response to tasks/result", Describe(res, err))

		again, err := cancelTask(t, a, id)
		t.Judge("tasks-cancel-during-elicitation/second-cancel-rejected", err == nil && isErrorCode(again, codes.InvalidParams),
			"error -32602", Describe(again, err))

		t.Step("answer the stale elicitation: accept")
		mark := a.Inbox().Mark()
		h.Answer(client.ElicitationAnswer("accept", map[string]any{"confirm": true}))
		// No message acknowledges an answer, so give the server a bounded
		// window: a status notification for the task ends it at once.
		quiet(t, a, mark, func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationTasksStatus && strings.Contains(string(m.Params), id)
		})
		final, err := getTask(t, a, id)
		if gone(a, err) {
			t.Skip("tasks-cancel-during-elicitation/stays-cancelled", "not judged: the session ended after the late answer ("+Describe(final, err)+")")
		} else {
			t.Judge("tasks-cancel-during-elicitation/stays-cancelled", statusOf(final) == "cancelled", "status cancelled", DescribeTask(final, nil))
		}

		t.Step("the server still answers")
		survivesProbe(t, a, "tasks-cancel-during-elicitation/survives-late-answer")
	},
}

func nextHeld(t *T, held *client.HeldRequests) *client.Held {
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
func judgeInputRequired(t *T, s *client.Session, id, checkID string) {
	resp, err := getTask(t, s, id)
	if err == nil && statusOf(resp) == "input_required" {
		t.Pass(checkID)
		return
	}
	for _, o := range s.TaskHistory(id) {
		if o.Status == "input_required" {
			t.Pass(checkID)
			return
		}
	}
	t.Fail(checkID, "status input_required while the elicitation is outstanding", DescribeTask(resp, err))
}

var refusedElicitationScenario = &Scenario{
	ID:       "tasks-elicitation-refused",
	Title:    "a task whose question is declined or cancelled does not stay in input_required",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_elicitation (taskSupport optional or required; asks for input from inside the task)"},
	Purpose: "Decline and cancel are answers: once the receiver has its input the task SHOULD leave input_required (back to " +
		"working, or to a terminal status). Which terminal status is the server's choice; ending as cancelled on a decline " +
		"is one vendor's behaviour, not a requirement.",
	Checks: []Check{
		{ID: "tasks-elicitation-refused/decline-leaves-input-required", Level: Should, Spec: inputRequiredSpec,
			Title: "after the user declines, the task leaves input_required and reaches a terminal status"},
		{ID: "tasks-elicitation-refused/cancel-leaves-input-required", Level: Should, Spec: inputRequiredSpec,
			Title: "after the user cancels the question, the task leaves input_required and reaches a terminal status"},
	},
	Run: func(t *T) {
		a := openTaskSession(t, "A", 0)
		fx := requireTaskTool(t, a, fixtureTaskElicitation, nil, "optional", "required")
		held := a.Hold(protocol.MethodElicitationCreate)
		for _, v := range []struct{ action, check string }{
			{"decline", "tasks-elicitation-refused/decline-leaves-input-required"},
			{"cancel", "tasks-elicitation-refused/cancel-leaves-input-required"},
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
	},
}

var callCancelledScenario = &Scenario{
	ID:       "tools-cancel-during-elicitation",
	Title:    "a tools/call cancelled while it waits for an elicitation is never answered",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: []string{protocol.V20251125, protocol.V20250618},
	Needs:    []string{"tool test_elicitation (official fixture: elicits with the given message)"},
	Purpose: "The non-task variant: the client sends notifications/cancelled for a tools/call blocked on its elicitation, " +
		"then answers the elicitation anyway. The server should stop and send no response for the cancelled call.",
	Checks: []Check{
		{ID: "tools-cancel-during-elicitation/no-response-after-cancel", Level: Should, Spec: "2025-11-25/basic/utilities/cancellation.mdx#behavior-requirements",
			Title: "after notifications/cancelled the server sends no response for the cancelled tools/call"},
	},
	Run: func(t *T) {
		a := t.Open("A", client.Options{Capabilities: taskClientCaps()})
		fx := requireTool(t, a, "test_elicitation", map[string]any{"message": "mcpconform: please confirm"})
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
		barrier(t, a)
		stray := quiet(t, a, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) })
		actual := "no response"
		if stray != nil {
			actual = string(stray.Raw)
		}
		t.Judge("tools-cancel-during-elicitation/no-response-after-cancel", stray == nil, "no response for "+id.String(), actual)
	},
}
