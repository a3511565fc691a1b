package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/issuer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference server as an OAuth 2.1 resource server: a front before its
// Streamable HTTP or WebSocket endpoint that serves Protected Resource
// Metadata (RFC 9728) and refuses every request without a valid access
// token of the issuer it trusts (go-jose verifies; an opaque token is
// introspected, RFC 7662). A variant bends one rule of it.

// RequiredScope is the scope the protected reference asks of every request.
const RequiredScope = "mcp:tools"

// PRMWellKnown is RFC 9728's well-known path prefix.
const PRMWellKnown = "/.well-known/oauth-protected-resource"

// Protection is what the protected reference trusts.
type Protection struct {
	Issuer string
	// Keys are the issuer's public keys; without them they are fetched
	// from the issuer's JWKS (IssuerJWKS) at the first token, and again
	// when a token names a key the set lacks, as resource servers do.
	Keys jose.JSONWebKeySet
	// Introspection is the issuer's RFC 7662 endpoint (opaque-tokens).
	Introspection string
}

// TrustIssuer is the Protection of an issuer served elsewhere (by
// `mcpconform auth-server` or a judging run's --auth-listen): its keys are
// fetched from its JWKS when a token first needs them.
func TrustIssuer(url string) Protection {
	url = strings.TrimSuffix(url, "/")
	return Protection{Issuer: url, Introspection: url + issuer.PathIntrospect}
}

// Scopes are those the variant asks of a token (nil: none).
func Scopes(v *fault.Fault) []string {
	if v == NoScopes {
		return nil
	}
	return []string{RequiredScope}
}

// ListenProtected serves the reference's endpoint over kind (http, ws)
// behind the resource-server front of variant v.
func ListenProtected(ctx context.Context, kind transport.Kind, addr string, v *fault.Fault, p Protection, opts transport.Options) (transport.Listener, error) {
	return listenFront(ctx, kind, addr, opts, func(next http.Handler, origin, url string) http.Handler {
		return &authFront{v: v, p: p, next: next, events: opts.Transcript, label: opts.Session, origin: origin, resource: url,
			authorized: map[string]bool{}, hc: transport.NewHTTPClient(nil)}
	})
}

// authFront is the resource server of one variant.
type authFront struct {
	v        *fault.Fault
	p        Protection
	next     http.Handler
	events   *jsonrpc.Transcript
	label    string
	origin   string // "http://127.0.0.1:PORT"
	resource string // the endpoint's URL: its resource identifier
	hc       *http.Client

	mu         sync.Mutex
	fetched    bool            // the keys came from the JWKS (fetched once a kid is unknown)
	authorized map[string]bool // session ids whose initialize carried a valid token (session-trusts-initialize)
}

func (f *authFront) is(v *fault.Fault) bool { return f.v == v }

// prmPath is where the document is served; prmURL is what the challenge names.
func (f *authFront) prmPath() string {
	if f.is(PRMAtRoot) {
		return PRMWellKnown
	}
	u, _ := url.Parse(f.resource)
	return PRMWellKnown + u.Path
}

func (f *authFront) prmResource() string {
	switch {
	case f.is(PRMResourceWrong):
		return "http://127.0.0.1:1/another-server/mcp"
	case f.is(PRMAtRoot):
		// The root document describes the resource its origin names.
		u, _ := url.Parse(f.resource)
		return u.Scheme + "://" + u.Host
	}
	return f.resource
}

func (f *authFront) scopes() []string {
	s := Scopes(f.v)
	if f.is(OfflineAccessAdvertised) {
		s = append(s, "offline_access")
	}
	return s
}

func (f *authFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/.well-known/") {
		f.serveMetadata(w, r)
		return
	}
	if !f.authorize(w, r) {
		return
	}
	f.next.ServeHTTP(w, r)
}

func (f *authFront) serveMetadata(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != f.prmPath() || f.is(PRMUndiscoverable) {
		http.NotFound(w, r)
		return
	}
	doc := map[string]any{"resource": f.prmResource(), "authorization_servers": []string{f.p.Issuer},
		"bearer_methods_supported": []string{"header"}}
	if f.is(PRMNoAuthorizationServers) {
		doc["authorization_servers"] = []string{}
	}
	if s := f.scopes(); len(s) > 0 {
		doc["scopes_supported"] = s
	}
	if f.is(DPoPAdvertised) || f.is(DPoPProofUnchecked) {
		doc["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	b, _ := json.Marshal(doc)
	ct := "application/json"
	if f.is(PRMNotJSON) {
		ct = "text/html; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
}

// authorize lets a request through or refuses it, as the variant does.
func (f *authFront) authorize(w http.ResponseWriter, r *http.Request) bool {
	header := r.Header.Get("Authorization")
	if f.is(SessionTrustsInitialize) {
		if sid := r.Header.Get(transport.HeaderSessionID); sid != "" {
			f.mu.Lock()
			trusted := f.authorized[sid]
			f.mu.Unlock()
			if trusted {
				return true
			}
		}
	}
	if header == "" {
		if tok := r.URL.Query().Get("access_token"); tok != "" && f.is(QueryTokenAccepted) {
			header = "Bearer " + tok
		} else {
			status := http.StatusUnauthorized
			if f.is(NoToken403) {
				status = http.StatusForbidden
			}
			f.challenge(w, status, "", "", "no access token", true)
			return false
		}
	}
	scheme, token, _ := strings.Cut(header, " ")
	if strings.EqualFold(scheme, "DPoP") && f.is(DPoPProofUnchecked) {
		scheme = "Bearer" // taken as if it had its proof
	}
	if !strings.EqualFold(scheme, "Bearer") {
		if f.is(OtherSchemeServed) {
			return true
		}
		f.challenge(w, http.StatusUnauthorized, "", "", "not a Bearer token", false)
		return false
	}
	if token == "" || strings.ContainsAny(strings.TrimSpace(token), " \t") {
		if f.is(MalformedHeaderServed) && token == "" {
			return true
		}
		status, code := http.StatusBadRequest, "invalid_request"
		if f.is(MalformedHeader401) {
			status, code = http.StatusUnauthorized, "invalid_token"
		}
		f.challenge(w, status, code, "", "malformed Authorization header", false)
		return false
	}
	scopes, bound, why := f.validate(r.Context(), strings.TrimSpace(token))
	if why == "" && bound && !f.is(DPoPProofUnchecked) {
		// RFC 9449 §7.2: a DPoP-bound token is no bearer token; the
		// DPoP scheme with a verified proof is refused above (this
		// reference verifies none).
		why = "a DPoP-bound token presented as a bearer token"
	}
	if why != "" {
		code := "invalid_token"
		if f.is(InvalidTokenNoError) {
			code = ""
		}
		f.challenge(w, http.StatusUnauthorized, code, "", why, false)
		return false
	}
	for _, need := range Scopes(f.v) {
		if !slices.Contains(scopes, need) {
			switch {
			case f.is(Scope401):
				f.challenge(w, http.StatusUnauthorized, "invalid_token", need, "the token lacks scope "+need, false)
			case f.is(ScopeNoChallenge):
				f.refuse(w, http.StatusForbidden, "Bearer", "the token lacks scope "+need)
			default:
				f.challenge(w, http.StatusForbidden, "insufficient_scope", need, "the token lacks scope "+need, false)
			}
			return false
		}
	}
	if f.is(SessionTrustsInitialize) && r.Method == http.MethodPost {
		// A session's id comes back in the answer: remember it then.
		w = &sessionNoter{ResponseWriter: w, f: f}
		f.next.ServeHTTP(w, r)
		return false
	}
	return true
}

// sessionNoter remembers the session id an authorized answer assigns.
type sessionNoter struct {
	http.ResponseWriter
	f *authFront
}

func (s *sessionNoter) WriteHeader(code int) {
	if sid := s.Header().Get(transport.HeaderSessionID); sid != "" && code/100 == 2 {
		s.f.mu.Lock()
		s.f.authorized[sid] = true
		s.f.mu.Unlock()
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionNoter) Flush() {
	if fl, ok := s.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (s *sessionNoter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// validate checks a token as the variant does; why is "" for a token it
// serves; bound says it is bound to a DPoP key.
func (f *authFront) validate(ctx context.Context, token string) (scopes []string, bound bool, why string) {
	if f.is(OpaqueTokens) {
		scopes, why := f.introspect(ctx, token)
		return scopes, false, why
	}
	now := time.Now()
	c, err := f.claims(ctx, token)
	if err != nil {
		return nil, false, err.Error()
	}
	exp := jwt.Expected{Time: now}
	if !f.is(IssuerUnchecked) {
		exp.Issuer = f.p.Issuer
	}
	if !f.is(AudienceUnchecked) {
		exp.AnyAudience = jwt.Audience{f.resource}
	}
	leeway := time.Minute
	if f.is(ExpiredAccepted) {
		c.Expiry = nil
	}
	if f.is(NotYetValidAccepted) {
		c.NotBefore = nil
	}
	if err := c.ValidateWithLeeway(exp, leeway); err != nil {
		return nil, false, err.Error()
	}
	return c.Scopes(), c.Cnf != nil && c.Cnf.JKT != "", ""
}

// claims reads a JWT: verified with the issuer's keys (ES256 only), or,
// for the faults that skip it, unverified.
func (f *authFront) claims(ctx context.Context, token string) (issuer.Claims, error) {
	var c issuer.Claims
	if parts := strings.Split(token, "."); len(parts) == 3 && (f.is(AlgNoneAccepted) || f.is(SignatureUnchecked)) {
		head, _ := base64.RawURLEncoding.DecodeString(parts[0])
		var h struct { // a JWT's JOSE header (RFC 7515), no MCP message
			Alg string `json:"alg"`
		}
		_ = json.Unmarshal(head, &h)
		// alg-none-accepted reads an unsigned token unverified,
		// signature-unchecked a signed one.
		if (h.Alg == "none") == f.is(AlgNoneAccepted) {
			payload, err := base64.RawURLEncoding.DecodeString(parts[1])
			if err != nil {
				return c, err
			}
			return c, json.Unmarshal(payload, &c)
		}
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return c, fmt.Errorf("not a JWT of ours: %v", err)
	}
	if err := tok.Claims(f.keys(ctx, tok), &c); err != nil {
		return c, fmt.Errorf("signature: %v", err)
	}
	return c, nil
}

// keys are the issuer's public keys, fetched from its JWKS (once) when none
// were given or the token names a kid the set lacks; the fetch holds no
// lock and ends with the request.
func (f *authFront) keys(ctx context.Context, tok *jwt.JSONWebToken) jose.JSONWebKeySet {
	kid := ""
	if len(tok.Headers) > 0 {
		kid = tok.Headers[0].KeyID
	}
	f.mu.Lock()
	keys, fetched := f.p.Keys, f.fetched
	f.mu.Unlock()
	if fetched || len(keys.Keys) > 0 && (kid == "" || len(keys.Key(kid)) > 0) {
		return keys
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.p.Issuer+issuer.PathJWKS, nil)
	if err != nil {
		return keys
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return keys
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set) != nil {
		return keys
	}
	f.mu.Lock()
	f.p.Keys, f.fetched = set, true
	f.mu.Unlock()
	return set
}

// introspect asks the issuer (RFC 7662 §2.1) and checks the audience.
func (f *authFront) introspect(ctx context.Context, token string) ([]string, string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.p.Introspection, strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, "introspection: " + err.Error()
	}
	defer resp.Body.Close()
	var a struct { // an introspection response (RFC 7662 §2.2), no MCP message
		Active bool            `json:"active"`
		Scope  string          `json:"scope"`
		Aud    json.RawMessage `json:"aud"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&a); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Sprintf("introspection: HTTP %d %v", resp.StatusCode, err)
	}
	if !a.Active {
		return nil, "the issuer says the token is not active"
	}
	var aud jwt.Audience
	_ = json.Unmarshal(a.Aud, &aud)
	if !aud.Contains(f.resource) {
		return nil, "the token was issued for another resource"
	}
	return strings.Fields(a.Scope), ""
}

// challenge refuses with WWW-Authenticate as the variant writes it;
// noToken marks the refusal of a request that carried no credentials.
func (f *authFront) challenge(w http.ResponseWriter, status int, code, scope, why string, noToken bool) {
	params := []string{}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code))
	}
	if code == "invalid_token" && f.is(ChallengeUnescapedQuote) {
		params = append(params, `error_description="the "exp" claim failed: `+strings.ReplaceAll(why, `"`, "'")+`"`)
	}
	if scope == "" && !f.is(ChallengeWithoutScope) {
		scope = strings.Join(f.scopes(), " ")
	}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if !f.is(PRMWellKnownOnly) && !f.is(NoResourceMetadata) && !f.is(PRMUndiscoverable) {
		params = append(params, fmt.Sprintf("resource_metadata=%q", f.origin+f.prmPath()))
	}
	value := "Bearer"
	if len(params) > 0 {
		value += " " + strings.Join(params, ", ")
	}
	if f.is(NoWWWAuthenticate) && noToken {
		value = ""
	}
	f.refuse(w, status, value, why)
}

func (f *authFront) refuse(w http.ResponseWriter, status int, challenge, why string) {
	f.events.Eventf(f.label, "HTTP %d: %s", status, why)
	if challenge != "" {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": "unauthorized", "error_description": why})
}
