package catalogue

import (
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/scenarios"
)

// The official suite's scored scenarios per revision and side, as frozen in
// its requirement lists (official-conformance requirements/<revision>.yaml,
// "server:" and "client:"). The lists are frozen by the official suite, so
// a copy here does not go stale.
var officialScored = map[string]map[scenarios.Side][]string{
	"2025-11-25": {
		scenarios.ServerSide: {"server-initialize", "logging-set-level", "ping", "completion-complete", "tools-list",
			"tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
			"tools-call-mixed-content", "tools-call-with-logging", "tools-call-error", "tools-call-with-progress",
			"tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults", "server-sse-multiple-streams",
			"elicitation-sep1330-enums", "resources-list", "resources-read-text", "resources-read-binary",
			"resources-templates-read", "resources-subscribe", "resources-unsubscribe", "prompts-list", "prompts-get-simple",
			"prompts-get-with-args", "prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection"},
		scenarios.ClientSide: {"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
			"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
			"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
			"auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
			"auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration"},
	},
	"2026-07-28": {
		scenarios.ServerSide: {"server-stateless", "completion-complete", "tools-list", "tools-call-simple-text",
			"tools-call-image", "tools-call-audio", "tools-call-embedded-resource", "tools-call-mixed-content",
			"tools-call-error", "tools-call-with-progress", "server-sse-multiple-streams", "resources-list",
			"resources-read-text", "resources-read-binary", "resources-templates-read", "sep-2164-resource-not-found",
			"prompts-list", "prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource",
			"prompts-get-with-image", "dns-rebinding-protection", "caching", "input-required-result-basic-elicitation",
			"input-required-result-basic-sampling", "input-required-result-basic-list-roots",
			"input-required-result-request-state", "input-required-result-multiple-input-requests",
			"input-required-result-multi-round", "input-required-result-missing-input-response",
			"input-required-result-non-tool-request", "input-required-result-result-type",
			"input-required-result-unsupported-methods", "input-required-result-tampered-state",
			"input-required-result-capability-check", "input-required-result-ignore-extra-params",
			"input-required-result-validate-input"},
		scenarios.ClientSide: {"tools_call", "request-metadata", "auth/metadata-default", "auth/metadata-var1",
			"auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
			"auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined", "auth/scope-step-up",
			"auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
			"auth/token-endpoint-auth-none", "auth/pre-registration", "auth/resource-mismatch",
			"auth/offline-access-scope", "auth/offline-access-not-supported", "auth/authorization-server-migration",
			"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
			"auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
			"sep-2322-client-request-state", "http-standard-headers", "http-custom-headers",
			"http-invalid-tool-headers", "json-schema-ref-no-deref"},
	},
}

// covers names, for a scenario of mcpconform whose id and Official are not
// the official id, the official scenarios it judges.
var covers = map[string][]string{
	"lifecycle-initialize":       {"server-initialize"},
	"lifecycle-ping":             {"ping"},
	"transport-multiple-streams": {"server-sse-multiple-streams"},
	"transport-origin":           {"dns-rebinding-protection"},
	"resources-subscribe":        {"resources-unsubscribe"},
	// pagination lists every resource page by page to the last; the
	// results are judged against the schema by wire-schema.
	"pagination": {"resources-list"},
	// The official server-stateless (2026-07-28) gathers the stateless
	// protocol's rules, which mcpconform judges one scenario each.
	"lifecycle-discover":            {"server-stateless"},
	"lifecycle-missing-meta":        {"server-stateless"},
	"lifecycle-missing-capability":  {"server-stateless"},
	"lifecycle-unsupported-version": {"server-stateless"},
	"lifecycle-header-mismatch":     {"server-stateless"},
	"lifecycle-unknown-method":      {"server-stateless"},
	"stateless-server-info":         {"server-stateless"},
	"stateless-streaming":           {"server-stateless"},
	"stateless-logging":             {"server-stateless"},
	"stateless-subscriptions":       {"server-stateless"},
}

// uncovered says why no scenario of mcpconform judges an official one: a
// rule per revision ("" for every one), side and id ("prefix*" matches by
// prefix, "*" every id).
var uncovered = []struct {
	version string
	side    scenarios.Side
	id, why string
}{
	{"2026-07-28", scenarios.ServerSide, "server-sse-multiple-streams", "at 2026-07-28 every request is a POST with its own " +
		"response stream and there are no sessions, so concurrent streams are what every scenario of a --parallel run uses; " +
		"no reference fault can refuse them for one scenario without refusing the others' quick successive requests"},
}

// Coverage is what mcpconform judges of one official scenario at a revision.
type Coverage struct {
	Official  string
	Side      scenarios.Side
	Version   string
	Scenarios []string // mcpconform scenarios that judge it, sorted
	Checks    int      // their checks at that version
	Why       string   // when Scenarios is empty: why
}

// CoverageOf maps every official scenario scored at version to the
// mcpconform scenarios that judge it there, or says why none does. A
// scenario judges an official one when it has the official id as its own
// id or as Official, or lists it in covers, and applies at that version.
func CoverageOf(version string) []Coverage {
	var out []Coverage
	for _, side := range []scenarios.Side{scenarios.ServerSide, scenarios.ClientSide} {
		for _, id := range officialScored[version][side] {
			c := Coverage{Official: id, Side: side, Version: version}
			for _, s := range all {
				if s.Side != side || !slices.Contains(s.Versions, version) {
					continue
				}
				if s.ID == id || s.Official == id || slices.Contains(covers[s.ID], id) {
					c.Scenarios = append(c.Scenarios, s.ID)
					c.Checks += len(s.Checks)
				}
			}
			if len(c.Scenarios) == 0 {
				c.Why = uncoveredWhy(version, side, id)
			}
			out = append(out, c)
		}
	}
	return out
}

func uncoveredWhy(version string, side scenarios.Side, id string) string {
	for _, u := range uncovered {
		if (u.version != "" && u.version != version) || u.side != side {
			continue
		}
		if u.id == id || strings.HasSuffix(u.id, "*") && strings.HasPrefix(id, strings.TrimSuffix(u.id, "*")) {
			return u.why
		}
	}
	return ""
}

// OfficialVersions are the revisions the official lists exist for.
func OfficialVersions() []string { return []string{"2025-11-25", "2026-07-28"} }
