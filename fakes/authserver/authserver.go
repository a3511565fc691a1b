// Package authserver is mcpconform's scripted OAuth 2.1 authorization server:
// metadata (RFC 8414 or OpenID Connect Discovery), dynamic client
// registration (RFC 7591), an authorization endpoint that approves at once
// with a redirect to the client's redirect_uri (so a headless client
// completes the flow by reading the Location), and a token endpoint for the
// authorization code and refresh token grants.
//
// It is lenient on purpose: whatever a client sends, it answers as a
// conformant server would where it can, and records every request (Log),
// so that a scenario judges the client from the record and one broken rule
// fails one check instead of ending the flow. Every credential it mints or
// receives is registered as a secret (internal/secret), so no report or
// console line shows it.
package authserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/secret"
)

// Where a server serves its metadata: the well-known suffixes of RFC 8414
// and OpenID Connect Discovery.
const (
	WellKnownOAuth  = "/.well-known/oauth-authorization-server"
	WellKnownOpenID = "/.well-known/openid-configuration"
)

// IssMode is what the authorization response says in its iss parameter
// (RFC 9207).
type IssMode int

const (
	// IssCorrect sends the issuer of the metadata.
	IssCorrect IssMode = iota
	// IssOmitted sends no iss.
	IssOmitted
	// IssWrong sends another server's issuer.
	IssWrong
	// IssTrailingSlash sends the issuer with a "/" appended: the same URL
	// to a normalizing parser, another string to RFC 9207's comparison.
	IssTrailingSlash
)

// WrongIssuer is the issuer IssWrong names: an origin nothing listens on,
// which a client must never contact.
const WrongIssuer = "https://issuer.invalid"

// Options script one authorization server.
type Options struct {
	// Label names the server in the log ("as", "as2").
	Label string
	// Host is the loopback address the server listens on ("" 127.0.0.1;
	// "127.0.0.2" plays another host).
	Host string
	// Prefix is the issuer's path ("/tenant1"); its endpoints live under it.
	Prefix string
	// MetadataPath is where the metadata is served, on the server's
	// origin; default WellKnownOAuth with the issuer's path appended (RFC
	// 8414 §3.1). "-" serves none (the 2025-03-26 endpoint fallback).
	MetadataPath string
	// OpenID makes the document an OpenID Provider configuration (adds
	// jwks_uri, subject and signing fields).
	OpenID bool
	// EditMetadata changes the document before it is served (scopes,
	// methods, the iss flag, a wrong issuer…).
	EditMetadata func(doc map[string]any)
	// Iss is what the authorization response carries.
	Iss IssMode
	// State, when set, gives the state the authorization response carries
	// instead of the one the request sent (sent is "" when it sent none).
	State func(sent string) string
	// OnToken, when set, may refuse a token request: it returns an OAuth
	// error code ("invalid_client"), its HTTP status and description; ""
	// lets the request through.
	OnToken func(r *TokenRequest) (code string, status int, description string)
	// Grant serves a grant type the server does not know itself
	// (client_credentials, token exchange, JWT bearer: the extensions):
	// it returns the grant to issue, or an OAuth error code with its
	// status and description. Nil refuses them with unsupported_grant_type.
	Grant func(r *TokenRequest, req *http.Request) (g *Grant, code string, status int, description string)
	// OnRegister, when set, may change a registration's answer before it
	// is sent (the client id, the method chosen).
	OnRegister func(x *Exchange, answer map[string]any)
	// Bind, when set, reads every token request before it is served
	// (DPoP, RFC 9449 §5): it may refuse it (use_dpop_nonce, with the
	// DPoP-Nonce header) before a code is spent, or bind the token it
	// will issue to a key.
	Bind func(r *TokenRequest, req *http.Request) Binding
}

// Binding is what Options.Bind decided of a token request.
type Binding struct {
	// Error refuses the request with this OAuth error code, Status and
	// Description, and Header added to the answer.
	Error, Description string
	Status             int
	Header             http.Header
	// TokenType is the answer's token_type ("" Bearer); JKT the JWK
	// SHA-256 thumbprint the token is bound to (RFC 9449 §6).
	TokenType, JKT string
}

// Exchange is one HTTP request a client made to a fake, and the status it
// was answered with.
type Exchange struct {
	Server string // Options.Label, or "resource" for the protected resource
	At     time.Time
	Method string
	Path   string
	Query  url.Values
	Form   url.Values // the request's form body, or the JSON body's top-level strings
	JSON   map[string]any
	Header http.Header
	Status int
	// Method of the JSON-RPC request the body carried (the resource's log).
	RPCMethod string
}

// URL is the request's path with its query, for messages.
func (e Exchange) URL() string {
	if len(e.Query) == 0 {
		return e.Path
	}
	return e.Path + "?" + e.Query.Encode()
}

// Grant is what an access token stands for.
type Grant struct {
	Access, Refresh string
	ClientID        string
	Scopes          []string
	Resource        string
	Issuer          string
	GrantType       string
	// JKT is the thumbprint of the DPoP key the token is bound to ("" for
	// a bearer token); TokenType the answer's token_type ("" Bearer).
	JKT, TokenType string
	// Answer adds members to the token response (RFC 8693's
	// issued_token_type).
	Answer map[string]any
	// NotAccess marks a token that is no access token of this scenario
	// (an identity assertion grant an IdP issues for another server): it
	// is not kept, so no resource takes it and no check counts it as one.
	NotAccess bool
}

// TokenRequest is a token request as the server read it.
type TokenRequest struct {
	GrantType string
	Form      url.Values
	// ClientID and how the client authenticated: "client_secret_basic",
	// "client_secret_post", "private_key_jwt" or "none".
	ClientID, AuthMethod, Secret string
}

// Code is an authorization code the server issued and the request it
// answered.
type Code struct {
	Value, ClientID, RedirectURI, Challenge, ChallengeMethod, Scope, Resource, State string
	Used                                                                             bool
}

// Server is one scripted authorization server. It is an http.Handler for
// everything under its origin; Base must be set before it serves.
type Server struct {
	opts Options
	// Base is the server's origin, "http://127.0.0.1:PORT".
	Base string
	log  *Log

	mu      sync.Mutex
	codes   map[string]*Code
	grants  map[string]*Grant // by access token
	refresh map[string]*Grant // by refresh token
	clients map[string]string // registered client id → secret
}

// New makes a server that records into log.
func New(opts Options, log *Log) *Server {
	if opts.Label == "" {
		opts.Label = "as"
	}
	return &Server{opts: opts, log: log, codes: map[string]*Code{}, grants: map[string]*Grant{},
		refresh: map[string]*Grant{}, clients: map[string]string{}}
}

// Issuer is the server's issuer identifier: its origin and prefix.
func (s *Server) Issuer() string { return s.Base + s.opts.Prefix }

// MetadataURL is where the metadata document is served ("" for none).
func (s *Server) MetadataURL() string {
	p := s.metadataPath()
	if p == "" {
		return ""
	}
	return s.Base + p
}

func (s *Server) metadataPath() string {
	switch s.opts.MetadataPath {
	case "-":
		return ""
	case "":
		if s.opts.OpenID {
			return WellKnownOpenID + s.opts.Prefix
		}
		return WellKnownOAuth + s.opts.Prefix
	}
	return s.opts.MetadataPath
}

// Label names the server in the log.
func (s *Server) Label() string { return s.opts.Label }

// EndpointPath is the path of one of the server's endpoints.
func (s *Server) EndpointPath(name string) string { return s.opts.Prefix + name }

// Endpoint is the URL of one of the server's endpoints ("/authorize",
// "/token", "/register").
func (s *Server) Endpoint(name string) string { return s.Issuer() + name }

// Metadata is the document the server serves.
func (s *Server) Metadata() map[string]any {
	doc := map[string]any{
		"issuer":                                         s.Issuer(),
		"authorization_endpoint":                         s.Endpoint("/authorize"),
		"token_endpoint":                                 s.Endpoint("/token"),
		"registration_endpoint":                          s.Endpoint("/register"),
		"response_types_supported":                       []any{"code"},
		"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []any{"S256"},
		"token_endpoint_auth_methods_supported":          []any{"none"},
		"authorization_response_iss_parameter_supported": true,
	}
	if s.opts.OpenID {
		doc["jwks_uri"] = s.Endpoint("/jwks.json")
		doc["subject_types_supported"] = []any{"public"}
		doc["id_token_signing_alg_values_supported"] = []any{"RS256"}
	}
	if s.opts.EditMetadata != nil {
		s.opts.EditMetadata(doc)
	}
	return doc
}

// Lookup is the grant of an access token this server issued.
func (s *Server) Lookup(token string) (*Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[token]
	return g, ok
}

// Codes are the authorization codes issued, in no order.
func (s *Server) Codes() []Code {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Code
	for _, c := range s.codes {
		out = append(out, *c)
	}
	return out
}

// Grants are the tokens issued, in no order.
func (s *Server) Grants() []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Grant
	for _, g := range s.grants {
		out = append(out, *g)
	}
	return out
}

// Handles reports whether path is one of the server's (metadata or
// endpoints), for a protected resource that shares its origin (2025-03-26).
func (s *Server) Handles(path string) bool {
	if p := s.metadataPath(); p != "" && path == p {
		return true
	}
	for _, e := range []string{"/authorize", "/token", "/register", "/jwks.json"} {
		if path == s.opts.Prefix+e {
			return true
		}
	}
	return false
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := s.log.Read(s.opts.Label, r)
	rec := NewRecorder(w)
	defer func() { x.Status = rec.status; s.log.Add(x) }()
	p := s.opts.Prefix
	switch {
	case s.metadataPath() != "" && r.URL.Path == s.metadataPath() && r.Method == http.MethodGet:
		WriteJSON(rec, http.StatusOK, s.Metadata())
	case r.URL.Path == p+"/authorize" && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		s.authorize(rec, x)
	case r.URL.Path == p+"/token" && r.Method == http.MethodPost:
		s.token(rec, r, x)
	case r.URL.Path == p+"/register" && r.Method == http.MethodPost:
		s.register(rec, x)
	case r.URL.Path == p+"/jwks.json" && r.Method == http.MethodGet:
		WriteJSON(rec, http.StatusOK, map[string]any{"keys": []any{}})
	default:
		WriteJSON(rec, http.StatusNotFound, map[string]any{"error": "not_found", "error_description": "no such endpoint on this authorization server"})
	}
}

// authorize approves at once: a redirect to redirect_uri with a fresh code,
// the request's state, and iss as scripted (RFC 9207).
func (s *Server) authorize(w http.ResponseWriter, x *Exchange) {
	q := x.Query
	if len(x.Form) > 0 {
		q = x.Form
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || q.Get("redirect_uri") == "" || !redirect.IsAbs() {
		WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "redirect_uri missing or not an absolute URL"})
		return
	}
	c := &Code{Value: secret.New("mcpc-code-"), ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		Challenge: q.Get("code_challenge"), ChallengeMethod: q.Get("code_challenge_method"),
		Scope: q.Get("scope"), Resource: q.Get("resource"), State: q.Get("state")}
	s.mu.Lock()
	s.codes[c.Value] = c
	s.mu.Unlock()
	back := redirect.Query()
	back.Set("code", c.Value)
	state := c.State
	if s.opts.State != nil {
		state = s.opts.State(c.State)
	}
	if state != "" {
		back.Set("state", state)
	}
	switch s.opts.Iss {
	case IssCorrect:
		back.Set("iss", s.Issuer())
	case IssWrong:
		back.Set("iss", WrongIssuer)
	case IssTrailingSlash:
		back.Set("iss", s.Issuer()+"/")
	}
	redirect.RawQuery = back.Encode()
	w.Header().Set("Location", redirect.String())
	w.WriteHeader(http.StatusFound)
}

func (s *Server) register(w http.ResponseWriter, x *Exchange) {
	if x.JSON == nil {
		WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata", "error_description": "the body is not a JSON object"})
		return
	}
	id := secret.New("mcpc-client-")
	method, _ := x.JSON["token_endpoint_auth_method"].(string)
	supported := metaStrings(s.Metadata(), "token_endpoint_auth_methods_supported")
	if method == "" || !slices.Contains(supported, method) {
		// RFC 7591 §3.2.1: the server may replace a value it does not
		// support, and says which it chose.
		method = "client_secret_basic"
		if len(supported) > 0 {
			method = supported[0]
		}
	}
	answer := map[string]any{}
	for k, v := range x.JSON {
		answer[k] = v
	}
	answer["client_id"] = id
	answer["client_id_issued_at"] = time.Now().Unix()
	answer["token_endpoint_auth_method"] = method
	clientSecret := ""
	if method != "none" {
		clientSecret = secret.New("mcpc-secret-")
		answer["client_secret"] = clientSecret
		answer["client_secret_expires_at"] = 0
	}
	if s.opts.OnRegister != nil {
		s.opts.OnRegister(x, answer)
		id, _ = answer["client_id"].(string)
		clientSecret, _ = answer["client_secret"].(string)
		secret.Add(id, clientSecret)
	}
	s.mu.Lock()
	s.clients[id] = clientSecret
	s.mu.Unlock()
	WriteJSON(w, http.StatusCreated, answer)
}

// Registered reports whether id was registered here, and its secret.
func (s *Server) Registered(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.clients[id]
	return v, ok
}

func (s *Server) token(w http.ResponseWriter, r *http.Request, x *Exchange) {
	w.Header().Set("Cache-Control", "no-store")
	tr := &TokenRequest{GrantType: x.Form.Get("grant_type"), Form: x.Form, AuthMethod: "none", ClientID: x.Form.Get("client_id")}
	if id, sec, ok := r.BasicAuth(); ok {
		tr.AuthMethod, tr.Secret = "client_secret_basic", sec
		if u, err := url.QueryUnescape(id); err == nil {
			tr.ClientID = u
		}
		if u, err := url.QueryUnescape(sec); err == nil {
			tr.Secret = u
		}
	} else if sec := x.Form.Get("client_secret"); sec != "" {
		tr.AuthMethod, tr.Secret = "client_secret_post", sec
	} else if x.Form.Get("client_assertion") != "" {
		tr.AuthMethod = "private_key_jwt"
	}
	if s.opts.OnToken != nil {
		if code, status, desc := s.opts.OnToken(tr); code != "" {
			WriteJSON(w, status, map[string]any{"error": code, "error_description": desc})
			return
		}
	}
	var bind Binding
	if s.opts.Bind != nil {
		if bind = s.opts.Bind(tr, r); bind.Error != "" {
			for k, vs := range bind.Header {
				w.Header()[k] = vs
			}
			WriteJSON(w, bind.Status, map[string]any{"error": bind.Error, "error_description": bind.Description})
			return
		}
	}
	g := &Grant{ClientID: tr.ClientID, Issuer: s.Issuer(), GrantType: tr.GrantType, Resource: x.Form.Get("resource")}
	switch tr.GrantType {
	case "authorization_code":
		s.mu.Lock()
		c, ok := s.codes[x.Form.Get("code")]
		if ok && !c.Used {
			c.Used = true
		} else {
			ok = false
		}
		s.mu.Unlock()
		if !ok {
			WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "unknown or used authorization code"})
			return
		}
		if g.ClientID == "" {
			g.ClientID = c.ClientID
		}
		g.Scopes = strings.Fields(c.Scope)
		if g.Resource == "" {
			g.Resource = c.Resource
		}
	case "refresh_token":
		s.mu.Lock()
		old, ok := s.refresh[x.Form.Get("refresh_token")]
		if ok {
			delete(s.refresh, old.Refresh) // rotated (OAuth 2.1 §4.3.1)
		}
		s.mu.Unlock()
		if !ok {
			WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
		g.ClientID, g.Scopes = old.ClientID, old.Scopes
		if scope := x.Form.Get("scope"); scope != "" {
			g.Scopes = strings.Fields(scope)
		}
		if g.Resource == "" {
			g.Resource = old.Resource
		}
	default:
		if s.opts.Grant == nil {
			WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type", "error_description": fmt.Sprintf("grant_type %q is not served here", tr.GrantType)})
			return
		}
		extra, code, status, desc := s.opts.Grant(tr, r)
		if code != "" {
			WriteJSON(w, status, map[string]any{"error": code, "error_description": desc})
			return
		}
		extra.Issuer, extra.GrantType = s.Issuer(), tr.GrantType
		if extra.Resource == "" {
			extra.Resource = g.Resource
		}
		g = extra
	}
	if g.Access == "" {
		g.Access = secret.New("mcpc-at-")
	}
	if bind.TokenType != "" {
		g.TokenType, g.JKT = bind.TokenType, bind.JKT
	}
	tokenType := g.TokenType
	if tokenType == "" {
		tokenType = "Bearer"
	}
	answer := map[string]any{"access_token": g.Access, "token_type": tokenType, "expires_in": 3600}
	for k, v := range g.Answer {
		answer[k] = v
	}
	if g.NotAccess {
		WriteJSON(w, http.StatusOK, answer)
		return
	}
	if len(g.Scopes) > 0 {
		answer["scope"] = strings.Join(g.Scopes, " ")
	}
	if slices.Contains(g.Scopes, "offline_access") && slices.Contains(metaStrings(s.Metadata(), "grant_types_supported"), "refresh_token") {
		g.Refresh = secret.New("mcpc-rt-")
		answer["refresh_token"] = g.Refresh
	}
	s.mu.Lock()
	s.grants[g.Access] = g
	if g.Refresh != "" {
		s.refresh[g.Refresh] = g
	}
	s.mu.Unlock()
	WriteJSON(w, http.StatusOK, answer)
}

// S256 is the PKCE S256 challenge of verifier (RFC 7636 §4.2).
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func metaStrings(doc map[string]any, key string) []string {
	var out []string
	switch v := doc[key].(type) {
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = v
	}
	return out
}

// WriteJSON answers v as an application/json body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Recorder is a ResponseWriter that keeps the status written, for the log
// of every fake that answers HTTP (this server, the protected resource).
type Recorder struct {
	http.ResponseWriter
	status int
}

// NewRecorder records what is written to w (200 until told otherwise).
func NewRecorder(w http.ResponseWriter) *Recorder {
	return &Recorder{ResponseWriter: w, status: http.StatusOK}
}

// Status is the status written.
func (r *Recorder) Status() int { return r.status }

func (r *Recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *Recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (SSE streams
// behind a protected resource).
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
