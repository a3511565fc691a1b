// Package authref is the reference authorization server: a conformant
// OAuth 2.1 authorization server (RFC 8414 metadata, dynamic client
// registration, the authorization code grant with PKCE S256, refresh token
// rotation) that approves every authorization request at once, as the test
// mode of a real one does, and the faults and liberties that prove the
// authorization-server family's checks. Unlike fakes/authserver, which is
// lenient on purpose to judge clients, this one refuses what the RFCs say
// to refuse; a variant bends one rule.
package authref

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/transport"
)

// Paths of its endpoints, below the issuer.
const (
	PathAuthorize = "/authorize"
	PathToken     = "/token"
	PathRegister  = "/register"
	PathLogin     = "/login"
	tenantPath    = "/tenant1"
	maxBody       = 64 << 10
)

// Server is one reference authorization server.
type Server struct {
	v      *fault.Fault
	origin string // "http://127.0.0.1:PORT"
	srv    *http.Server

	mu      sync.Mutex
	clients map[string]*client
	codes   map[string]*code
	refresh map[string]string     // refresh token → client id
	pending map[string]url.Values // login-form: authorization requests waiting for a login
}

type client struct {
	id, secret   string
	redirectURIs []string
}

type code struct {
	clientID, redirectURI, challenge, method, scope string
	used                                            bool
}

// Start serves variant v (nil: the reference) on a loopback port.
func Start(v *fault.Fault) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{v: v, origin: "http://" + ln.Addr().String(), clients: map[string]*client{}, codes: map[string]*code{},
		refresh: map[string]string{}, pending: map[string]url.Values{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops it.
func (s *Server) Close() error { return s.srv.Close() }

func (s *Server) is(v *fault.Fault) bool { return s.v == v }

// Issuer is its issuer identifier.
func (s *Server) Issuer() string {
	if s.is(IssuerWithPath) {
		return s.origin + tenantPath
	}
	return s.origin
}

func (s *Server) prefix() string {
	if s.is(IssuerWithPath) {
		return tenantPath
	}
	return ""
}

func (s *Server) metadataPath() string {
	if s.is(OpenIDOnly) {
		return s.prefix() + "/.well-known/openid-configuration"
	}
	return "/.well-known/oauth-authorization-server" + s.prefix()
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	switch r.URL.Path {
	case s.metadataPath():
		s.metadata(w)
	case s.prefix() + PathRegister:
		s.register(w, r)
	case s.prefix() + PathAuthorize:
		s.authorize(w, r)
	case s.prefix() + PathToken:
		s.token(w, r)
	case s.prefix() + PathLogin:
		s.login(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) metadata(w http.ResponseWriter) {
	iss := s.Issuer()
	doc := map[string]any{
		"issuer": iss, "authorization_endpoint": iss + PathAuthorize, "token_endpoint": iss + PathToken,
		"registration_endpoint": iss + PathRegister, "response_types_supported": []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
	}
	switch {
	case s.is(IssuerMismatch):
		doc["issuer"] = "http://127.0.0.1:1/another-issuer"
	case s.is(MetadataNoResponseTypes):
		delete(doc, "response_types_supported")
	case s.is(NoPKCEAdvertised):
		delete(doc, "code_challenge_methods_supported")
	case s.is(IssUnadvertised), s.is(IssOmitted):
		delete(doc, "authorization_response_iss_parameter_supported")
	case s.is(PlainSupported):
		doc["code_challenge_methods_supported"] = []string{"S256", "plain"}
	case s.is(NoRefreshToken):
		doc["grant_types_supported"] = []string{"authorization_code"}
	case s.offlineOnly():
		doc["scopes_supported"] = []string{"offline_access"}
	case s.is(CIMD), s.is(CIMDUnvalidated):
		doc["client_id_metadata_document_supported"] = true
	case s.is(OpenIDOnly):
		doc["subject_types_supported"] = []string{"public"}
		doc["id_token_signing_alg_values_supported"] = []string{"ES256"}
		doc["jwks_uri"] = iss + "/jwks"
	}
	ct := "application/json"
	if s.is(MetadataNotJSON) {
		ct = "text/plain; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	_ = json.NewEncoder(w).Encode(doc)
}

// register answers RFC 7591 §3.2.1.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "POST the client metadata")
		return
	}
	var meta map[string]any
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is no JSON object")
		return
	}
	var uris []string
	if list, ok := meta["redirect_uris"].([]any); ok {
		for _, u := range list {
			if str, ok := u.(string); ok {
				uris = append(uris, str)
			}
		}
	}
	if len(uris) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	c := &client{id: secret.New("client-"), redirectURIs: uris}
	method, _ := meta["token_endpoint_auth_method"].(string)
	if method == "" {
		method = "client_secret_basic" // RFC 7591 §2's default
	}
	answer := map[string]any{"client_id": c.id, "redirect_uris": uris, "token_endpoint_auth_method": method,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"client_id_issued_at": time.Now().Unix()}
	if method != "none" {
		c.secret = secret.New("secret-")
		answer["client_secret"], answer["client_secret_expires_at"] = c.secret, 0
	}
	if name, ok := meta["client_name"].(string); ok {
		answer["client_name"] = name
	}
	s.mu.Lock()
	s.clients[c.id] = c
	s.mu.Unlock()
	if s.is(RegistrationNoClientID) {
		delete(answer, "client_id")
	}
	writeJSON(w, http.StatusCreated, answer)
}

// authorize approves at once: a redirect to the client's redirect_uri with
// the code, or with the error when the request is refused after the
// client and its redirect_uri were established (RFC 6749 §4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	if c == nil && (s.is(CIMD) || s.is(CIMDUnvalidated)) && strings.HasPrefix(q.Get("client_id"), "https://") {
		c = s.documentClient(r, q.Get("client_id"))
	}
	if c == nil {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if !s.redirectAllowed(c, redirect) {
		// Never redirect to an unverified URI (RFC 6749 §4.1.2.1).
		http.Error(w, "redirect_uri is not one the client registered", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(redirect)
	if s.is(RedirectElsewhere) {
		back.Path = strings.TrimSuffix(back.Path, "/") + "/approved"
	}
	answer := back.Query()
	state := q.Get("state")
	if state != "" && !s.is(StateDropped) {
		answer.Set("state", state)
	}
	iss := s.Issuer()
	if s.is(IssWrong) {
		iss = "http://127.0.0.1:1/another-issuer"
	}
	if !s.is(IssOmitted) {
		answer.Set("iss", iss)
	}
	fail := func(code, why string) {
		answer.Set("error", code)
		answer.Set("error_description", why)
		back.RawQuery = answer.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
	if q.Get("response_type") != "code" {
		fail("unsupported_response_type", "only code")
		return
	}
	method := q.Get("code_challenge_method")
	if method == "" {
		method = "plain" // RFC 7636 §4.3's default
	}
	switch {
	case q.Get("code_challenge") == "" && !s.is(PKCEOptional):
		fail("invalid_request", "code_challenge is required (PKCE)")
		return
	case q.Get("code_challenge") != "" && method == "plain" && !s.is(PlainAccepted) && !s.is(PlainSupported):
		fail("invalid_request", "code_challenge_method plain is not supported: use S256")
		return
	case method != "S256" && method != "plain":
		fail("invalid_request", "unknown code_challenge_method")
		return
	}
	if s.is(LoginForm) && !s.loggedIn(r) {
		s.loginPage(w, q)
		return
	}
	cd := secret.New("code-")
	s.mu.Lock()
	s.codes[cd] = &code{clientID: c.id, redirectURI: redirect, challenge: q.Get("code_challenge"), method: method, scope: q.Get("scope")}
	s.mu.Unlock()
	answer.Set("code", cd)
	back.RawQuery = answer.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) redirectAllowed(c *client, redirect string) bool {
	if slices.Contains(c.redirectURIs, redirect) {
		return true
	}
	if s.is(RedirectPrefixAccepted) {
		for _, u := range c.redirectURIs {
			if strings.HasPrefix(redirect, u) {
				return true
			}
		}
	}
	return false
}

// token serves the authorization_code and refresh_token grants.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		s.refuse(w, http.StatusBadRequest, "invalid_request", "POST a form")
		return
	}
	f := r.PostForm
	c, ok := s.authenticate(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		s.refuse(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		cd := s.codes[f.Get("code")]
		reused := cd != nil && cd.used
		if cd != nil {
			cd.used = true
		}
		s.mu.Unlock()
		switch {
		case cd == nil || cd.clientID != c.id:
			s.refuse(w, http.StatusBadRequest, "invalid_grant", "unknown code")
			return
		case reused && !s.is(CodeReusable):
			s.refuse(w, http.StatusBadRequest, "invalid_grant", "the code was used already")
			return
		case f.Get("redirect_uri") != "" && f.Get("redirect_uri") != cd.redirectURI:
			s.refuse(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case cd.challenge != "" && !s.verifierMatches(cd, f.Get("code_verifier")) && !s.is(VerifierUnchecked):
			s.refuse(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
			return
		}
		s.issue(w, c, cd.scope)
	case "refresh_token":
		rt := f.Get("refresh_token")
		s.mu.Lock()
		owner, ok := s.refresh[rt]
		kept := s.is(RefreshNotRotated) || s.is(OfflineRefreshNotRotated)
		if ok && !kept {
			delete(s.refresh, rt)
		}
		s.mu.Unlock()
		if !ok || owner != c.id {
			s.refuse(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
		if kept {
			s.answer(w, c, f.Get("scope"), rt)
			return
		}
		s.issueRefreshed(w, c, f.Get("scope"))
	default:
		s.refuse(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code or refresh_token")
	}
}

func (s *Server) verifierMatches(cd *code, verifier string) bool {
	want := verifier
	if cd.method == "S256" {
		want = oauth2.S256ChallengeFromVerifier(verifier)
	}
	return verifier != "" && subtle.ConstantTimeCompare([]byte(want), []byte(cd.challenge)) == 1
}

// authenticate reads the client: HTTP Basic, the form's secret, or a
// public client's client_id alone.
func (s *Server) authenticate(r *http.Request) (*client, bool) {
	id, sec, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		sec, _ = url.QueryUnescape(sec)
	} else {
		id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		return nil, false
	}
	if c.secret == "" {
		return c, sec == ""
	}
	return c, subtle.ConstantTimeCompare([]byte(sec), []byte(c.secret)) == 1
}

// issueRefreshed answers a refresh with a new refresh token (rotation).
func (s *Server) issueRefreshed(w http.ResponseWriter, c *client, scope string) {
	rt := secret.New("refresh-")
	s.mu.Lock()
	s.refresh[rt] = c.id
	s.mu.Unlock()
	s.answer(w, c, scope, rt)
}

// offlineOnly: refresh tokens only for grants that ask offline_access.
func (s *Server) offlineOnly() bool {
	return s.is(RefreshOfflineAccess) || s.is(OfflineRefreshNotRotated)
}

func (s *Server) issue(w http.ResponseWriter, c *client, scope string) {
	rt := ""
	offline := slices.Contains(strings.Fields(scope), "offline_access")
	if !s.is(NoRefreshToken) && (!s.offlineOnly() || offline) {
		rt = secret.New("refresh-")
		s.mu.Lock()
		s.refresh[rt] = c.id
		s.mu.Unlock()
	}
	s.answer(w, c, scope, rt)
}

func (s *Server) answer(w http.ResponseWriter, _ *client, scope, refresh string) {
	a := map[string]any{"access_token": secret.New("access-"), "token_type": "Bearer", "expires_in": 3600}
	if s.is(TokenNoType) {
		delete(a, "token_type")
	}
	if refresh != "" {
		a["refresh_token"] = refresh
	}
	if scope != "" {
		a["scope"] = scope
	}
	if !s.is(TokenCacheable) {
		w.Header().Set("Cache-Control", "no-store")
	}
	writeJSON(w, http.StatusOK, a)
}

// refuse answers RFC 6749 §5.2's error response.
func (s *Server) refuse(w http.ResponseWriter, status int, code, why string) {
	if s.is(ErrorShapeWrong) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "request refused: "+why)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	oauthError(w, status, code, why)
}

func oauthError(w http.ResponseWriter, status int, code, why string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": why})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// loginPage shows the login form for a valid authorization request.
func (s *Server) loginPage(w http.ResponseWriter, q url.Values) {
	id := secret.New("request-")
	s.mu.Lock()
	s.pending[id] = q
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, `<!doctype html><title>Sign in</title><form method="post" action="`+s.prefix()+PathLogin+`">`+
		`<input type="hidden" name="request" value="`+id+`"><label>User <input name="username"></label>`+
		`<label>Password <input type="password" name="password"></label><button type="submit">Sign in</button></form>`)
}

// login checks the form's credentials and, with a session cookie, sends the
// browser back to the authorization request it interrupted.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		http.Error(w, "POST the login form", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	q, ok := s.pending[r.PostForm.Get("request")]
	delete(s.pending, r.PostForm.Get("request"))
	s.mu.Unlock()
	if !ok || r.PostForm.Get("username") != LoginFields["username"] || r.PostForm.Get("password") != LoginFields["password"] {
		http.Error(w, "wrong credentials or an unknown request", http.StatusUnauthorized)
		return
	}
	sess := secret.New("session-")
	s.mu.Lock()
	s.pending["session:"+sess] = url.Values{}
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: "mcpconform-session", Value: sess, Path: "/", HttpOnly: true})
	http.Redirect(w, r, s.Issuer()+PathAuthorize+"?"+q.Encode(), http.StatusFound)
}

func (s *Server) loggedIn(r *http.Request) bool {
	c, err := r.Cookie("mcpconform-session")
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pending["session:"+c.Value]
	return ok
}

// documentClient reads a Client ID Metadata Document: fetched (no redirect
// followed, bounded), valid JSON whose client_id is the URL exactly, with
// redirect_uris; nil when any of it fails. as-cimd-unvalidated trusts the
// URL without looking.
func (s *Server) documentClient(r *http.Request, id string) *client {
	redirect := r.URL.Query().Get("redirect_uri")
	if s.is(CIMDUnvalidated) {
		return &client{id: id, redirectURIs: []string{redirect}}
	}
	u, err := url.Parse(id)
	if err != nil || u.Path == "" || u.Path == "/" {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil
	}
	resp, err := transport.NewHTTPClient(nil).Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var doc struct { // an OAuth client ID metadata document, no MCP message
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&doc) != nil ||
		doc.ClientID != id || doc.ClientName == "" || len(doc.RedirectURIs) == 0 {
		return nil
	}
	return &client{id: id, redirectURIs: doc.RedirectURIs}
}
