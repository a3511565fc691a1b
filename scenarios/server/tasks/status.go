package tasks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// S2. Task status lifecycle and notifications (2025-11-25 tasks v1).

const noNotifications = "the server sent no notifications/tasks/status; they are optional (tasks.mdx#task-status-notification), so there is nothing to judge"

const (
	validPaths   = "Receivers MUST only transition tasks through the following valid paths:"
	terminalRule = "Tasks with a `completed`, `failed`, or `cancelled` status are in a terminal state and MUST NOT transition to any other status"
)

var (
	statusStartsWorking = &scenarios.Check{ID: "tasks-status/starts-working", Level: scenarios.Must, Spec: tasksSpec + "#task-status-lifecycle",
		Quote:  "Tasks MUST begin in the `working` status when created.",
		Title:  "a task begins in the working status (the CreateTaskResult says working)",
		Faults: []*fault.Fault{server.CreateNotWorking}}
	statusTransitionsLegal = &scenarios.Check{ID: "tasks-status/transitions-legal", Level: scenarios.Must, Spec: tasksSpec + "#task-status-lifecycle",
		Quote:  validPaths,
		Title:  "statuses seen by polling follow working→{input_required, terminal}, input_required→{working, terminal}; terminal statuses never change",
		Faults: []*fault.Fault{server.IllegalTransition}}
	statusGetResultValid = &scenarios.Check{ID: "tasks-status/get-result-valid", Level: scenarios.Must, Spec: tasksSpec + "#ttl-and-resource-management",
		Quote:  "Receivers MUST include the actual `ttl` duration (or `null` for unlimited) in `tasks/get` responses.",
		Title:  "every tasks/get result validates against GetTaskResult (taskId, status, createdAt, lastUpdatedAt, ttl)",
		Faults: []*fault.Fault{server.TtlMissing}}
	statusTimestampsConsistent = &scenarios.Check{ID: "tasks-status/timestamps-consistent", Level: scenarios.Must, Spec: tasksSpec + "#ttl-and-resource-management",
		Quote: "Receivers MUST include a `createdAt` ISO 8601-formatted timestamp in all task responses to indicate when the task was created.",
		Title: "createdAt names the same instant every time (however it is written); lastUpdatedAt never goes backwards " +
			"(per source: polling, notifications)",
		Faults:    []*fault.Fault{server.CreatedAtDrifts},
		Liberties: []*fault.Fault{server.TimestampPrecision, server.SecondTimestamps}}
	statusNotificationsValid = &scenarios.Check{ID: "tasks-status/notifications-valid", Level: scenarios.Must, Spec: tasksSpec + "#task-status-notification",
		Quote:  "The notification includes the full `Task` object, including the updated `status` and `statusMessage` (if present).",
		Title:  "each notifications/tasks/status carries the full Task and validates against the schema",
		Faults: []*fault.Fault{server.NotificationMissingFields}}
	statusNotificationsNoRelatedMeta = &scenarios.Check{ID: "tasks-status/notifications-no-related-meta", Level: scenarios.Should, Spec: tasksSpec + "#task-notifications",
		Quote:  "When sent, the `notifications/tasks/status` notification SHOULD NOT include the `io.modelcontextprotocol/related-task` metadata, as the task ID is already present in the notification parameters.",
		Title:  "status notifications do not carry io.modelcontextprotocol/related-task _meta (SHOULD NOT)",
		Faults: []*fault.Fault{server.NotificationRelatedMeta}}
	statusNotificationsAgree = &scenarios.Check{ID: "tasks-status/notifications-agree", Level: scenarios.Must, Spec: tasksSpec + "#task-status-notification",
		Quote: "This notification includes the full task state.",
		Title: "the first terminal status notified is the one polling shows (over HTTP, notifications with equal lastUpdatedAt " +
			"may have come in any order, so none of them is taken to be first)",
		Faults:    []*fault.Fault{server.NotificationWrongStatus},
		Liberties: []*fault.Fault{server.SecondTimestamps, server.RepeatsTerminalNotification}}
	statusNoneAfterTerminal = &scenarios.Check{ID: "tasks-status/none-after-terminal", Level: scenarios.Must, Spec: tasksSpec + "#task-status-lifecycle",
		Quote: terminalRule,
		Title: "no notification after the terminal one reports a different status (telling the same terminal status again " +
			"is allowed)",
		Faults:    []*fault.Fault{server.NotifiesWorkingAfterTerminal},
		Liberties: []*fault.Fault{server.RepeatsTerminalNotification, server.SecondTimestamps}}
)

var statusScenario = &scenarios.Scenario{
	ID:       "tasks-status",
	Title:    "task statuses follow the lifecycle graph, and status notifications agree with polling",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskElicitation, "taskSupport optional or required; asks for input from inside the task")},
	Purpose: "A task that needs input is created, polled, answered and finished. Every status seen by polling and every " +
		"notifications/tasks/status received is judged. Notifications are optional: a server that sends none is not failed for it.",
	Checks: []*scenarios.Check{statusStartsWorking, statusTransitionsLegal, statusGetResultValid, statusTimestampsConsistent, statusNotificationsValid, statusNotificationsNoRelatedMeta, statusNotificationsAgree, statusNoneAfterTerminal},
	Run:    serverside.Body(runStatus),
}

func runStatus(t *serverside.T) {
	a := openTaskSession(t, "A", 0)
	fx := requireTaskTool(t, a, fixtures.TaskElicitation, nil, "optional", "required")
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
	// see: there they are ordered by their lastUpdatedAt, and those with
	// equal ones may have come in any order.
	unordered := !t.Env.Transport.OrderedResponses()
	judgeTimestamps(t, a.TaskHistory(id), unordered)

	// Notifications, if the server sends them.
	notes := quietAll(t, a, id)
	if len(notes) == 0 {
		for _, c := range []*scenarios.Check{statusNotificationsValid, statusNotificationsNoRelatedMeta, statusNotificationsAgree, statusNoneAfterTerminal} {
			t.Skip(c, noNotifications)
		}
		return
	}
	t.Pass(statusNotificationsValid)
	t.Pass(statusNotificationsNoRelatedMeta)
	for _, n := range notes {
		if verr := protocol.ValidateParams(t.Env.Version, protocol.NotificationTasksStatus, n.Params); verr != nil {
			t.Fail(statusNotificationsValid, "params valid against the Task schema", verr.Error()+" in "+string(n.Raw))
		}
		if _, has := relatedTaskID(n.Params); has {
			t.Fail(statusNotificationsNoRelatedMeta, "no related-task _meta", string(n.Raw))
		}
	}
	firstPolledTerminal := ""
	for _, s := range polled {
		if client.IsTerminal(s) {
			firstPolledTerminal = s
			break
		}
	}
	v := judgeNotified(notifiedGroups(notes, unordered), firstPolledTerminal)
	if v.agree != "" {
		t.Fail(statusNotificationsAgree, "the terminal status polling shows ("+firstPolledTerminal+")", v.agree)
	} else {
		t.Pass(statusNotificationsAgree)
	}
	if v.after != "" {
		t.Fail(statusNoneAfterTerminal, "after the terminal notification, only that same status again", v.after)
	} else {
		t.Pass(statusNoneAfterTerminal)
	}
}

// notifiedGroups orders the task's notified statuses: in arrival order, one
// to a group, where the transport keeps order; by lastUpdatedAt otherwise,
// those naming the same instant in one group, whose order is unknown.
func notifiedGroups(notes []*jsonrpc.Message, unordered bool) [][]string {
	type note struct {
		status string
		at     string
	}
	var ns []note
	for _, n := range notes {
		ns = append(ns, note{judge.StringField(n.Params, "status"), judge.StringField(n.Params, "lastUpdatedAt")})
	}
	if !unordered {
		var groups [][]string
		for _, n := range ns {
			groups = append(groups, []string{n.status})
		}
		return groups
	}
	sort.SliceStable(ns, func(i, j int) bool { return laterThan(ns[j].at, ns[i].at) })
	var groups [][]string
	for i, n := range ns {
		if i > 0 && sameInstant(ns[i-1].at, n.at) {
			groups[len(groups)-1] = append(groups[len(groups)-1], n.status)
			continue
		}
		groups = append(groups, []string{n.status})
	}
	return groups
}

// notifiedVerdict says what is wrong with the notified statuses, per check
// ("" when nothing is).
type notifiedVerdict struct{ agree, after string }

// judgeNotified: the first terminal status notified must be the one
// polling shows (when polling saw one); after it, a later notification may
// repeat it but name no other status. Statuses notified at the same instant
// as that first terminal one may have been sent before it, and so are not
// "after". (Up to the first terminal status every order is legal: working
// and input_required may follow each other, and either may end.)
func judgeNotified(groups [][]string, polledTerminal string) notifiedVerdict {
	var v notifiedVerdict
	at := slices.IndexFunc(groups, func(g []string) bool { return slices.ContainsFunc(g, client.IsTerminal) })
	if at < 0 {
		return v // no terminal status notified: nothing to compare
	}
	var terminals []string
	for _, st := range groups[at] {
		if client.IsTerminal(st) && !slices.Contains(terminals, st) {
			terminals = append(terminals, st)
		}
	}
	terminal := terminals[0]
	switch {
	case len(terminals) > 1:
		v.agree = fmt.Sprintf("%s notified at the same instant (notified: %s)", strings.Join(terminals, " and "), describeGroups(groups))
	case polledTerminal != "" && terminal != polledTerminal:
		v.agree = "notified " + terminal + " (notified: " + describeGroups(groups) + ")"
	}
	for _, g := range groups[at+1:] {
		for _, st := range g {
			if st != terminal {
				v.after = fmt.Sprintf("%s after the terminal %s (notified: %s)", st, terminal, describeGroups(groups))
				return v
			}
		}
	}
	return v
}

// describeGroups writes groups as a → b → {c, d}: braces hold statuses
// notified at the same instant.
func describeGroups(groups [][]string) string {
	var parts []string
	for _, g := range groups {
		if len(g) == 1 {
			parts = append(parts, g[0])
		} else if len(g) > 1 {
			parts = append(parts, "{"+strings.Join(g, ", ")+"}")
		}
	}
	return strings.Join(parts, " → ")
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
			} else if !sameInstant(o.CreatedAt, created) {
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

// sameInstant compares ISO 8601 timestamps as instants ("…00Z" and
// "…00.000Z" are the same); unparsable ones compare as text.
func sameInstant(a, b string) bool {
	ta, errA := judge.ParseTime(a)
	tb, errB := judge.ParseTime(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return ta.Equal(tb)
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
