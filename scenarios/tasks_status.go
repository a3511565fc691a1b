package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// S2. Task status lifecycle and notifications (2025-11-25 tasks v1).

func init() { Register(statusScenario) }

const noNotifications = "the server sent no notifications/tasks/status; they are optional (tasks.mdx#task-status-notification), so there is nothing to judge"

var statusScenario = &Scenario{
	ID:       "tasks-status",
	Title:    "task statuses follow the lifecycle graph, and status notifications agree with polling",
	Family:   "tasks",
	Side:     ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_elicitation (taskSupport optional or required; asks for input from inside the task)"},
	Purpose: "A task that needs input is created, polled, answered and finished. Every status seen by polling and every " +
		"notifications/tasks/status received is judged. Notifications are optional: a server that sends none is not failed for it.",
	Checks: []Check{
		{ID: "tasks-status/starts-working", Level: Must, Spec: tasksSpec + "#task-status-lifecycle",
			Title: "a task begins in the working status (the CreateTaskResult says working)"},
		{ID: "tasks-status/transitions-legal", Level: Must, Spec: tasksSpec + "#task-status-lifecycle",
			Title: "statuses seen by polling follow working→{input_required, terminal}, input_required→{working, terminal}; terminal statuses never change"},
		{ID: "tasks-status/get-result-valid", Level: Must, Spec: tasksSpec + "#ttl-and-resource-management",
			Title: "every tasks/get result validates against GetTaskResult (taskId, status, createdAt, lastUpdatedAt, ttl)"},
		{ID: "tasks-status/timestamps-consistent", Level: Must, Spec: tasksSpec + "#ttl-and-resource-management",
			Title: "createdAt never changes; lastUpdatedAt never goes backwards (per source: polling, notifications)"},
		{ID: "tasks-status/notifications-valid", Level: Must, Spec: tasksSpec + "#task-status-notification",
			Title: "each notifications/tasks/status carries the full Task and validates against the schema"},
		{ID: "tasks-status/notifications-no-related-meta", Level: Should, Spec: tasksSpec + "#task-notifications",
			Title: "status notifications do not carry io.modelcontextprotocol/related-task _meta (SHOULD NOT)"},
		{ID: "tasks-status/notifications-agree", Level: Must, Spec: tasksSpec + "#task-status-notification",
			Title: "notified statuses follow the graph and the terminal status notified is the one polling shows"},
		{ID: "tasks-status/none-after-terminal", Level: Should, Spec: tasksSpec + "#task-notifications",
			Title: "no status notification follows a terminal one (there is no change left to report)"},
	},
	Run: runStatus,
}

func runStatus(t *T) {
	a := openTaskSession(t, "A", 0)
	fx := requireTaskTool(t, a, fixtureTaskElicitation, nil, "optional", "required")
	held := a.Hold(protocol.MethodElicitationCreate)
	id, created := createTask(t, a, fx)
	status := createdStatus(created)
	t.Judge("tasks-status/starts-working", status == "working", "task.status working", "task.status "+status)

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
	barrier(t, a)

	// Polling: legal graph and schema.
	var polled []string
	for _, o := range a.TaskHistory(id) {
		if o.Source != "notification" {
			polled = append(polled, o.Status)
		}
	}
	if step, bad := illegalStep(polled); bad {
		t.Fail("tasks-status/transitions-legal", "only transitions the lifecycle allows", step)
	} else {
		t.Pass("tasks-status/transitions-legal")
	}
	t.Pass("tasks-status/get-result-valid")
	for _, g := range gets {
		if g.Error != nil {
			t.Fail("tasks-status/get-result-valid", "a GetTaskResult", Describe(g, nil))
			break
		}
		if verr := validateResult(t.Env.Version, protocol.MethodTasksGet, g.Result); verr != nil {
			t.Fail("tasks-status/get-result-valid", "a result valid against GetTaskResult", verr.Error())
			break
		}
	}
	// Over Streamable HTTP, notifications travel on several streams (POST
	// responses, the GET stream) whose relative order the client cannot
	// see: there they are judged in the order of their lastUpdatedAt.
	unordered := t.Env.Transport == client.KindHTTP
	judgeTimestamps(t, a.TaskHistory(id), unordered)

	// Notifications, if the server sends them.
	notes := quietAll(t, a, id)
	if unordered {
		sort.SliceStable(notes, func(i, j int) bool {
			return laterThan(stringField(notes[j].Params, "lastUpdatedAt"), stringField(notes[i].Params, "lastUpdatedAt"))
		})
	}
	if len(notes) == 0 {
		for _, c := range []string{"tasks-status/notifications-valid", "tasks-status/notifications-no-related-meta", "tasks-status/notifications-agree", "tasks-status/none-after-terminal"} {
			t.Skip(c, noNotifications)
		}
		return
	}
	t.Pass("tasks-status/notifications-valid")
	t.Pass("tasks-status/notifications-no-related-meta")
	var notified []string
	for _, n := range notes {
		if verr := protocol.ValidateParams(t.Env.Version, protocol.NotificationTasksStatus, n.Params); verr != nil {
			t.Fail("tasks-status/notifications-valid", "params valid against the Task schema", verr.Error()+" in "+string(n.Raw))
		}
		if _, has := relatedTaskID(n.Params); has {
			t.Fail("tasks-status/notifications-no-related-meta", "no related-task _meta", string(n.Raw))
		}
		notified = append(notified, stringField(n.Params, "status"))
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
	switch step, bad := illegalStep(notified); {
	case bad:
		t.Fail("tasks-status/notifications-agree", "notified statuses that follow the lifecycle", step)
	case firstNotifiedTerminal != "" && firstNotifiedTerminal != firstPolledTerminal:
		t.Fail("tasks-status/notifications-agree", "the terminal status polling shows ("+firstPolledTerminal+")",
			"notified "+firstNotifiedTerminal+" (notified: "+strings.Join(notified, " → ")+")")
	default:
		t.Pass("tasks-status/notifications-agree")
	}
	if terminalAt >= 0 && terminalAt < len(notes)-1 {
		t.Fail("tasks-status/none-after-terminal", "nothing after the terminal notification",
			fmt.Sprintf("%d more: %s", len(notes)-1-terminalAt, string(notes[terminalAt+1].Raw)))
	} else {
		t.Pass("tasks-status/none-after-terminal")
	}
}

// quietAll returns the task's notifications once the line has been quiet
// for QuietWindow (the barrier before covers ordered transports). A server
// that never stops notifying is cut off after a bounded number of windows.
func quietAll(t *T, s *client.Session, id string) []*jsonrpc.Message {
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
func judgeTimestamps(t *T, history []client.Observation, unordered bool) {
	created := ""
	last := map[string]string{}
	for _, o := range history {
		if o.CreatedAt != "" {
			if created == "" {
				created = o.CreatedAt
			} else if o.CreatedAt != created {
				t.Fail("tasks-status/timestamps-consistent", "createdAt "+created+" every time", fmt.Sprintf("createdAt %s (from %s)", o.CreatedAt, o.Source))
				return
			}
		}
		source := "poll"
		if o.Source == "notification" {
			source = "notification"
		}
		if o.LastUpdatedAt != "" && !(unordered && source == "notification") {
			if prev := last[source]; prev != "" && laterThan(prev, o.LastUpdatedAt) {
				t.Fail("tasks-status/timestamps-consistent", "lastUpdatedAt never earlier than "+prev, fmt.Sprintf("lastUpdatedAt %s (from %s)", o.LastUpdatedAt, o.Source))
				return
			}
			last[source] = o.LastUpdatedAt
		}
	}
	t.Pass("tasks-status/timestamps-consistent")
}

// laterThan compares ISO 8601 timestamps; unparsable ones compare as text.
func laterThan(a, b string) bool {
	ta, errA := parseTime(a)
	tb, errB := parseTime(b)
	if errA != nil || errB != nil {
		return a > b
	}
	return ta.After(tb)
}
