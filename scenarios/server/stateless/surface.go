package stateless

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The official resources and prompts fixtures at 2026-07-28 (scored by the
// official suite at this revision too): the rules of the 2025-11-25 surface
// that stand in the same words on the 2026-07-28 pages, judged on stateless
// requests. The resources and prompts families judge the session versions.

// Fixture URIs and prompts of the official suite (fixtures.md §1f, §1g).
const (
	uriStaticText   = "test://static-text"
	uriStaticBinary = "test://static-binary"
	uriTemplate     = "test://template/{id}/data"
	uriTemplateRead = "test://template/123/data"
	exampleResource = "test://example-resource"
)

// requireListed skips the rest when the target does not list the fixture.
func requireListed(t *serverside.T, s *client.Session, method, key, field, fixture string) {
	t.Step("%s to find %s", method, fixture)
	pages, err := listPages(t, s, method)
	for _, p := range pages {
		var page map[string]json.RawMessage
		_ = json.Unmarshal(p.result, &page)
		var items []map[string]any
		_ = json.Unmarshal(page[key], &items)
		for _, it := range items {
			if it[field] == fixture {
				return
			}
		}
	}
	if err != nil {
		t.Blocked("%v", err)
	}
	t.SkipRest(fmt.Sprintf("the target lists no %s (the official fixture this scenario reads)", fixture))
}

const paginationSpec = "2026-07-28/server/utilities/pagination.mdx"

// listScenario is the official prompts-list or resources-list at
// 2026-07-28: the list is followed page by page to its end, then a cursor
// the server never gave is sent.
func listScenario(id, official, capability, method string, ends, invalid *scenarios.Check) *scenarios.Scenario {
	return &scenarios.Scenario{
		ID: id, Official: official, Title: method + " pages end and an invalid cursor is refused", Family: family,
		Side: scenarios.ServerSide, Versions: versions, Needs: []string{"capability " + capability},
		Purpose: fmt.Sprintf("%s is followed page by page (at most %d, no cursor twice); then a cursor the server never gave is sent.",
			method, serverside.MaxPages),
		Checks: []*scenarios.Check{ends, invalid},
		Run: serverside.Body(func(t *serverside.T) {
			s := t.Open("A", client.Options{})
			if !s.HasCapability(capability) {
				t.SkipRest("the server does not declare the " + capability + " capability")
			}
			p := t.PageThrough(s, method)
			if p.Refused != "" {
				skipIfVersionRefused(t, p.RefusedAnswer, p.RefusedErr)
			}
			problem := p.Endless
			if p.Refused != "" {
				problem = p.Refused
			}
			t.Judge(ends, problem == "", "a last page without nextCursor", problem)
			refused, actual := t.InvalidCursor(s, method)
			t.Judge(invalid, refused, "error -32602", fmt.Sprintf("%s (the listing had %d page(s))", actual, p.Pages))
		}),
	}
}

func listChecks(id string, loops, accepts *fault.Fault) (ends, invalid *scenarios.Check) {
	return &scenarios.Check{ID: id + "/pages-end", Level: scenarios.Must, Spec: paginationSpec + "#response-format",
			Quote:  "An optional `nextCursor` field if more results exist",
			Title:  fmt.Sprintf("following nextCursor, the list reaches a page without one (no cursor twice, at most %d pages)", serverside.MaxPages),
			Faults: []*fault.Fault{loops}},
		&scenarios.Check{ID: id + "/invalid-cursor", Level: scenarios.Should, Spec: paginationSpec + "#error-handling",
			Quote:  "Invalid cursors **SHOULD** result in an error with code -32602 (Invalid params).",
			Title:  "the list with a cursor the server never gave is answered with -32602",
			Faults: []*fault.Fault{accepts}}
}

var (
	resourcesListEnds, resourcesListInvalid = listChecks("stateless-resources-list", server.ModernResourcesCursorLoops, server.ModernResourcesInvalidCursorAccepted)
	resourcesListScenario                   = listScenario("stateless-resources-list", "resources-list", "resources", protocol.MethodResourcesList, resourcesListEnds, resourcesListInvalid)
	// resources/templates/list pages as the others do (pagination.mdx,
	// "Operations Supporting Pagination"); the official suite has no
	// scenario of its own for it.
	templatesListEnds, templatesListInvalid = listChecks("stateless-resource-templates-list", server.ModernTemplatesCursorLoops, server.ModernTemplatesInvalidCursorAccepted)
	templatesListScenario                   = listScenario("stateless-resource-templates-list", "", "resources", protocol.MethodResourcesTemplatesList, templatesListEnds, templatesListInvalid)
)
