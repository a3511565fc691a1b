package tasks

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
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
	"github.com/mcpconform/mcpconform/transport"
)

// S1. Task session isolation (2025-11-25 tasks v1).

const isolationSpec = tasksSpec + "#task-isolation-and-access-control"

// Across plain sessions, binding rests on the design note, not the spec
// page: the page asks it only of authorization contexts (two bearer tokens
// raise these checks to MUST).
const (
	isolationNote = "seps/1686-tasks.md#81-task-isolation-and-access-control"
	noteBind      = "Bind tasks to the session that created them (if sessions are supported)"
	noteReject    = "Reject `tasks/get`, `tasks/list`, or `tasks/result` requests for tasks from different sessions or auth contexts"
)

// The liberties every rejection check must pass: the spec names no code
// for a foreign task, and informative messages are asked for.
var rejectionLiberties = []*fault.Fault{server.ForeignTaskOtherCode, server.InformativeTaskErrors}

var (
	isolationForeignGetRejected = &scenarios.Check{ID: "tasks-isolation/foreign-get-rejected", Level: scenarios.Should, Spec: isolationSpec,
		Source: isolationNote, Quote: noteReject,
		Title:     "tasks/get from session B for A's task is rejected: any JSON-RPC error or HTTP refusal (MUST with two authorization contexts)",
		Faults:    []*fault.Fault{server.LeakGetForeign, server.SequentialTaskIds},
		Liberties: rejectionLiberties}
	isolationForeignResultRejected = &scenarios.Check{ID: "tasks-isolation/foreign-result-rejected", Level: scenarios.Should, Spec: isolationSpec,
		Source: isolationNote, Quote: noteReject,
		Title:     "tasks/result from session B for A's task is rejected: any JSON-RPC error or HTTP refusal (MUST with two authorization contexts)",
		Faults:    []*fault.Fault{server.LeakResultForeign, server.SequentialTaskIds},
		Liberties: rejectionLiberties}
	isolationForeignCancelRejected = &scenarios.Check{ID: "tasks-isolation/foreign-cancel-rejected", Level: scenarios.Should, Spec: isolationSpec,
		Source: isolationNote, Quote: noteBind,
		Title:     "tasks/cancel from session B for A's task is rejected: any JSON-RPC error or HTTP refusal (MUST with two authorization contexts)",
		Faults:    []*fault.Fault{server.LeakCancelForeign, server.SequentialTaskIds},
		Liberties: rejectionLiberties}
	isolationIndistinguishableErrors = &scenarios.Check{ID: "tasks-isolation/indistinguishable-errors", Level: scenarios.Should, Spec: isolationSpec,
		Quote:   "Without proper access controls, any party that can guess or obtain a task ID could potentially access sensitive information or manipulate tasks they did not create.",
		Profile: "strict-isolation",
		Title: "opt-in hardening: B's rejection for A's task is the one for an id that never existed (code -32602, same message once " +
			"the id is masked), so it does not confirm that the task exists",
		Faults: []*fault.Fault{server.DistinctForeignError}}
	isolationListExcludesForeign = &scenarios.Check{ID: "tasks-isolation/list-excludes-foreign", Level: scenarios.Should, Spec: isolationSpec,
		Source: isolationNote, Quote: noteReject,
		Title:  "tasks/list from session B never contains A's task (MUST with two authorization contexts)",
		Faults: []*fault.Fault{server.ListLeaksForeign, server.SequentialTaskIds}}
	isolationForeignCancelNoEffect = &scenarios.Check{ID: "tasks-isolation/foreign-cancel-no-effect", Level: scenarios.Should, Spec: isolationSpec,
		Source: isolationNote, Quote: noteBind,
		Title:     "B's rejected tasks/cancel leaves A's task untouched: it reaches a terminal status other than cancelled",
		Faults:    []*fault.Fault{server.ForeignCancelTakesEffect, server.SequentialTaskIds},
		Liberties: []*fault.Fault{server.ForeignTaskOtherCode, server.SlowPollNoNotifications}}
	isolationNoForeignNotifications = &scenarios.Check{ID: "tasks-isolation/no-foreign-notifications", Level: scenarios.Should, Spec: isolationSpec,
		Source: isolationNote, Quote: noteBind,
		Title:  "session B receives no notifications/tasks/status for A's task",
		Faults: []*fault.Fault{server.StatusToWrongSession}}
	isolationUnguessableIds = &scenarios.Check{ID: "tasks-isolation/unguessable-ids", Level: scenarios.Must, Spec: isolationSpec,
		Quote:  "If context-binding is unavailable, receivers MUST generate cryptographically secure task IDs with enough entropy to prevent guessing and should consider using shorter TTL durations to reduce the exposure window.",
		Title:  "without binding to a session or authorization context, task ids are cryptographically random (not short, sequential or low-entropy)",
		Faults: []*fault.Fault{server.SequentialTaskIds}}
)

// sessionChecks are the checks that judge binding to a session or an
// authorization context.
var sessionChecks = []*scenarios.Check{isolationForeignGetRejected, isolationForeignResultRejected,
	isolationForeignCancelRejected, isolationListExcludesForeign,
	isolationForeignCancelNoEffect, isolationNoForeignNotifications}

var isolationScenario = &scenarios.Scenario{
	ID:       "tasks-isolation",
	Title:    "one session cannot see, fetch, cancel or hear about another session's task",
	Family:   "tasks",
	Side:     scenarios.ServerSide,
	Versions: taskVersions,
	Needs:    []scenarios.Need{needsTaskCalls, scenarios.NeedsFixture(fixtures.TaskWorking, "taskSupport optional or required; runs for a while, then completes"), scenarios.NeedsOther("two sessions: two HTTP sessions, two WebSockets or two stdio processes")},
	Purpose: "Session A creates a task; session B probes it. The spec makes binding a MUST across authorization contexts " +
		"(give two bearer tokens) and the design note (SEP-1686 §8.1) a SHOULD across sessions, so the isolation checks are SHOULD " +
		"unless two tokens are given, then MUST; a server without sessions (no Mcp-Session-Id) and without tokens has nothing " +
		"to bind to, and they are skipped. Any error rejects: the spec names no code for a foreign task. Whether the rejection " +
		"is told apart from an unknown id is the opt-in profile strict-isolation. Without any binding, task ids MUST be unguessable instead.",
	Checks: []*scenarios.Check{isolationForeignGetRejected, isolationForeignResultRejected, isolationForeignCancelRejected, isolationIndistinguishableErrors, isolationListExcludesForeign, isolationForeignCancelNoEffect, isolationNoForeignNotifications, isolationUnguessableIds},
	Run:    serverside.Body(runIsolation),
}

// maxIsolationTaskMs bounds the task the isolation probe lengthens.
const maxIsolationTaskMs = 16000

// taskMs reads the fixture's task length, an integer from the defaults or
// a number from a configuration file.
func taskMs(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case float64:
		return int(n), n == float64(int(n))
	}
	return 0, false
}

func runIsolation(t *serverside.T) {
	a := openTaskSession(t, "A", 0)
	b := openTaskSession(t, "B", 1)
	requireTaskCalls(t, b)
	// judged: whether the binding checks apply; why not, when they do not.
	judged, why := true, ""
	switch {
	case len(t.Env.AuthTokens) == 2:
		for _, c := range sessionChecks {
			t.Escalate(c, scenarios.Must, "two authorization contexts were given")
		}
	case sessionless(a.Conn()):
		judged, why = false, "the server keeps no sessions (it assigned no Mcp-Session-Id) and no authorization "+
			"contexts were given (--auth-token twice), so there is nothing to bind tasks to (SEP-1686 §8.1: \""+noteBind+"\"); "+
			"unguessable-ids judges such a server"
	}
	judgeBinding := func(c *scenarios.Check, ok bool, expected, actual string) {
		if judged {
			t.Judge(c, ok, expected, actual)
		} else {
			t.NotJudged(c, why)
		}
	}
	fx := requireTaskTool(t, a, fixtures.TaskWorking, map[string]any{"ms": 1000}, "optional", "required")
	markB := b.Inbox().Mark()
	var id string
	var foreignGet, foreignCancel *jsonrpc.Message
	var errGet, errCancel error
	for {
		created := time.Now()
		id, _ = createTask(t, a, fx)
		t.Step("session B: tasks/get, tasks/cancel, tasks/result on A's task %s", id)
		foreignGet, errGet = getTask(t, b, id)
		foreignCancel, errCancel = cancelTask(t, b, id)
		// B's cancel reached a task still working only if it was answered
		// within the task's run: the server started the task after the
		// request and acted on the cancel before answering it. On a busy
		// machine it may not be: a task that finished first refuses any
		// cancel, and a server that binds nothing would pass. Again with a
		// longer task, where the fixture takes its length.
		ms, lengthened := taskMs(fx.Arguments["ms"])
		if !lengthened || time.Since(created) < time.Duration(ms)*time.Millisecond || ms >= maxIsolationTaskMs {
			break
		}
		t.Step("B's tasks/cancel was answered %s after the task was created, which may have outlived it (%d ms): again with a task of %d ms",
			time.Since(created).Round(time.Millisecond), ms, 4*ms)
		fx.Arguments = maps.Clone(fx.Arguments)
		fx.Arguments["ms"] = 4 * ms
	}
	getRejected := rejected(foreignGet, errGet)
	const anyError = "a rejection: any JSON-RPC error or HTTP refusal (the spec names no code for a foreign task)"
	judgeBinding(isolationForeignGetRejected, getRejected, anyError, DescribeTask(foreignGet, errGet))
	judgeBinding(isolationForeignCancelRejected, rejected(foreignCancel, errCancel), anyError, DescribeTask(foreignCancel, errCancel))

	foreignResult, errResult := waitResult(t, b, id)

	t.Step("session B: tasks/get on an id that never existed")
	never := "mcpconform-never-" + randomHex(8)
	unknown, errUnknown := getTask(t, b, never)
	switch {
	case !getRejected:
		t.NotJudged(isolationIndistinguishableErrors, "B's tasks/get for A's task was not rejected")
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

	switch {
	case !serverTasksCapability(b, "list"):
		t.Skip(isolationListExcludesForeign, "the server does not declare capabilities.tasks.list")
	case !judged:
		t.NotJudged(isolationListExcludesForeign, why)
	default:
		t.Step("session B: tasks/list")
		ids, err := listAll(t, b)
		switch {
		case contains(ids, id):
			t.Fail(isolationListExcludesForeign, "a task list without "+id, "B's list: "+strings.Join(ids, ", "))
		case errors.Is(err, errEndlessList):
			// One defect, one verdict: tasks-list/pages-end judges the
			// list that never ends; the pages seen held no foreign task.
			t.Skip(isolationListExcludesForeign, fmt.Sprintf("%v (judged by tasks-list/pages-end); its first %d task(s) did not include %s", err, len(ids), id))
		case err != nil:
			t.Fail(isolationListExcludesForeign, "a task list without "+id, err.Error())
		default:
			t.Judge(isolationListExcludesForeign, !contains(ids, id), "a task list without "+id, "B's list: "+strings.Join(ids, ", "))
		}
	}

	t.Step("session A: wait for its task to finish")
	own, err := waitResult(t, a, id)
	if err != nil {
		t.Blocked("A's tasks/result did not return: %v", err)
	}
	// An error is B's rejection only if it is not the task's own outcome:
	// B may have cancelled the task it could reach, and then tasks/result
	// answers both sessions with the cancelled task's error.
	judgeBinding(isolationForeignResultRejected, rejected(foreignResult, errResult) && !sameError(foreignResult, own), anyError+
		", other than what A's own tasks/result answers ("+judge.Describe(own, nil)+")", DescribeTask(foreignResult, errResult))
	final, err := waitTerminal(t, a, id)
	if err != nil {
		t.Blocked("A's task did not finish: %v", err)
	}
	switch {
	case !judged:
		t.NotJudged(isolationForeignCancelNoEffect, why)
	case final.Status != "cancelled":
		t.Pass(isolationForeignCancelNoEffect)
	default:
		// Was it B's cancel? A task nobody touched tells.
		t.Step("A's task ended cancelled: run a task of A's that B never touches, to tell")
		control, _ := createTask(t, a, fx)
		ctl, err := waitTerminal(t, a, control)
		switch {
		case err != nil:
			t.Blocked("A's second task did not finish: %v", err)
		case ctl.Status == "cancelled":
			t.NotJudged(isolationForeignCancelNoEffect, "a task nobody cancelled ended cancelled too, so B's "+
				"tasks/cancel cannot be told apart (tasks-result/completes-uncancelled judges that)")
		default:
			t.Fail(isolationForeignCancelNoEffect, "completed (or failed), as if B had never asked",
				"status cancelled (a task B did not touch ended "+ctl.Status+")")
		}
	}

	t.Step("session B: no status notifications for A's task")
	t.Barrier(b)
	leak := quiet(t, b, markB, func(m *jsonrpc.Message) bool {
		return m.Method == protocol.NotificationTasksStatus && strings.Contains(string(m.Params), id)
	})
	actual := "none"
	if leak != nil {
		actual = string(leak.Raw)
	}
	judgeBinding(isolationNoForeignNotifications, leak == nil, "no notifications/tasks/status for "+id+" on B", actual)

	judgeEntropy(t, a, fx, id, getRejected)
}

// rejected: any JSON-RPC error, or an HTTP-level refusal, rejects a
// request for a foreign task. The spec asks that such requests be rejected
// (tasks.mdx#task-isolation-and-access-control) and names no code; -32602
// is its code for ids that are invalid or do not exist.
func rejected(m *jsonrpc.Message, err error) bool {
	if _, refused := judge.HTTPRejection(err); refused {
		return true
	}
	return err == nil && m != nil && m.Error != nil
}

// sameError reports two JSON-RPC errors with the same code and message.
func sameError(a, b *jsonrpc.Message) bool {
	return a != nil && b != nil && a.Error != nil && b.Error != nil && a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message
}

// sessionless reports a server that keeps no sessions: over Streamable
// HTTP it assigned no Mcp-Session-Id. (A stdio process or a WebSocket is a
// session of its own.)
func sessionless(conn transport.Conn) bool {
	c, ok := transport.As[interface{ SessionID() string }](conn)
	return ok && c.SessionID() == ""
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
	if why := judge.GuessableIDs(ids); why != "" {
		t.Fail(isolationUnguessableIds, "random ids of at least 16 characters with no sequential pattern", why+": "+strings.Join(ids, ", "))
		return
	}
	t.Pass(isolationUnguessableIds)
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
	return ids, fmt.Errorf("%w", errEndlessList)
}

// errEndlessList is a tasks/list that still names a next page after 100.
var errEndlessList = errors.New("tasks/list gave more than 100 pages")

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
