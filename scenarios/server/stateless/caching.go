package stateless

import (
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

// Caching hints on the cacheable results (caching.mdx, SEP-2549).

var (
	cachingHintsPresent = &scenarios.Check{ID: "stateless-caching/hints-present", Level: scenarios.Must, Spec: cachingSpec + "#cacheable-results",
		Quote: "Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations:",
		Title: "every complete result of server/discover, tools/list, prompts/list, resources/list, resources/templates/list and " +
			"resources/read (of the capabilities declared; every page) carries ttlMs and cacheScope",
		Faults:    []*fault.Fault{server.CachingHintsMissing},
		Liberties: []*fault.Fault{server.CachingPrivate},
		Requirements: []string{"sep-2549-tools-list-caching-hints", "sep-2549-prompts-list-caching-hints",
			"sep-2549-resources-list-caching-hints", "sep-2549-resources-templates-list-caching-hints",
			"sep-2549-resources-read-caching-hints"}}
	cachingTTLNonNegative = &scenarios.Check{ID: "stateless-caching/ttl-non-negative", Level: scenarios.Must, Spec: cachingSpec + "#time-to-live-ttl-field",
		Quote:        "Servers **MUST** provide a `ttlMs` value that is `>= 0`.",
		Title:        "each ttlMs given is an integer of at least 0 (milliseconds)",
		Faults:       []*fault.Fault{server.CachingTTLNegative},
		Liberties:    []*fault.Fault{server.CachingPrivate},
		Requirements: []string{"sep-2549-ttl-non-negative"}}
	cachingScopeValid = &scenarios.Check{ID: "stateless-caching/scope-valid", Level: scenarios.Must, Spec: cachingSpec + "#cacheable-model",
		Quote:        "The Cache Scope Field,`cacheScope`, indicates the intended scope of the cached response, either `\"public\"` or `\"private\"`.",
		Title:        `each cacheScope given is "public" or "private" (the schema's enum)`,
		Faults:       []*fault.Fault{server.CachingScopeInvalid},
		Liberties:    []*fault.Fault{server.CachingPrivate},
		Requirements: []string{"sep-2549-cache-scope-valid"}}
	cachingScopeSamePages = &scenarios.Check{ID: "stateless-caching/scope-same-pages", Level: scenarios.Must, Spec: cachingSpec + "#interaction-with-pagination",
		Quote:     "Servers **MUST** apply the same `cacheScope` to all response pages for a given list request.",
		Title:     "the pages of one list (tools, prompts, resources, templates) all carry the same cacheScope; not judged when no list has two pages",
		Faults:    []*fault.Fault{server.CachingScopeVaries},
		Liberties: []*fault.Fault{server.CachingPrivate}}
)

var cachingScenario = &scenarios.Scenario{
	ID:       "stateless-caching",
	Official: "caching",
	Title:    "cacheable results carry valid caching hints",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Purpose: "server/discover, then every page of each list the server declares (tools, prompts, resources, resource templates), " +
		"then resources/read of the first resource listed: each complete result must carry ttlMs (an integer >= 0) and " +
		"cacheScope (\"public\" or \"private\"), the same cacheScope on every page of one list. Interim input_required results " +
		"carry none and are not judged.",
	Checks: []*scenarios.Check{cachingHintsPresent, cachingTTLNonNegative, cachingScopeValid, cachingScopeSamePages},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		var pages []page
		var notes []string
		t.Step("send server/discover")
		resp, err := t.Request(s, protocol.MethodServerDiscover, map[string]any{})
		if err == nil && resp.Error == nil {
			pages = append(pages, page{method: protocol.MethodServerDiscover, n: 1, result: resp.Result})
		} else {
			notes = append(notes, "server/discover: "+judge.Describe(resp, err))
		}
		for _, method := range declaredLists(s) {
			got, err := listPages(t, s, method)
			pages = append(pages, got...)
			if err != nil {
				notes = append(notes, err.Error())
			}
		}
		if uri := firstResource(pages); uri != "" {
			t.Step("send resources/read of %s", uri)
			resp, err := t.Request(s, protocol.MethodResourcesRead, map[string]any{"uri": uri})
			if err == nil && resp.Error == nil {
				pages = append(pages, page{method: protocol.MethodResourcesRead, n: 1, result: resp.Result})
			} else {
				notes = append(notes, "resources/read: "+judge.Describe(resp, err))
			}
		}
		judgeCaching(t, pages, notes)
	}),
}

// firstResource is the uri of the first resource a resources/list page names.
func firstResource(pages []page) string {
	for _, p := range pages {
		if p.method != protocol.MethodResourcesList {
			continue
		}
		var r protocol.ResourcesPage
		if json.Unmarshal(p.result, &r) == nil && len(r.Resources) > 0 {
			return r.Resources[0].URI
		}
	}
	return ""
}

func (p page) String() string {
	if p.n > 1 {
		return fmt.Sprintf("%s (page %d)", p.method, p.n)
	}
	return p.method
}

func judgeCaching(t *serverside.T, pages []page, notes []string) {
	note := ""
	if len(notes) > 0 {
		note = "; not judged: " + strings.Join(notes, "; ")
	}
	var missing, badTTL, badScope []string
	judged := 0
	scopes := map[string][]string{} // list method → cacheScope of each page
	for _, p := range pages {
		var h protocol.Cacheable
		_ = json.Unmarshal(p.result, &h)
		// An absent resultType is "complete" (basic/index.mdx#resulttype).
		if h.ResultType != nil && *h.ResultType != "complete" {
			continue
		}
		judged++
		if h.TTLMs == nil || h.CacheScope == nil {
			missing = append(missing, fmt.Sprintf("%s: ttlMs %s, cacheScope %s", p, raw(h.TTLMs), raw(h.CacheScope)))
		}
		if h.TTLMs != nil {
			var ttl int64
			if json.Unmarshal(*h.TTLMs, &ttl) != nil || ttl < 0 {
				badTTL = append(badTTL, fmt.Sprintf("%s: ttlMs %s", p, raw(h.TTLMs)))
			}
		}
		if h.CacheScope != nil {
			var scope string
			if json.Unmarshal(*h.CacheScope, &scope) != nil || (scope != "public" && scope != "private") {
				badScope = append(badScope, fmt.Sprintf("%s: cacheScope %s", p, raw(h.CacheScope)))
			}
			if p.method != protocol.MethodServerDiscover && p.method != protocol.MethodResourcesRead {
				scopes[p.method] = append(scopes[p.method], string(*h.CacheScope))
			}
		}
	}
	if judged == 0 {
		t.SkipRest("no cacheable request was answered with a complete result" + note)
	}
	t.Judge(cachingHintsPresent, len(missing) == 0, fmt.Sprintf("ttlMs and cacheScope on each of %d complete results", judged),
		strings.Join(missing, "; ")+note)
	t.Judge(cachingTTLNonNegative, len(badTTL) == 0, "ttlMs an integer >= 0 wherever given", strings.Join(badTTL, "; "))
	t.Judge(cachingScopeValid, len(badScope) == 0, `cacheScope "public" or "private" wherever given`, strings.Join(badScope, "; "))
	var varied []string
	paged := false
	for method, got := range scopes {
		if len(got) < 2 {
			continue
		}
		paged = true
		for _, sc := range got[1:] {
			if sc != got[0] {
				varied = append(varied, fmt.Sprintf("%s: %s", method, strings.Join(got, ", ")))
				break
			}
		}
	}
	if !paged {
		t.Skip(cachingScopeSamePages, "no list the server offers spans two pages")
		return
	}
	t.Judge(cachingScopeSamePages, len(varied) == 0, "one cacheScope on every page of a list", strings.Join(varied, "; "))
}

func raw(m *json.RawMessage) string {
	if m == nil {
		return "absent"
	}
	return string(*m)
}
