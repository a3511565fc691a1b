// Package issuer is mcpconform's token issuer for judging protected MCP
// servers: an authorization server on loopback whose issuer URL and JWKS a
// server under test is configured to trust, and which mints, per check,
// the access tokens the check needs (valid, expired, for another audience,
// from another issuer, signed by another key, alg none) as JWTs (RFC 9068)
// or as opaque tokens that its introspection endpoint (RFC 7662) answers
// for. It runs no grant: the judge mints tokens itself, so a target's
// verdicts never depend on a user's approval.
//
// Its signing key can be kept in a state file, so that a target started
// against `mcpconform auth-server` keeps trusting the same issuer and key
// across runs. Every token it mints is registered as a secret.
package issuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpconform/mcpconform/internal/secret"
)

// Paths the issuer serves below its origin.
const (
	PathJWKS          = "/jwks"
	PathIntrospect    = "/introspect"
	PathToken         = "/token"
	PathAuthorize     = "/authorize"
	WellKnownOAuth    = "/.well-known/oauth-authorization-server"
	WellKnownOpenID   = "/.well-known/openid-configuration"
	opaquePrefix      = "mcpo_"
	defaultLifetime   = time.Hour
	farPast           = 2 * time.Hour
	farFuture         = time.Hour
	TokenTypeJWT      = "at+jwt"
	signingAlgorithm  = jose.ES256
	stateFilePerm     = 0o600
	maxIntrospectBody = 64 << 10
)

// ForeignIssuer is the issuer a wrong-issuer token names, and
// ForeignAudience the resource a wrong-audience token was issued for:
// names nothing listens on.
const (
	ForeignIssuer   = "https://issuer.invalid"
	ForeignAudience = "https://resource.invalid/mcp"
)

// Form is how a token is written.
type Form int

const (
	// JWT is a signed JWT access token (RFC 9068).
	JWT Form = iota
	// Opaque is a string the target cannot read: it asks the issuer's
	// introspection endpoint (RFC 7662).
	Opaque
)

// Defect makes a token invalid in one way.
type Defect int

const (
	Sound        Defect = iota
	Expired             // exp in the past, by more than any leeway
	NotYetValid         // nbf in the future, by more than any leeway
	WrongAud            // aud is another resource
	WrongIssuer         // iss is another issuer (signed by the right key)
	BadSignature        // signed by another key under the same kid
	AlgNone             // alg "none", no signature
)

func (d Defect) String() string {
	return [...]string{"valid", "expired", "not yet valid", "for another audience", "from another issuer",
		"signed by another key", "unsigned (alg none)"}[d]
}

// Token says what to mint.
type Token struct {
	Subject  string
	Audience string   // the resource the token is for
	Scopes   []string // nil: no scope claim
	Form     Form
	Defect   Defect
	// JKT binds the token to a DPoP key: its cnf claim carries the key's
	// JWK SHA-256 thumbprint (RFC 9449 §6.1).
	JKT string
}

// Issuer mints tokens and serves what a resource server needs to check
// them: metadata, JWKS, introspection.
type Issuer struct {
	url   string
	key   jose.JSONWebKey // private, ES256
	other jose.JSONWebKey // another private key under the same kid (BadSignature)
}

// New makes an issuer at url (an origin, "http://127.0.0.1:9400") with a
// fresh signing key.
func New(url string) (*Issuer, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	return withKey(url, key)
}

func newKey() (jose.JSONWebKey, error) {
	pk, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	kid := make([]byte, 8)
	_, _ = rand.Read(kid)
	return jose.JSONWebKey{Key: pk, KeyID: "mcpconform-" + hex.EncodeToString(kid), Algorithm: string(signingAlgorithm), Use: "sig"}, nil
}

func withKey(url string, key jose.JSONWebKey) (*Issuer, error) {
	url = strings.TrimSuffix(url, "/")
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("issuer %q: want an http(s) origin", url)
	}
	other, err := newKey()
	if err != nil {
		return nil, err
	}
	other.KeyID = key.KeyID
	return &Issuer{url: url, key: key, other: other}, nil
}

// state is what a state file holds: the issuer and its private key.
type state struct {
	Issuer string          `json:"issuer"`
	Key    json.RawMessage `json:"key"`
}

// Load reads an issuer from a state file; with create, a missing file is
// made for url with a fresh key (mode 0600: it holds a private key).
// A file for another issuer URL is an error when url is given.
func Load(path, url string, create bool) (*Issuer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		if url == "" {
			return nil, fmt.Errorf("%s does not exist: give the address to serve the issuer on", path)
		}
		iss, err := New(url)
		if err != nil {
			return nil, err
		}
		return iss, iss.Save(path)
	}
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: not an issuer state file: %v", path, err)
	}
	var key jose.JSONWebKey
	if err := key.UnmarshalJSON(st.Key); err != nil || key.IsPublic() || !key.Valid() {
		return nil, fmt.Errorf("%s: no private signing key in it", path)
	}
	if url != "" && strings.TrimSuffix(url, "/") != st.Issuer {
		return nil, fmt.Errorf("%s is the state of issuer %s, not %s", path, st.Issuer, strings.TrimSuffix(url, "/"))
	}
	return withKey(st.Issuer, key)
}

// Save writes the issuer's state file (mode 0600).
func (i *Issuer) Save(path string) error {
	key, err := i.key.MarshalJSON()
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(state{Issuer: i.url, Key: key}, "", "  ")
	return os.WriteFile(path, append(b, '\n'), stateFilePerm)
}

// URL is the issuer identifier.
func (i *Issuer) URL() string { return i.url }

// JWKSURL is where its public keys are served.
func (i *Issuer) JWKSURL() string { return i.url + PathJWKS }

// IntrospectionURL is its RFC 7662 endpoint.
func (i *Issuer) IntrospectionURL() string { return i.url + PathIntrospect }

// PublicKeys is the JWKS it serves.
func (i *Issuer) PublicKeys() jose.JSONWebKeySet {
	return jose.JSONWebKeySet{Keys: []jose.JSONWebKey{i.key.Public()}}
}

// Info is what a user configures a target with, printed and written by the
// CLI; nothing in it is secret.
type Info struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
	KeyID                 string `json:"kid"`
	Algorithm             string `json:"alg"`
}

// Info describes the issuer.
func (i *Issuer) Info() Info {
	return Info{Issuer: i.url, JWKSURI: i.JWKSURL(), IntrospectionEndpoint: i.IntrospectionURL(),
		KeyID: i.key.KeyID, Algorithm: string(signingAlgorithm)}
}

// Mint makes the token t describes and registers it as a secret.
func (i *Issuer) Mint(t Token) (string, error) {
	now := time.Now()
	jti := make([]byte, 12)
	_, _ = rand.Read(jti)
	claims := map[string]any{
		"iss": i.url, "sub": t.Subject, "aud": t.Audience, "client_id": "mcpconform",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(defaultLifetime).Unix(), "jti": hex.EncodeToString(jti),
	}
	if t.Scopes != nil {
		claims["scope"] = strings.Join(t.Scopes, " ")
	}
	if t.JKT != "" {
		claims["cnf"] = map[string]string{"jkt": t.JKT}
	}
	key := i.key
	switch t.Defect {
	case Expired:
		claims["iat"], claims["nbf"], claims["exp"] = now.Add(-2*farPast).Unix(), now.Add(-2*farPast).Unix(), now.Add(-farPast).Unix()
	case NotYetValid:
		claims["nbf"], claims["exp"] = now.Add(farFuture).Unix(), now.Add(farFuture+defaultLifetime).Unix()
	case WrongAud:
		claims["aud"] = ForeignAudience
	case WrongIssuer:
		claims["iss"] = ForeignIssuer
	case BadSignature:
		key = i.other
	}
	var token string
	var err error
	if t.Defect == AlgNone {
		token = unsigned(key.KeyID, claims)
	} else {
		token, err = sign(key, claims)
	}
	if err != nil {
		return "", err
	}
	if t.Form == Opaque {
		token = opaquePrefix + base64.RawURLEncoding.EncodeToString([]byte(token))
	}
	secret.Add(token)
	return token, nil
}

func sign(key jose.JSONWebKey, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: signingAlgorithm, Key: key},
		(&jose.SignerOptions{}).WithType(TokenTypeJWT))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// unsigned writes an "alg": "none" JWT (RFC 7519 §6.1). go-jose will not
// make one, rightly; this is JSON and base64, no cryptography.
func unsigned(kid string, claims map[string]any) string {
	header, _ := json.Marshal(map[string]string{"alg": "none", "typ": TokenTypeJWT, "kid": kid})
	payload, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload) + "."
}

// Claims are what a valid token of this issuer says.
type Claims struct {
	jwt.Claims
	Scope    string `json:"scope,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	// Cnf is a DPoP-bound token's confirmation (RFC 9449 §6.1).
	Cnf *struct {
		JKT string `json:"jkt"`
	} `json:"cnf,omitempty"`
}

// Scopes splits the scope claim.
func (c Claims) Scopes() []string { return strings.Fields(c.Scope) }

// Verify checks a JWT of this issuer's key as a resource server would
// (signature, ES256 only, iss, exp and nbf); the audience is the caller's
// to judge. Opaque tokens are the introspection endpoint's to read.
func Verify(token string, keys jose.JSONWebKeySet, issuer string, now time.Time) (Claims, error) {
	var c Claims
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{signingAlgorithm})
	if err != nil {
		return c, fmt.Errorf("not a JWT this server accepts: %w", err)
	}
	if err := tok.Claims(keys, &c); err != nil {
		return c, fmt.Errorf("signature: %w", err)
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: issuer, Time: now}, time.Minute); err != nil {
		return c, err
	}
	return c, nil
}

// ServeHTTP serves the issuer's metadata (RFC 8414 and OpenID Connect
// Discovery, for libraries that look up jwks_uri by either), its JWKS and
// its introspection endpoint.
func (i *Issuer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case WellKnownOAuth, WellKnownOpenID:
		writeJSON(w, http.StatusOK, i.metadata())
	case PathJWKS:
		writeJSON(w, http.StatusOK, i.PublicKeys())
	case PathIntrospect:
		i.introspect(w, r)
	case PathToken:
		// It runs no grant (the judge mints tokens itself): said in the
		// shape of RFC 6749 §5.2, so a client that tries learns why.
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type",
			"error_description": "mcpconform's issuer mints tokens for the judge itself and runs no grant"})
	case PathAuthorize:
		http.Error(w, "mcpconform's issuer runs no authorization flow", http.StatusBadRequest)
	default:
		http.NotFound(w, r)
	}
}

func (i *Issuer) metadata() map[string]any {
	return map[string]any{
		"issuer": i.url, "jwks_uri": i.JWKSURL(), "introspection_endpoint": i.IntrospectionURL(),
		"authorization_endpoint": i.url + PathAuthorize, "token_endpoint": i.url + PathToken,
		"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code"},
		"code_challenge_methods_supported":              []string{"S256"},
		"subject_types_supported":                       []string{"public"},
		"id_token_signing_alg_values_supported":         []string{string(signingAlgorithm)},
		"introspection_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "client_secret_post"},
	}
}

// introspect answers RFC 7662 §2: active with the token's claims when it
// is one of this issuer's, sound and in its lifetime; else active false.
// The caller's own credentials are not checked (any resource server may
// ask: a test issuer, on loopback).
func (i *Issuer) introspect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST a token (RFC 7662 §2.1)", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxIntrospectBody)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "no token parameter"})
		return
	}
	c, ok := i.read(r.PostForm.Get("token"), time.Now())
	if !ok {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	answer := map[string]any{"active": true, "iss": c.Issuer, "sub": c.Subject, "aud": []string(c.Audience),
		"client_id": c.ClientID, "token_type": "Bearer", "exp": c.Expiry.Time().Unix(), "iat": c.IssuedAt.Time().Unix()}
	if c.NotBefore != nil {
		answer["nbf"] = c.NotBefore.Time().Unix()
	}
	if c.Scope != "" {
		answer["scope"] = c.Scope
	}
	if c.Cnf != nil {
		answer["cnf"] = c.Cnf
		answer["token_type"] = "DPoP"
	}
	writeJSON(w, http.StatusOK, answer)
}

// read decodes a token this issuer minted, either form, if it is sound
// and within its lifetime (the audience is the resource server's to judge).
func (i *Issuer) read(token string, now time.Time) (Claims, bool) {
	if rest, ok := strings.CutPrefix(token, opaquePrefix); ok {
		b, err := base64.RawURLEncoding.DecodeString(rest)
		if err != nil {
			return Claims{}, false
		}
		token = string(b)
	}
	c, err := Verify(token, i.PublicKeys(), i.url, now)
	return c, err == nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Listen binds addr, which must be a loopback address ("127.0.0.1:9400",
// "127.0.0.1:0"), and returns the listener and the issuer URL it stands for.
func Listen(addr string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("issuer address %q: want HOST:PORT on loopback, e.g. 127.0.0.1:9400", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, "", fmt.Errorf("issuer address %q: mcpconform serves only on loopback (127.0.0.1, ::1, localhost)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("issuer: %w", err)
	}
	return ln, "http://" + ln.Addr().String(), nil
}

// Serve serves the issuer on ln until the returned server is closed.
func (i *Issuer) Serve(ln net.Listener) *http.Server {
	srv := &http.Server{Handler: i, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv
}
