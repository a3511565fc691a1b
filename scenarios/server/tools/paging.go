package tools

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// tools/list pages as every list method with a cursor does
// (utilities/pagination.mdx, "Operations Supporting Pagination": "tools/list
// - List available tools"); the judges are the ones every list shares.

const paginationSpec = "2025-11-25/server/utilities/pagination.mdx"

var (
	pagingEnds = &scenarios.Check{ID: "tools-list-pagination/pages-end", Level: scenarios.Must, Spec: paginationSpec + "#response-format",
		Quote: "An optional `nextCursor` field if more results exist",
		Title: fmt.Sprintf("following nextCursor, tools/list reaches a page without one (no cursor given twice, a new one for at most %d pages)",
			serverside.MaxPages),
		Faults:    []*fault.Fault{server.ToolsListNeverEnds, server.ToolsListCursorRepeats},
		Liberties: []*fault.Fault{server.ToolsPagesOfOne}}
	pagingInvalidCursor = &scenarios.Check{ID: "tools-list-pagination/invalid-cursor", Level: scenarios.Should, Spec: paginationSpec + "#error-handling",
		Quote:     "Invalid cursors **SHOULD** result in an error with code -32602 (Invalid params).",
		Title:     "tools/list with a cursor the server never gave is answered with -32602",
		Faults:    []*fault.Fault{server.ToolsInvalidCursorAccepted},
		Liberties: []*fault.Fault{server.ToolsPagesOfOne}}
)

var pagingScenario = &scenarios.Scenario{
	ID: "tools-list-pagination", Title: "tools/list pages end and an invalid cursor is refused", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsCapability("tools")},
	Purpose: fmt.Sprintf("tools/list is followed page by page: a cursor given twice, or still a new one after %d pages, is a list "+
		"that never ends. Then a cursor the server never gave (%s) is sent.", serverside.MaxPages, serverside.NotACursor),
	Checks: []*scenarios.Check{pagingEnds, pagingInvalidCursor},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		p := t.PageThrough(s, protocol.MethodToolsList)
		if p.Refused != "" {
			t.Blocked("tools/list %s", p.Refused)
		}
		t.Judge(pagingEnds, p.Endless == "", "a last page without nextCursor", p.Endless)
		// A session of its own: the probe is not a second tools/list right
		// behind the listing's (a server may serialise a session's POSTs;
		// the fault concurrent-posts-refused refuses such a one with 409).
		refused, actual := t.InvalidCursor(t.Open("B", client.Options{Capabilities: map[string]any{}}), protocol.MethodToolsList)
		t.Judge(pagingInvalidCursor, refused, "error -32602", fmt.Sprintf("%s (the listing had %d page(s))", actual, p.Pages))
	}),
}
