package tasks

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
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

// S1. Task session isolation (2025-11-25 tasks v1).

const isolationSpec = tasksSpec + "#task-isolation-and-access-control"

var (
	isolationForeignGetRejected = &scenarios.Check{ID: "tasks-isolation/foreign-get-rejected", Level: scenarios.Should, Spec: isolationSpec,
		Title:  "tasks/get from session B for A's task is rejected (MUST with two authorization contexts)",
		Faults: []*fault.Fault{server.LeakGetForeign, server.SequentialTaskIds}}
	isolationForeignResultRejected = &scenarios.Check{ID: "tasks-isolation/foreign-result-rejected", Level: scenarios.Should, Spec: isolationSpec,
		Title:  "tasks/result from session B for A's task is rejected (MUST with two authorization contexts)",
		Faults: []*fault.Fault{server.LeakResultForeign, server.SequentialTaskIds}}
	isolationForeignCancelRejected = &scenarios.Check{ID: "tasks-isolation/foreign-cancel-rejected", Level: scenarios.Should, Spec: isolationSpec,
		Title:  "tasks/cancel from session B for A's task is rejected (MUST with two authorization contexts)",
		Faults: []*fault.Fault{server.LeakCancelForeign, server.SequentialTaskIds}}
	isolationIndistinguishableErrors = &scenarios.Check{ID: "tasks-isolation/indistinguishable-errors", Level: scenarios.Should, Spec: tasksSpec + "#protocol-errors",
		Title:  "B's rejection for A's task is the one for an id that never existed: code -32602, same message once the id is masked",
		Faults: []*fault.Fault{server.DistinctForeignError}}
	isolationListExcludesForeign = &scenarios.Check{ID: "tasks-isolation/list-excludes-foreign", Level: scenarios.Should, Spec: isolationSpec,
		Title:  "tasks/list from session B never contains A's task (MUST with two authorization contexts)",
		Faults: []*fault.Fault{server.ListLeaksForeign, server.SequentialTaskIds}}
	isolationForeignCancelNoEffect = &scenarios.Check{ID: "tasks-isolation/foreign-cancel-no-effect", Level: scenarios.Should, Spec: isolationSpec,
		Title:  "B's rejected tasks/cancel leaves A's task untouched: it reaches a terminal status other than cancelled",
		Faults: []*fault.Fault{server.ForeignCancelTakesEffect, server.SequentialTaskIds}}
	isolationNoForeignNotifications = &scenarios.Check{ID: "tasks-isolation/no-foreign-notifications", Level: scenarios.Should, Spec: isolationSpec,
		Title:  "session B receives no notifications/tasks/status for A's task",
		Faults: []*fault.Fault{server.StatusToWrongSession}}
	isolationUnguessableIds = &scenarios.Check{ID: "tasks-isolation/unguessable-ids", Level: scenarios.Must, Spec: isolationSpec,
		Title:  "without binding to a session or authorization context, task ids are cryptographically random (not short, sequential or low-entropy)",
		Faults: []*fault.Fault{server.SequentialTaskIds}}
)

var isolationScenario = &scenarios.Scenario{
	ID:       "tasks-isolation",
	Title:    "one session cannot see, fetch, cancel or hear about another session's task",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []string{"tool test_task_working (taskSupport optional or required; runs for a while, then completes)", "two sessions: two HTTP sessions, two WebSockets or two stdio processes"},
	Purpose: "Session A creates a task; session B probes it. The spec makes binding a MUST across authorization contexts " +
		"(give two bearer tokens) and the design note a SHOULD across sessions, so the isolation checks are SHOULD unless two " +
		"tokens are given, then MUST. Without any binding, task ids MUST be unguessable instead.",
	Checks: []*scenarios.Check{isolationForeignGetRejected, isolationForeignResultRejected, isolationForeignCancelRejected, isolationIndistinguishableErrors, isolationListExcludesForeign, isolationForeignCancelNoEffect, isolationNoForeignNotifications, isolationUnguessableIds},
	Run:    serverside.Body(runIsolation),
}

func runIsolation(t *serverside.T) {
	a := openTaskSession(t, "A", 0)
	b := openTaskSession(t, "B", 1)
	if len(t.Env.AuthTokens) == 2 {
		for _, c := range []*scenarios.Check{isolationForeignGetRejected, isolationForeignResultRejected,
			isolationForeignCancelRejected, isolationListExcludesForeign,
			isolationForeignCancelNoEffect, isolationNoForeignNotifications} {
			t.Escalate(c, scenarios.Must, "two authorization contexts were given")
		}
	}
	fx := requireTaskTool(t, a, fixtureTaskWorking, map[string]any{"ms": 1000}, "optional", "required")
	markB := b.Inbox().Mark()
	id, _ := createTask(t, a, fx)

	t.Step("session B: tasks/get, tasks/cancel, tasks/result on A's task %s", id)
	foreignGet, errGet := getTask(t, b, id)
	// -32602 is the spec's code for an invalid or nonexistent taskId
	// (tasks.mdx#protocol-errors); an HTTP-level refusal also rejects.
	rejected := func(m *jsonrpc.Message, err error) bool {
		_, refused := judge.HTTPRejection(err)
		return refused || err == nil && judge.IsErrorCode(m, codes.InvalidParams)
	}
	getRejected := rejected(foreignGet, errGet)
	t.Judge(isolationForeignGetRejected, getRejected, "error -32602", DescribeTask(foreignGet, errGet))

	foreignCancel, errCancel := cancelTask(t, b, id)
	t.Judge(isolationForeignCancelRejected, rejected(foreignCancel, errCancel), "error -32602", DescribeTask(foreignCancel, errCancel))

	foreignResult, errResult := waitResult(t, b, id)
	t.Judge(isolationForeignResultRejected, rejected(foreignResult, errResult), "error -32602", DescribeTask(foreignResult, errResult))

	t.Step("session B: tasks/get on an id that never existed")
	never := "mcpconform-never-" + randomHex(8)
	unknown, errUnknown := getTask(t, b, never)
	switch {
	case !getRejected:
		t.Skip(isolationIndistinguishableErrors, "not judged: B's tasks/get for A's task was not rejected")
	case errGet != nil || errUnknown != nil:
		t.Judge(isolationIndistinguishableErrors, judge.Describe(foreignGet, errGet) == judge.Describe(unknown, errUnknown),
			"the same rejection for both", fmt.Sprintf("foreign: %s; never existed: %s", judge.Describe(foreignGet, errGet), judge.Describe(unknown, errUnknown)))
	default:
		same := unknown.Error != nil && foreignGet.Error.Code == codes.InvalidParams && unknown.Error.Code == foreignGet.Error.Code &&
			strings.ReplaceAll(foreignGet.Error.Message, id, "ID") == strings.ReplaceAll(unknown.Error.Message, never, "ID")
		t.Judge(isolationIndistinguishableErrors, same,
			fmt.Sprintf("-32602 with the same message as for a never-existing id (%s)", judge.Describe(unknown, nil)),
			judge.Describe(foreignGet, nil))
	}

	if serverTasksCapability(b, "list") {
		t.Step("session B: tasks/list")
		ids, err := listAll(t, b)
		if err != nil {
			t.Fail(isolationListExcludesForeign, "a task list without "+id, err.Error())
		} else {
			t.Judge(isolationListExcludesForeign, !contains(ids, id), "a task list without "+id, "B's list: "+strings.Join(ids, ", "))
		}
	} else {
		t.Skip(isolationListExcludesForeign, "the server does not declare capabilities.tasks.list")
	}

	t.Step("session A: wait for its task to finish")
	if _, err := waitResult(t, a, id); err != nil {
		t.Blocked("A's tasks/result did not return: %v", err)
	}
	final, err := waitTerminal(t, a, id)
	if err != nil {
		t.Blocked("A's task did not finish: %v", err)
	}
	t.Judge(isolationForeignCancelNoEffect, final.Status != "cancelled",
		"completed (or failed), as if B had never asked", "status "+final.Status)

	t.Step("session B: no status notifications for A's task")
	t.Barrier(b)
	leak := quiet(t, b, markB, func(m *jsonrpc.Message) bool {
		return m.Method == protocol.NotificationTasksStatus && strings.Contains(string(m.Params), id)
	})
	actual := "none"
	if leak != nil {
		actual = string(leak.Raw)
	}
	t.Judge(isolationNoForeignNotifications, leak == nil, "no notifications/tasks/status for "+id+" on B", actual)

	judgeEntropy(t, a, fx, id, getRejected)
}

// judgeEntropy samples task ids when tasks are not bound to the session.
func judgeEntropy(t *serverside.T, a *client.Session, fx scenarios.Fixture, first string, bound bool) {
	if bound {
		t.Skip(isolationUnguessableIds, "tasks are bound to the session (B could not read A's task), so the spec asks no particular entropy")
		return
	}
	t.Step("no binding: sample task ids")
	ids := []string{first}
	args := map[string]any{}
	for k, v := range fx.Arguments {
		args[k] = v
	}
	if _, ok := args["ms"]; ok {
		args["ms"] = 10
	}
	for range 4 {
		id, _ := createTask(t, a, scenarios.Fixture{Tool: fx.Tool, Arguments: args})
		ids = append(ids, id)
	}
	if why := guessable(ids); why != "" {
		t.Fail(isolationUnguessableIds, "random ids of at least 16 characters with no sequential pattern", why+": "+strings.Join(ids, ", "))
		return
	}
	t.Pass(isolationUnguessableIds)
}

// guessable says why a set of ids looks guessable, or "".
func guessable(ids []string) string {
	for _, id := range ids {
		if len(id) < 16 {
			return fmt.Sprintf("id %q is shorter than 16 characters", id)
		}
	}
	// Sequential: the ids are the same but for numbers that count up
	// (task-1, task-2; 0001-job, 0002-job; session-7-task-10, …-17).
	sequential := true
	var shape0 string
	var prev []int64
	for i, id := range ids {
		shape, nums, ok := counter(id)
		if !ok || (i > 0 && (shape != shape0 || !increasing(prev, nums))) {
			sequential = false
			break
		}
		shape0, prev = shape, nums
	}
	if sequential {
		return "the ids count up"
	}
	// Low entropy: the ids share all but a few characters.
	prefix := ids[0]
	for _, id := range ids[1:] {
		for !strings.HasPrefix(id, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if len(ids[0])-len(prefix) < 12 {
		return fmt.Sprintf("the ids share the prefix %q and vary in fewer than 12 characters", prefix)
	}
	return ""
}

// counter splits an id into its shape (each run of digits as #) and the
// numbers those runs spell; ok is false for ids without numbers.
func counter(id string) (string, []int64, bool) {
	var shape strings.Builder
	var nums []int64
	for i := 0; i < len(id); {
		if id[i] < '0' || id[i] > '9' {
			shape.WriteByte(id[i])
			i++
			continue
		}
		j := i
		for j < len(id) && id[j] >= '0' && id[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(id[i:j], 10, 64)
		if err != nil {
			return "", nil, false
		}
		nums = append(nums, n)
		shape.WriteByte('#')
		i = j
	}
	return shape.String(), nums, len(nums) > 0
}

// increasing compares two number tuples of the same shape.
func increasing(prev, next []int64) bool {
	for k := range min(len(prev), len(next)) {
		if next[k] != prev[k] {
			return next[k] > prev[k]
		}
	}
	return false
}

// listAll pages through tasks/list and returns the ids in order.
func listAll(t *serverside.T, s *client.Session) ([]string, error) {
	var ids []string
	cursor := ""
	for range 100 {
		ctx, cancel := t.Wait()
		resp, tasks, next, err := s.ListTasks(ctx, cursor)
		cancel()
		if err != nil || resp.Error != nil {
			return ids, fmt.Errorf("tasks/list: %s", judge.Describe(resp, err))
		}
		for _, tk := range tasks {
			ids = append(ids, tk.TaskID)
		}
		if next == "" {
			return ids, nil
		}
		cursor = next
	}
	return ids, fmt.Errorf("tasks/list gave more than 100 pages")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
