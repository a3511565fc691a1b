// Package stateless is the stateless protocol of 2026-07-28 on the server (scenarios.md S6/S8): caching hints,
// serverInfo in every result's _meta, logging only by request, resources not found, over Streamable HTTP the
// methods of earlier revisions, the standard request headers and the Mcp-Param headers: the rules that exist at
// 2026-07-28 alone. Prompts, completion, resources and progress are their families' at every version.
package stateless

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

const (
	family       = "stateless"
	cachingSpec  = "2026-07-28/server/utilities/caching.mdx"
	loggingSpec  = "2026-07-28/server/utilities/logging.mdx"
	resourceSpec = "2026-07-28/server/resources.mdx"
	httpSpec     = "2026-07-28/basic/transports/streamable-http.mdx"
	metaSpec     = "2026-07-28/basic/index.mdx#meta"
	promptsSpec  = "2026-07-28/server/prompts.mdx"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{cachingScenario, serverInfoScenario, loggingScenario, resourceNotFoundScenario,
		httpMethodsScenario, httpHeadersScenario, customHeadersScenario, toolHeadersScenario, streamingScenario,
		capabilitiesScenario, connectionStateScenario, subscriptionsScenario}
}

var versions = protocol.JudgedStateless()

// skipIfVersionRefused stops a scenario whose request at the judged version
// was refused with -32022: the target does not implement the version, which
// the lifecycle family's handshake judges.
func skipIfVersionRefused(t *serverside.T, resp *jsonrpc.Message, err error) {
	if err == nil && judge.IsErrorCode(resp, codes.UnsupportedProtocolVersion) {
		t.NotJudgedRest(fmt.Sprintf("the target refuses %s itself (%s)", t.Env.Version, judge.Describe(resp, err)))
	}
}

// page is one result the scenario collected.
type page struct {
	method string
	n      int // page number within its list, from 1
	result json.RawMessage
}

// listPages fetches every page of a list (at most 20), as results.
func listPages(t *serverside.T, s *client.Session, method string) ([]page, error) {
	var out []page
	cursor := ""
	for n := 1; n <= 20; n++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		t.Step("send %s (page %d)", method, n)
		resp, err := t.Request(s, method, params)
		if err != nil || resp.Error != nil {
			skipIfVersionRefused(t, resp, err)
			return out, fmt.Errorf("%s: %s", method, judge.Describe(resp, err))
		}
		out = append(out, page{method: method, n: n, result: resp.Result})
		cursor = judge.StringField(resp.Result, "nextCursor")
		if cursor == "" {
			break
		}
	}
	return out, nil
}

// declaredLists are the list requests of the capabilities s declares.
func declaredLists(s *client.Session) []string {
	var out []string
	for _, l := range []struct{ capability, method string }{
		{"tools", protocol.MethodToolsList},
		{"prompts", protocol.MethodPromptsList},
		{"resources", protocol.MethodResourcesList},
		{"resources", protocol.MethodResourcesTemplatesList},
	} {
		if s.HasCapability(l.capability) {
			out = append(out, l.method)
		}
	}
	return out
}
