package auth

import (
	"errors"
	"fmt"
	"github.com/mcpconform/mcpconform/internal/wwwauth"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/issuer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

const notProtected = "the server served %s without a token: it is not protected (authorization is OPTIONAL for MCP " +
	"implementations), so the authorization checks do not apply"

// requireProtected probes without credentials and skips the rest when the
// server serves the request anyway; it returns the refusal.
func requireProtected(t *serverside.T, p *prober) *answer {
	t.Step("send %s without an Authorization header", t.Version().Handshake)
	a, err := p.send(credentials{what: "no token"})
	if err != nil {
		t.Abort("no HTTP answer to %s without a token: %v", t.Version().Handshake, err)
	}
	if a.status/100 == 2 || a.status == http.StatusSwitchingProtocols {
		t.SkipRest(fmt.Sprintf(notProtected, t.Version().Handshake))
	}
	return a
}

var unauthenticatedScenario = &scenarios.Scenario{
	ID:         "auth-unauthenticated",
	Title:      "a protected server refuses a request without a token with 401, a Bearer challenge and discoverable Protected Resource Metadata",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: transports,
	Purpose: "The first thing an OAuth client meets: the version's first request sent without credentials. Then the Protected " +
		"Resource Metadata (RFC 9728, since 2025-06-18) from the challenge's resource_metadata, fetched only on the target's own origin, " +
		"or else from the well-known URIs in the pages' order. A server that serves the request is not protected: skipped.",
	Checks: []*scenarios.Check{unauthStatus, unauthChallenge, challengeResourceMetadata, prmDiscoverable, prmJSON, prmAuthorizationServers, prmResource,
		challengeScope, noOfflineAccess},
	Run: serverside.Body(func(t *serverside.T) {
		p := newProber(t)
		a := requireProtected(t, p)
		t.Judge(unauthStatus, a.status == http.StatusUnauthorized, "HTTP 401 Unauthorized", a.String())
		ch, hasBearer := bearer(a.header)
		t.Judge(unauthChallenge, hasBearer, `WWW-Authenticate: Bearer …`, a.String())
		v := t.Env.Version
		if !prmJSON.JudgedAt(v) {
			for _, c := range []*scenarios.Check{challengeResourceMetadata, prmDiscoverable, prmJSON, prmAuthorizationServers, prmResource, challengeScope, noOfflineAccess} {
				t.Skip(c, "2025-03-26 knows no Protected Resource Metadata (it came with 2025-06-18)")
			}
			return
		}
		endpoint, err := url.Parse(p.target.URL)
		if err != nil {
			t.Abort("the target's URL %q does not parse: %v", p.target.URL, err)
		}
		named := ch.Params["resource_metadata"]
		t.Step("find the Protected Resource Metadata (resource_metadata %q, then the well-known URIs)", named)
		var doc *prmDoc
		var namedElsewhere bool
		var tried []string
		if named != "" {
			if u, err := url.Parse(named); err != nil || !u.IsAbs() {
				tried = append(tried, fmt.Sprintf("resource_metadata %q is no absolute URL", named))
			} else if !sameOrigin(u, endpoint) {
				namedElsewhere = true
				t.Transcript().Eventf(probeLabel, "resource_metadata %s is on another origin than the target: not fetched", named)
			} else if d, err := p.fetchPRM(named); err == nil && d.status == http.StatusOK {
				doc = d
			} else if d != nil {
				tried = append(tried, d.String())
			}
		}
		fromWellKnown := ""
		if doc == nil && !namedElsewhere {
			for _, wk := range wellKnownPRM(endpoint) {
				d, err := p.fetchPRM(wk)
				if err == nil && d.status == http.StatusOK {
					doc, fromWellKnown = d, wk
					break
				}
				if d != nil {
					tried = append(tried, d.String())
				}
			}
		}
		switch {
		case challengeResourceMetadata.JudgedAt(v):
			t.Judge(challengeResourceMetadata, named != "", "resource_metadata in the 401's WWW-Authenticate (2025-06-18 names no other way)", a.String())
			t.Skip(prmDiscoverable, "2025-06-18 names one way to find the document, the challenge's resource_metadata")
		case namedElsewhere:
			t.PassWith(prmDiscoverable, fmt.Sprintf("resource_metadata names %s, on another origin: not fetched", named))
		}
		if !challengeResourceMetadata.JudgedAt(v) {
			t.Skip(challengeResourceMetadata, "a rule of 2025-06-18; from 2025-11-25 the challenge is one of two ways to find the document")
		}
		switch {
		case challengeResourceMetadata.JudgedAt(v), namedElsewhere:
		default:
			t.Judge(prmDiscoverable, doc != nil, "the document at resource_metadata or at a well-known URI",
				fmt.Sprintf("%s; %s", a, strings.Join(tried, "; ")))
		}
		if doc == nil {
			why := "no Protected Resource Metadata document was found"
			if namedElsewhere {
				why = "the document is on another origin, which mcpconform does not fetch"
			}
			for _, c := range []*scenarios.Check{prmJSON, prmAuthorizationServers, prmResource} {
				t.Skip(c, why)
			}
		} else {
			t.Judge(prmJSON, doc.isJSON(), "HTTP 200, Content-Type application/json, a JSON object", doc.String())
			servers, ok := doc.strings("authorization_servers")
			t.Judge(prmAuthorizationServers, ok && len(servers) > 0 && servers[0] != "", "authorization_servers: [at least one issuer URL]", doc.String())
			judgeResource(t, doc, endpoint, fromWellKnown)
		}
		var supported []string
		if doc != nil {
			supported, _ = doc.strings("scopes_supported")
		}
		challenged := strings.Fields(ch.Params["scope"])
		if !challengeScope.JudgedAt(v) {
			t.Skip(challengeScope, "2025-06-18 asks no scope in the challenge (2025-11-25 does)")
		} else {
			switch {
			case len(challenged) > 0:
				t.Pass(challengeScope)
			case len(supported) > 0:
				t.Fail(challengeScope, "scope=\"…\" in the 401 challenge", fmt.Sprintf("%s (scopes_supported: %q)", a, supported))
			default:
				t.PassWith(challengeScope, "the server names no scope anywhere: nothing to include")
			}
		}
		if !noOfflineAccess.JudgedAt(v) {
			t.Skip(noOfflineAccess, "a rule of 2026-07-28's page")
		} else {
			t.Judge(noOfflineAccess, !slices.Contains(challenged, "offline_access") && !slices.Contains(supported, "offline_access"),
				"no offline_access in the challenge's scope or in scopes_supported",
				fmt.Sprintf("challenge scope %q, scopes_supported %q", challenged, supported))
		}
	}),
}

// judgeResource judges the document's resource against the endpoint.
func judgeResource(t *serverside.T, doc *prmDoc, endpoint *url.URL, fromWellKnown string) {
	resource := doc.str("resource")
	r, err := url.Parse(resource)
	if resource == "" || err != nil || !r.IsAbs() {
		t.Fail(prmResource, "resource: an absolute URL identifying this server", doc.String())
		return
	}
	// Compared as URLs: scheme and host without case (ws as http), no
	// trailing slash.
	norm := func(u *url.URL) string {
		return strings.ToLower(httpOrigin(u)) + strings.TrimSuffix(u.EscapedPath(), "/")
	}
	origin := strings.ToLower(httpOrigin(endpoint))
	want, got := norm(endpoint), norm(r)
	if fromWellKnown != "" {
		// RFC 9728 §3.3: identical to the URL the suffix was inserted into.
		base := want
		if strings.HasSuffix(fromWellKnown, "/.well-known/oauth-protected-resource") {
			base = origin
		}
		t.Judge(prmResource, got == base, fmt.Sprintf("resource %s (the URL %s was made from)", base, fromWellKnown), "resource "+resource)
		return
	}
	ok := got == want || got == origin || strings.HasPrefix(want, got+"/")
	t.Judge(prmResource, ok, fmt.Sprintf("resource %s or a path prefix of it on its origin", endpoint), "resource "+resource)
}

var malformedScenario = &scenarios.Scenario{
	ID:         "auth-malformed-credentials",
	Title:      "a protected server refuses malformed bearer credentials and other schemes",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: transports,
	Purpose: "Authorization headers that carry no bearer token a server could validate: \"Bearer\" alone, \"Bearer\" with two " +
		"tokens, Basic credentials. None needs an issuer. A server that serves a request without a token is not protected: skipped.",
	Checks: []*scenarios.Check{malformedRefused, otherSchemeRefused},
	Run: serverside.Body(func(t *serverside.T) {
		p := newProber(t)
		requireProtected(t, p)
		var served []string
		for _, h := range []string{"Bearer", "Bearer mcpconform-one mcpconform-two"} {
			t.Step("send %s with Authorization: %s", t.Version().Handshake, h)
			a, err := p.send(credentials{authorization: h, what: fmt.Sprintf("Authorization: %q", h)})
			if err != nil {
				t.Abort("no HTTP answer: %v", err)
			}
			if a.status != http.StatusBadRequest && a.status != http.StatusUnauthorized {
				served = append(served, fmt.Sprintf("Authorization: %q → %s", h, a))
			}
		}
		t.Judge(malformedRefused, len(served) == 0, "HTTP 400 or 401", strings.Join(served, "; "))
		t.Step("send %s with Basic credentials", t.Version().Handshake)
		a, err := p.send(credentials{authorization: "Basic bWNwY29uZm9ybTpub3QtYS1iZWFyZXItdG9rZW4=", what: "Basic credentials"})
		if err != nil {
			t.Abort("no HTTP answer: %v", err)
		}
		t.Judge(otherSchemeRefused, a.status == http.StatusUnauthorized || a.status == http.StatusBadRequest, "HTTP 401 (or 400)", a.String())
	}),
}

// needIssuer skips the rest when the run has no issuer the target trusts.
func needIssuer(t *serverside.T) *scenarios.Auth {
	if t.Env.Auth == nil || t.Env.Auth.Issuer == nil {
		t.SkipRest("no issuer the target trusts: start the target against mcpconform's authorization server " +
			"(--auth-listen, or `mcpconform auth-server`) to judge how it validates tokens")
	}
	return t.Env.Auth
}

// servedValid probes with a valid token and stops the scenario (not
// judged) when the target refuses it: then it does not trust the issuer.
func servedValid(t *serverside.T, p *prober, a *scenarios.Auth) string {
	tok := mint(t, a, "mcpconform-subject-a", a.Scopes, issuer.Sound)
	t.Step("send %s with a valid token of %s for %s", t.Version().Handshake, a.Issuer.URL(), a.Resource)
	ans, err := p.send(credentials{authorization: "Bearer " + tok, what: "a valid token"})
	if err != nil {
		t.Abort("no HTTP answer to %s with a valid token: %v", t.Version().Handshake, err)
	}
	if !ans.served {
		t.Abort("the target did not serve a valid token (issuer %s, audience %s, scope %q): %s. Is it configured to trust "+
			"that issuer (jwks_uri %s) and to be that resource? (--auth-resource, --auth-scopes)",
			a.Issuer.URL(), a.Resource, strings.Join(a.Scopes, " "), ans, a.Issuer.JWKSURL())
	}
	return tok
}

func mint(t *serverside.T, a *scenarios.Auth, subject string, scopes []string, d issuer.Defect) string {
	tok, err := a.Mint(subject, scopes, d)
	if err != nil {
		t.Abort("minting a token: %v", err)
	}
	return tok
}

var tokenScenario = &scenarios.Scenario{
	ID:         "auth-token-validation",
	Title:      "a protected server validates every token: lifetime, audience, issuer, signature; never one in the query string",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: transports,
	Needs:      []scenarios.Need{scenarios.NeedsOther("an issuer the target trusts (--auth-listen or --auth-state)")},
	Purpose: "mcpconform's issuer mints a valid token (it must be served, or the target does not trust the issuer and nothing is " +
		"judged), then one token per defect, each sent on a request of its own. Over Streamable HTTP with sessions, a session opened " +
		"with the valid token then carries a token that is none of the issuer's.",
	Checks: []*scenarios.Check{expiredRefused, notYetValidRefused, audienceRefused, issuerRefused, signatureRefused, algNoneRefused,
		everyRequest, queryTokenRefused, refusalInvalidToken, challengeSyntax},
	Run: serverside.Body(func(t *serverside.T) {
		a := needIssuer(t)
		p := newProber(t)
		requireProtected(t, p)
		valid := servedValid(t, p, a)
		var missingError, malformed []string
		for _, c := range []struct {
			check  *scenarios.Check
			defect issuer.Defect
		}{{expiredRefused, issuer.Expired}, {notYetValidRefused, issuer.NotYetValid}, {audienceRefused, issuer.WrongAud},
			{issuerRefused, issuer.WrongIssuer}, {signatureRefused, issuer.BadSignature}, {algNoneRefused, issuer.AlgNone}} {
			if !c.check.JudgedAt(t.Env.Version) {
				t.Skip(c.check, "2025-03-26 asks no audience validation (it came with 2025-06-18)")
				continue
			}
			tok := mint(t, a, "mcpconform-subject-a", a.Scopes, c.defect)
			t.Step("send %s with a token %s", t.Version().Handshake, c.defect)
			ans, err := p.send(credentials{authorization: "Bearer " + tok, what: "a token " + c.defect.String()})
			if err != nil {
				t.Abort("no HTTP answer: %v", err)
			}
			t.Judge(c.check, ans.status == http.StatusUnauthorized, "HTTP 401", ans.String())
			if _, err := wwwauth.Parse(ans.header.Values("WWW-Authenticate")); err != nil {
				malformed = append(malformed, fmt.Sprintf("a token %s: %v", c.defect, err))
			}
			if ans.status == http.StatusUnauthorized {
				if ch, ok := bearer(ans.header); !ok || ch.Params["error"] != "invalid_token" {
					missingError = append(missingError, fmt.Sprintf("a token %s: %s", c.defect, ans))
				}
			}
		}
		t.Judge(challengeSyntax, len(malformed) == 0, "challenges RFC 9110 can parse", strings.Join(malformed, "; "))
		t.Judge(refusalInvalidToken, len(missingError) == 0, `WWW-Authenticate: Bearer error="invalid_token", …`, strings.Join(missingError, "; "))

		t.Step("send %s with the valid token in the access_token query parameter only", t.Version().Handshake)
		ans, err := p.send(credentials{query: valid, what: "the valid token in the query string"})
		if err != nil {
			t.Abort("no HTTP answer: %v", err)
		}
		t.Judge(queryTokenRefused, !ans.served && ans.refused(), "HTTP 401 (the query string carries no credentials)", ans.String())

		if t.Env.Transport != transport.HTTP || t.Version().Era == protocol.Stateless {
			t.Skip(everyRequest, "judged over Streamable HTTP with sessions: a WebSocket carries its token once, at the handshake, "+
				"and a 2026-07-28 request stands alone")
			return
		}
		t.Step("open a session with the valid token, then send tools/list in it with a token that is none of the issuer's")
		s := t.Open("A", client.Options{Header: http.Header{"Authorization": {"Bearer " + valid}}})
		id := jsonrpc.StringID("mcpconform-auth-in-session")
		resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsList, Params: map[string]any{},
			Header: http.Header{"Authorization": {"Bearer mcpconform-no-token-of-any-issuer"}}})
		status, refused := judge.HTTPRejection(err)
		if !refused {
			status, refused = s.Status(id)
		}
		if !refused && err != nil && serverside.Unanswered(s, err) {
			t.Abort("no answer to tools/list with a token that is none of the issuer's: %v", err)
		}
		t.Judge(everyRequest, refused && status >= 400 && status < 500, "a refusal (HTTP 401)",
			fmt.Sprintf("HTTP %d %s", status, judge.Describe(resp, err)))
	}),
}

var scopeScenario = &scenarios.Scenario{
	ID:         "auth-insufficient-scope",
	Title:      "a protected server refuses a valid token without the scope a request needs with 403 insufficient_scope",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: transports,
	Needs:      []scenarios.Need{scenarios.NeedsOther("an issuer the target trusts"), scenarios.NeedsOther("a scope the target requires (--auth-scopes, its scopes_supported, or auth.scope_tool)")},
	Purpose: "mcpconform's issuer mints a valid token without scopes. A server that requires its scope of every request refuses " +
		"the first; one that requires it of a tool only (auth.scope_tool in the config) refuses the call. A server that requires " +
		"no scope is not judged.",
	Checks: []*scenarios.Check{scope403, scopeChallenge},
	Run: serverside.Body(func(t *serverside.T) {
		a := needIssuer(t)
		if len(a.Scopes) == 0 && a.ScopeTool == "" {
			t.SkipRest("the target's tokens need no scope (none was given or advertised): nothing to withhold")
		}
		p := newProber(t)
		requireProtected(t, p)
		servedValid(t, p, a)
		bare := mint(t, a, "mcpconform-subject-a", []string{}, issuer.Sound)
		t.Step("send %s with a valid token that has no scope", t.Version().Handshake)
		ans, err := p.send(credentials{authorization: "Bearer " + bare, what: "a valid token without scopes"})
		if err != nil {
			t.Abort("no HTTP answer: %v", err)
		}
		status, header, actual := ans.status, ans.header, ans.String()
		if ans.served {
			if a.ScopeTool == "" {
				t.SkipRest(fmt.Sprintf("the server served %s to a token without scopes; name a tool that needs a scope "+
					"(auth.scope_tool in the config) to judge its refusal", t.Version().Handshake))
			}
			status, header, actual = callWithout(t, bare, a.ScopeTool)
		}
		t.Judge(scope403, status == http.StatusForbidden, "HTTP 403 Forbidden", actual)
		if !scopeChallenge.JudgedAt(t.Env.Version) {
			t.Skip(scopeChallenge, "the page of this version names only the status (the challenge came with 2025-11-25)")
			return
		}
		if status != http.StatusForbidden {
			t.Skip(scopeChallenge, "the refusal was no 403: its challenge is judged with one")
			return
		}
		if header == nil {
			t.Skip(scopeChallenge, "the 403 came as a JSON-RPC answer on the session, whose HTTP header the session does not keep")
			return
		}
		ch, ok := bearer(header)
		t.Judge(scopeChallenge, ok && ch.Params["error"] == "insufficient_scope" && ch.Params["scope"] != "",
			`WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, actual)
	}),
}

// callWithout opens a session with a token without scopes and calls the
// tool that needs one; it returns the refusal's status and header.
func callWithout(t *serverside.T, token, tool string) (int, http.Header, string) {
	t.Step("call %s with the token without scopes", tool)
	s := t.Open("A", client.Options{Header: http.Header{"Authorization": {"Bearer " + token}}})
	id := jsonrpc.StringID("mcpconform-auth-scope")
	resp, err := t.Do(s, client.Call{ID: id, Method: protocol.MethodToolsCall, Params: map[string]any{"name": tool, "arguments": map[string]any{}}})
	var hs *transport.HTTPStatusError
	if status, ok := judge.HTTPRejection(err); ok {
		if errors.As(err, &hs) && hs.Header != nil {
			return status, hs.Header, fmt.Sprintf("HTTP %d WWW-Authenticate: %s", status, strings.Join(hs.Header.Values("WWW-Authenticate"), ", "))
		}
		return status, nil, fmt.Sprintf("HTTP %d", status)
	}
	if status, ok := s.Status(id); ok {
		return status, nil, fmt.Sprintf("HTTP %d %s", status, judge.Describe(resp, err))
	}
	return http.StatusOK, nil, judge.Describe(resp, err)
}
