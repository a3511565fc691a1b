package tasks

import (
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	// capacityRequests is how many task-augmented requests arrive at once,
	// none of them answered by the user: more than a small receiver keeps.
	capacityRequests = 48
)

// Robustness, judged by default: a receiver at its limit must say so, for a
// request left unanswered hangs its requestor. The spec asks receivers to
// limit concurrent tasks (Spec) without saying how they refuse; the
// vendor's receiver "rejects new task creation" at capacity (Source).
var capacityAnswered = &scenarios.Check{ID: "client-tasks-capacity/answers-every-request", Level: scenarios.Must,
	Spec: tasksPage + "#resource-management",
	Title: fmt.Sprintf("%d task-augmented requests at once, none answered by the user: each gets a task or an error within the "+
		"response timeout, none is left hanging (robustness: a receiver at its limit refuses)", capacityRequests),
	Quote:     "Reaching maxTasks rejects new task creation only while every retained task is still live",
	Source:    "seeds/003_2dd5e858bc813cd4.txt",
	Faults:    []*fault.Fault{client.TaskCapacityHangs},
	Liberties: []*fault.Fault{client.TaskCapacityRefuses}}

var capacityScenario = &scenarios.Scenario{
	ID:       "client-tasks-capacity",
	Title:    "many task-augmented requests at once: a task or an error for each, never a hang",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientTasksCapacity, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, and stays connected until it is answered")},
	Purpose: fmt.Sprintf("While the client's call of %s is open, the fake server sends %d task-augmented requests at once, each "+
		"asking the reference client's user to hold the answer, and waits the response timeout for an answer to each.", fixtures.ClientTasksCapacity, capacityRequests),
	Checks: []*scenarios.Check{capacityAnswered},
	Run: clientside.Body(func(t *clientside.T) {
		r := open(t, fixtures.ClientTasksCapacity)
		ks := r.needKinds()
		t.Step("send %d task-augmented requests at once", capacityRequests)
		var (
			wg                      sync.WaitGroup
			mu                      sync.Mutex
			tasks, errs, unanswered int
		)
		for i := range capacityRequests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := ks[i%len(ks)]
				ctx, cancel := t.Wait()
				defer cancel()
				resp, err := r.tryAsk(ctx, k.method, k.params(i+1, true, true))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					unanswered++
				case resp.Error != nil:
					errs++
				default:
					tasks++
				}
			}()
		}
		wg.Wait()
		measured := fmt.Sprintf("%d requests: %d tasks created, %d refused with an error, %d unanswered", capacityRequests, tasks, errs, unanswered)
		t.Transcript().Eventf("", "%s", measured)
		if unanswered == 0 {
			t.PassWith(capacityAnswered, measured)
			return
		}
		t.Fail(capacityAnswered, "a task or an error for every request within "+t.Env.Timing.ResponseTimeout.String(), measured)
	}),
}
