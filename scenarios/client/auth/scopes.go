package auth

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// Scopes: which scope the client asks for (the challenge's, else the
// protected resource metadata's scopes_supported, else none), how it steps
// up on a 403 insufficient_scope, and that it stops re-authorizing when
// every new token is refused (the official scope-* scenarios, and
// mcpconform's loop of refused tokens).

// The scopes the scenarios name (the official suite's).
const (
	scopeBasic   = "mcp:basic"
	scopeWrite   = "mcp:write"
	scopeAdmin   = "mcp:admin"
	scopeProfile = "mcp:profile"
	scopeRead    = "mcp:read"
)

const (
	scopeAuthoritative = "Clients MUST treat the scopes provided in the challenge as authoritative for satisfying the current request."
	scopePriority      = "During the initial authorization handshake, MCP clients SHOULD follow this priority order for scope selection:"
	scopeFallback      = "If scope is not available, use all scopes defined in scopes_supported from the Protected Resource Metadata document, omitting the scope parameter if scopes_supported is undefined."
	retryLimits        = "Clients SHOULD implement retry limits and SHOULD track scope upgrade attempts to avoid repeated failures for the same resource and operation combination."
	index26            = "2026-07-28/basic/authorization/index.mdx"
)

// authorizations are the client's authorization requests to any of the
// scenario's servers, in the order they came.
func (f *flow) authorizations() []authserver.Exchange {
	var out []authserver.Exchange
	for _, e := range f.entries {
		for _, as := range f.p.Servers {
			if e.Server == as.Label() && e.Path == as.EndpointPath("/authorize") {
				out = append(out, e)
			}
		}
	}
	return out
}

// requested are the scopes an authorization request asked for.
func requested(e authserver.Exchange) []string { return strings.Fields(params(e).Get("scope")) }

// missing are the scopes of want that got lacks.
func missing(want, got []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(got, s) {
			out = append(out, s)
		}
	}
	return out
}

func sameSet(a, b []string) bool { return len(missing(a, b)) == 0 && len(missing(b, a)) == 0 }

func scopeParam(e authserver.Exchange) string {
	if !params(e).Has("scope") {
		return "no scope parameter"
	}
	return fmt.Sprintf("scope %q", params(e).Get("scope"))
}

// noAuthorization skips checks that judge an authorization request the
// client never made.
func noAuthorization(f *flow, checks ...*scenarios.Check) {
	for _, c := range checks {
		f.t.Skip(c, "the client made no authorization request ("+f.end()+")")
	}
}

// --- auth/scope-from-www-authenticate ---------------------------------

const wwwID = "client-auth-scope-from-www-authenticate"

var (
	wwwCommon        = newCommon(wwwID).withApplicationType()
	wwwAuthoritative = &scenarios.Check{ID: wwwID + "/challenge-scope", Level: scenarios.Must,
		Spec:  page + "#protected-resource-metadata-discovery-requirements",
		Title: "the authorization request asks for every scope the 401 challenge names (" + scopeBasic + "), though scopes_supported names others",
		Quote: scopeAuthoritative, Faults: faults(client.AuthIgnoresChallengeScope)}
	wwwPriority = &scenarios.Check{ID: wwwID + "/priority-order", Level: scenarios.Should,
		Spec: page + "#scope-selection-strategy",
		Title: "the authorization request asks for exactly the challenge's scope: the challenge comes first in the priority order, " +
			"and scopes_supported is not added to it",
		Quote: scopePriority, Faults: faults(client.AuthIgnoresChallengeScope, client.AuthWidensChallengeScope)}
)

var scopeFromWWWAuthenticate = &scenarios.Scenario{
	ID:         wwwID,
	Official:   "auth/scope-from-www-authenticate",
	Title:      "OAuth scope: the 401 challenge names the scope the client must ask for",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The 401 challenge carries scope=\"" + scopeBasic + "\"; the protected resource metadata's scopes_supported names other scopes (" +
		scopeProfile + ", " + scopeRead + "), which the spec allows. The client must ask for the challenge's scope, and only it.",
	Checks: append([]*scenarios.Check{wwwAuthoritative, wwwPriority}, wwwCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{ChallengeScope: scopeBasic, ScopesSupported: []string{scopeProfile, scopeRead}})
		authz := f.authorizations()
		if len(authz) == 0 {
			noAuthorization(f, wwwAuthoritative, wwwPriority)
		} else {
			first := authz[0]
			t.Judge(wwwAuthoritative, len(missing([]string{scopeBasic}, requested(first))) == 0,
				fmt.Sprintf("scope including %q", scopeBasic), scopeParam(first))
			t.Judge(wwwPriority, sameSet(requested(first), []string{scopeBasic}), fmt.Sprintf("scope %q", scopeBasic), scopeParam(first))
		}
		wwwCommon.judge(f, f.p.ResourceID())
	}),
}

// --- auth/scope-from-scopes-supported ---------------------------------

const supportedID = "client-auth-scope-from-scopes-supported"

var supportedScopes = []string{scopeBasic, scopeRead, scopeWrite}

var (
	supportedCommon = newCommon(supportedID).withApplicationType()
	supportedAll    = &scenarios.Check{ID: supportedID + "/all-scopes-supported", Level: scenarios.Should,
		Spec:  page + "#scope-selection-strategy",
		Title: "without a scope in the challenge, the authorization request asks for every scope of the protected resource metadata's scopes_supported",
		Quote: scopeFallback, Faults: faults(client.AuthFirstSupportedScope)}
)

var scopeFromScopesSupported = &scenarios.Scenario{
	ID:         supportedID,
	Official:   "auth/scope-from-scopes-supported",
	Title:      "OAuth scope: no scope in the challenge, so all of scopes_supported",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The 401 challenge names no scope; the protected resource metadata's scopes_supported is " + strings.Join(supportedScopes, ", ") +
		". The client must ask for all of them.",
	Checks: append([]*scenarios.Check{supportedAll}, supportedCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{ScopesSupported: supportedScopes})
		if authz := f.authorizations(); len(authz) == 0 {
			noAuthorization(f, supportedAll)
		} else {
			t.Judge(supportedAll, len(missing(supportedScopes, requested(authz[0]))) == 0,
				fmt.Sprintf("scope including %q", strings.Join(supportedScopes, " ")), scopeParam(authz[0]))
		}
		supportedCommon.judge(f, f.p.ResourceID())
	}),
}

// --- auth/scope-omitted-when-undefined --------------------------------

const omittedID = "client-auth-scope-omitted-when-undefined"

var (
	omittedCommon = newCommon(omittedID).withApplicationType()
	omittedScope  = &scenarios.Check{ID: omittedID + "/scope-omitted", Level: scenarios.Should,
		Spec: page + "#scope-selection-strategy",
		Title: "with no scope in the challenge and no scopes_supported in the protected resource metadata, the authorization request carries " +
			"no scope parameter (not even the authorization server's scopes_supported)",
		Quote: scopeFallback, Faults: faults(client.AuthScopeFromAS)}
)

var scopeOmittedWhenUndefined = &scenarios.Scenario{
	ID:         omittedID,
	Official:   "auth/scope-omitted-when-undefined",
	Title:      "OAuth scope: neither the challenge nor the metadata names one, so none is asked",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The 401 challenge names no scope and the protected resource metadata has no scopes_supported; the authorization server's " +
		"own metadata lists scopes_supported (RFC 8414), which the scope selection strategy does not use. The client must leave scope out.",
	Checks: append([]*scenarios.Check{omittedScope}, omittedCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{Servers: []authserver.Options{{EditMetadata: func(doc map[string]any) {
			doc["scopes_supported"] = []any{"openid", "profile", "mcp:everything"}
		}}}})
		if authz := f.authorizations(); len(authz) == 0 {
			noAuthorization(f, omittedScope)
		} else {
			var asked []string
			for _, e := range authz {
				if strings.TrimSpace(params(e).Get("scope")) != "" {
					asked = append(asked, scopeParam(e))
				}
			}
			t.Judge(omittedScope, len(asked) == 0, "no scope parameter", listed(asked))
		}
		omittedCommon.judge(f, f.p.ResourceID())
	}),
}

// --- auth/scope-step-up -----------------------------------------------

// stepUpNeeds is the scope a request lacks in the step-up scenarios:
// tools/call needs mcp:write, every other request mcp:basic (the official
// scenario's split); notifications and requests without a JSON-RPC
// method pass.
func stepUpNeeds(method string, g *authserver.Grant) string {
	if method == "" || strings.HasPrefix(method, "notifications/") {
		return ""
	}
	need := scopeBasic
	if method == protocol.MethodToolsCall {
		need = scopeWrite
	}
	if slices.Contains(g.Scopes, need) {
		return ""
	}
	return need
}

// stepUpProtection: the 401 names mcp:basic; a token without mcp:write is
// refused 403 insufficient_scope on tools/call, naming mcp:write alone
// (the spec's minimum approach).
func stepUpProtection() clientside.Protection {
	return clientside.Protection{ChallengeScope: scopeBasic, ScopesSupported: []string{scopeProfile}, Refuse: stepUpNeeds}
}

// challenged is the scope the last refusal before the i-th entry named
// (what a challenge-driven authorization must ask for), and whether it was
// a 403.
func (f *flow) challenged(i int) (scope string, forbidden, found bool) {
	for j := i - 1; j >= 0; j-- {
		e := f.entries[j]
		if e.Server != "resource" || e.Path != "/mcp" {
			continue
		}
		switch e.Status {
		case http.StatusUnauthorized:
			return scopeBasic, false, true
		case http.StatusForbidden:
			if tok, ok := clientside.BearerToken(e.Header); ok {
				if g, _ := f.p.Lookup(tok); g != nil {
					return stepUpNeeds(e.RPCMethod, g), true, true
				}
			}
		}
	}
	return "", false, false
}

// stepUps are the authorization requests that answer a 403, with the
// scope it named.
func (f *flow) stepUps() (reqs []authserver.Exchange, scopes []string) {
	for i, e := range f.entries {
		if e.Server == "resource" || !strings.HasSuffix(e.Path, "/authorize") {
			continue
		}
		if scope, forbidden, ok := f.challenged(i); ok && forbidden {
			reqs, scopes = append(reqs, e), append(scopes, scope)
		}
	}
	return reqs, scopes
}

const stepUpID = "client-auth-scope-step-up"

var (
	stepUpCommon = newCommon(stepUpID).withApplicationType()
	stepUpFlow   = &scenarios.Check{ID: stepUpID + "/step-up", Level: scenarios.Should,
		Spec: page + "#step-up-authorization-flow",
		Title: "refused 403 insufficient_scope naming " + scopeWrite + " on tools/call, the client authorizes again for it and retries the call, " +
			"which reaches the server",
		Quote:     "Clients acting on behalf of a user SHOULD attempt the step-up authorization flow.",
		Faults:    faults(client.AuthNoStepUp, client.AuthStepUpKeepsScopes),
		Liberties: []*fault.Fault{client.AuthStepUpChallengeOnly}}
	stepUpAuthoritative = &scenarios.Check{ID: stepUpID + "/challenge-scope", Level: scenarios.Must,
		Spec:      page + "#protected-resource-metadata-discovery-requirements",
		Title:     "every authorization request asks for every scope of the challenge it answers: " + scopeBasic + " after the 401, " + scopeWrite + " after the 403",
		Quote:     scopeAuthoritative,
		Faults:    faults(client.AuthStepUpKeepsScopes),
		Liberties: []*fault.Fault{client.AuthStepUpChallengeOnly}}
)

// Without the wider token the call never comes: these faults fail the
// common authorized check too.
func init() {
	stepUpCommon.authorized.Faults = append(stepUpCommon.authorized.Faults, client.AuthNoStepUp, client.AuthStepUpKeepsScopes)
}

var scopeStepUp = &scenarios.Scenario{
	ID:         stepUpID,
	Official:   "auth/scope-step-up",
	Title:      "OAuth step-up: tools/call needs a wider scope than the first token has",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The 401 names " + scopeBasic + "; a token with it lists the tools, but tools/call is refused 403 insufficient_scope with scope=\"" +
		scopeWrite + "\" until the token has " + scopeWrite + ". The client must authorize again for it and retry the call.",
	Checks: append([]*scenarios.Check{stepUpFlow, stepUpAuthoritative}, stepUpCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, stepUpProtection())
		judgeAuthoritative(f, stepUpAuthoritative)
		reqs, scopes := f.stepUps()
		var forbidden int
		for _, e := range f.mcpRequests() {
			if e.Status == http.StatusForbidden {
				forbidden++
			}
		}
		switch {
		case forbidden == 0:
			t.Skip(stepUpFlow, "the client never had a request refused 403 insufficient_scope ("+f.end()+")")
		case len(reqs) == 0:
			t.Fail(stepUpFlow, "an authorization request after the 403", fmt.Sprintf("%d request(s) refused 403, and no authorization after them (%s)", forbidden, f.end()))
		default:
			widened := false
			for i, e := range reqs {
				if scopes[i] == scopeWrite && slices.Contains(requested(e), scopeWrite) {
					widened = true
				}
			}
			t.Judge(stepUpFlow, widened && f.called(), "an authorization for "+scopeWrite+", then the call of "+testTool+" with the new token",
				fmt.Sprintf("authorizations after a 403: %s; the call reached the server: %v (%s)", describeScopes(reqs), f.called(), f.end()))
		}
		stepUpCommon.judge(f, f.p.ResourceID())
	}),
}

// judgeAuthoritative: each authorization request that answers a challenge
// asks for all the challenge named.
func judgeAuthoritative(f *flow, c *scenarios.Check) {
	var bad []string
	n := 0
	for i, e := range f.entries {
		if e.Server == "resource" || !strings.HasSuffix(e.Path, "/authorize") {
			continue
		}
		scope, forbidden, ok := f.challenged(i)
		if !ok || scope == "" {
			continue
		}
		n++
		if lack := missing(strings.Fields(scope), requested(e)); len(lack) > 0 {
			bad = append(bad, fmt.Sprintf("after a %d naming %q: %s", map[bool]int{true: 403, false: 401}[forbidden], scope, scopeParam(e)))
		}
	}
	if n == 0 {
		f.t.Skip(c, "the client made no authorization request after a challenge ("+f.end()+")")
		return
	}
	f.t.Judge(c, len(bad) == 0, "the challenged scopes in every authorization request", listed(bad))
}

func describeScopes(reqs []authserver.Exchange) string {
	var out []string
	for _, e := range reqs {
		out = append(out, scopeParam(e))
	}
	return strings.Join(out, "; ")
}

// --- step-up, 2026-07-28: the union of scopes -------------------------

const unionID = "client-auth-scope-step-up-union"

var (
	// A client that does not step up, or steps up for the old scopes, is
	// refused its call here as in auth/scope-step-up (both are told that
	// name).
	unionCommon = newCommon(unionID).withApplicationType().alsoUnauthorizedBy(client.AuthNoStepUp, client.AuthStepUpKeepsScopes)
	unionScopes = &scenarios.Check{ID: unionID + "/keeps-granted-scopes", Level: scenarios.Should,
		Spec:  index26 + "#scope-selection-strategy",
		Title: "the step-up authorization asks for the 403's " + scopeWrite + " and the " + scopeBasic + " granted before",
		Quote: "When re-authorizing, clients SHOULD include these scopes alongside any previously granted scopes to avoid losing permissions " +
			"needed for other operations (see Step-Up Authorization Flow).",
		Faults: faults(client.AuthDropsGrantedScopes, client.AuthStepUpKeepsScopes)}
)

// scopeStepUpUnion is the official auth/scope-step-up's check of the
// union (SEP-2350), which only 2026-07-28 asks: 2025-11-25 leaves a client
// free to ask for the challenge's scope alone (the liberty
// auth-step-up-challenge-only), so it is a scenario of its own rather
// than a check skipped at one version. It is the official scenario's
// setup, and a client's harness is told that scenario's name.
var scopeStepUpUnion = &scenarios.Scenario{
	ID:         unionID,
	Official:   "auth/scope-step-up",
	Title:      "OAuth step-up at 2026-07-28: the new authorization keeps the scopes granted before",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   protocol.From(protocol.V20260728),
	Transports: httpOnly,
	Purpose: "As auth/scope-step-up: the 401 names " + scopeBasic + ", tools/call is refused 403 naming " + scopeWrite + " alone. " +
		"Re-authorizing, the client must ask for both, so that the requests needing " + scopeBasic + " keep working.",
	Checks: append([]*scenarios.Check{unionScopes}, unionCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, stepUpProtection())
		reqs, _ := f.stepUps()
		if len(reqs) == 0 {
			t.Skip(unionScopes, "the client made no authorization request after a 403 ("+f.end()+")")
		} else {
			var bad []string
			for _, e := range reqs {
				if lack := missing([]string{scopeBasic, scopeWrite}, requested(e)); len(lack) > 0 {
					bad = append(bad, scopeParam(e)+" (lacks "+strings.Join(lack, " ")+")")
				}
			}
			t.Judge(unionScopes, len(bad) == 0, fmt.Sprintf("scope including %q", scopeBasic+" "+scopeWrite), listed(bad))
		}
		unionCommon.judge(f, f.p.ResourceID())
	}),
}

// scopesCatalogue are the scope, retry-limit, iss and state scenarios.
func scopesCatalogue() []*scenarios.Scenario {
	return append([]*scenarios.Scenario{scopeFromWWWAuthenticate, scopeFromScopesSupported, scopeOmittedWhenUndefined,
		scopeStepUp, scopeStepUpUnion, scopeRetryLimit, refusedTokenLoop, stateMismatch}, issCatalogue...)
}
