package stateless

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
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

var (
	readText = &scenarios.Check{ID: "stateless-resources-read-text/content", Level: scenarios.Must, Spec: resourceSpec + "#resource-contents",
		Quote:  "Resources can contain either text or binary data:",
		Title:  "reading test://static-text answers contents whose first item holds text for that URI",
		Faults: []*fault.Fault{server.ModernStaticTextError}}
	readBinary = &scenarios.Check{ID: "stateless-resources-read-binary/blob-base64", Level: scenarios.Must, Spec: resourceSpec + "#security-considerations",
		Quote:  "Binary data **MUST** be properly encoded",
		Title:  "reading test://static-binary answers contents whose first item holds a base64 blob for that URI",
		Faults: []*fault.Fault{server.ModernBlobNotBase64}}
	readTemplate = &scenarios.Check{ID: "stateless-resources-templates-read/substituted", Level: scenarios.Must, Spec: resourceSpec + "#resource-templates",
		Quote:  "Resource templates allow servers to expose parameterized resources using URI templates.",
		Title:  "reading test://template/123/data through the listed template answers text naming the id 123",
		Faults: []*fault.Fault{server.ModernTemplateNotSubstituted}}
)

// resourceScenario reads one official fixture, found in listKey of
// listMethod, and judges the first content item.
func resourceScenario(id, official, title, listMethod, listKey, listField, fixture, uri string, c *scenarios.Check,
	judgeItem func(it content) (ok bool, want string)) *scenarios.Scenario {
	return &scenarios.Scenario{
		ID: id, Official: official, Title: title, Family: family, Side: scenarios.ServerSide, Versions: versions,
		Needs: []string{"resource " + fixture}, Checks: []*scenarios.Check{c},
		Run: serverside.Body(func(t *serverside.T) {
			s := t.Open("A", client.Options{})
			if !s.HasCapability("resources") {
				t.SkipRest("the server does not declare the resources capability")
			}
			requireListed(t, s, listMethod, listKey, listField, fixture)
			t.Step("send resources/read of %s", uri)
			resp, err := t.Request(s, protocol.MethodResourcesRead, map[string]any{"uri": uri})
			skipIfVersionRefused(t, resp, err)
			var r struct {
				Contents []content `json:"contents"`
			}
			if err == nil && resp.Error == nil {
				_ = json.Unmarshal(resp.Result, &r)
			}
			if len(r.Contents) == 0 {
				t.Fail(c, "a result with contents", judge.Describe(resp, err))
				return
			}
			ok, want := judgeItem(r.Contents[0])
			t.Judge(c, ok, want, judge.Describe(resp, err))
		}),
	}
}

// content is one item of ReadResourceResult.contents.
type content struct {
	URI  string  `json:"uri"`
	Text *string `json:"text"`
	Blob *string `json:"blob"`
}

var (
	readTextScenario = resourceScenario("stateless-resources-read-text", "resources-read-text", "a listed text resource reads as text",
		protocol.MethodResourcesList, "resources", "uri", uriStaticText, uriStaticText, readText,
		func(it content) (bool, string) {
			return it.URI == uriStaticText && it.Text != nil && it.Blob == nil, "contents[0] with uri " + uriStaticText + " and text"
		})
	readBinaryScenario = resourceScenario("stateless-resources-read-binary", "resources-read-binary", "a listed binary resource reads as base64",
		protocol.MethodResourcesList, "resources", "uri", uriStaticBinary, uriStaticBinary, readBinary,
		func(it content) (bool, string) {
			ok := it.URI == uriStaticBinary && it.Blob != nil
			if ok {
				_, err := base64.StdEncoding.DecodeString(*it.Blob)
				ok = err == nil
			}
			return ok, "contents[0] with uri " + uriStaticBinary + " and a blob in base64 (RFC 4648, with padding)"
		})
	readTemplateScenario = resourceScenario("stateless-resources-templates-read", "resources-templates-read",
		"a resource template is listed and read with its variable filled in",
		protocol.MethodResourcesTemplatesList, "resourceTemplates", "uriTemplate", uriTemplate, uriTemplateRead, readTemplate,
		func(it content) (bool, string) {
			ok := it.Text != nil && strings.Contains(*it.Text, "123") && !strings.Contains(*it.Text, "{id}")
			return ok, "contents[0].text naming 123 (the id substituted)"
		})
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
