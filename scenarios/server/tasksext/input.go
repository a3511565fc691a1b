package tasksext

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Input during a task: inputRequests surfaced by tasks/get, answered with
// tasks/update (ext-tasks/tasks.md#task-update-requests).

var (
	inputRequestsListed = &scenarios.Check{ID: "tasksext-input/requests-listed", Level: scenarios.Must,
		Spec: extSpec + "#response",
		Quote: "If the status is input_required, the server MUST return a Task object with status input_required and an inputRequests " +
			"field defined in Multi Round-Trip Requests.",
		Title: "confirm_delete, waiting for its confirmation, reads input_required with at least one inputRequests entry, each a " +
			"request with a method",
		Faults:       []*fault.Fault{server.InputRequestsEmpty},
		Liberties:    []*fault.Fault{server.SlowPollInterval, server.NoPollInterval},
		Requirements: []string{"sep-2663-tasks-get-status-input-required"}}
	inputUnknownKeyIgnored = &scenarios.Check{ID: "tasksext-input/unknown-key-ignored", Level: scenarios.Should,
		Spec: extSpec + "#response-1",
		Quote: "A server SHOULD ignore any inputResponses responses mapped to a key that is not currently outstanding for the task — " +
			"including keys that were never issued, keys that have already been answered, and keys whose corresponding request has been superseded.",
		Title:        "a tasks/update answering only a key that was never issued is acknowledged, and the task still waits for its own key",
		Faults:       []*fault.Fault{server.UpdateUnknownKeyRefused},
		Requirements: []string{"sep-2663-update-ignore-unknown-keys"}}
	inputUpdateAckEmpty = &scenarios.Check{ID: "tasksext-input/update-ack-empty", Level: scenarios.Must,
		Spec:         extSpec + "#response-1",
		Quote:        "On success, the server MUST acknowledge the request with an empty result.",
		Title:        "tasks/update answering the outstanding key is acknowledged with an empty result (resultType and _meta only)",
		Faults:       []*fault.Fault{server.UpdateAckNotEmpty},
		Liberties:    []*fault.Fault{server.UpdateAppliedLate},
		Requirements: []string{"sep-2663-update-ack-empty-result"}}
	inputKeysStable = &scenarios.Check{ID: "tasksext-input/keys-stable", Level: scenarios.Must,
		Spec: extSpec + "#task-update-requests",
		Quote: "A server MUST NOT reuse a key for a subsequent server-to-client request after a response for that key has been " +
			"delivered, and MUST NOT use the same key to refer to two distinct requests over a task's lifetime.",
		Title: "multi_input, answered one key per tasks/update, never lists a key with a request other than the one it first " +
			"named (a stale snapshot repeating an answered request is allowed: the acknowledgement is eventually consistent)",
		Faults:       []*fault.Fault{server.InputKeyReused},
		Liberties:    []*fault.Fault{server.UpdateAppliedLate},
		Requirements: []string{"sep-2663-input-request-key-unique-per-task", "sep-2663-no-key-reuse-after-response"}}
)

var inputScenario = &scenarios.Scenario{
	ID:       "tasksext-input",
	Title:    "a task asks for input through tasks/get and resumes on tasks/update",
	Official: "tasks-mrtr-input",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsOther("the io.modelcontextprotocol/tasks extension declared in server/discover"),
		scenarios.NeedsFixture(fixtures.TasksExtConfirmDelete, "parks in input_required with one elicitation"), scenarios.NeedsFixture(fixtures.TasksExtMultiInput, "parks with two elicitations at once")},
	Purpose: "confirm_delete is called as a task and polled until it asks; a key it never issued is answered first, then its own " +
		"(accept, confirm true), and it must complete. multi_input is then answered one key at a time, every poll's keys compared.",
	Checks: []*scenarios.Check{inputRequestsListed, inputUnknownKeyIgnored, inputUpdateAckEmpty, inputKeysStable},
	Run:    serverside.Body(runInput),
}

func leftWorking(task client.ExtTask) bool { return task.Status != "working" }

func runInput(t *serverside.T) {
	s := open(t)
	tools, err := t.ListTools(s)
	if err != nil {
		t.Blocked("%v", err)
	}
	fx := t.Fixture(fixtures.TasksExtConfirmDelete, map[string]any{"filename": "notes.txt"})
	if _, ok := tools[fx.Tool]; !ok {
		t.Skip(inputRequestsListed, fmt.Sprintf("the target lists no tool %q for the fixture %s", fx.Tool, fixtures.TasksExtConfirmDelete))
		t.NotJudged(inputUnknownKeyIgnored, "no confirm_delete")
		t.NotJudged(inputUpdateAckEmpty, "no confirm_delete")
	} else {
		runConfirmDelete(t, s, fx)
	}
	multi := t.Fixture(fixtures.TasksExtMultiInput, nil)
	if _, ok := tools[multi.Tool]; !ok {
		t.SkipRest(fmt.Sprintf("the target lists no tool %q for the fixture %s", multi.Tool, fixtures.TasksExtMultiInput))
	}
	runMultiInput(t, s, multi)
}

func runConfirmDelete(t *serverside.T, s *client.Session, fx scenarios.Fixture) {
	task, _ := createTask(t, s, fx)
	t.Step("poll until %s asks for input", task.TaskID)
	polls, err := waitTask(t, s, task, time.Second, leftWorking)
	asking := lastPoll(t, polls, err, "ask for input")
	if asking.Task.Status != "input_required" {
		t.Blocked("confirm_delete reached %s without asking for input", asking.Task.Status)
	}
	var bad []string
	for k, raw := range asking.Task.InputRequests {
		if judge.StringField(raw, "method") == "" {
			bad = append(bad, k)
		}
	}
	t.Judge(inputRequestsListed, len(asking.Task.InputRequests) > 0 && len(bad) == 0, "at least one inputRequests entry, each with a method",
		fmt.Sprintf("%d entries; without a method: %s", len(asking.Task.InputRequests), strings.Join(bad, ", ")))
	if len(asking.Task.InputRequests) == 0 {
		t.Blocked("the task asks for nothing it names")
	}

	t.Step("tasks/update answering a key the task never issued")
	ctx, cancel := t.Wait()
	stray, serr := s.ExtUpdateTask(ctx, task.TaskID, map[string]any{"mcpconform-never-issued": map[string]any{"action": "accept", "content": map[string]any{}}})
	cancel()
	after, aerr := waitTask(t, s, asking.Task, 0, func(client.ExtTask) bool { return true })
	still := aerr == nil && len(after) > 0 && after[len(after)-1].Task.Status == "input_required"
	t.Judge(inputUnknownKeyIgnored, serr == nil && stray.Error == nil && still,
		"an acknowledgement, and the task still input_required", judge.Describe(stray, serr)+"; then "+describePolls(after, aerr))

	t.Step("tasks/update answering every outstanding key (accept, with a value of each requested type)")
	answers := map[string]any{}
	for k, req := range asking.Task.InputRequests {
		answers[k] = answerFor(req)
	}
	ctx, cancel = t.Wait()
	ack, uerr := s.ExtUpdateTask(ctx, task.TaskID, answers)
	cancel()
	if uerr != nil || ack.Error != nil {
		t.Fail(inputUpdateAckEmpty, "an empty result", judge.Describe(ack, uerr))
	} else {
		empty, extra := emptyAck(ack.Result)
		t.Judge(inputUpdateAckEmpty, empty, "an empty result (resultType and _meta only)", "members "+strings.Join(extra, ", "))
	}
	end := waitTerminal(t, s, asking.Task, time.Second)
	if end.Task.Status != "completed" {
		t.Blocked("confirm_delete ended %s after its answer", end.Task.Status)
	}
}

func describePolls(polls []client.ExtPoll, err error) string {
	if err != nil {
		return err.Error()
	}
	if len(polls) == 0 {
		return "no poll"
	}
	return describeTask(polls[len(polls)-1].Resp, nil)
}

// runMultiInput answers one key per round and records every request each
// key named.
func runMultiInput(t *serverside.T, s *client.Session, fx scenarios.Fixture) {
	task, _ := createTask(t, s, fx)
	seen := map[string]json.RawMessage{}
	answered := map[string]bool{}
	var reused []string
	last := task
	for round := 0; round < 10; round++ {
		t.Step("round %d: poll until the task asks or ends", round+1)
		polls, err := waitTask(t, s, last, time.Second, func(tk client.ExtTask) bool {
			if tk.Status != "input_required" {
				return terminal(tk)
			}
			for k := range tk.InputRequests {
				if !answered[k] {
					return true
				}
				// An answered key listed again: a stale snapshot, or a new question.
				if !sameJSON(seen[k], tk.InputRequests[k]) {
					return true
				}
			}
			return false
		})
		for _, p := range polls {
			for k, req := range p.Task.InputRequests {
				if first, ok := seen[k]; ok && !sameJSON(first, req) {
					reused = append(reused, k)
				} else if !ok {
					seen[k] = req
				}
			}
		}
		p := lastPoll(t, polls, err, "ask again or finish")
		last = p.Task
		if len(reused) > 0 || terminal(p.Task) {
			break
		}
		var open []string
		for k := range p.Task.InputRequests {
			if !answered[k] {
				open = append(open, k)
			}
		}
		if len(open) == 0 {
			continue
		}
		sort.Strings(open)
		key := open[0]
		t.Step("tasks/update answering %s only", key)
		ctx, cancel := t.Wait()
		resp, uerr := s.ExtUpdateTask(ctx, task.TaskID, map[string]any{key: answerFor(p.Task.InputRequests[key])})
		cancel()
		if uerr != nil || resp.Error != nil {
			t.Blocked("tasks/update was refused: %s", judge.Describe(resp, uerr))
		}
		answered[key] = true
	}
	t.Judge(inputKeysStable, len(reused) == 0, "every key names one request over the task's lifetime",
		"keys naming another request later: "+strings.Join(reused, ", "))
}
