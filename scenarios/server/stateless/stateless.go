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

// The official requirement ids of the server side of SEP-2575, SEP-2243,
// SEP-2549 and SEP-2164 (official-conformance seps/sep-*.yaml) and the
// official 2026-07-28 server scenarios of requirements/2026-07-28.yaml, with
// the checks that judge them:
//
//	sep-2549-tools-list-caching-hints              stateless-caching/hints-present (tools/list)
//	sep-2549-prompts-list-caching-hints            stateless-caching/hints-present (prompts/list)
//	sep-2549-resources-list-caching-hints          stateless-caching/hints-present (resources/list)
//	sep-2549-resources-templates-list-caching-hints stateless-caching/hints-present (resources/templates/list)
//	sep-2549-resources-read-caching-hints          stateless-caching/hints-present (resources/read)
//	sep-2549-ttl-non-negative                      stateless-caching/ttl-non-negative
//	sep-2549-cache-scope-valid                     stateless-caching/scope-valid
//	(caching.mdx, same cacheScope on every page)   stateless-caching/scope-same-pages
//	caching (official scenario)                    stateless-caching (server/discover's hints too)
//	sep-2164-no-empty-contents                     stateless-resource-not-found/not-empty-contents
//	sep-2164-error-code                            stateless-resource-not-found/invalid-params (a MUST on the
//	                                               2026-07-28 page; the SEP's list says SHOULD)
//	sep-2164-resource-not-found (official scenario) stateless-resource-not-found
//	sep-2575-server-no-log-without-loglevel        stateless-logging/none-without-level
//	(logging.mdx, invalid logLevel → -32602)       stateless-logging/invalid-level-refused
//	(index.mdx, serverInfo in every result)        stateless-server-info/result-meta
//	sep-2575-server-declares-prompts-in-discover   stateless-capabilities/prompts-declared (resources-declared too)
//	(logging.mdx, logging declared)                stateless-logging/capability-declared
//	sep-2575-http-server-no-independent-requests-on-stream     stateless-streaming/no-server-requests
//	sep-2575-server-sends-subscription-ack         stateless-subscriptions/ack-first
//	sep-2575-server-tags-subscription-id           stateless-subscriptions/tagged
//	sep-2575-server-honors-notification-filter     stateless-subscriptions/filter-honored
//	sep-2575-server-sends-tools-list-changed-on-subscription   stateless-subscriptions/tools-list-changed
//	sep-2575-server-sends-prompts-list-changed-on-subscription stateless-subscriptions/prompts-list-changed
//	sep-2243-server-reject-invalid-headers         stateless-http-headers/method-missing, method-case-sensitive,
//	                                               name-missing, name-mismatch, name-invalid-chars;
//	                                               stateless-http-methods/version-header-required
//	                                               (and lifecycle-header-mismatch/error-32020 for Mcp-Method)
//	sep-2243-server-reject-error-code              the same checks (400 and -32020; a MUST on the 2026-07-28 page)
//	sep-2243-server-decode-base64                  stateless-http-headers/encoded-name-decoded,
//	                                               stateless-http-custom-headers/encoded-decoded
//	http-header-validation (official scenario)     stateless-http-headers (method-case-sensitive: upper-case values)
//	sep-2243-server-validate-param-match           stateless-http-custom-headers/mismatch-refused
//	sep-2243-server-reject-param-mismatch          stateless-http-custom-headers/mismatch-refused, missing-refused,
//	                                               invalid-chars-refused (400 and -32020)
//	sep-2243-server-reject-missing-required        stateless-http-custom-headers/missing-refused (the page's row
//	                                               "Client omits header but value is in body")
//	sep-2243-server-not-expect-null                stateless-http-custom-headers/absent-not-expected (absent and null)
//	sep-2243-server-reject-invalid-param-chars     stateless-http-custom-headers/invalid-chars-refused
//	http-custom-header-server-validation (official) stateless-http-custom-headers
//	sep-2243-x-mcp-header-not-empty, -charset, -unique, -primitive-only  stateless-tool-headers/annotations-valid
//	                                               (the server's tool definitions; a client's rejection of them
//	                                               is the client suite's)
//	(streamable-http.mdx, earlier revisions)       stateless-http-methods/get-405, delete-405, session-id-ignored
//
// The official 2026-07-28 server scenarios of the 2025-11-25 surface
// (prompts, completion, resource reads and lists, progress) are judged by
// their families, which judge every version.
//
//	(index.mdx, "Statelessness": no context from prior requests; the observable consequence the official list
//	names for its excluded sentence)               stateless-connection-state/capabilities-per-request
//
// Already judged by the lifecycle family (not repeated here):
//
//	sep-2575-server-implements-discover            lifecycle-discover/result-schema, version-implemented
//	sep-2575-server-unsupported-version-error      lifecycle-unsupported-version/error-32022
//	sep-2575-http-server-unsupported-version-400   lifecycle-unsupported-version/error-32022 (HTTP 400)
//	sep-2575-server-rejects-undeclared-capability  lifecycle-missing-capability/error-32021
//	sep-2575-missing-capability-http-400           lifecycle-missing-capability/error-32021 (HTTP 400)
//	sep-2575-http-server-header-mismatch-400       lifecycle-header-mismatch/error-32020
//	sep-2575-http-server-method-not-found-404      lifecycle-unknown-method/method-not-found (HTTP 404)
//	server-stateless (official scenario)           the lifecycle family's 2026-07-28 scenarios, with
//	                                               stateless-logging, stateless-streaming and stateless-subscriptions
//	                                               (its fixtures test_logging_tool, test_streaming_elicitation,
//	                                               test_trigger_tool_change, test_trigger_prompt_change)
//
// Not judged yet:
//
//	sep-2243-header-name-case-insensitive: the reference server is written in Go, whose HTTP server
//	canonicalizes header names before any handler sees them, so no fault of it can fail such a check.
//	server-sse-multiple-streams at 2026-07-28 (three concurrent POSTs): transport-multiple-streams judges the
//	session versions; at 2026-07-28 no fault of the reference could refuse concurrent POSTs without also
//	refusing the quick successive requests of other scenarios.
//	The other ids of these lists are the client's (the client suite) or rules of a tool definition.

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
