package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"golang.org/x/oauth2"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/wwwauth"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference client's OAuth 2.1 layer (the authorization pages of
// 2025-03-26 to 2026-07-28): a round tripper under the HTTP transport that
// puts the bearer token on every request and answers a 401 or a 403
// insufficient_scope challenge by authorizing, as SDK authorization layers
// do. Discovery is its own (RFC 9728, RFC 8414 and OpenID Connect
// Discovery in the order the pages give); the flow, PKCE and the token
// endpoint's client authentication are golang.org/x/oauth2's.

// Redirect URI and client metadata document of the reference client (the
// official suite's values, so a scenario can expect them).
const (
	ReferenceRedirectURI = "http://localhost:3000/callback"
	ReferenceCIMDURL     = "https://conformance-test.local/client-metadata.json"
)

// maxAuthorizations bounds the authorizations for one request: a server
// that refuses every new token gets this many, then its refusal is the
// answer (2025-11-25/basic/authorization.mdx#scope-challenge-handling:
// clients SHOULD implement retry limits).
const maxAuthorizations = 3

// authContext is what $MCP_CONFORMANCE_CONTEXT may give an authorizing
// client (the official keys).
type authContext struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	// Issuer is the authorization server the credentials belong to.
	Issuer string `json:"issuer"`
}

// clientCreds is the client's identity at one authorization server.
type clientCreds struct {
	id, secret, method string
}

type authorizer struct {
	rc     *referenceRun
	server *url.URL
	hc     *http.Client // discovery and the authorization server: never follows a redirect
	ctx    authContext

	mu            sync.Mutex
	refusedInARow int // authorizations whose token was refused, since the last request let through
	token         *oauth2.Token
	scopes        []string
	clients       map[string]clientCreds // by issuer: credentials are never reused across servers
	issuer        string
	cfg           *oauth2.Config
	ext           extState // the extensions (reference_auth_ext.go)
}

func newAuthorizer(rc *referenceRun) (*authorizer, error) {
	u, err := url.Parse(rc.opts.Server)
	if err != nil {
		return nil, err
	}
	a := &authorizer{rc: rc, server: u, hc: transport.NewHTTPClient(nil), clients: map[string]clientCreds{}}
	if rc.opts.Context != "" {
		_ = json.Unmarshal([]byte(rc.opts.Context), &a.ctx)
	}
	return a, nil
}

// wrap is the transport hook (Target.WrapHTTP).
func (a *authorizer) wrap(next http.RoundTripper) http.RoundTripper {
	next = a.wrapExt(next)
	return roundTripFunc(func(req *http.Request) (*http.Response, error) { return a.roundTrip(next, req) })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (a *authorizer) roundTrip(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		r, err := a.authorized(req)
		if err != nil {
			return nil, err
		}
		resp, err := next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		ch, refused := readChallenge(resp)
		if !refused {
			a.mu.Lock()
			a.refusedInARow = 0
			a.mu.Unlock()
			return resp, nil
		}
		if a.is(AuthIgnores401) {
			return resp, nil
		}
		if resp.StatusCode == http.StatusForbidden && a.is(AuthNoStepUp) {
			return resp, nil
		}
		// The limit counts authorizations refused in a row across
		// requests, not per request: a server that refuses every token
		// gets the limit once, however many requests the client makes.
		a.mu.Lock()
		inARow := a.refusedInARow
		a.mu.Unlock()
		if (attempt >= a.retryLimit() || inARow >= a.retryLimit()) && !a.is(AuthRetriesForever) {
			a.rc.logf("authorization: still refused after %d authorizations in a row; giving up", inARow)
			return resp, nil
		}
		if resp.StatusCode == http.StatusForbidden && attempt > 0 && a.grantedAll(ch.scope) && a.tracksScopes() {
			// The token already carries what the challenge asks: a new one
			// would be refused the same way.
			a.rc.logf("authorization: refused with scope %q, which the token already has; giving up", ch.scope)
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		a.mu.Lock()
		a.refusedInARow++
		a.mu.Unlock()
		if err := a.authorize(req.Context(), ch, resp.StatusCode); err != nil {
			return nil, fmt.Errorf("authorization: %w", err)
		}
		if req.Body != nil && req.GetBody == nil {
			return nil, errors.New("authorization: the request cannot be sent again")
		}
	}
}

// authorized is req with the current token, in the header (or, for the
// token-in-query fault, the query).
func (a *authorizer) authorized(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	a.mu.Lock()
	tok := a.token
	a.mu.Unlock()
	if tok == nil {
		return r, nil
	}
	if a.is(AuthTokenInQuery) {
		q := r.URL.Query()
		q.Set("access_token", tok.AccessToken)
		r.URL.RawQuery = q.Encode()
		return r, nil
	}
	r.Header.Set("Authorization", a.scheme(tok)+" "+tok.AccessToken)
	return r, nil
}

func (a *authorizer) grantedAll(scope string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range strings.Fields(scope) {
		if !slices.Contains(a.scopes, s) {
			return false
		}
	}
	return true
}

// challenge is what a 401 or 403 said in WWW-Authenticate.
type challenge struct {
	scheme, errCode, scope, resourceMetadata string
}

// readChallenge reads a 401, or a 403 whose error is insufficient_scope
// (2025-11-25/basic/authorization.mdx#scope-challenge-handling).
func readChallenge(resp *http.Response) (challenge, bool) {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return challenge{}, false
	}
	ch := parseChallenge(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && ch.errCode != "insufficient_scope" {
		return challenge{}, false
	}
	return ch, true
}

// parseChallenge reads the Bearer (or DPoP) challenges' auth-params (RFC
// 9110 §11.6.1); a later one's param overrides an earlier one's.
func parseChallenge(values []string) challenge {
	var ch challenge
	all, _ := wwwauth.Parse(values)
	for _, c := range all {
		if !strings.EqualFold(c.Scheme, "Bearer") && !strings.EqualFold(c.Scheme, "DPoP") {
			continue
		}
		ch.scheme = "Bearer"
		for key, field := range map[string]*string{"error": &ch.errCode, "scope": &ch.scope, "resource_metadata": &ch.resourceMetadata} {
			if v, ok := c.Params[key]; ok {
				*field = v
			}
		}
	}
	return ch
}

// authorize runs the whole flow once: discovery, registration, the
// authorization request and the code exchange.
func (a *authorizer) authorize(ctx context.Context, ch challenge, status int) error {
	a.rc.logf("authorization: HTTP %d, challenge %+v", status, ch)
	if done, err := a.authorizeExtension(ctx, ch); done {
		return err
	}
	prm, err := a.resourceMetadata(ctx, ch)
	if err != nil {
		return err
	}
	asMeta, issuer, err := a.serverMetadata(ctx, prm)
	if err != nil {
		return err
	}
	if err := a.lateResourceCheck(prm); err != nil {
		return err
	}
	if err := a.checkPKCE(asMeta); err != nil {
		return err
	}
	if status == http.StatusUnauthorized && a.refreshable(issuer) {
		err := a.refresh(ctx, prm.resource)
		if err == nil {
			return nil
		}
		a.rc.logf("authorization: %v; authorizing again", err)
	}
	creds, err := a.client(ctx, issuer, asMeta)
	if err != nil {
		return err
	}
	scopes := a.chooseScopes(ch, prm, asMeta)
	cfg := &oauth2.Config{
		ClientID:     creds.id,
		ClientSecret: creds.secret,
		RedirectURL:  ReferenceRedirectURI,
		Scopes:       scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL:   metaString(asMeta, "authorization_endpoint"),
			TokenURL:  metaString(asMeta, "token_endpoint"),
			AuthStyle: a.tokenAuthStyle(creds.method),
		},
	}
	resource := prm.resource
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	if a.is(AuthNoState) {
		state = ""
	}
	var opts []oauth2.AuthCodeOption
	switch {
	case a.is(AuthSkipsPKCE):
	case a.is(AuthPlainPKCE):
		opts = append(opts, oauth2.SetAuthURLParam("code_challenge_method", "plain"), oauth2.SetAuthURLParam("code_challenge", verifier))
	default:
		opts = append(opts, oauth2.S256ChallengeOption(verifier))
	}
	if resource != "" && !a.is(AuthDropsResource) {
		opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
	}
	code, err := a.authorizationCode(ctx, cfg.AuthCodeURL(state, opts...), state, issuer, asMeta)
	if err != nil {
		return err
	}
	var xopts []oauth2.AuthCodeOption
	if !a.is(AuthSkipsPKCE) {
		xopts = append(xopts, oauth2.VerifierOption(verifier))
	}
	if resource != "" && !a.is(AuthDropsResource) {
		xopts = append(xopts, oauth2.SetAuthURLParam("resource", resource))
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, a.tokenClient()), code, xopts...)
	if err != nil {
		return fmt.Errorf("the token request failed: %w", err)
	}
	a.mu.Lock()
	a.token, a.scopes, a.issuer, a.cfg = tok, scopes, issuer, cfg
	a.mu.Unlock()
	a.rc.logf("authorization: token issued by %s for scopes %q", issuer, strings.Join(scopes, " "))
	if a.is(AuthRefreshesEarly) && tok.RefreshToken != "" {
		if err := a.refresh(ctx, prm.resource); err != nil {
			a.rc.logf("authorization: early refresh: %v", err)
		}
	}
	if a.is(AuthTokenToAS) {
		a.leakToken(ctx, prm, tok.AccessToken)
	}
	return nil
}

// leakToken is the fault auth-token-to-as: the authorization server's
// metadata fetched again, with the MCP access token on the request.
func (a *authorizer) leakToken(ctx context.Context, prm prmDoc, token string) {
	u, err := url.Parse(prm.servers[0])
	if err != nil || loopbackOnly(u) != nil {
		return
	}
	target := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	if prm.legacy {
		// 2025-03-26: the server may have no metadata, and its origin is
		// the MCP server's; the token endpoint is the authorization
		// server's in every case.
		a.mu.Lock()
		target = a.cfg.Endpoint.TokenURL
		a.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := a.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// prmDoc is the Protected Resource Metadata the client uses.
type prmDoc struct {
	resource string
	servers  []string
	scopes   []string
	// legacy: no metadata (2025-03-26): the server's origin is the
	// authorization base URL.
	legacy bool
}

// resourceMetadata finds the Protected Resource Metadata: the challenge's
// resource_metadata, else the well-known URIs with the path inserted, then
// at the root (2025-11-25/basic/authorization.mdx#protected-resource-metadata-discovery-requirements).
func (a *authorizer) resourceMetadata(ctx context.Context, ch challenge) (prmDoc, error) {
	var candidates []string
	origin := a.server.Scheme + "://" + a.server.Host
	if a.is(AuthPRMRootFirst) {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	}
	if ch.resourceMetadata != "" {
		candidates = append(candidates, ch.resourceMetadata)
	}
	if p := strings.TrimSuffix(a.server.Path, "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	for _, u := range candidates {
		doc, status, err := a.getJSON(ctx, u)
		if err != nil {
			return prmDoc{}, err
		}
		if status != http.StatusOK {
			continue
		}
		prm := prmDoc{resource: metaString(doc, "resource"), servers: metaStrings(doc, "authorization_servers"),
			scopes: metaStrings(doc, "scopes_supported")}
		if len(prm.servers) == 0 {
			return prmDoc{}, fmt.Errorf("the protected resource metadata at %s names no authorization server", u)
		}
		if !a.is(AuthAcceptsResourceMismatch) && !a.is(AuthValidatesResourceLate) && !a.resourceMatches(prm.resource) {
			return prmDoc{}, fmt.Errorf("the protected resource metadata names resource %q, not the server %s (RFC 9728 §3.3)", prm.resource, a.server)
		}
		return prm, nil
	}
	if !protocol.Features(a.rc.opts.Version).ProtectedResourceMetadata {
		// 2025-03-26/basic/authorization.mdx#server-metadata-discovery: the
		// authorization base URL is the server's URL without its path.
		return prmDoc{servers: []string{a.legacyBase(origin)}, legacy: true}, nil
	}
	return prmDoc{}, errors.New("no protected resource metadata found")
}

// resourceMatches: the resource identifier is the server's URL or a prefix
// of it on the same origin (metadata at the root names the origin).
func (a *authorizer) resourceMatches(resource string) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Scheme != a.server.Scheme || r.Host != a.server.Host {
		return false
	}
	rp, sp := a.resourcePaths(r.Path, a.server.Path)
	return rp == sp || rp == "" || strings.HasPrefix(sp, rp+"/")
}

// serverMetadata discovers the first named authorization server's metadata
// (2025-11-25/basic/authorization.mdx#authorization-server-metadata-discovery).
func (a *authorizer) serverMetadata(ctx context.Context, prm prmDoc) (map[string]any, string, error) {
	issuer := prm.servers[0]
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("authorization server %q is not a URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.Path, "/")
	var candidates []string
	if p != "" {
		candidates = []string{origin + "/.well-known/oauth-authorization-server" + p, origin + "/.well-known/openid-configuration" + p,
			origin + p + "/.well-known/openid-configuration"}
	} else {
		candidates = []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	candidates = a.adjustASCandidates(candidates)
	if a.is(AuthSkipsASMetadata) {
		prm.legacy = true
		candidates = nil
	}
	if a.is(AuthASMetadataAtRoot) {
		candidates = append([]string{origin + "/.well-known/oauth-authorization-server"}, candidates...)
	}
	for _, c := range candidates {
		doc, status, err := a.getJSON(ctx, c)
		if err != nil {
			return nil, "", err
		}
		if status != http.StatusOK {
			continue
		}
		if got := metaString(doc, "issuer"); got != issuer && !a.is(AuthAcceptsIssuerMismatch) {
			return nil, "", fmt.Errorf("the metadata at %s names issuer %q, not %q (RFC 8414 §3.3)", c, got, issuer)
		}
		return doc, issuer, nil
	}
	if prm.legacy && !a.is(AuthLegacyNoFallback) {
		// 2025-03-26/basic/authorization.mdx#fallbacks-for-servers-without-metadata-discovery
		base := origin + p
		return map[string]any{"issuer": issuer, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []any{"S256"}, "legacy": true}, issuer, nil
	}
	return nil, "", fmt.Errorf("no authorization server metadata found for %s", issuer)
}

// checkPKCE: without code_challenge_methods_supported listing S256 the
// client refuses to proceed (2025-11-25/basic/authorization.mdx#authorization-code-protection).
func (a *authorizer) checkPKCE(doc map[string]any) error {
	if _, legacy := doc["legacy"]; legacy || a.rc.opts.Version == protocol.V20250326 || a.rc.opts.Version == protocol.V20250618 {
		return nil
	}
	if !slices.Contains(metaStrings(doc, "code_challenge_methods_supported"), "S256") {
		return errors.New("the authorization server does not advertise PKCE S256 (code_challenge_methods_supported); refusing to proceed")
	}
	return nil
}

// client is the client's identity at issuer: pre-registered credentials
// from the context, a client ID metadata document URL where the server
// takes one, else dynamic registration. Credentials stay with the issuer
// that issued them.
func (a *authorizer) client(ctx context.Context, issuer string, doc map[string]any) (clientCreds, error) {
	a.mu.Lock()
	if c, ok := a.clients[issuer]; ok {
		a.mu.Unlock()
		return c, nil
	}
	if a.is(AuthReusesCredentials) && len(a.clients) > 0 {
		for _, c := range a.clients {
			a.mu.Unlock()
			return c, nil
		}
	}
	a.mu.Unlock()
	methods := metaStrings(doc, "token_endpoint_auth_methods_supported")
	var c clientCreds
	switch {
	case a.preRegistered(issuer):
		c = clientCreds{id: a.ctx.ClientID, secret: a.ctx.ClientSecret, method: pickMethod(methods, a.ctx.ClientSecret != "")}
	case a.usesCIMD(doc):
		c = clientCreds{id: a.cimdURL(), method: "none"}
	case metaString(doc, "registration_endpoint") != "":
		var err error
		if c, err = a.register(ctx, metaString(doc, "registration_endpoint"), methods); err != nil {
			return clientCreds{}, err
		}
	default:
		return clientCreds{}, errors.New("no way to identify the client: no pre-registered credentials, no client ID metadata documents, no registration endpoint")
	}
	a.mu.Lock()
	a.clients[issuer] = c
	a.mu.Unlock()
	return c, nil
}

// pickMethod chooses the token endpoint authentication from what the
// server supports: none for a public client where offered, else
// client_secret_basic, else client_secret_post (OAuth 2.1 §2.5: basic is
// the one servers must support).
func pickMethod(supported []string, hasSecret bool) string {
	if len(supported) == 0 {
		if hasSecret {
			return "client_secret_basic"
		}
		return "none"
	}
	if !hasSecret && slices.Contains(supported, "none") {
		return "none"
	}
	for _, m := range []string{"client_secret_basic", "client_secret_post", "none"} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	return supported[0]
}

func (a *authorizer) register(ctx context.Context, endpoint string, methods []string) (clientCreds, error) {
	method := a.registrationMethod(methods)
	meta := map[string]any{
		"client_name":                ReferenceClientName,
		"redirect_uris":              []string{ReferenceRedirectURI},
		"grant_types":                a.grantTypes(),
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"application_type":           "native",
	}
	if a.is(AuthNoApplicationType) {
		delete(meta, "application_type")
	}
	body, _ := json.Marshal(meta)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return clientCreds{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if err := loopbackOnly(req.URL); err != nil {
		return clientCreds{}, err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return clientCreds{}, fmt.Errorf("dynamic registration at %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	var answer map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&answer); err != nil || resp.StatusCode/100 != 2 {
		return clientCreds{}, fmt.Errorf("dynamic registration at %s: HTTP %d", endpoint, resp.StatusCode)
	}
	c := clientCreds{id: metaString(answer, "client_id"), secret: metaString(answer, "client_secret"),
		method: metaString(answer, "token_endpoint_auth_method")}
	if c.method == "" {
		c.method = method
	}
	if c.id == "" {
		return clientCreds{}, fmt.Errorf("dynamic registration at %s: no client_id in the answer", endpoint)
	}
	return c, nil
}

func authStyle(method string) oauth2.AuthStyle {
	if method == "client_secret_basic" {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// chooseScopes follows the scope selection strategy: the challenge's
// scope, else the metadata's scopes_supported, else none; a step-up keeps
// what was granted and adds what is asked
// (2025-11-25/basic/authorization.mdx#scope-selection-strategy).
func (a *authorizer) chooseScopes(ch challenge, prm prmDoc, asMeta map[string]any) []string {
	var scopes []string
	switch {
	case ch.scope != "" && !a.is(AuthIgnoresChallengeScope):
		scopes = strings.Fields(ch.scope)
	case len(prm.scopes) > 0:
		scopes = append(scopes, prm.scopes...)
	}
	scopes = a.faultyScopes(ch, scopes, prm, asMeta)
	a.mu.Lock()
	for _, s := range a.scopes {
		if !slices.Contains(scopes, s) && ch.errCode == "insufficient_scope" && a.keepsGranted() {
			scopes = append(scopes, s)
		}
	}
	a.mu.Unlock()
	return a.withOfflineAccess(scopes, asMeta)
}

// authorizationCode makes the authorization request and reads the code
// from the redirect, which is never followed: its Location is the answer.
func (a *authorizer) authorizationCode(ctx context.Context, authURL, state, issuer string, asMeta map[string]any) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	if err := loopbackOnly(req.URL); err != nil {
		return "", err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("the authorization request: %w", err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode/100 != 3 || err != nil {
		return "", fmt.Errorf("the authorization request was answered HTTP %d, not a redirect", resp.StatusCode)
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return "", fmt.Errorf("the authorization server refused: %s", e)
	}
	if q.Get("state") != state && !a.is(AuthIgnoresState) {
		return "", errors.New("the authorization response's state is not the one sent")
	}
	if err := a.checkIss(q, issuer, asMeta); err != nil {
		return "", err
	}
	if q.Get("code") == "" {
		return "", errors.New("the authorization response carries no code")
	}
	return q.Get("code"), nil
}

// checkIss validates the authorization response's iss by simple string
// comparison with the issuer whose metadata was used (RFC 9207 §2.4).
func (a *authorizer) checkIss(q url.Values, issuer string, asMeta map[string]any) error {
	if a.is(AuthAcceptsWrongIss) {
		return nil
	}
	iss, present := q.Get("iss"), q.Has("iss")
	advertised := metaBool(asMeta, "authorization_response_iss_parameter_supported")
	switch {
	case present && !a.issMatches(iss, issuer, advertised):
		return fmt.Errorf("the authorization response's iss %q is not the issuer %q (RFC 9207)", iss, issuer)
	case !present && a.issRequired(advertised):
		return errors.New("the authorization server advertises the iss parameter, and its response has none (RFC 9207)")
	}
	return nil
}

func (a *authorizer) getJSON(ctx context.Context, u string) (map[string]any, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	if err := loopbackOnly(req.URL); err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, nil
	}
	var doc map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc); err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: not a JSON object: %w", u, err)
	}
	return doc, http.StatusOK, nil
}

// loopbackOnly keeps the reference client's own fetches on this machine: it
// judges fakes on loopback, and follows no URL elsewhere.
func loopbackOnly(u *url.URL) error {
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not on loopback: the reference client fetches nothing elsewhere", u.Redacted())
}

func randomState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}

func metaString(doc map[string]any, key string) string {
	s, _ := doc[key].(string)
	return s
}

func metaBool(doc map[string]any, key string) bool {
	b, _ := doc[key].(bool)
	return b
}

func metaStrings(doc map[string]any, key string) []string {
	var out []string
	if list, ok := doc[key].([]any); ok {
		for _, e := range list {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// is reports whether the run's variant is f, where f acts: everywhere, or
// in the scenarios authFaultScenarios confines it to.
func (a *authorizer) is(f *fault.Fault) bool {
	if !a.rc.is(f) {
		return false
	}
	scope, ok := authFaultScenarios[f]
	return !ok || slices.Contains(scope, a.rc.opts.Scenario)
}
