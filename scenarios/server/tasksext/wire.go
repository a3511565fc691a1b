package tasksext

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The task's own fields on the wire: the extension's names and units, a
// task kept until its ttlMs, a result inlined as the tool gave it, and no
// requestState (which belongs to MRTR, not to tasks).

const ttlQuote = "Time-to-live duration from creation in integer milliseconds, null for unlimited."

var (
	wireNoLegacyKeys = &scenarios.Check{ID: "tasksext-wire-fields/no-legacy-keys", Level: scenarios.Should,
		Spec: extSpec + "#tasks", Source: sepNote + "#backward-compatibility",
		Quote: ttlQuote,
		Title: "the CreateTaskResult and every tasks/get of slow_compute carry the extension's ttlMs and pollIntervalMs, not the " +
			"2025-11-25 ttl or pollInterval keys (the extension is not wire-compatible with them; a client reading them would " +
			"miss the extension's values)",
		Faults: []*fault.Fault{server.LegacyTTLKeys}}
	wireIntegerMs = &scenarios.Check{ID: "tasksext-wire-fields/integer-ms", Level: scenarios.Must,
		Spec: extSpec + "#tasks", Quote: ttlQuote,
		Title: "in the CreateTaskResult and every tasks/get, ttlMs is null or a positive integer and pollIntervalMs, when " +
			"present, a positive integer (milliseconds)",
		Faults:    []*fault.Fault{server.FractionalMs},
		Liberties: []*fault.Fault{server.NoPollInterval, server.SlowPollInterval}}
	wireNoEarlyExpiry = &scenarios.Check{ID: "tasksext-wire-fields/no-early-expiry", Level: scenarios.Should,
		Spec: extSpec + "#response",
		Quote: "Conversely, servers MAY mark a task as failed at any point after the TTL elapses, and subsequently delete it at " +
			"any time.",
		Title: "a tasks/get sent after the completed status was read still resolves the task while its ttlMs (as last read) " +
			"has not elapsed since the call that created it",
		Faults: []*fault.Fault{server.ExpiresEarly}}
	wireNoRelatedTaskMeta = &scenarios.Check{ID: "tasksext-wire-fields/no-related-task-meta", Level: scenarios.Should,
		Spec: extSpec + "#response",
		Quote: "If the status is completed, the server MUST return a Task object with status completed and a result field " +
			"containing the final result of the task.",
		Title: "the result inlined in the completed task is the tool's own, without the 2025-11-25 _meta " +
			protocol.MetaRelatedTask + " (the taskId is the task's own member)",
		Faults: []*fault.Fault{server.RelatedTaskMeta}}
)

var wireFieldsScenario = &scenarios.Scenario{
	ID:       "tasksext-wire-fields",
	Title:    "a task's ttlMs and pollIntervalMs, its lifetime, and the result it inlines",
	Official: "tasks-wire-fields",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "works for `seconds`, may run as a task")},
	Purpose: "slow_compute runs as a task and is polled until it completes; the CreateTaskResult and each tasks/get are read " +
		"for the names and units of their fields, the completed result for a 2025-11-25 _meta, and one more tasks/get shows " +
		"whether the task outlived the reading of its outcome.",
	Checks: []*scenarios.Check{wireNoLegacyKeys, wireIntegerMs, wireNoEarlyExpiry, wireNoRelatedTaskMeta},
	Run:    serverside.Body(runWireFields),
}

func runWireFields(t *serverside.T) {
	s := open(t)
	fx := t.RequireTool(s, fixtures.TasksExtSlowCompute, map[string]any{"seconds": 0.3, "label": server.LabelWireFields})
	sent := time.Now()
	task, created := createTask(t, s, fx)
	t.Step("poll tasks/get until %s is terminal", task.TaskID)
	polls, err := waitTask(t, s, task, time.Second, terminal)
	end := lastPoll(t, polls, err, "reach a terminal status")
	answers := []*jsonrpc.Message{created}
	for _, p := range polls {
		answers = append(answers, p.Resp)
	}
	var legacy, fractional []string
	for i, a := range answers {
		what := "tasks/get"
		if i == 0 {
			what = "CreateTaskResult"
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal(a.Result, &m)
		for _, k := range []string{"ttl", "pollInterval"} {
			if _, ok := m[k]; ok {
				legacy = append(legacy, what+" carries "+k)
			}
		}
		if why := badMs(m, "ttlMs", true); why != "" {
			fractional = append(fractional, what+": "+why)
		}
		if why := badMs(m, "pollIntervalMs", false); why != "" {
			fractional = append(fractional, what+": "+why)
		}
	}
	t.Judge(wireNoLegacyKeys, len(legacy) == 0, "neither ttl nor pollInterval", strings.Join(dedupe(legacy), "; "))
	t.Judge(wireIntegerMs, len(fractional) == 0, "integer milliseconds", strings.Join(dedupe(fractional), "; "))

	if end.Task.Status != "completed" {
		t.NotJudged(wireNoRelatedTaskMeta, "slow_compute ended "+end.Task.Status+", with no result to read")
	} else {
		var result struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(end.Task.Result, &result)
		_, related := result.Meta[protocol.MetaRelatedTask]
		t.Judge(wireNoRelatedTaskMeta, !related, "no "+protocol.MetaRelatedTask+" in the result's _meta", "result "+string(end.Task.Result))
	}

	t.Step("tasks/get %s once more", task.TaskID)
	ctx, cancel := t.Wait()
	again, gerr := s.ExtGetTask(ctx, task.TaskID)
	cancel()
	switch {
	case gerr == nil && again.Error == nil:
		t.Pass(wireNoEarlyExpiry)
	case gerr == nil && mayBeGone(end.Task, sent):
		t.NotJudged(wireNoEarlyExpiry, "the task's ttlMs had elapsed, so it may be gone ("+judge.Describe(again, nil)+")")
	default:
		ttl := "null"
		if end.Task.TTLMs != nil {
			ttl = fmt.Sprint(*end.Task.TTLMs)
		}
		t.Fail(wireNoEarlyExpiry, "the task (ttlMs "+ttl+" had not elapsed)", describeTask(again, gerr))
	}
}

// badMs says why member key of m is not a positive integer (null allowed
// where nullable, absence where not required), or "".
func badMs(m map[string]json.RawMessage, key string, nullable bool) string {
	raw, ok := m[key]
	if !ok {
		if nullable {
			return key + " missing"
		}
		return ""
	}
	if nullable && string(raw) == "null" {
		return ""
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f <= 0 || f != math.Trunc(f) || strings.ContainsAny(string(raw), ".eE") {
		return key + " " + string(raw)
	}
	return ""
}

// dedupe keeps the first of each repeated text, in order.
func dedupe(texts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range texts {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

var (
	requestStateAbsent = &scenarios.Check{ID: "tasksext-request-state/absent", Level: scenarios.Should,
		Spec: sepNote + "#composition-with-multi-round-trip-requests", Source: extSpec + "#tasks",
		Quote: "The two flows maintain separate state despite sharing field names.",
		Title: "neither the CreateTaskResult of slow_compute nor the tasks/get of the working task carries requestState, which " +
			"the extension's Task does not define (it belongs to an InputRequiredResult)",
		Faults: []*fault.Fault{server.TaskRequestState}}
)

var requestStateScenario = &scenarios.Scenario{
	ID:       "tasksext-request-state",
	Title:    "a task carries no requestState",
	Official: "tasks-request-state-removal",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "works for `seconds`, may run as a task")},
	Purpose: "A long slow_compute runs as a task; its CreateTaskResult and a tasks/get of it at once are read for a " +
		"requestState, then the task is cancelled.",
	Checks: []*scenarios.Check{requestStateAbsent},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t)
		fx := t.RequireTool(s, fixtures.TasksExtSlowCompute, map[string]any{"seconds": 60, "label": server.LabelRequestState})
		task, created := createTask(t, s, fx)
		t.Step("tasks/get %s at once", task.TaskID)
		ctx, cancel := t.Wait()
		got, err := s.ExtGetTask(ctx, task.TaskID)
		cancel()
		var carrying []string
		if hasMember(created.Result, "requestState") {
			carrying = append(carrying, "the CreateTaskResult")
		}
		read := err == nil && got.Error == nil
		if read && hasMember(got.Result, "requestState") {
			carrying = append(carrying, "the tasks/get ("+describeTask(got, nil)+")")
		}
		switch {
		case len(carrying) > 0:
			t.Fail(requestStateAbsent, "no requestState", strings.Join(carrying, " and ")+" carries requestState")
		case !read:
			t.NotJudged(requestStateAbsent, "tasks/get of the task failed: "+judge.Describe(got, err))
		default:
			t.Pass(requestStateAbsent)
		}
		t.Step("tasks/cancel %s", task.TaskID)
		ctx, cancel = t.Wait()
		defer cancel()
		_, _ = s.ExtCancelTask(ctx, task.TaskID) // cleanup: its ack is tasksext-cancel's to judge
	}),
}

// hasMember reports whether a JSON object has the member key.
func hasMember(raw json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	_, ok := m[key]
	return ok
}
