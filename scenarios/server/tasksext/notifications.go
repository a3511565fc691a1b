package tasksext

import (
	"context"
	"encoding/json"
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

// notifications/tasks over subscriptions/listen
// (ext-tasks/tasks.md#task-status-notifications,
// 2026-07-28/basic/patterns/subscriptions.mdx).

const subscriptionsSpec = "2026-07-28/basic/patterns/subscriptions.mdx"

var (
	notificationsListenUndeclared = &scenarios.Check{ID: "tasksext-notifications/listen-undeclared", Level: scenarios.Must,
		Spec: extSpec + "#task-status-notifications",
		Quote: "If a client requests task status notifications but does not declare the io.modelcontextprotocol/tasks extension " +
			"capability, the server MUST return a JSON-RPC error specifying the missing capabilities:",
		Title:        "subscriptions/listen with taskIds, sent without the extension, gets error -32021 (and no acknowledgement)",
		Faults:       []*fault.Fault{server.ListenServesUndeclared},
		Liberties:    []*fault.Fault{server.NoTaskNotifications},
		Requirements: []string{"sep-2663-subscribe-missing-capability-non-declaring"}}
	notificationsSubscriptionID = &scenarios.Check{ID: "tasksext-notifications/subscription-id", Level: scenarios.Must,
		Spec: subscriptionsSpec + "#receiving-notifications",
		Quote: "All notifications delivered on the stream carry io.modelcontextprotocol/subscriptionId in _meta, identifying the " +
			"subscriptions/listen request that opened the stream.",
		Title: "every notifications/tasks for the subscribed task carries _meta io.modelcontextprotocol/subscriptionId equal to " +
			"the listen request's id; a server that sends none is not judged (they are optional)",
		Faults:    []*fault.Fault{server.TaskNotificationNoSubscriptionID},
		Liberties: []*fault.Fault{server.SlowPollInterval}}
	notificationsNoProgress = &scenarios.Check{ID: "tasksext-notifications/no-progress", Level: scenarios.Must,
		Spec: extSpec + "#task-status-notifications",
		Quote: "notifications/progress and notifications/message notifications MUST NOT be sent on the subscriptions/listen stream " +
			"for a task, and are not supported on tasks in general in this specification.",
		Title:        "while the task subscription is open, no notifications/progress or notifications/message arrives",
		Faults:       []*fault.Fault{server.ProgressOnTaskStream},
		Liberties:    []*fault.Fault{server.NoTaskNotifications},
		Requirements: []string{"sep-2663-no-progress-or-message-on-task-stream"}}
)

var notificationsScenario = &scenarios.Scenario{
	ID:       "tasksext-notifications",
	Title:    "notifications/tasks over subscriptions/listen",
	Official: "tasks-status-notifications",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"), scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "runs as a task")},
	Purpose: "A slow_compute task is created and subscribed to with subscriptions/listen (taskIds). Notifications are optional: " +
		"what the server sends until the task is terminal (seen by notification or by polling) is judged, then the subscription " +
		"is cancelled. A second listen, without the extension, must be refused.",
	Checks: []*scenarios.Check{notificationsSubscriptionID, notificationsNoProgress, notificationsListenUndeclared},
	Run:    serverside.Body(runNotifications),
}

func runNotifications(t *serverside.T) {
	s := open(t)
	fx := t.RequireTool(s, fixtures.TasksExtSlowCompute, map[string]any{"seconds": 0.5, "label": "notifications"})
	task, _ := createTask(t, s, fx)

	mark := s.Inbox().Mark()
	id := jsonrpc.StringID("mcpconform-tasksext-listen-1")
	t.Step("subscriptions/listen for %s", task.TaskID)
	l := s.Listen(t.Ctx, id, map[string]any{"taskIds": []string{task.TaskID}}, nil)
	// Known to the cleanup even if the body stops early.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), t.Env.Timing.ResponseTimeout)
		defer cancel()
		l.Stop(ctx)
	})
	awaitAck(t, s, l, mark)
	end := waitTerminal(t, s, task, time.Second)
	isOurs := func(m *jsonrpc.Message) bool {
		return m.Method == protocol.NotificationTasks && judge.StringField(m.Params, "taskId") == task.TaskID
	}
	if len(s.Inbox().Matching(mark, isOurs)) > 0 {
		// A server that notifies may tell the end a little after a poll
		// saw it: give it a quiet window to arrive.
		t.Step("wait briefly for the notification of the end")
		qctx, qcancel := context.WithTimeout(t.Ctx, t.QuietWindow())
		_, _ = s.Inbox().WaitFrom(qctx, mark, func(m *jsonrpc.Message) bool {
			return isOurs(m) && client.IsTerminal(judge.StringField(m.Params, "status"))
		})
		qcancel()
	}
	ctx, cancel := t.Wait()
	l.Stop(ctx)
	cancel()

	notes := s.Inbox().Matching(mark, isOurs)
	if len(notes) == 0 {
		t.NotJudged(notificationsSubscriptionID, fmt.Sprintf("no notifications/tasks arrived for the task (it read %s by polling); "+
			"servers MAY push them", end.Task.Status))
	} else {
		var bad []string
		for _, n := range notes {
			var p protocol.Meta
			_ = json.Unmarshal(n.Params, &p)
			if got, ok := p.Meta[protocol.MetaSubscriptionID]; !ok || !jsonrpc.ID(got).Equal(id) {
				bad = append(bad, fmt.Sprintf("status %s with subscriptionId %s", judge.StringField(n.Params, "status"), orNone(got)))
			}
		}
		t.Judge(notificationsSubscriptionID, len(bad) == 0, "subscriptionId "+string(id)+" on each of "+fmt.Sprint(len(notes)),
			strings.Join(bad, "; "))
	}
	stray := s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool {
		return m.Method == protocol.NotificationProgress || m.Method == protocol.NotificationMessage
	})
	var got []string
	for _, m := range stray {
		got = append(got, m.Method)
	}
	t.Judge(notificationsNoProgress, len(stray) == 0, "no notifications/progress or notifications/message", strings.Join(got, ", "))

	t.Step("subscriptions/listen without the extension, for %s", task.TaskID)
	judgeListenUndeclared(t, s, task.TaskID)
}

// awaitAck waits for the acknowledgement of l (or its answer). A server
// that refuses subscriptions/listen altogether is not judged here: it
// offers no task notifications.
func awaitAck(t *serverside.T, s *client.Session, l *client.Listening, mark int) {
	ctx, cancel := t.Wait()
	defer cancel()
	acked := make(chan struct{})
	go func() {
		if _, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
			if m.Method != protocol.NotificationSubscriptionsAcknowledged {
				return false
			}
			var p protocol.Meta
			_ = json.Unmarshal(m.Params, &p)
			return jsonrpc.ID(p.Meta[protocol.MetaSubscriptionID]).Equal(l.ID)
		}); err == nil {
			close(acked)
		}
	}()
	select {
	case <-acked:
	case <-l.Done():
		resp, err := l.Response()
		t.NotJudgedRest("subscriptions/listen for the task was answered at once (" + judge.Describe(resp, err) +
			"), so the server offers no task notifications on it")
	case <-ctx.Done():
		t.Blocked("subscriptions/listen for the task was neither acknowledged nor answered within %s", t.Env.Timing.ResponseTimeout)
	}
}

func orNone(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "none"
	}
	return string(raw)
}

// judgeListenUndeclared opens a listen without the extension: a refusal
// with -32021 passes; an acknowledgement, or the request left open, fails.
func judgeListenUndeclared(t *serverside.T, s *client.Session, taskID string) {
	mark := s.Inbox().Mark()
	id := jsonrpc.StringID("mcpconform-tasksext-listen-undeclared")
	l := s.Listen(t.Ctx, id, map[string]any{"taskIds": []string{taskID}}, undeclared(plainCaps()))
	defer func() {
		ctx, cancel := t.Wait()
		defer cancel()
		l.Stop(ctx)
	}()
	ctx, cancel := t.Wait()
	defer cancel()
	acked := make(chan struct{})
	go func() {
		if _, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationSubscriptionsAcknowledged
		}); err == nil {
			close(acked)
		}
	}()
	select {
	case <-l.Done():
		resp, err := l.Response()
		t.Judge(notificationsListenUndeclared, err == nil && judge.IsErrorCode(resp, codes.MissingRequiredClientCapability),
			"error -32021", judge.Describe(resp, err))
	case <-acked:
		t.Fail(notificationsListenUndeclared, "error -32021", "the subscription was acknowledged")
	case <-ctx.Done():
		t.Fail(notificationsListenUndeclared, "error -32021", "no answer within "+t.Env.Timing.ResponseTimeout.String())
	}
}
