package tasks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// S2. Task status lifecycle and notifications (2025-11-25 tasks v1).

const noNotifications = "the server sent no notifications/tasks/status; they are optional (tasks.mdx#task-status-notification), so there is nothing to judge"

var (
	statusStartsWorking = &scenarios.Check{ID: "tasks-status/starts-working", Level: scenarios.Must, Spec: tasksSpec + "#task-status-lifecycle",
		Title:  "a task begins in the working status (the CreateTaskResult says working)",
		Faults: []*fault.Fault{server.CreateNotWorking}}
	statusTransitionsLegal = &scenarios.Check{ID: "tasks-status/transitions-legal", Level: scenarios.Must, Spec: tasksSpec + "#task-status-lifecycle",
		Title:  "statuses seen by polling follow working→{input_required, terminal}, input_required→{working, terminal}; terminal statuses never change",
		Faults: []*fault.Fault{server.IllegalTransition}}
	statusGetResultValid = &scenarios.Check{ID: "tasks-status/get-result-valid", Level: scenarios.Must, Spec: tasksSpec + "#ttl-and-resource-management",
		Title:  "every tasks/get result validates against GetTaskResult (taskId, status, createdAt, lastUpdatedAt, ttl)",
		Faults: []*fault.Fault{server.TtlMissing}}
	statusTimestampsConsistent = &scenarios.Check{ID: "tasks-status/timestamps-consistent", Level: scenarios.Must, Spec: tasksSpec + "#ttl-and-resource-management",
		Title:  "createdAt never changes; lastUpdatedAt never goes backwards (per source: polling, notifications)",
		Faults: []*fault.Fault{server.CreatedAtDrifts}}
	statusNotificationsValid = &scenarios.Check{ID: "tasks-status/notifications-valid", Level: scenarios.Must, Spec: tasksSpec + "#task-status-notification",
		Title:  "each notifications/tasks/status carries the full Task and validates against the schema",
		Faults: []*fault.Fault{server.NotificationMissingFields}}
	statusNotificationsNoRelatedMeta = &scenarios.Check{ID: "tasks-status/notifications-no-related-meta", Level: scenarios.Should, Spec: tasksSpec + "#task-notifications",
		Title:  "status notifications do not carry io.modelcontextprotocol/related-task _meta (SHOULD NOT)",
		Faults: []*fault.Fault{server.NotificationRelatedMeta}}
	statusNotificationsAgree = &scenarios.Check{ID: "tasks-status/notifications-agree", Level: scenarios.Must, Spec: tasksSpec + "#task-status-notification",
		Title:  "notified statuses follow the graph and the terminal status notified is the one polling shows",
		Faults: []*fault.Fault{server.NotificationWrongStatus}}
	statusNoneAfterTerminal = &scenarios.Check{ID: "tasks-status/none-after-terminal", Level: scenarios.Should, Spec: tasksSpec + "#task-notifications",
		Title:  "no status notification follows a terminal one (there is no change left to report)",
		Faults: []*fault.Fault{server.NotifyAfterTerminal}}
)

var statusScenario = &scenarios.Scenario{
	ID:       "tasks-status",
	Title:    "task statuses follow the lifecycle graph, and status notifications agree with polling",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_elicitation (taskSupport optional or required; asks for input from inside the task)"},
	Purpose: "A task that needs input is created, polled, answered and finished. Every status seen by polling and every " +
		"notifications/tasks/status received is judged. Notifications are optional: a server that sends none is not failed for it.",
	Checks: []*scenarios.Check{statusStartsWorking, statusTransitionsLegal, statusGetResultValid, statusTimestampsConsistent, statusNotificationsValid, statusNotificationsNoRelatedMeta, statusNotificationsAgree, statusNoneAfterTerminal},
	Run:    serverside.Body(runStatus),
}

func runStatus(t *serverside.T) {
	a := openTaskSession(t, "A", 0)
	fx := requireTaskTool(t, a, fixtureTaskElicitation, nil, "optional", "required")
	held := a.Hold(protocol.MethodElicitationCreate)
	id, created := createTask(t, a, fx)
	status := createdStatus(created)
	t.Judge(statusStartsWorking, status == "working", "task.status working", "task.status "+status)

	t.Step("wait for the task's elicitation, then poll")
	h := taskElicitation(t, a, held, id)
	var gets []*jsonrpc.Message
	poll := func() {
		resp, err := getTask(t, a, id)
		if err != nil {
			t.Blocked("tasks/get failed: %v", err)
		}
		gets = append(gets, resp)
	}
	poll()
	t.Step("accept the elicitation")
	h.Answer(client.ElicitationAnswer("accept", map[string]any{"confirm": true}))
	if _, err := waitResult(t, a, id); err != nil {
		t.Blocked("tasks/result did not return: %v", err)
	}
	if _, err := waitTerminal(t, a, id); err != nil {
		t.Blocked("the task did not finish: %v", err)
	}
	poll() // a terminal status must still read the same
	t.Barrier(a)

	// Polling: legal graph and schema.
	var polled []string
	for _, o := range a.TaskHistory(id) {
		if o.Source != "notification" {
			polled = append(polled, o.Status)
		}
	}
	if step, bad := judge.IllegalStep(polled); bad {
		t.Fail(statusTransitionsLegal, "only transitions the lifecycle allows", step)
	} else {
		t.Pass(statusTransitionsLegal)
	}
	t.Pass(statusGetResultValid)
	for _, g := range gets {
		if g.Error != nil {
			t.Fail(statusGetResultValid, "a GetTaskResult", judge.Describe(g, nil))
			break
		}
		if verr := judge.ValidateResult(t.Env.Version, protocol.MethodTasksGet, g.Result); verr != nil {
			t.Fail(statusGetResultValid, "a result valid against GetTaskResult", verr.Error())
			break
		}
	}
	// Over Streamable HTTP, notifications travel on several streams (POST
	// responses, the GET stream) whose relative order the client cannot
	// see: there they are judged in the order of their lastUpdatedAt.
	unordered := !t.Env.Transport.OrderedResponses()
	judgeTimestamps(t, a.TaskHistory(id), unordered)

	// Notifications, if the server sends them.
	notes := quietAll(t, a, id)
	if unordered {
		sort.SliceStable(notes, func(i, j int) bool {
			return laterThan(judge.StringField(notes[j].Params, "lastUpdatedAt"), judge.StringField(notes[i].Params, "lastUpdatedAt"))
		})
	}
	if len(notes) == 0 {
		for _, c := range []*scenarios.Check{statusNotificationsValid, statusNotificationsNoRelatedMeta, statusNotificationsAgree, statusNoneAfterTerminal} {
			t.Skip(c, noNotifications)
		}
		return
	}
	t.Pass(statusNotificationsValid)
	t.Pass(statusNotificationsNoRelatedMeta)
	var notified []string
	for _, n := range notes {
		if verr := protocol.ValidateParams(t.Env.Version, protocol.NotificationTasksStatus, n.Params); verr != nil {
			t.Fail(statusNotificationsValid, "params valid against the Task schema", verr.Error()+" in "+string(n.Raw))
		}
		if _, has := relatedTaskID(n.Params); has {
			t.Fail(statusNotificationsNoRelatedMeta, "no related-task _meta", string(n.Raw))
		}
		notified = append(notified, judge.StringField(n.Params, "status"))
	}
	firstPolledTerminal := ""
	for _, s := range polled {
		if client.IsTerminal(s) {
			firstPolledTerminal = s
			break
		}
	}
	firstNotifiedTerminal, terminalAt := "", -1
	for i, s := range notified {
		if client.IsTerminal(s) {
			firstNotifiedTerminal, terminalAt = s, i
			break
		}
	}
	switch step, bad := judge.IllegalStep(notified); {
	case bad:
		t.Fail(statusNotificationsAgree, "notified statuses that follow the lifecycle", step)
	case firstNotifiedTerminal != "" && firstNotifiedTerminal != firstPolledTerminal:
		t.Fail(statusNotificationsAgree, "the terminal status polling shows ("+firstPolledTerminal+")",
			"notified "+firstNotifiedTerminal+" (notified: "+strings.Join(notified, " → ")+")")
	default:
		t.Pass(statusNotificationsAgree)
	}
	if terminalAt >= 0 && terminalAt < len(notes)-1 {
		t.Fail(statusNoneAfterTerminal, "nothing after the terminal notification",
			fmt.Sprintf("%d more: %s", len(notes)-1-terminalAt, string(notes[terminalAt+1].Raw)))
	} else {
		t.Pass(statusNoneAfterTerminal)
	}
}

// quietAll returns the task's notifications once the line has been quiet
// for QuietWindow (the barrier before covers ordered transports). A server
// that never stops notifying is cut off after a bounded number of windows.
func quietAll(t *serverside.T, s *client.Session, id string) []*jsonrpc.Message {
	for range 20 {
		mark := s.Inbox().Mark()
		if quiet(t, s, mark, func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationTasksStatus
		}) == nil {
			break
		}
	}
	return s.TaskNotifications(id)
}

// judgeTimestamps: createdAt constant, lastUpdatedAt monotone per source.
// On unordered transports notifications' arrival order says nothing about
// their lastUpdatedAt, so only polled observations are held to it.
func judgeTimestamps(t *serverside.T, history []client.Observation, unordered bool) {
	created := ""
	last := map[string]string{}
	for _, o := range history {
		if o.CreatedAt != "" {
			if created == "" {
				created = o.CreatedAt
			} else if o.CreatedAt != created {
				t.Fail(statusTimestampsConsistent, "createdAt "+created+" every time", fmt.Sprintf("createdAt %s (from %s)", o.CreatedAt, o.Source))
				return
			}
		}
		source := "poll"
		if o.Source == "notification" {
			source = "notification"
		}
		if o.LastUpdatedAt != "" && !(unordered && source == "notification") {
			if prev := last[source]; prev != "" && laterThan(prev, o.LastUpdatedAt) {
				t.Fail(statusTimestampsConsistent, "lastUpdatedAt never earlier than "+prev, fmt.Sprintf("lastUpdatedAt %s (from %s)", o.LastUpdatedAt, o.Source))
				return
			}
			last[source] = o.LastUpdatedAt
		}
	}
	t.Pass(statusTimestampsConsistent)
}

// laterThan compares ISO 8601 timestamps; unparsable ones compare as text.
func laterThan(a, b string) bool {
	ta, errA := judge.ParseTime(a)
	tb, errB := judge.ParseTime(b)
	if errA != nil || errB != nil {
		return a > b
	}
	return ta.After(tb)
}
