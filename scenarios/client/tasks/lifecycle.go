package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const terminalQuote = "Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status"

var (
	lifecycleStartsWorking = &scenarios.Check{ID: "client-tasks-lifecycle/starts-working", Level: scenarios.Must,
		Spec: tasksPage + "#task-status-lifecycle",
		// A client's user is not input the requestor owes: input_required
		// means "The receiver needs input from the requestor".
		Title:     "a task the client creates for elicitation/create or sampling/createMessage starts in working (not input_required while its user decides)",
		Quote:     "Tasks MUST begin in the working status when created.",
		Faults:    []*fault.Fault{client.TaskStartsInputRequired},
		Liberties: []*fault.Fault{client.TaskOwnTTL}}
	lifecycleTTL = &scenarios.Check{ID: "client-tasks-lifecycle/ttl-reported", Level: scenarios.Must,
		Spec:      tasksPage + "#ttl-and-resource-management",
		Title:     "every tasks/get result carries ttl: the retention the client grants (a number of milliseconds; it may differ from the one asked for), or null for unlimited",
		Quote:     "Receivers MUST include the actual ttl duration (or null for unlimited) in tasks/get responses.",
		Faults:    []*fault.Fault{client.TaskGetNoTTL},
		Liberties: []*fault.Fault{client.TaskOwnTTL}}
	lifecycleTimestamps = &scenarios.Check{ID: "client-tasks-lifecycle/timestamps", Level: scenarios.Must,
		Spec: tasksPage + "#ttl-and-resource-management",
		Title: "every task the client returns (CreateTaskResult, tasks/get) carries createdAt and lastUpdatedAt as RFC 3339 timestamps " +
			"(the ISO 8601 profile the page links to), lastUpdatedAt never before createdAt nor going back",
		Quote:  "Receivers MUST include a createdAt ISO 8601-formatted timestamp in all task responses to indicate when the task was created.",
		Faults: []*fault.Fault{client.TaskUnixTimestamps}}
	lifecycleResultBlocks = &scenarios.Check{ID: "client-tasks-lifecycle/result-blocks", Level: scenarios.Must,
		Spec:   tasksPage + "#result-retrieval",
		Title:  "tasks/result for a task still working is answered only once the task is terminal (the user's answer is held, then released)",
		Quote:  "When a receiver receives a tasks/result request for a task in any other non-terminal status (working or input_required), it MUST block the response until the task reaches a terminal status.",
		Faults: []*fault.Fault{client.TaskResultEarly}}
	lifecycleResultRelated = &scenarios.Check{ID: "client-tasks-lifecycle/result-related-task", Level: scenarios.Must,
		Spec:      tasksPage + "#related-task-metadata",
		Title:     "tasks/result returns the underlying result (ElicitResult, CreateMessageResult) with _meta io.modelcontextprotocol/related-task naming the task",
		Quote:     "The tasks/result operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.",
		Faults:    []*fault.Fault{client.TaskResultNoRelatedTask},
		Liberties: []*fault.Fault{client.TaskOwnTTL}}
	lifecycleTerminalStays = &scenarios.Check{ID: "client-tasks-lifecycle/terminal-stays", Level: scenarios.Must,
		Spec:      tasksPage + "#task-status-lifecycle",
		Title:     "the states tasks/get shows never leave a terminal status (also after tasks/result), and createdAt never changes",
		Quote:     terminalQuote,
		Faults:    []*fault.Fault{client.TaskReopens},
		Liberties: []*fault.Fault{client.TaskOwnTTL}}
	lifecycleNotifications = &scenarios.Check{ID: "client-tasks-lifecycle/notifications-legal", Level: scenarios.Must,
		Spec: tasksPage + "#task-status-lifecycle",
		Title: "notifications/tasks/status, when sent, carry a task of this session with its full state, and never show a task leaving " +
			"a terminal status (sending none is allowed)",
		Quote:     terminalQuote,
		Faults:    []*fault.Fault{client.TaskNotifiesAfterTerminal},
		Liberties: []*fault.Fault{client.TaskNoNotifications, client.TaskOwnTTL}}
)

var lifecycleNotificationsMeta = &scenarios.Check{ID: "client-tasks-lifecycle/notifications-no-related-task", Level: scenarios.Should,
	Spec:      tasksPage + "#task-notifications",
	Title:     "notifications/tasks/status, when sent, carry no io.modelcontextprotocol/related-task _meta: the taskId is in the params",
	Quote:     "When sent, the notifications/tasks/status notification SHOULD NOT include the io.modelcontextprotocol/related-task metadata, as the task ID is already present in the notification parameters.",
	Faults:    []*fault.Fault{client.TaskNotifiesRelatedTask},
	Liberties: []*fault.Fault{client.TaskNoNotifications}}

var lifecycleScenario = &scenarios.Scenario{
	ID:       "client-tasks-lifecycle",
	Title:    "client-hosted tasks from creation to result: statuses, a blocking tasks/result, related-task _meta, notifications",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientTasksLifecycle, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, and stays connected until it is answered")},
	Purpose: "While the client's call of " + fixtures.ClientTasksLifecycle + " is open, the fake server creates two tasks on the client: A, whose " +
		"user answer the reference client holds until a ping releases it (_meta " + client.MetaHoldAnswer + "), and B, answered " +
		"freely. It polls A, sends tasks/result for A and watches it stay unanswered for the quiet window, releases the answer, " +
		"takes the result, polls B to its end, fetches B's result, polls both once more, and reads every status notification.",
	Checks: []*scenarios.Check{lifecycleStartsWorking, lifecycleResultBlocks, lifecycleResultRelated, lifecycleTerminalStays, lifecycleTTL,
		lifecycleTimestamps, lifecycleNotifications, lifecycleNotificationsMeta},
	Run: clientside.Body(func(t *clientside.T) {
		r := open(t, fixtures.ClientTasksLifecycle)
		ks := r.needKinds()
		kindA, kindB := ks[0], ks[len(ks)-1]
		a := r.mustCreate(kindA, 1, true)
		b := r.mustCreate(kindB, 2, false)
		var starts []string
		for _, o := range r.obs {
			if o.task.Status != "working" {
				starts = append(starts, fmt.Sprintf("task %s created %s", o.task.TaskID, o.task.Status))
			}
		}
		t.Judge(lifecycleStartsWorking, len(starts) == 0, "status working in each CreateTaskResult", strings.Join(starts, "; "))

		t.Step("poll task A, then ask for its result while the user's answer is held")
		r.taskRequest(protocol.MethodTasksGet, a.TaskID)
		answer := make(chan *jsonrpc.Message, 1)
		rctx, rcancel := context.WithCancel(t.Ctx)
		defer rcancel()
		go func() {
			resp, _ := r.tryAsk(rctx, protocol.MethodTasksResult, map[string]any{"taskId": a.TaskID})
			answer <- resp
		}()
		qctx, qcancel := context.WithTimeout(t.Ctx, t.QuietWindow())
		var early *jsonrpc.Message
		select {
		case early = <-answer:
		case <-qctx.Done():
		}
		qcancel()
		var resultA *jsonrpc.Message
		if early != nil {
			// Answered within the quiet window: blocking cannot be told
			// apart from a user who answered at once, unless the answer
			// is not a result or the task is still running.
			state := r.taskRequest(protocol.MethodTasksGet, a.TaskID)
			var now wireTask
			_ = json.Unmarshal(state.Result, &now)
			switch {
			case early.Error == nil && resultObject(early)["taskId"] != nil && resultObject(early)["status"] != nil:
				t.Fail(lifecycleResultBlocks, "tasks/result to wait until task A is terminal", "it answered at once with the task's state: "+describe(early))
			case state.Error == nil && !client.IsTerminal(now.Status):
				t.Fail(lifecycleResultBlocks, "tasks/result to wait until task A is terminal", fmt.Sprintf("it answered (%s) while tasks/get still shows %s", describe(early), now.Status))
			default:
				t.Skip(lifecycleResultBlocks, "the client's user answered task A at once (the hold is the reference client's), so tasks/result had nothing to wait for")
			}
			r.release(a.TaskID)
			// The result proper, now that the task has ended.
			if _, _, ended := r.waitTerminal(a.TaskID); ended {
				resultA = r.ask(protocol.MethodTasksResult, map[string]any{"taskId": a.TaskID})
			}
		} else {
			r.release(a.TaskID)
			t.Step("wait for the answer to tasks/result of task A")
			wctx, wcancel := t.Wait()
			select {
			case resultA = <-answer:
			case <-wctx.Done():
			}
			wcancel()
			if resultA == nil {
				t.Fail(lifecycleResultBlocks, "tasks/result answered once task A is terminal",
					fmt.Sprintf("no answer within %s after the user's answer was released", t.Env.Timing.ResponseTimeout))
			} else {
				t.PassWith(lifecycleResultBlocks, fmt.Sprintf("unanswered for the quiet window (%s), answered after the release", t.QuietWindow()))
			}
		}

		t.Step("poll task B to its end and fetch its result")
		_, endB, ok := r.waitTerminal(b.TaskID)
		// Judged on each result that came: a tasks/result that never
		// answered is result-blocks' failure, a task that never ended is
		// its user's affair (the reference's answers at once).
		var related, unjudged []string
		judged := 0
		judgeResult := func(k kind, id string, resp *jsonrpc.Message) {
			if resp == nil {
				unjudged = append(unjudged, "tasks/result of task "+id+" never answered")
				return
			}
			judged++
			result := resultObject(resp)
			var meta map[string]json.RawMessage // the result's _meta
			var rel protocol.RelatedTask
			_ = json.Unmarshal(result["_meta"], &meta)
			_ = json.Unmarshal(meta[protocol.MetaRelatedTask], &rel)
			switch {
			case resp.Error != nil:
				related = append(related, fmt.Sprintf("task %s: %s", id, describe(resp)))
			case !k.answered(result):
				related = append(related, fmt.Sprintf("task %s: %s, not %s", id, describe(resp), k.resultName()))
			case rel.TaskID != id:
				related = append(related, fmt.Sprintf("task %s: _meta %s is %q", id, protocol.MetaRelatedTask, rel.TaskID))
			}
		}
		judgeResult(kindA, a.TaskID, resultA)
		if ok {
			judgeResult(kindB, b.TaskID, r.ask(protocol.MethodTasksResult, map[string]any{"taskId": b.TaskID}))
		} else {
			unjudged = append(unjudged, fmt.Sprintf("task %s did not end within %s (%s)", b.TaskID, t.Env.Timing.ResponseTimeout, describe(endB)))
		}
		switch {
		case judged == 0:
			t.Skip(lifecycleResultRelated, "no tasks/result came back: "+strings.Join(unjudged, "; "))
		case len(related) > 0:
			t.Fail(lifecycleResultRelated, "each tasks/result: the request's result with _meta "+protocol.MetaRelatedTask+" {taskId}",
				strings.Join(related, "; "))
		default:
			t.PassWith(lifecycleResultRelated, strings.Join(unjudged, "; "))
		}

		t.Step("poll both tasks once more, after their results were fetched")
		r.taskRequest(protocol.MethodTasksGet, a.TaskID)
		r.taskRequest(protocol.MethodTasksGet, b.TaskID)
		bad := illegal(r.obs)
		t.Judge(lifecycleTerminalStays, len(bad) == 0, "no state after a terminal one other than it, and createdAt unchanged", strings.Join(bad, "; "))
		var noTTL []string
		for _, o := range r.obs {
			var ttl *float64
			if o.source == "get" && (o.task.TTL == nil || json.Unmarshal(o.task.TTL, &ttl) != nil) {
				noTTL = append(noTTL, fmt.Sprintf("task %s: ttl %s", o.task.TaskID, orAbsent(o.task.TTL)))
			}
		}
		t.Judge(lifecycleTTL, len(noTTL) == 0, "ttl (a number or null) in every tasks/get result", strings.Join(noTTL, "; "))
		t.Judge(lifecycleTimestamps, len(badStamps(r.obs)) == 0, "RFC 3339 createdAt and lastUpdatedAt in every task, lastUpdatedAt monotone",
			strings.Join(badStamps(r.obs), "; "))

		t.Step("read the status notifications (watching %s for late ones)", t.QuietWindow())
		qctx, qcancel = context.WithTimeout(t.Ctx, t.QuietWindow())
		t.Await(qctx, func([]clientside.Received) bool { return false })
		qcancel()
		var notes []observation
		var malformed, withMeta []string
		known := map[string]bool{a.TaskID: true, b.TaskID: true}
		for _, e := range t.Log().Entries() {
			if e.Msg.Method != protocol.NotificationTasksStatus {
				continue
			}
			var task wireTask
			if json.Unmarshal(e.Msg.Params, &task) != nil || task.TaskID == "" || task.Status == "" || task.CreatedAt == "" || task.LastUpdatedAt == "" {
				malformed = append(malformed, "a notification without the full task state: "+abbreviate(string(e.Msg.Params)))
				continue
			}
			if !known[task.TaskID] {
				malformed = append(malformed, "a notification for task "+task.TaskID+", which this session never created")
				continue
			}
			notes = append(notes, observation{source: "notification", task: task})
			var meta protocol.Meta
			if _ = json.Unmarshal(e.Msg.Params, &meta); meta.Meta[protocol.MetaRelatedTask] != nil {
				withMeta = append(withMeta, fmt.Sprintf("the %s notification of task %s", task.Status, task.TaskID))
			}
		}
		if len(notes) == 0 && len(malformed) == 0 {
			t.PassWith(lifecycleNotifications, "the client sent no status notification (they are optional)")
			t.PassWith(lifecycleNotificationsMeta, "the client sent no status notification")
			return
		}
		t.Judge(lifecycleNotificationsMeta, len(withMeta) == 0, "no "+protocol.MetaRelatedTask+" in _meta",
			strings.Join(withMeta, "; ")+" carries "+protocol.MetaRelatedTask)
		bad = append(malformed, illegal(notes)...)
		t.Judge(lifecycleNotifications, len(bad) == 0, "notifications that never show a task leaving a terminal status", strings.Join(bad, "; "))
	}),
}

// illegal lists, per task, a state seen after a terminal one that differs
// from it, and a createdAt that changed.
func illegal(obs []observation) []string {
	var out []string
	type seen struct {
		terminal, createdAt string
	}
	by := map[string]*seen{}
	for _, o := range obs {
		s := by[o.task.TaskID]
		if s == nil {
			s = &seen{createdAt: o.task.CreatedAt}
			by[o.task.TaskID] = s
		}
		if s.terminal != "" && o.task.Status != s.terminal {
			out = append(out, fmt.Sprintf("task %s: %s after %s (%s)", o.task.TaskID, o.task.Status, s.terminal, o.source))
		}
		if client.IsTerminal(o.task.Status) && s.terminal == "" {
			s.terminal = o.task.Status
		}
		if o.task.CreatedAt != s.createdAt {
			out = append(out, fmt.Sprintf("task %s: createdAt %s, earlier %s (%s)", o.task.TaskID, o.task.CreatedAt, s.createdAt, o.source))
		}
	}
	return out
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}

// badStamps lists timestamps that are not RFC 3339, a lastUpdatedAt before
// createdAt, and a lastUpdatedAt earlier than one seen before for the task.
func badStamps(obs []observation) []string {
	var out []string
	last := map[string]time.Time{}
	for _, o := range obs {
		created, err1 := time.Parse(time.RFC3339Nano, o.task.CreatedAt)
		updated, err2 := time.Parse(time.RFC3339Nano, o.task.LastUpdatedAt)
		switch {
		case err1 != nil || err2 != nil:
			out = append(out, fmt.Sprintf("task %s (%s): createdAt %q, lastUpdatedAt %q", o.task.TaskID, o.source, o.task.CreatedAt, o.task.LastUpdatedAt))
			continue
		case updated.Before(created):
			out = append(out, fmt.Sprintf("task %s (%s): lastUpdatedAt %s before createdAt %s", o.task.TaskID, o.source, o.task.LastUpdatedAt, o.task.CreatedAt))
		case updated.Before(last[o.task.TaskID]):
			out = append(out, fmt.Sprintf("task %s (%s): lastUpdatedAt %s went back from %s", o.task.TaskID, o.source, o.task.LastUpdatedAt, last[o.task.TaskID].Format(time.RFC3339Nano)))
		}
		last[o.task.TaskID] = updated
	}
	return out
}
