package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	// unknownTaskID names no task: the client generated every id it knows.
	unknownTaskID = "mcpconform-no-such-task-7c1d"
)

var (
	cancelResponse = &scenarios.Check{ID: "client-tasks-cancel/response-cancelled", Level: scenarios.Must,
		Spec:      tasksPage + "#task-cancellation",
		Title:     "tasks/cancel of a task whose user has not answered yet is answered with the task in status cancelled",
		Quote:     "Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to cancelled status before sending the response.",
		Faults:    []*fault.Fault{client.TaskCancelLate},
		Liberties: []*fault.Fault{client.TaskDeletesCancelled}}
	cancelStays = &scenarios.Check{ID: "client-tasks-cancel/stays-cancelled", Level: scenarios.Must,
		Spec:      tasksPage + "#task-cancellation",
		Title:     "once the user's answer arrives after the cancel, tasks/get still shows cancelled (or the task is gone: -32602)",
		Quote:     "Once a task is cancelled, it MUST remain in cancelled status even if execution continues to completion or fails.",
		Faults:    []*fault.Fault{client.TaskResurrects},
		Liberties: []*fault.Fault{client.TaskDeletesCancelled}}
	cancelResult = &scenarios.Check{ID: "client-tasks-cancel/result-returns", Level: scenarios.Must,
		Spec:      tasksPage + "#result-retrieval",
		Title:     "tasks/result of the cancelled task is answered (a result or an error) within the response timeout, not left hanging",
		Quote:     "When a receiver receives a tasks/result request for a task in a terminal status (completed, failed, or cancelled), it MUST return the final result of the underlying request, whether that is a successful result or a JSON-RPC error.",
		Faults:    []*fault.Fault{client.TaskResultHangsAfterCancel},
		Liberties: []*fault.Fault{client.TaskDeletesCancelled}}
	cancelTerminal = &scenarios.Check{ID: "client-tasks-cancel/terminal-rejected", Level: scenarios.Must,
		Spec:      tasksPage + "#task-cancellation",
		Title:     "tasks/cancel of a task already cancelled, and of one completed, is refused with -32602",
		Quote:     "Receivers MUST reject cancellation requests for tasks already in a terminal status (completed, failed, or cancelled) with error code -32602 (Invalid params).",
		Faults:    []*fault.Fault{client.TaskCancelsTerminal},
		Liberties: []*fault.Fault{client.TaskDeletesCancelled}}
	cancelUnknown = &scenarios.Check{ID: "client-tasks-cancel/unknown-id", Level: scenarios.Must,
		Spec:   tasksPage + "#protocol-errors",
		Title:  "tasks/get, tasks/result and tasks/cancel of a task id the client never issued are refused with -32602",
		Quote:  "Invalid or nonexistent taskId in tasks/get, tasks/result, or tasks/cancel: -32602 (Invalid params)",
		Faults: []*fault.Fault{client.TaskUnknownIDCode}}
)

var cancelScenario = &scenarios.Scenario{
	ID:       "client-tasks-cancel",
	Title:    "cancelling a client-hosted task while its user's answer is pending, and the -32602 cases",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientTasksCancel, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, and stays connected until it is answered")},
	Purpose: "While the client's call of " + fixtures.ClientTasksCancel + " is open, the fake server creates task C with the user's answer held " +
		"(the reference client waits for a ping carrying _meta " + client.MetaReleaseAnswer + "), cancels it, releases the late " +
		"answer, polls C and asks for its result; cancels C again and a task D that completed; and names an unknown task id " +
		"to tasks/get, tasks/result and tasks/cancel.",
	Checks: []*scenarios.Check{cancelResponse, cancelStays, cancelResult, cancelTerminal, cancelUnknown},
	Run: clientside.Body(func(t *clientside.T) {
		r := open(t, fixtures.ClientTasksCancel)
		ks := r.needKinds()
		if r.caps.tasks.Cancel == nil {
			t.SkipRest("the client does not declare capabilities.tasks.cancel")
		}
		c := r.mustCreate(ks[0], 1, true)

		t.Step("cancel task C while its user's answer is held")
		resp := r.taskRequest(protocol.MethodTasksCancel, c.TaskID)
		var rejected []string
		cancelled := false
		switch {
		case resp.Error != nil:
			// A real user may have answered already: then C is terminal
			// and the refusal is right (judged below), but nothing about
			// a pending cancel can be.
			state := r.taskRequest(protocol.MethodTasksGet, c.TaskID)
			var now wireTask
			_ = json.Unmarshal(state.Result, &now)
			if state.Error == nil && client.IsTerminal(now.Status) {
				why := "task C was already " + now.Status + " when it was cancelled (its user answered at once; the hold is the reference client's)"
				t.Skip(cancelResponse, why)
				t.Skip(cancelStays, why)
				t.Skip(cancelResult, why)
				if !isInvalidParams(resp) {
					rejected = append(rejected, fmt.Sprintf("cancel of task C (%s): %s", now.Status, describe(resp)))
				}
			} else {
				t.Fail(cancelResponse, "task C in status cancelled", "tasks/cancel answered "+describe(resp)+" while tasks/get shows "+describe(state))
				t.Blocked("the client refused to cancel a running task")
			}
		default:
			var task wireTask
			_ = json.Unmarshal(resp.Result, &task)
			t.Judge(cancelResponse, task.Status == "cancelled", "task C in status cancelled", "status "+task.Status+": "+describe(resp))
			cancelled = true
		}

		if cancelled {
			r.release(c.TaskID)
			// The reference client has applied the late answer once the
			// ping is answered; another client's user answers when it
			// does, so the task is polled again after the quiet window
			// (sooner if the client announces a status of C).
			t.Step("poll task C after the user's late answer, and again after %s", t.QuietWindow())
			judged := false
			for poll := range 2 {
				if poll == 1 {
					mark := len(t.Log().Entries())
					qctx, qcancel := context.WithTimeout(t.Ctx, t.QuietWindow())
					t.Await(qctx, statusNotified(c.TaskID, mark))
					qcancel()
				}
				state := r.taskRequest(protocol.MethodTasksGet, c.TaskID)
				var now wireTask
				_ = json.Unmarshal(state.Result, &now)
				switch {
				case isInvalidParams(state):
					t.PassWith(cancelStays, "the client deleted the cancelled task (-32602), which it may")
					judged = true
				case state.Error != nil:
					t.Fail(cancelStays, "task C cancelled (or gone: -32602)", describe(state))
					judged = true
				case now.Status != "cancelled":
					t.Fail(cancelStays, "task C cancelled (or gone: -32602)", fmt.Sprintf("status %s after the late answer (poll %d)", now.Status, poll+1))
					judged = true
				}
				if judged {
					break
				}
			}
			if !judged {
				t.Pass(cancelStays)
			}

			t.Step("ask for the result of the cancelled task C")
			ctx, cancel := t.Wait()
			res, err := r.tryAsk(ctx, protocol.MethodTasksResult, map[string]any{"taskId": c.TaskID})
			cancel()
			if err != nil && t.Ctx.Err() == nil && ctx.Err() != nil {
				t.Fail(cancelResult, "an answer (result or error)", fmt.Sprintf("none within %s", t.Env.Timing.ResponseTimeout))
			} else if err != nil {
				t.Lost("an answer to tasks/result", err.Error())
			} else {
				t.PassWith(cancelResult, describe(res))
			}

			t.Step("cancel task C again")
			if again := r.ask(protocol.MethodTasksCancel, map[string]any{"taskId": c.TaskID}); !isInvalidParams(again) {
				rejected = append(rejected, "second cancel of task C: "+describe(again))
			}
		}

		d := r.mustCreate(ks[len(ks)-1], 2, false)
		t.Step("wait for task D to end, then cancel it")
		if end, state, ok := r.waitTerminal(d.TaskID); !ok {
			rejected = append(rejected, "task D did not end ("+describe(state)+")")
		} else if again := r.ask(protocol.MethodTasksCancel, map[string]any{"taskId": d.TaskID}); !isInvalidParams(again) {
			rejected = append(rejected, fmt.Sprintf("cancel of task D (%s): %s", end.Status, describe(again)))
		}
		t.Judge(cancelTerminal, len(rejected) == 0, "-32602 for each cancel of a terminal task", strings.Join(rejected, "; "))

		t.Step("name the unknown task id %s to tasks/get, tasks/result and tasks/cancel", unknownTaskID)
		var unknown []string
		for _, m := range []string{protocol.MethodTasksGet, protocol.MethodTasksResult, protocol.MethodTasksCancel} {
			if resp := r.ask(m, map[string]any{"taskId": unknownTaskID}); !isInvalidParams(resp) {
				unknown = append(unknown, m+": "+describe(resp))
			}
		}
		t.Judge(cancelUnknown, len(unknown) == 0, "-32602 from each", strings.Join(unknown, "; "))
	}),
}
