package tasks

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

var (
	augmentationCreatesTask = &scenarios.Check{ID: "client-tasks-augmentation/creates-task", Level: scenarios.Must,
		Spec:  tasksPage + "#result-retrieval",
		Title: "a task-augmented request of a type the client declares under capabilities.tasks.requests gets a CreateTaskResult (a task with a string taskId), not the plain result",
		// The capability says the client accepts such requests as tasks
		// (tasks.mdx, Client Capabilities); accepting one means this answer.
		Quote:  "Receivers that accept a task-augmented request MUST return a CreateTaskResult as the response.",
		Faults: []*fault.Fault{client.TaskSyncAnswer}}
	augmentationUndeclared = &scenarios.Check{ID: "client-tasks-augmentation/undeclared-processed-normally", Level: scenarios.Must,
		Spec: tasksPage + "#task-support-and-handling",
		Title: "a task-augmented request of a type the client's tasks capability does not name (roots/list always; elicitation or sampling " +
			"when not declared) gets the plain result",
		Quote:     "Receivers that do not declare the task capability for a request type MUST process requests of that type normally, ignoring any task-augmentation metadata if present.",
		Faults:    []*fault.Fault{client.TaskForUndeclared},
		Liberties: []*fault.Fault{client.NoClientTasks}}
)

var augmentationScenario = &scenarios.Scenario{
	ID:       "client-tasks-augmentation",
	Title:    "the client's tasks capability matches what it does with task-augmented requests",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientTasksAugmentation, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, and stays connected until it is answered")},
	Purpose: "While the client's call of " + fixtures.ClientTasksAugmentation + " is open, the fake server sends task-augmented elicitation/create and " +
		"sampling/createMessage (for the capabilities the client declared) and a task-augmented roots/list, a request type no " +
		"tasks capability names: the declared types must answer with a task, the others with their plain results. The fake " +
		"server augments undeclared types on purpose (a server SHOULD NOT), to see them processed normally.",
	Checks: []*scenarios.Check{augmentationCreatesTask, augmentationUndeclared},
	Run: clientside.Body(func(t *clientside.T) {
		r := open(t, fixtures.ClientTasksAugmentation)
		var wrong, normal, notTasks []string
		declaredAny := false
		for i, k := range kinds {
			if !r.caps.declares(k.capability) {
				continue // never asked of a client that cannot answer it
			}
			asTask := r.caps.tasks.Requests[k.path[0]][k.path[1]] != nil
			t.Step("send a task-augmented %s (declared under tasks.requests: %t)", k.method, asTask)
			resp := r.ask(k.method, k.params(i+1, true, false))
			task, isTask := created(resp)
			switch {
			case asTask:
				declaredAny = true
				if !isTask {
					wrong = append(wrong, fmt.Sprintf("%s answered %s", k.method, describe(resp)))
				}
			case isTask:
				notTasks = append(notTasks, fmt.Sprintf("%s (not declared) answered with task %s", k.method, task.TaskID))
			case !k.answered(resultObject(resp)):
				notTasks = append(notTasks, fmt.Sprintf("%s (not declared) answered %s, not %s", k.method, describe(resp), k.resultName()))
			default:
				normal = append(normal, k.method)
			}
		}
		if declaredAny {
			t.Judge(augmentationCreatesTask, len(wrong) == 0, "a CreateTaskResult for each task-augmented request type the client declares",
				strings.Join(wrong, "; "))
		} else {
			t.Skip(augmentationCreatesTask, "the client declares no task-augmented request type it can answer (capabilities.tasks.requests)")
		}

		if r.caps.declares("roots") {
			t.Step("send a task-augmented roots/list: no tasks capability names it")
			params := map[string]any{"task": map[string]any{"ttl": requestedTTL}}
			resp := r.ask(protocol.MethodRootsList, params)
			result := resultObject(resp)
			switch task, isTask := created(resp); {
			case isTask:
				notTasks = append(notTasks, "roots/list answered with task "+task.TaskID)
			case result["roots"] == nil:
				notTasks = append(notTasks, "roots/list answered "+describe(resp)+", not a ListRootsResult (roots)")
			default:
				normal = append(normal, protocol.MethodRootsList)
			}
		}
		if len(normal) == 0 && len(notTasks) == 0 {
			t.Skip(augmentationUndeclared, "the client declares no request type outside its tasks capability (roots, or elicitation or sampling without tasks.requests)")
			return
		}
		t.Judge(augmentationUndeclared, len(notTasks) == 0, "the plain result for each request type the tasks capability does not name",
			strings.Join(notTasks, "; "))
	}),
}
