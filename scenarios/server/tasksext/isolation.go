package tasksext

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// Task isolation by authorization context
// (ext-tasks/tasks.md#security-considerations). At 2026-07-28 there are no
// sessions: a task can only be bound to the authorization the caller
// presents, so the binding checks need two bearer tokens (--auth-token
// twice) on a transport that carries headers; without them they are
// skipped, never failed. Id entropy is judged always. sep-2663.yaml
// excludes both sentences (entropy not assertable on the wire, the binding
// tied to an auth scheme), so these checks name no requirement id.

const (
	securitySpec = extSpec + "#security-considerations"
	authQuote    = "Servers MUST perform authentication and authorization checks on each task-related request to ensure that the client has permission to access a task."
)

var (
	isolationForeignGet = &scenarios.Check{ID: "tasksext-isolation/foreign-get-rejected", Level: scenarios.Must,
		Spec: securitySpec, Quote: authQuote,
		Title:     "tasks/get under token B for a task created under token A is rejected: any JSON-RPC error or HTTP refusal",
		Faults:    []*fault.Fault{server.ForeignTaskServed, server.ForeignGetServed},
		Liberties: []*fault.Fault{server.ForeignTaskForbidden}}
	isolationForeignUpdate = &scenarios.Check{ID: "tasksext-isolation/foreign-update-rejected", Level: scenarios.Must,
		Spec: securitySpec, Quote: authQuote,
		Title:     "tasks/update under token B answering A's outstanding input request is rejected: any JSON-RPC error or HTTP refusal",
		Faults:    []*fault.Fault{server.ForeignTaskServed, server.ForeignUpdateAcked},
		Liberties: []*fault.Fault{server.ForeignTaskForbidden}}
	isolationForeignCancel = &scenarios.Check{ID: "tasksext-isolation/foreign-cancel-rejected", Level: scenarios.Must,
		Spec: securitySpec, Quote: authQuote,
		Title:     "tasks/cancel under token B of A's task is rejected: any JSON-RPC error or HTTP refusal",
		Faults:    []*fault.Fault{server.ForeignTaskServed, server.ForeignCancelAcked},
		Liberties: []*fault.Fault{server.ForeignTaskForbidden}}
	isolationNoEffect = &scenarios.Check{ID: "tasksext-isolation/foreign-no-effect", Level: scenarios.Must,
		Spec: securitySpec, Quote: authQuote,
		Title: "after B's tasks/update and tasks/cancel, A's confirm_delete task still waits in input_required " +
			"(watched for a quiet window, so a change applied late is seen too)",
		Faults:    []*fault.Fault{server.ForeignTaskServed},
		Liberties: []*fault.Fault{server.ForeignTaskForbidden}}
	isolationUnguessable = &scenarios.Check{ID: "tasksext-isolation/unguessable-ids", Level: scenarios.Must,
		Spec:  securitySpec,
		Quote: "Servers MUST generate them with sufficient entropy that a third party cannot enumerate or guess them.",
		Title: "five task ids are at least 16 characters, do not count up and differ in at least 12 characters " +
			"(a heuristic: entropy cannot be measured from a few samples, only its obvious absence)",
		Faults: []*fault.Fault{server.SequentialExtTaskIDs}}
)

var bindingChecks = []*scenarios.Check{isolationForeignGet, isolationForeignUpdate, isolationForeignCancel, isolationNoEffect}

var isolationScenario = &scenarios.Scenario{
	ID:       "tasksext-isolation",
	Title:    "a task created under one authorization cannot be read, answered or cancelled under another; task ids are unguessable",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtConfirmDelete, "parks in input_required"), scenarios.NeedsFixture(fixtures.TasksExtSlowCompute, "for id samples"),
		scenarios.NeedsOther("for the binding checks: two bearer tokens (--auth-token twice) over Streamable HTTP or WebSocket")},
	Purpose: "Caller A (Authorization: Bearer <first token>) creates a confirm_delete task and waits for its question; caller B " +
		"(the second token) sends tasks/get, tasks/update with an answer to A's question, and tasks/cancel for it. Each must be " +
		"rejected (any error: the spec names no code) and A's task must still wait for input. Without two authorization " +
		"contexts a stateless server has nothing to bind a task to, so these checks are skipped. Task ids are sampled and " +
		"judged for obvious guessability in every run.",
	Checks: []*scenarios.Check{isolationForeignGet, isolationForeignUpdate, isolationForeignCancel, isolationNoEffect, isolationUnguessable},
	Run:    serverside.Body(runIsolation),
}

// openAs opens a caller declaring the extension; with two tokens, index
// picks its bearer token.
func openAs(t *serverside.T, label string, index int, bound bool) *client.Session {
	opts := client.Options{Capabilities: extCaps()}
	if bound {
		opts.Header = http.Header{"Authorization": {"Bearer " + t.Env.AuthTokens[index]}}
	}
	s := t.Open(label, opts)
	if !serverDeclares(s) {
		t.SkipRest("the server does not declare the tasks extension in capabilities.extensions of server/discover " +
			"(ext-tasks/tasks.md#capability-negotiation)")
	}
	return s
}

func runIsolation(t *serverside.T) {
	why := ""
	switch {
	case len(t.Env.AuthTokens) != 2:
		why = "no two authorization contexts were given (--auth-token twice); at 2026-07-28 there are no " +
			"sessions, so without them there is nothing to bind a task to"
	case t.Env.Transport == transport.Stdio:
		why = "stdio carries no Authorization header, so the two bearer tokens cannot be presented"
	}
	bound := why == ""
	a := openAs(t, "A", 0, bound)
	tools, err := t.ListTools(a)
	if err != nil {
		t.Blocked("%v", err)
	}
	var first string
	confirm := t.Fixture(fixtures.TasksExtConfirmDelete, map[string]any{"filename": "keep.txt"})
	_, haveConfirm := tools[confirm.Tool]
	switch {
	case !bound:
		for _, c := range bindingChecks {
			t.NotJudged(c, why)
		}
	case !haveConfirm:
		for _, c := range bindingChecks {
			t.Skip(c, fmt.Sprintf("the target lists no tool %q for the fixture %s", confirm.Tool, fixtures.TasksExtConfirmDelete))
		}
	default:
		first = judgeBinding(t, a, confirm)
	}
	judgeIDs(t, a, tools, first)
}

// judgeBinding runs the foreign caller's requests against A's parked task
// and returns the task's id.
func judgeBinding(t *serverside.T, a *client.Session, confirm scenarios.Fixture) string {
	b := openAs(t, "B", 1, true)
	task, _ := createTask(t, a, confirm)
	t.Step("A: poll until %s asks for input", task.TaskID)
	polls, err := waitTask(t, a, task, time.Second, leftWorking)
	asking := lastPoll(t, polls, err, "ask for input")
	if asking.Task.Status != "input_required" {
		t.Blocked("confirm_delete reached %s without asking for input", asking.Task.Status)
	}
	const anyError = "a rejection: any JSON-RPC error or HTTP refusal (the spec names no code for a foreign task)"

	t.Step("B: tasks/get, tasks/update and tasks/cancel on A's task")
	ctx, cancel := t.Wait()
	got, gerr := b.ExtGetTask(ctx, task.TaskID)
	cancel()
	t.Judge(isolationForeignGet, rejected(got, gerr), anyError, describeTask(got, gerr))

	answers := map[string]any{}
	for k, req := range asking.Task.InputRequests {
		answers[k] = answerFor(req)
	}
	ctx, cancel = t.Wait()
	upd, uerr := b.ExtUpdateTask(ctx, task.TaskID, answers)
	cancel()
	judgeAck(t, isolationForeignUpdate, upd, uerr, func() (*jsonrpc.Message, error) {
		ctx, cancel := t.Wait()
		defer cancel()
		return b.ExtUpdateTask(ctx, neverExisted(), answers)
	})

	ctx, cancel = t.Wait()
	can, cerr := b.ExtCancelTask(ctx, task.TaskID)
	cancel()
	judgeAck(t, isolationForeignCancel, can, cerr, func() (*jsonrpc.Message, error) {
		ctx, cancel := t.Wait()
		defer cancel()
		return b.ExtCancelTask(ctx, neverExisted())
	})

	t.Step("A: %s still waits for input", task.TaskID)
	if changed := watchStays(t, a, asking.Task); changed != nil {
		t.Fail(isolationNoEffect, "status input_required, as if B had never asked", describeTask(changed, nil))
	} else {
		ctx, cancel = t.Wait()
		now, err := a.ExtGetTask(ctx, task.TaskID)
		cancel()
		if err != nil || now.Error != nil {
			// Purged: nothing B did shows, and a server may purge.
			t.NotJudged(isolationNoEffect, "A's task could no longer be read ("+judge.Describe(now, err)+")")
		} else {
			cur, _ := client.ReadExtTask(now.Result)
			t.Judge(isolationNoEffect, cur.Status == "input_required", "status input_required", describeTask(now, nil))
		}
	}
	t.Step("A: cancel its own task")
	ctx, cancel = t.Wait()
	_, _ = a.ExtCancelTask(ctx, task.TaskID) // clean-up only
	cancel()
	return task.TaskID
}

// judgeAck judges B's tasks/update or tasks/cancel of A's task. An
// acknowledgement fails only if the server tells the foreign task from an
// unknown one: a server that acknowledges unknown ids too (the spec only
// SHOULDs an error for them, judged by tasksext-lifecycle/unknown-update-cancel-32602)
// has granted B nothing, and foreign-no-effect judges whether the request
// reached A's task.
func judgeAck(t *serverside.T, c *scenarios.Check, resp *jsonrpc.Message, err error, unknown func() (*jsonrpc.Message, error)) {
	const anyError = "a rejection: any JSON-RPC error or HTTP refusal (the spec names no code for a foreign task)"
	if rejected(resp, err) {
		t.Pass(c)
		return
	}
	t.Step("B's request was acknowledged: the same request for an id that never existed")
	u, uerr := unknown()
	if !rejected(u, uerr) {
		t.NotJudged(c, "the server acknowledges the request for an id that never existed as well ("+
			judge.Describe(u, uerr)+"), so the acknowledgement grants B nothing; foreign-no-effect judges whether it reached A's task")
		return
	}
	t.Fail(c, anyError+", as for an id that never existed ("+judge.Describe(u, uerr)+")", judge.Describe(resp, err))
}

// neverExisted is a task id no server issued.
func neverExisted() string { return fmt.Sprintf("mcpconform-never-%d", time.Now().UnixNano()) }

// rejected: any JSON-RPC error, or an HTTP-level refusal (401, 403, 404),
// rejects a request for a foreign task; the spec names no code.
func rejected(m *jsonrpc.Message, err error) bool {
	if _, refused := judge.HTTPRejection(err); refused {
		return true
	}
	return err == nil && m != nil && m.Error != nil
}

// judgeIDs samples task ids (first, when the binding run made one, is
// among them) and judges them for obvious guessability.
func judgeIDs(t *serverside.T, a *client.Session, tools map[string]protocol.Tool, first string) {
	slow := t.Fixture(fixtures.TasksExtSlowCompute, map[string]any{"seconds": 0.05, "label": "id-sample"})
	if _, ok := tools[slow.Tool]; !ok {
		t.Skip(isolationUnguessable, fmt.Sprintf("the target lists no tool %q for the fixture %s", slow.Tool, fixtures.TasksExtSlowCompute))
		return
	}
	t.Step("sample task ids")
	var ids []string
	if first != "" {
		ids = append(ids, first)
	}
	for len(ids) < 5 {
		task, _ := createTask(t, a, slow)
		ids = append(ids, task.TaskID)
	}
	if why := judge.GuessableIDs(ids); why != "" {
		t.Fail(isolationUnguessable, "random ids of at least 16 characters with no sequential pattern", why+": "+strings.Join(ids, ", "))
		return
	}
	t.Pass(isolationUnguessable)
}
