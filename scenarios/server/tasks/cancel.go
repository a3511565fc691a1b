package tasks

import (
	"context"
	"fmt"
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

// callElicitation waits for the elicitation a plain tools/call (sent raw,
// so its answer lands in the inbox) asks from inside itself. A call
// answered without asking stops the wait at once: there is nothing to
// cancel during.
func callElicitation(t *serverside.T, s *client.Session, held *client.HeldRequests, mark int, id jsonrpc.ID) *client.Held {
	ctx, cancel := t.Wait()
	defer cancel()
	asked := make(chan *client.Held, 1)
	go func() {
		if h, err := held.Next(ctx); err == nil {
			asked <- h
		}
	}()
	answered := make(chan *jsonrpc.Message, 1)
	go func() {
		if m, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) }); err == nil {
			answered <- m
		}
	}()
	select {
	case h := <-asked:
		return h
	case m := <-answered:
		t.Blocked("the call was answered without asking for input: %s", judge.Describe(m, nil))
	case <-ctx.Done():
		t.Blocked("the call asked for no input within %s", t.Env.Timing.ResponseTimeout)
	}
	return nil
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

const (
	cancellationBehaviourSpec = "2025-11-25/basic/utilities/cancellation.mdx#behavior-requirements"
	// The list item under "Receivers of cancellation notifications SHOULD:".
	noResponseAfterCancel = "Not send a response for the cancelled request"
)

var (
	toolsCancelDuringElicitationNoResponseAfterCancel = &scenarios.Check{ID: "tools-cancel-during-elicitation/no-response-after-cancel", Level: scenarios.Should, Spec: cancellationBehaviourSpec,
		Quote:  noResponseAfterCancel,
		Title:  "after notifications/cancelled the server sends no response for the cancelled tools/call",
		Faults: []*fault.Fault{server.RespondsAfterCancel}}
)

var callCancelledScenario = &scenarios.Scenario{
	ID:       "tools-cancel-during-elicitation",
	Title:    "a tools/call cancelled while it waits for an elicitation is never answered",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: protocol.StatefulWith(protocol.MethodElicitationCreate),
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.Elicitation, "official fixture: elicits with the given message")},
	Purpose: "The non-task variant: the client sends notifications/cancelled for a tools/call blocked on its elicitation, " +
		"then answers the elicitation anyway. The server should stop and send no response for the cancelled call.",
	Checks: []*scenarios.Check{toolsCancelDuringElicitationNoResponseAfterCancel},
	Run: serverside.Body(func(t *serverside.T) {
		a := t.Open("A", client.Options{Capabilities: taskClientCaps()})
		fx := t.RequireTool(a, fixtures.Elicitation, map[string]any{"message": "mcpconform: please confirm"})
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
		h := callElicitation(t, a, held, mark, id)
		t.Step("send notifications/cancelled for %s, then answer the elicitation anyway", id)
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			_ = a.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": id, "reason": "mcpconform: cancelled by the user"})
		}()
		h.Answer(client.ElicitationAnswer("accept", map[string]any{"username": "mcpconform", "email": "conformance@example.com", "confirm": true}))
		// A server may drop the connection on the late answer (the fault
		// crash-on-late-answer): tasks-cancel-during-elicitation/survives-late-answer
		// judges that; here it only means no response can come.
		t.BarrierOrEnd(a)
		stray := quiet(t, a, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) })
		actual := "no response"
		if stray != nil {
			actual = string(stray.Raw)
		}
		t.Judge(toolsCancelDuringElicitationNoResponseAfterCancel, stray == nil, "no response for "+id.String(), actual)
	}),
}

var (
	toolsCancelLongRunningNoResponseAfterCancel = &scenarios.Check{ID: "tools-cancel-long-running/no-response-after-cancel", Level: scenarios.Should, Spec: cancellationBehaviourSpec,
		Quote:  noResponseAfterCancel,
		Title:  "a plain (not task-augmented) tools/call of a long-running tool, cancelled with notifications/cancelled, gets no response",
		Faults: []*fault.Fault{server.RespondsAfterCancel}}
)

// The progress token the long-running call carries: a progress
// notification for it says the server has the call in hand.
const longRunningProgressToken = "mcpconform-long-running-1"

var callCancelledLongRunningScenario = &scenarios.Scenario{
	ID:       "tools-cancel-long-running",
	Title:    "a long-running tools/call cancelled with notifications/cancelled is never answered",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: []string{protocol.V20251125, protocol.V20250618},
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.TaskWorking, "a plain call works for `ms` milliseconds, default argument ms: 500; taskSupport optional, forbidden or absent")},
	Purpose: "Cancellation without any fixture that asks a question: the client calls a long-running tool plainly, with a progress " +
		"token, waits until the server has the call in hand (a progress notification, or a quiet window), sends " +
		"notifications/cancelled and watches until the call would have finished. The server should stop and send no response.",
	Checks: []*scenarios.Check{toolsCancelLongRunningNoResponseAfterCancel},
	Run:    serverside.Body(runCancelLongRunning),
}

func runCancelLongRunning(t *serverside.T) {
	a := t.Open("A", client.Options{})
	fx := t.RequireTool(a, fixtures.TaskWorking, map[string]any{"ms": 500})
	if tools, err := t.ListTools(a); err == nil && tools[fx.Tool].Execution.TaskSupport == "required" {
		t.SkipRest(fmt.Sprintf("tool %q has execution.taskSupport required: it has no plain call to cancel with notifications/cancelled", fx.Tool))
	}
	id := jsonrpc.StringID("mcpconform-long-call-1")
	req, _ := jsonrpc.NewRequest(id, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments,
		"_meta": map[string]any{"progressToken": longRunningProgressToken}})
	frame, _ := req.Encode()
	mark := a.Inbox().Mark()
	sent := time.Now()
	t.Step("call %s plainly (id %s, progress token %s)", fx.Tool, id, longRunningProgressToken)
	func() {
		ctx, cancel := t.Wait()
		defer cancel()
		if err := a.SendRaw(ctx, frame); err != nil {
			t.Abort("could not send to the target: %v", err)
		}
	}()
	answer := func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) }
	func() {
		// Progress is optional: without it the call is given a quiet window
		// to be under way.
		ctx, cancel := context.WithTimeout(t.Ctx, t.QuietWindow())
		defer cancel()
		first, _ := a.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
			return answer(m) || m.Method == protocol.NotificationProgress && strings.Contains(string(m.Params), longRunningProgressToken)
		})
		if first != nil && answer(first) {
			t.NotJudgedRest("the call was answered before it could be cancelled (give the fixture a longer run: argument ms)")
		}
	}()
	t.Step("send notifications/cancelled for %s", id)
	func() {
		ctx, cancel := t.Wait()
		defer cancel()
		_ = a.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": id, "reason": "mcpconform: cancelled by the user"})
	}()
	t.Barrier(a)
	// Watch until the call would have finished, and a quiet window more.
	watch := time.Until(sent.Add(runTime(fx.Arguments, t.Env.Timing.ResponseTimeout))) + t.QuietWindow()
	t.Step("watch %s for a response to %s", watch.Round(time.Millisecond), id)
	ctx, cancel := context.WithTimeout(t.Ctx, max(watch, t.QuietWindow()))
	defer cancel()
	stray, _ := a.Inbox().WaitFrom(ctx, mark, answer)
	actual := "no response"
	if stray != nil {
		actual = string(stray.Raw)
	}
	t.Judge(toolsCancelLongRunningNoResponseAfterCancel, stray == nil, "no response for "+id.String(), actual)
}

// runTime is how long a call of the fixture runs: its `ms` argument when it
// has one (the fixture's contract), else fallback.
func runTime(args map[string]any, fallback time.Duration) time.Duration {
	switch ms := args["ms"].(type) {
	case int:
		return time.Duration(ms) * time.Millisecond
	case int64:
		return time.Duration(ms) * time.Millisecond
	case float64:
		return time.Duration(ms * float64(time.Millisecond))
	}
	return fallback
}
