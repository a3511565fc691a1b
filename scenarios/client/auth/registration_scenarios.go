package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The scenarios of client identity, token endpoint authentication, refresh
// tokens and authorization server migration (checks in registration.go).

var (
	// fromJune: the token endpoint authentication scenarios are the
	// official suite's from 2025-06-18, the first version with protected
	// resource metadata.
	fromJune = protocol.From(protocol.V20250618)
	// only2026: SEP-2207 (refresh tokens) and SEP-2352 (authorization
	// server binding) stand on the 2026-07-28 pages only.
	only2026 = protocol.From(protocol.V20260728)
)

// RegistrationScenarios are this file's scenarios, in Scenarios' order.
func registrationScenarios() []*scenarios.Scenario {
	return []*scenarios.Scenario{basicCIMD, preRegistration, tokenAuthBasic, tokenAuthPost, tokenAuthNone, tokenAuthEither,
		offlineAccessScope, offlineAccessNotSupported, serverMigration}
}

// withFault names f on check c of list, a common check that f fails in
// this scenario only (the common checks are each scenario's own).
func withFault(list []*scenarios.Check, c *scenarios.Check, f *fault.Fault) []*scenarios.Check {
	c.Faults = append(c.Faults, f)
	return list
}

// withLiberty names liberty l on check c of list: l passes it although
// it does what the reference does not.
func withLiberty(list []*scenarios.Check, c *scenarios.Check, l *fault.Fault) []*scenarios.Check {
	c.Liberties = append(c.Liberties, l)
	return list
}

// authorizations are the client's authorization requests at as.
func authorizations(f *flow, as *authserver.Server) []authserver.Exchange {
	return f.endpoint(as, "/authorize")
}

// --- auth/basic-cimd ---------------------------------------------------------

const cimdID = "client-auth-basic-cimd"

var (
	cimdCommon    = newCommon(cimdID)
	cimdPreferred = &scenarios.Check{ID: cimdID + "/cimd-preferred", Level: scenarios.Should, Spec: page + "#client-registration-approaches",
		Title: "where the authorization server advertises client_id_metadata_document_supported, the client identifies itself by the URL of its " +
			"client ID metadata document and does not register dynamically (the priority order puts metadata documents before registration)",
		Quote:  "Clients supporting all options SHOULD follow the following priority order:",
		Faults: faults(client.AuthPrefersDCR)}
	cimdURLCheck = &scenarios.Check{ID: cimdID + "/cimd-url", Level: scenarios.Must, Spec: page + "#implementation-requirements",
		Title:  "a client_id that is a URL, in the authorization and the token requests, uses the https scheme and has a path",
		Quote:  `The client_id URL MUST use the "https" scheme and contain a path component, e.g. https://example.com/client.json`,
		Faults: faults(client.AuthCIMDHTTPURL)}
)

var basicCIMD = &scenarios.Scenario{
	ID:         cimdID,
	Official:   "auth/basic-cimd",
	Title:      "Client ID metadata documents: the client presents the URL of its metadata document as client_id",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The authorization server advertises client_id_metadata_document_supported and keeps its registration endpoint. " +
		"The client should use an https URL with a path as client_id (the official suite expects " + client.ReferenceCIMDURL + ") and not register. " +
		"The server never fetches that URL: mcpconform follows no URL a client hands it.",
	Checks: append([]*scenarios.Check{cimdPreferred, cimdURLCheck}, cimdCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{Servers: []authserver.Options{{EditMetadata: func(doc map[string]any) {
			doc["client_id_metadata_document_supported"] = true
		}}}})
		judgeCIMD(f)
		cimdCommon.judge(f, f.p.ResourceID())
	}),
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

func judgeCIMD(f *flow) {
	t, as := f.t, f.p.AS(0)
	authz, regs := authorizations(f, as), registrations(f)
	if len(authz) == 0 && len(regs) == 0 {
		t.Skip(cimdPreferred, "the client made no authorization or registration request ("+f.end()+")")
	} else {
		var bad []string
		for _, e := range authz {
			if !isURL(params(e).Get("client_id")) {
				bad = append(bad, "an authorization request whose client_id is not a URL")
			}
		}
		for range regs {
			bad = append(bad, "a dynamic registration request")
		}
		t.Judge(cimdPreferred, len(bad) == 0, "a URL client_id and no registration", listed(bad))
	}
	var ids []string
	for _, e := range authz {
		ids = append(ids, params(e).Get("client_id"))
	}
	for _, e := range tokenRequests(f, as) {
		ids = append(ids, readClientAuth(e).id)
	}
	var urls, bad []string
	for _, id := range ids {
		if !isURL(id) {
			continue
		}
		urls = append(urls, id)
		u, _ := url.Parse(id)
		switch {
		case u.Scheme != "https":
			bad = append(bad, fmt.Sprintf("client_id %q: scheme %s", id, u.Scheme))
		case strings.Trim(u.Path, "/") == "":
			bad = append(bad, fmt.Sprintf("client_id %q: no path", id))
		}
	}
	if len(urls) == 0 {
		t.Skip(cimdURLCheck, "the client presented no URL as client_id ("+f.end()+")")
		return
	}
	if len(bad) > 0 {
		t.Fail(cimdURLCheck, "an https client_id URL with a path", listed(bad))
		return
	}
	slices.Sort(urls)
	urls = slices.Compact(urls)
	note := fmt.Sprintf("client_id %q", strings.Join(urls, ", "))
	if !slices.Equal(urls, []string{client.ReferenceCIMDURL}) {
		note += " (the official suite warns unless it is " + client.ReferenceCIMDURL + ")"
	}
	t.PassWith(cimdURLCheck, note)
}

// --- auth/pre-registration ---------------------------------------------------

// The official suite's pre-registered credentials.
const (
	preRegID        = "client-auth-pre-registration"
	preClientID     = "pre-registered-client"
	preClientSecret = "pre-registered-secret"
)

var (
	preCommon = newCommon(preRegID)
	preCreds  = &scenarios.Check{ID: preRegID + "/pre-registered-client", Level: scenarios.Should, Spec: page + "#preregistration",
		Title: "the client identifies itself with the client_id " + preClientID + " that $MCP_CONFORMANCE_CONTEXT gives it, " +
			"in its authorization requests and at the token endpoint (the server has no registration endpoint and takes no metadata documents)",
		Quote:  "MCP clients SHOULD support an option for static client credentials such as those supplied by a preregistration flow.",
		Faults: faults(client.AuthIgnoresPreRegistration)}
	preAuth = tokenAuthCheck(preRegID,
		"every token request authenticates with HTTP Basic (client_secret_basic, the one method the server's metadata lists in "+
			"token_endpoint_auth_methods_supported, RFC 8414 §2) carrying the pre-registered client_id and client_secret",
		client.AuthPreRegisteredPost)
)

var preRegistration = &scenarios.Scenario{
	ID:         preRegID,
	Official:   "auth/pre-registration",
	Title:      "Pre-registration: the client uses the static client credentials it was given",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "$MCP_CONFORMANCE_CONTEXT carries client_id " + preClientID + ", its client_secret and the issuer they belong to. " +
		"The authorization server has no registration endpoint and supports client_secret_basic only. " +
		"The client must identify itself with those credentials and authenticate with HTTP Basic at the token endpoint.",
	Checks: append([]*scenarios.Check{preCreds, preAuth}, withFault(preCommon.list(), preCommon.authorized, client.AuthIgnoresPreRegistration)...),
	Run: clientside.Body(func(t *clientside.T) {
		secret.Add(preClientSecret)
		f := serve(t, clientside.Protection{
			Servers: []authserver.Options{{EditMetadata: func(doc map[string]any) {
				delete(doc, "registration_endpoint")
				doc["token_endpoint_auth_methods_supported"] = []any{"client_secret_basic"}
			}}},
			Context: func(p *clientside.Protected) map[string]any {
				return map[string]any{"client_id": preClientID, "client_secret": preClientSecret, "issuer": p.AS(0).Issuer()}
			},
		})
		judgePreRegistered(f)
		judgeTokenAuth(f, preAuth, f.p.AS(0), func(string) string { return "client_secret_basic" }, func(id string) (string, bool) {
			return preClientSecret, id == preClientID
		})
		preCommon.judge(f, f.p.ResourceID())
	}),
}

func judgePreRegistered(f *flow) {
	t, as := f.t, f.p.AS(0)
	if !f.contactedAS() {
		t.Skip(preCreds, "the client never set out to authorize ("+f.end()+")")
		return
	}
	authz := authorizations(f, as)
	if len(authz) == 0 {
		t.Fail(preCreds, "an authorization request with client_id "+preClientID, "none ("+f.end()+")")
		return
	}
	var bad []string
	for _, e := range authz {
		if params(e).Get("client_id") != preClientID {
			bad = append(bad, "an authorization request with another client_id")
		}
	}
	for _, e := range tokenRequests(f, as) {
		if readClientAuth(e).id != preClientID {
			bad = append(bad, "a token request with another client_id")
		}
	}
	t.Judge(preCreds, len(bad) == 0, "client_id "+preClientID+" in every authorization and token request", listed(bad))
}

// --- auth/token-endpoint-auth-* ----------------------------------------------

var (
	tokenAuthBasic  = tokenAuthScenario("client_secret_basic", "basic")
	tokenAuthPost   = tokenAuthScenario("client_secret_post", "post")
	tokenAuthNone   = tokenAuthScenario("none", "none")
	tokenAuthEither = func() *scenarios.Scenario {
		s := tokenAuthScenario("", "either")
		s.Checks[0].Liberties = faults(client.AuthPrefersPost)
		return s
	}()
)

// tokenAuthScenario: the server advertises exactly method and registers
// the client for it; method "" advertises client_secret_basic and
// client_secret_post and registers what the client asks for (mcpconform's
// own scenario: either is conformant).
func tokenAuthScenario(method, name string) *scenarios.Scenario {
	id := "client-auth-token-endpoint-auth-" + name
	c := newCommon(id).withApplicationType()
	advertised := []any{method}
	title := fmt.Sprintf("every token request authenticates with %s, the one method the server's metadata lists in token_endpoint_auth_methods_supported "+
		"(RFC 8414 §2) and the registration answer names (RFC 7591 §3.2.1), with the registered client_id", describeMethod(method))
	if method != "none" {
		title += " and client_secret"
	}
	official, summary := "auth/token-endpoint-auth-"+name, "the server supports "+describeMethod(method)+" only"
	if method == "" {
		advertised = []any{"client_secret_basic", "client_secret_post"}
		title = "the server lists client_secret_basic and client_secret_post (RFC 8414 §2): the client may register for either, and every token " +
			"request authenticates with the method its registration answer names (RFC 7591 §3.2.1), with the registered client_id and client_secret"
		official, summary = "", "the server supports client_secret_basic and client_secret_post"
	}
	ch := tokenAuthCheck(id, title, client.AuthWrongAuthMethod)
	s := &scenarios.Scenario{
		ID:         id,
		Official:   official,
		Title:      "Token endpoint authentication: " + summary,
		Family:     family,
		Side:       scenarios.ClientSide,
		Versions:   fromJune,
		Transports: httpOnly,
		Purpose: "The authorization server's metadata lists token_endpoint_auth_methods_supported " + fmt.Sprint(advertised) +
			"; dynamic registration answers with the method registered and, for a secret method, a client_secret. " +
			"The client must authenticate at the token endpoint as registered.",
		Checks: append([]*scenarios.Check{ch}, c.list()...),
	}
	if method == "" {
		s.Purpose += " (mcpconform's own scenario: no official one offers a choice of methods.)"
	}
	s.Run = clientside.Body(func(t *clientside.T) {
		reg := newRegistry()
		f := serve(t, clientside.Protection{Servers: []authserver.Options{{
			EditMetadata: func(doc map[string]any) { doc["token_endpoint_auth_methods_supported"] = advertised },
			OnRegister:   reg.hook,
		}}})
		want := func(string) string { return method }
		if method == "" {
			want = reg.method
		}
		judgeTokenAuth(f, ch, f.p.AS(0), want, f.p.AS(0).Registered)
		c.judge(f, f.p.ResourceID())
	})
	return s
}

// --- auth/offline-access-scope, auth/offline-access-not-supported -------------

const offlineID = "client-auth-offline-access-scope"

var (
	offlineCommon    = newCommon(offlineID).withApplicationType()
	refreshGrantType = &scenarios.Check{ID: offlineID + "/refresh-grant-type", Level: scenarios.Should, Spec: index26 + "#refresh-tokens",
		Title: "a client that shows it desires refresh tokens (it asks for offline_access or makes a refresh) lists refresh_token in the " +
			"grant_types of its registration",
		Quote:  "SHOULD include refresh_token in their grant_types client metadata",
		Faults: faults(client.AuthNoRefreshGrantType),
	}
	refreshConfidential = &scenarios.Check{ID: offlineID + "/refresh-token-confidential", Level: scenarios.Must, Spec: index26 + "#refresh-tokens",
		Title: "a refresh token travels only in the body of a request to the token endpoint of the server that issued it: never in a URL, " +
			"never in a header, never to the MCP server",
		Quote:     "MUST keep refresh tokens confidential in transit and storage as specified in OAuth 2.1 Section 4.3",
		Faults:    faults(client.AuthRefreshTokenInQuery),
		Liberties: faults(client.AuthRefreshesEarly)}
	refreshResource = &scenarios.Check{ID: offlineID + "/refresh-resource", Level: scenarios.Must, Spec: index26 + "#resource-parameter-implementation",
		Title:     "a refresh request is a token request: it carries resource, exactly the resource the protected resource metadata publishes",
		Quote:     "MUST be included in both authorization requests and token requests.",
		Faults:    faults(client.AuthDropsResource),
		Liberties: faults(client.AuthRefreshesEarly)}
)

var offlineAccessScope = &scenarios.Scenario{
	ID:         offlineID,
	Official:   "auth/offline-access-scope",
	Title:      "Refresh tokens: the authorization server lists offline_access and the refresh_token grant",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   only2026,
	Transports: httpOnly,
	Purpose: "The authorization server lists scopes_supported [mcp:basic offline_access] and the refresh_token grant; the resource lists mcp:basic. " +
		"It issues a refresh token to a request for offline_access. The first access token is refused as expired after its first use, " +
		"so a client that holds a refresh token shows how it refreshes (the official suite forces no refresh). Unlike the official scenario, " +
		"the server takes no client ID metadata documents, so the grant_types of the registration can be read: mcpconform never fetches a URL a client names.",
	Checks: append([]*scenarios.Check{refreshGrantType, refreshConfidential, refreshResource},
		withLiberty(offlineCommon.list(), offlineCommon.authorized, client.AuthNoRefreshTokens)...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{
			ScopesSupported: []string{"mcp:basic"},
			Servers: []authserver.Options{{EditMetadata: func(doc map[string]any) {
				doc["scopes_supported"] = []any{"mcp:basic", "offline_access"}
			}}},
			RejectToken: expireFirstToken(),
		})
		judgeRefresh(f)
		offlineCommon.judge(f, f.p.ResourceID())
	}),
}

// expireFirstToken refuses the first access token a client uses, once it
// has served one request, as if it had expired; every later token stands.
func expireFirstToken() func(string, *authserver.Grant) bool {
	var mu sync.Mutex
	first := ""
	return func(_ string, g *authserver.Grant) bool {
		mu.Lock()
		defer mu.Unlock()
		if first == "" {
			first = g.Access
			return false
		}
		return g.Access == first
	}
}

func judgeRefresh(f *flow) {
	t := f.t
	var refreshes []authserver.Exchange
	rts := map[string]bool{}
	for _, as := range f.p.Servers {
		for _, e := range tokenRequests(f, as) {
			if e.Form.Get("grant_type") == "refresh_token" {
				refreshes = append(refreshes, e)
			}
		}
		for _, g := range as.Grants() {
			if g.Refresh != "" {
				rts[g.Refresh] = true
			}
		}
	}
	desire := len(refreshes) > 0
	for _, as := range f.p.Servers {
		for _, e := range authorizations(f, as) {
			desire = desire || slices.Contains(strings.Fields(params(e).Get("scope")), offlineAccess)
		}
	}
	switch regs := registrations(f); {
	case !desire:
		t.Skip(refreshGrantType, "the client showed no desire for refresh tokens: it asked for no offline_access and made no refresh ("+f.end()+")")
	case len(regs) == 0:
		t.Skip(refreshGrantType, "the client did not register dynamically ("+f.end()+")")
	default:
		var bad []string
		for _, e := range regs {
			var types []string
			if list, ok := e.JSON["grant_types"].([]any); ok {
				for _, v := range list {
					if s, ok := v.(string); ok {
						types = append(types, s)
					}
				}
			}
			if !slices.Contains(types, "refresh_token") {
				bad = append(bad, fmt.Sprintf("grant_types %q", types))
			}
		}
		t.Judge(refreshGrantType, len(bad) == 0, "refresh_token among the registered grant_types", listed(bad))
	}
	if len(rts) == 0 {
		t.Skip(refreshConfidential, "no refresh token was issued: the client asked for no offline_access ("+f.end()+")")
	} else {
		var bad []string
		for _, e := range f.entries {
			where := fmt.Sprintf("%s %s %s", e.Server, e.Method, e.Path)
			for _, vs := range e.Query {
				if slices.ContainsFunc(vs, func(v string) bool { return rts[v] }) {
					bad = append(bad, where+": in the URL")
				}
			}
			for _, v := range e.Header.Values("Authorization") {
				if _, cred, ok := strings.Cut(v, " "); ok && rts[strings.TrimSpace(cred)] {
					bad = append(bad, where+": in the Authorization header")
				}
			}
			if !isTokenEndpoint(f, e) && carries(authserver.Exchange{Form: e.Form, JSON: e.JSON}, rts) {
				bad = append(bad, where+": in the body of a request that is not to the token endpoint")
			}
		}
		t.Judge(refreshConfidential, len(bad) == 0, "refresh tokens only in token request bodies", listed(bad))
	}
	if len(refreshes) == 0 {
		t.Skip(refreshResource, "the client made no refresh request ("+f.end()+")")
	} else {
		var bad []string
		for _, e := range refreshes {
			if got := e.Form.Get("resource"); got != f.p.ResourceID() {
				bad = append(bad, "refresh request: resource "+quoted(got))
			}
		}
		t.Judge(refreshResource, len(bad) == 0, fmt.Sprintf("resource %q in every refresh request", f.p.ResourceID()), listed(bad))
	}
}

// isTokenEndpoint reports whether e is a POST to the token endpoint of the
// server it reached.
func isTokenEndpoint(f *flow, e authserver.Exchange) bool {
	for _, as := range f.p.Servers {
		if e.Server == as.Label() && e.Path == as.EndpointPath("/token") && e.Method == http.MethodPost {
			return true
		}
	}
	return false
}

const noOfflineID = "client-auth-offline-access-not-supported"

var (
	noOfflineCommon = newCommon(noOfflineID).withApplicationType()
	noOffline       = &scenarios.Check{ID: noOfflineID + "/no-offline-access", Level: scenarios.Should, Spec: index26 + "#refresh-tokens",
		Title: "the client asks for offline_access only where the authorization server's metadata lists it in scopes_supported (here it does not): " +
			"the page grants the scope on that condition, and outside it a scope that neither the challenge, the resource metadata nor the server " +
			"names departs from the scope selection strategy, a SHOULD (the official suite fails it)",
		Quote:  "MAY add offline_access to the scope parameter of the authorization and token requests when the Authorization Server metadata contains it in scopes_supported",
		Faults: faults(client.AuthAlwaysOfflineAccess)}
)

var offlineAccessNotSupported = &scenarios.Scenario{
	ID:         noOfflineID,
	Official:   "auth/offline-access-not-supported",
	Title:      "Refresh tokens: the authorization server does not list offline_access",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   only2026,
	Transports: httpOnly,
	Purpose: "The authorization server and the resource list scopes_supported [mcp:basic mcp:read], without offline_access. " +
		"The client must not ask for offline_access.",
	Checks: append([]*scenarios.Check{noOffline}, noOfflineCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{
			ScopesSupported: []string{"mcp:basic", "mcp:read"},
			Servers: []authserver.Options{{EditMetadata: func(doc map[string]any) {
				doc["scopes_supported"] = []any{"mcp:basic", "mcp:read"}
			}}},
		})
		judgeNoOffline(f)
		noOfflineCommon.judge(f, f.p.ResourceID())
	}),
}

func judgeNoOffline(f *flow) {
	t, as := f.t, f.p.AS(0)
	authz := authorizations(f, as)
	if len(authz) == 0 {
		t.Skip(noOffline, "the client made no authorization request ("+f.end()+")")
		return
	}
	var bad []string
	for _, e := range authz {
		if slices.Contains(strings.Fields(params(e).Get("scope")), offlineAccess) {
			bad = append(bad, "authorization request: scope "+quoted(params(e).Get("scope")))
		}
	}
	for _, e := range tokenRequests(f, as) {
		if slices.Contains(strings.Fields(e.Form.Get("scope")), offlineAccess) {
			bad = append(bad, "token request: scope "+quoted(e.Form.Get("scope")))
		}
	}
	t.Judge(noOffline, len(bad) == 0, "no offline_access in any scope", listed(bad))
}

// offlineAccess is the scope by which a client asks for a refresh token.
const offlineAccess = "offline_access"

// --- auth/authorization-server-migration -------------------------------------

const migrationID = "client-auth-authorization-server-migration"

var (
	migrationCommon = newCommon(migrationID).withApplicationType()
	reregister      = &scenarios.Check{ID: migrationID + "/reregister", Level: scenarios.Must, Spec: registration26 + "#authorization-server-binding",
		Title: "once the protected resource metadata names a new authorization server, the client registers anew there " +
			"(neither server takes client ID metadata documents, so no client id is portable)",
		Quote:  "When the authorization server changes (detected via updated protected resource metadata), clients MUST NOT reuse client credentials from a different authorization server and MUST re-register with the new authorization server.",
		Faults: faults(client.AuthReusesCredentials)}
	noReuse = &scenarios.Check{ID: migrationID + "/no-credential-reuse", Level: scenarios.Must, Spec: discovery26 + "#authorization-server-location",
		Title: "the client presents nothing of the first authorization server to the second: not its client id or secret, " +
			"not its access or refresh tokens",
		Quote:  "Clients MUST maintain separate registration state (client credentials, tokens) per authorization server and MUST NOT assume that credentials valid for one authorization server will be accepted by another.",
		Faults: faults(client.AuthReusesCredentials)}
)

var serverMigration = &scenarios.Scenario{
	ID:         migrationID,
	Official:   "auth/authorization-server-migration",
	Title:      "Authorization server migration: the resource moves to a new authorization server after the first authorization",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   only2026,
	Transports: httpOnly,
	Purpose: "The protected resource metadata first names authorization server as. Once a request with one of its tokens has been served, " +
		"the metadata names as2 instead and the resource refuses as's tokens with 401 invalid_token. The client must discover as2, " +
		"register there anew, and present nothing of as there.",
	Checks: append([]*scenarios.Check{reregister, noReuse}, migrationCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		var mu sync.Mutex
		migrated, firstIssuer := false, ""
		first := newRegistry()
		f := serve(t, clientside.Protection{
			Servers: []authserver.Options{{Label: "as", OnRegister: first.hook}, {Label: "as2"}},
			AuthorizationServers: func(p *clientside.Protected) []string {
				mu.Lock()
				defer mu.Unlock()
				if migrated {
					return []string{p.AS(1).Issuer()}
				}
				return []string{p.AS(0).Issuer()}
			},
			// The first request served with a token of as moves the
			// resource to as2; from then on it refuses as's tokens.
			RejectToken: func(_ string, g *authserver.Grant) bool {
				mu.Lock()
				defer mu.Unlock()
				if !migrated {
					migrated, firstIssuer = true, g.Issuer
					return false
				}
				return g.Issuer == firstIssuer
			},
		})
		mu.Lock()
		moved := migrated
		mu.Unlock()
		judgeMigration(f, moved, first)
		migrationCommon.judge(f, f.p.ResourceID())
	}),
}

func judgeMigration(f *flow, moved bool, first *registry) {
	t, as1, as2 := f.t, f.p.AS(0), f.p.AS(1)
	if !moved {
		for _, ch := range []*scenarios.Check{reregister, noReuse} {
			t.Skip(ch, "the client never made a request with a token of the first authorization server, so the server never changed ("+f.end()+")")
		}
		return
	}
	var regs []authserver.Exchange
	for _, e := range f.endpoint(as2, "/register") {
		if e.Method == http.MethodPost && e.Status/100 == 2 {
			regs = append(regs, e)
		}
	}
	if len(regs) > 0 {
		t.Pass(reregister)
	} else {
		what := "no registration request at as2"
		if len(f.of(as2.Label())) == 0 {
			what += ", and no request to it at all"
		}
		t.Fail(reregister, "a dynamic registration at the new authorization server as2", what+" ("+f.end()+")")
	}
	if len(f.of(as2.Label())) == 0 {
		t.Skip(noReuse, "the client made no request to the new authorization server ("+f.end()+")")
		return
	}
	old := first.credentials()
	for _, g := range as1.Grants() {
		old[g.Access] = true
		if g.Refresh != "" {
			old[g.Refresh] = true
		}
	}
	var bad []string
	for _, e := range f.of(as2.Label()) {
		where := fmt.Sprintf("%s %s", e.Method, e.Path)
		if old[params(e).Get("client_id")] {
			bad = append(bad, where+": the first server's client_id")
			continue
		}
		if a := readClientAuth(e); old[a.id] || old[a.secret] {
			bad = append(bad, where+": the first server's client credentials")
			continue
		}
		if carries(e, old) {
			bad = append(bad, where+": a credential or token of the first server")
		}
	}
	t.Judge(noReuse, len(bad) == 0, "nothing of as at as2", listed(bad))
}
