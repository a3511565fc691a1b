package tasks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	// listTasks is how many tasks the scenario creates: more than a small
	// page, so that a paging client pages.
	listTasks = 5
	// maxPages bounds the walk: a client that never stops handing out
	// cursors does not keep the scenario going.
	maxPages  = 4 * listTasks
	badCursor = "mcpconform-not-a-cursor"
)

var (
	listComplete = &scenarios.Check{ID: "client-tasks-list/complete", Level: scenarios.Must,
		Spec: tasksPage + "#task-listing",
		Title: "following nextCursor from the first page, tasks/list lists every task the session created, and the paging ends " +
			"(within " + fmt.Sprint(maxPages) + " pages)",
		Quote:  "If a task is retrievable via tasks/get for a requestor, it MUST be retrievable via tasks/list for that requestor.",
		Faults: []*fault.Fault{client.TaskListIgnoresCursor, client.TaskListNoCursor}}
	listBadCursor = &scenarios.Check{ID: "client-tasks-list/invalid-cursor", Level: scenarios.Must,
		Spec:   tasksPage + "#protocol-errors",
		Title:  "tasks/list with a cursor the client never issued is refused with -32602",
		Quote:  "Invalid or nonexistent cursor in tasks/list: -32602 (Invalid params)",
		Faults: []*fault.Fault{client.TaskListBadCursor}}
)

var listScenario = &scenarios.Scenario{
	ID:       "client-tasks-list",
	Title:    "tasks/list on the client: every task, pages behind opaque cursors, -32602 for a cursor it never issued",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientTasksList, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, and stays connected until it is answered")},
	Purpose: fmt.Sprintf("While the client's call of %s is open, the fake server creates %d tasks on the client, lists them page "+
		"by page passing each nextCursor back untouched, then asks for a page with the cursor %q.", fixtures.ClientTasksList, listTasks, badCursor),
	Checks: []*scenarios.Check{listComplete, listBadCursor},
	Run: clientside.Body(func(t *clientside.T) {
		r := open(t, fixtures.ClientTasksList)
		ks := r.needKinds()
		if r.caps.tasks.List == nil {
			t.SkipRest("the client does not declare capabilities.tasks.list")
		}
		want := map[string]bool{}
		for i := range listTasks {
			want[r.mustCreate(ks[i%len(ks)], i+1, false).TaskID] = true
		}

		t.Step("list the tasks page by page")
		seen := map[string]bool{}
		params := map[string]any{}
		pages, ended := 0, false
		var failure string
		for pages < maxPages {
			resp := r.ask(protocol.MethodTasksList, params)
			pages++
			var page protocol.TasksPage
			ok := resp.Error == nil && json.Unmarshal(resp.Result, &page) == nil
			tasks := make([]wireTask, len(page.Tasks))
			for i, raw := range page.Tasks {
				ok = ok && json.Unmarshal(raw, &tasks[i]) == nil
			}
			if !ok {
				failure = fmt.Sprintf("page %d: %s", pages, describe(resp))
				break
			}
			for _, task := range tasks {
				seen[task.TaskID] = true
			}
			if page.NextCursor == nil {
				ended = true
				break
			}
			params = map[string]any{"cursor": *page.NextCursor}
		}
		var missing []string
		for id := range want {
			if !seen[id] {
				missing = append(missing, id)
			}
		}
		var problems []string
		if failure != "" {
			problems = append(problems, failure)
		}
		if !ended && failure == "" {
			problems = append(problems, fmt.Sprintf("still handing out a nextCursor after %d pages", pages))
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%d of the %d tasks never listed in %d pages (%s)", len(missing), listTasks, pages, strings.Join(missing, ", ")))
		}
		t.Judge(listComplete, len(problems) == 0, fmt.Sprintf("all %d tasks listed, the paging ended", listTasks), strings.Join(problems, "; "))

		t.Step("ask for a page with the cursor %q, which the client never issued", badCursor)
		resp := r.ask(protocol.MethodTasksList, map[string]any{"cursor": badCursor})
		t.Judge(listBadCursor, isInvalidParams(resp), "error -32602", describe(resp))
	}),
}
