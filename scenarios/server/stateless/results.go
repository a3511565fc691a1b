package stateless

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// What every result of a stateless server says of itself, and resources
// that do not exist (resources.mdx#error-handling, SEP-2164).

var (
	serverInfoResultMeta = &scenarios.Check{ID: "stateless-server-info/result-meta", Level: scenarios.Should, Spec: metaSpec,
		Quote: "Servers **SHOULD** include the following `io.modelcontextprotocol/*` field in every result's `_meta`, unless " +
			"specifically configured not to do so, to identify themselves without relying on any prior connection state:",
		Title: "the first page of each list the server declares (tools, prompts, resources, templates) carries " +
			"_meta io.modelcontextprotocol/serverInfo with name and version (server/discover's is lifecycle-discover/server-info)",
		Faults: []*fault.Fault{server.ResultNoServerInfo}}
)

var serverInfoScenario = &scenarios.Scenario{
	ID:       "stateless-server-info",
	Title:    "results name the server in _meta",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Purpose: "Without a session, every result identifies the server: the first page of each list the server declares must " +
		"carry _meta io.modelcontextprotocol/serverInfo (name and version). A SHOULD: a server may be configured not to.",
	Checks: []*scenarios.Check{serverInfoResultMeta},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		lists := declaredLists(s)
		if len(lists) == 0 {
			t.SkipRest("the server declares none of tools, prompts and resources")
		}
		var lacking, seen []string
		judged := 0
		for _, method := range lists {
			t.Step("send %s", method)
			resp, err := t.Request(s, method, map[string]any{})
			if err != nil || resp.Error != nil {
				skipIfVersionRefused(t, resp, err)
				seen = append(seen, method+": "+judge.Describe(resp, err)+" (not judged)")
				continue
			}
			var r protocol.Meta
			_ = json.Unmarshal(resp.Result, &r)
			judged++
			raw, ok := r.Meta[protocol.MetaServerInfo]
			var info protocol.Implementation
			_ = json.Unmarshal(raw, &info)
			if !ok || info.Name == "" || info.Version == "" {
				lacking = append(lacking, fmt.Sprintf("%s: _meta %s", method, abbreviate(judge.Field(resp.Result, "_meta"))))
				continue
			}
			seen = append(seen, method+": "+info.Name+" "+info.Version)
		}
		if judged == 0 {
			t.SkipRest("no list request was answered: " + strings.Join(seen, "; "))
		}
		t.Judge(serverInfoResultMeta, len(lacking) == 0, "_meta[\""+protocol.MetaServerInfo+"\"] with name and version on each result",
			strings.Join(append(lacking, seen...), "; "))
	}),
}

func abbreviate(raw json.RawMessage, ok bool) string {
	if !ok {
		return "absent"
	}
	return judge.Abbreviate(string(raw), 200)
}

var (
	notFoundNotEmpty = &scenarios.Check{ID: "stateless-resource-not-found/not-empty-contents", Level: scenarios.Must, Spec: resourceSpec + "#error-handling",
		Quote:        "Servers **MUST NOT** return an empty `contents` array for a non-existent resource.",
		Title:        "resources/read of a URI the server does not have is not answered with a result whose contents is empty",
		Faults:       []*fault.Fault{server.ModernMissingResourceEmpty},
		Requirements: []string{"sep-2164-no-empty-contents"}}
	notFoundInvalidParams = &scenarios.Check{ID: "stateless-resource-not-found/invalid-params", Level: scenarios.Must, Spec: resourceSpec + "#error-handling",
		Quote: "If the requested resource does not exist, servers **MUST** return a JSON-RPC error with code `-32602` (Invalid Params).",
		Title: "it is answered with error -32602, not the -32002 of 2025-11-25 and earlier (which index.mdx forbids at 2026-07-28), " +
			"-32603 or a result",
		Faults: []*fault.Fault{server.ModernMissingResourceEmpty, server.ModernMissingResourceLegacyCode, server.ModernMissingResourceInternal},
		// a MUST on the 2026-07-28 page; the SEP's list says SHOULD
		Requirements: []string{"sep-2164-error-code"}}
	// The page shows data.uri in its example only; the design note it
	// adopts asks for it.
	notFoundDataURI = &scenarios.Check{ID: "stateless-resource-not-found/data-uri", Level: scenarios.Should, Spec: resourceSpec + "#error-handling",
		Source: "seps/2164-resource-not-found-error.md#specification",
		Quote:  "The `data` field SHOULD include the `uri` that was not found.",
		Title:  "the error's data.uri is the requested URI",
		Faults: []*fault.Fault{server.MissingResourceNoData}}
)

// missingURI is a resource no server has.
const missingURI = "mcpconform://no-such-resource/404"

var resourceNotFoundScenario = &scenarios.Scenario{
	ID:       "stateless-resource-not-found",
	Official: "sep-2164-resource-not-found",
	Title:    "reading a resource that does not exist",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsCapability("resources")},
	Purpose: "resources/read of " + missingURI + ", which no server lists: a JSON-RPC error -32602, never an empty contents array, " +
		"whose data.uri names " + missingURI + ".",
	Checks: []*scenarios.Check{notFoundNotEmpty, notFoundInvalidParams, notFoundDataURI},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("send resources/read of %s", missingURI)
		resp, err := t.Request(s, protocol.MethodResourcesRead, map[string]any{"uri": missingURI})
		skipIfVersionRefused(t, resp, err)
		if err != nil {
			t.Blocked("resources/read was not answered: %v", err)
		}
		empty := false
		if resp.Error == nil {
			var r protocol.ReadResult
			empty = json.Unmarshal(resp.Result, &r) == nil && len(r.Contents) == 0
			if !empty {
				// Some server may hold any URI; its contents are no verdict.
				t.Pass(notFoundNotEmpty)
				t.SkipRest("the server answered resources/read of " + missingURI + " with contents: it has such a resource")
			}
		}
		t.Judge(notFoundNotEmpty, !empty, "no empty contents array", judge.Describe(resp, err))
		t.Judge(notFoundInvalidParams, judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
		var data struct { // error.data of the page's example: the URI not found
			URI string `json:"uri"`
		}
		switch {
		case resp.Error == nil:
			t.NotJudged(notFoundDataURI, "no error was answered, so there is no data to read")
		case resp.Error.Code == codes.InternalError:
			t.NotJudged(notFoundDataURI, "an internal error is no resource-not-found error")
		default:
			_ = json.Unmarshal(resp.Error.Data, &data)
			t.Judge(notFoundDataURI, data.URI == missingURI, "an error whose data.uri is \""+missingURI+"\"", judge.Describe(resp, err))
		}
	}),
}

var (
	promptsDeclared = &scenarios.Check{ID: "stateless-capabilities/prompts-declared", Level: scenarios.Must, Spec: promptsSpec + "#capabilities",
		Quote:        "Servers that support prompts **MUST** declare the `prompts` capability in their DiscoverResult:",
		Title:        "a server whose server/discover declares no prompts capability lists no prompts (prompts/list answers an error or none)",
		Faults:       []*fault.Fault{server.ModernPromptsUndeclared},
		Requirements: []string{"sep-2575-server-declares-prompts-in-discover"}}
	resourcesDeclared = &scenarios.Check{ID: "stateless-capabilities/resources-declared", Level: scenarios.Must, Spec: resourceSpec + "#capabilities",
		Quote:  "Servers that support resources **MUST** declare the `resources` capability:",
		Title:  "a server whose server/discover declares no resources capability lists no resources (resources/list answers an error or none)",
		Faults: []*fault.Fault{server.ModernResourcesUndeclared}}
)

var capabilitiesScenario = &scenarios.Scenario{
	ID:       "stateless-capabilities",
	Title:    "what the server serves, server/discover declares",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Purpose: "Without initialize, server/discover is where a server declares its features. For prompts and resources not " +
		"declared there, the list request is sent anyway: a result that lists some means the server supports the feature " +
		"without declaring it. A declared feature passes.",
	Checks: []*scenarios.Check{promptsDeclared, resourcesDeclared},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		for _, f := range []struct {
			check            *scenarios.Check
			capability, list string
			key              string
		}{
			{promptsDeclared, "prompts", protocol.MethodPromptsList, "prompts"},
			{resourcesDeclared, "resources", protocol.MethodResourcesList, "resources"},
		} {
			if s.HasCapability(f.capability) {
				t.PassWith(f.check, "declared")
				continue
			}
			t.Step("send %s although %s is not declared", f.list, f.capability)
			resp, err := t.Request(s, f.list, map[string]any{})
			skipIfVersionRefused(t, resp, err)
			var items []json.RawMessage
			if err == nil && resp.Error == nil {
				raw, _ := judge.Field(resp.Result, f.key)
				_ = json.Unmarshal(raw, &items)
			}
			t.Judge(f.check, len(items) == 0, "no "+f.capability+" listed, or "+f.capability+" declared in server/discover",
				fmt.Sprintf("%d listed: %s", len(items), judge.Describe(resp, err)))
		}
	}),
}
