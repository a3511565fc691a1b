package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
)

// common are the checks every authorization code scenario judges; each
// scenario has its own set (newCommon), so a verdict names its scenario.
type common struct {
	authorized, pkceChallenge, pkceVerifier, resource, bearer, noQuery, tokenStays, state *scenarios.Check
	// applicationType is set for a scenario whose client registers
	// dynamically (withApplicationType, registration.go).
	applicationType *scenarios.Check
	id              string
}

// newCommon makes the common checks of scenario id.
func newCommon(id string) *common {
	c := func(name string, level scenarios.Level, spec, title, quote string, f ...*fault.Fault) *scenarios.Check {
		return &scenarios.Check{ID: id + "/" + name, Level: level, Spec: spec, Title: title, Quote: quote, Faults: f}
	}
	return &common{
		id: id,
		authorized: c("authorized", scenarios.Must, page+"#authorization-server-location",
			"the client answers the 401 by authorizing, and makes its MCP requests (the call of "+testTool+") with the token it obtained",
			"MCP clients MUST be able to parse WWW-Authenticate headers and respond appropriately to HTTP 401 Unauthorized responses from the MCP server.",
			client.AuthIgnores401, client.AuthTokenInQuery),
		pkceChallenge: c("pkce-challenge", scenarios.Must, page+"#authorization-code-protection",
			"every authorization request carries a PKCE code_challenge with code_challenge_method S256",
			"MCP clients MUST use the S256 code challenge method when technically capable, as required by OAuth 2.1 Section 4.1.1.",
			client.AuthSkipsPKCE, client.AuthPlainPKCE),
		pkceVerifier: c("pkce-verifier", scenarios.Must, page+"#authorization-code-protection",
			"every code exchange carries the code_verifier whose S256 hash is the code's challenge: 43 to 128 characters of A–Z, a–z, 0–9, -, ., _, ~ (RFC 7636 §4.1)",
			"To mitigate this, MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2 and MUST verify PKCE support before proceeding with authorization.",
			client.AuthSkipsPKCE, client.AuthPlainPKCE),
		resource: c("resource-parameter", scenarios.Must, page+"#resource-parameter-implementation",
			"the authorization request and the token request both carry resource, exactly the resource the protected resource metadata publishes",
			"MUST be included in both authorization requests and token requests.",
			client.AuthDropsResource),
		bearer: c("bearer-header", scenarios.Must, page+"#token-requirements",
			"once it holds a token, every HTTP request of the client to the MCP endpoint carries it as Authorization: Bearer",
			"Note that authorization MUST be included in every HTTP request from client to server, even if they are part of the same logical session.",
			client.AuthTokenInQuery),
		noQuery: c("no-token-in-query", scenarios.Must, page+"#token-requirements",
			"no request of the client carries an access token in its URI query string",
			"Access tokens MUST NOT be included in the URI query string",
			client.AuthTokenInQuery),
		tokenStays: c("token-stays-with-resource", scenarios.Must, page+"#token-theft",
			"the MCP access token goes to the MCP server only: no request to an authorization server carries it",
			"Clients and servers MUST implement secure token storage and follow OAuth best practices, as outlined in OAuth 2.1, Section 7.1.",
			client.AuthTokenToAS),
		state: c("state", scenarios.Should, page+"#open-redirection",
			"every authorization request carries a state parameter",
			"MCP clients SHOULD use and verify state parameters in the authorization code flow and discard any results that do not include or have a mismatch with the original state.",
			client.AuthNoState),
	}
}

// list is the scenario's common checks; a check set to nil (resource at
// 2025-03-26, which has no resource indicators) is not among them.
func (c *common) list() []*scenarios.Check {
	all := []*scenarios.Check{c.authorized, c.pkceChallenge, c.pkceVerifier, c.resource, c.bearer, c.noQuery, c.tokenStays, c.state, c.applicationType}
	return slices.DeleteFunc(all, func(ch *scenarios.Check) bool { return ch == nil })
}

// verifierSyntax is RFC 7636 §4.1's code_verifier.
var verifierSyntax = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// judge judges the common checks on the flow. resource is what the
// protected resource metadata published ("" where the version has none).
func (c *common) judge(f *flow, resource string) {
	t := f.t
	t.Judge(c.authorized, f.authorized() && f.called(), "an MCP request with an issued token, and the call of "+testTool,
		c.describeProgress(f))
	c.judgeAllButAuthorized(f, resource)
}

// judgeAllButAuthorized judges the common checks except authorized (what
// judge adds), for a flow the server never lets through too: the client
// obtains tokens, and every one is refused.
func (c *common) judgeAllButAuthorized(f *flow, resource string) {
	t := f.t
	var authz, exchanges []authserver.Exchange
	codes := map[string]authserver.Code{}
	for _, as := range f.p.Servers {
		authz = append(authz, f.endpoint(as, "/authorize")...)
		for _, e := range f.endpoint(as, "/token") {
			if e.Form.Get("grant_type") == "authorization_code" {
				exchanges = append(exchanges, e)
			}
		}
		for _, code := range as.Codes() {
			codes[code.Value] = code
		}
	}
	if len(authz) == 0 {
		noAuthorization(f, c.pkceChallenge, c.state)
	} else {
		c.judgeAuthzRequests(f, authz)
	}
	if len(exchanges) == 0 {
		t.Skip(c.pkceVerifier, "the client made no code exchange at a token endpoint ("+f.end()+")")
	} else {
		var bad []string
		for _, e := range exchanges {
			v := e.Form.Get("code_verifier")
			code, known := codes[e.Form.Get("code")]
			switch {
			case v == "":
				bad = append(bad, "a code exchange without code_verifier")
			case !verifierSyntax.MatchString(v):
				bad = append(bad, fmt.Sprintf("a code_verifier of %d characters outside RFC 7636's syntax", len(v)))
			case known && code.Challenge != authserver.S256(v):
				bad = append(bad, "a code_verifier whose S256 hash is not the code's challenge")
			}
		}
		t.Judge(c.pkceVerifier, len(bad) == 0, "a code_verifier that matches the S256 challenge", listed(bad))
	}
	c.judgeResource(f, resource, authz, exchanges)
	c.judgeTokenUse(f)
	if c.applicationType != nil {
		c.judgeApplicationType(f)
	}
}

// judgeAuthzRequests judges PKCE's challenge and state on the
// authorization requests.
func (c *common) judgeAuthzRequests(f *flow, authz []authserver.Exchange) {
	var noPKCE, noState []string
	for _, e := range authz {
		q := params(e)
		if q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
			noPKCE = append(noPKCE, fmt.Sprintf("code_challenge %s, code_challenge_method %s", present(q.Get("code_challenge")), quoted(q.Get("code_challenge_method"))))
		}
		if q.Get("state") == "" {
			noState = append(noState, "an authorization request without state")
		}
	}
	f.t.Judge(c.pkceChallenge, len(noPKCE) == 0, "code_challenge and code_challenge_method S256", listed(noPKCE))
	f.t.Judge(c.state, len(noState) == 0, "state on every authorization request", listed(noState))
}

func (c *common) judgeResource(f *flow, resource string, authz, exchanges []authserver.Exchange) {
	t := f.t
	if c.resource == nil {
		return
	}
	if resource == "" {
		t.Skip(c.resource, "this version publishes no protected resource metadata")
		return
	}
	if len(authz)+len(exchanges) == 0 {
		t.Skip(c.resource, "the client made no authorization or token request ("+f.end()+")")
		return
	}
	var bad []string
	for _, e := range authz {
		if got := params(e).Get("resource"); got != resource {
			bad = append(bad, "authorization request: resource "+quoted(got))
		}
	}
	for _, e := range exchanges {
		if got := e.Form.Get("resource"); got != resource {
			bad = append(bad, "token request: resource "+quoted(got))
		}
	}
	t.Judge(c.resource, len(bad) == 0, fmt.Sprintf("resource %q in both requests", resource), listed(bad))
}

// judgeTokenUse judges where the issued tokens went.
func (c *common) judgeTokenUse(f *flow) {
	t := f.t
	issued := map[string]bool{}
	for _, as := range f.p.Servers {
		for _, g := range as.Grants() {
			issued[g.Access] = true
		}
	}
	if len(issued) == 0 {
		for _, ch := range []*scenarios.Check{c.bearer, c.noQuery, c.tokenStays} {
			t.Skip(ch, "no access token was issued ("+f.end()+")")
		}
		return
	}
	var inQuery, toAS, unauthorized []string
	first := firstIssue(f)
	for _, e := range f.entries {
		for _, vs := range e.Query {
			for _, v := range vs {
				if issued[v] {
					inQuery = append(inQuery, fmt.Sprintf("%s %s %s", e.Server, e.Method, e.Path))
				}
			}
		}
		if e.Server != "resource" && carries(e, issued) {
			toAS = append(toAS, fmt.Sprintf("%s %s %s", e.Server, e.Method, e.Path))
		}
		if e.Server == "resource" && e.Path == "/mcp" && !first.IsZero() && e.At.After(first) {
			if tok, ok := f.presented(e.Header); !ok || !issued[tok] {
				unauthorized = append(unauthorized, fmt.Sprintf("%s /mcp%s", e.Method, map[bool]string{true: " (" + e.RPCMethod + ")", false: ""}[e.RPCMethod != ""]))
			}
		}
	}
	t.Judge(c.noQuery, len(inQuery) == 0, "no token in any query string", listed(inQuery))
	t.Judge(c.tokenStays, len(toAS) == 0, "no access token sent to an authorization server", listed(toAS))
	t.Judge(c.bearer, len(unauthorized) == 0, "Authorization: "+map[bool]string{true: "Bearer", false: f.scheme}[f.scheme == ""]+" with an issued token on every request after the first token", listed(unauthorized))
}

// carries reports whether e carries an issued token anywhere a token goes:
// the Authorization header, the form, the JSON body.
func carries(e authserver.Exchange, issued map[string]bool) bool {
	for _, v := range e.Header.Values("Authorization") {
		if _, cred, ok := strings.Cut(v, " "); ok && issued[strings.TrimSpace(cred)] {
			return true
		}
	}
	for _, vs := range e.Form {
		for _, v := range vs {
			if issued[v] {
				return true
			}
		}
	}
	for _, v := range e.JSON {
		if s, ok := v.(string); ok && issued[s] {
			return true
		}
	}
	return false
}

// describeProgress says how far the client got, for the authorized check.
func (c *common) describeProgress(f *flow) string {
	switch {
	case f.authorized() && !f.called():
		return "the client made MCP requests with its token but never called " + testTool + " (" + f.end() + ")"
	case len(f.of("as")) == 0:
		return "the client never contacted the authorization server (" + f.end() + ")"
	}
	return "no MCP request with an issued token (" + f.end() + ")"
}

// params are the authorization request's parameters (query, or form for a
// POST).
func params(e authserver.Exchange) url.Values {
	if len(e.Form) > 0 {
		return e.Form
	}
	return e.Query
}

// firstIssue is when the first access token was issued (zero if none).
func firstIssue(f *flow) time.Time {
	for _, e := range f.entries {
		if e.Server != "resource" && e.Status == http.StatusOK && e.Method == http.MethodPost && e.Form.Get("grant_type") != "" {
			return e.At
		}
	}
	return time.Time{}
}

func present(v string) string {
	if v == "" {
		return "absent"
	}
	return "present"
}

func quoted(v string) string {
	if v == "" {
		return "absent"
	}
	return fmt.Sprintf("%q", v)
}
