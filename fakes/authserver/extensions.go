package authserver

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpconform/mcpconform/internal/secret"
)

// Support for the authorization extensions (ext-auth): JWT client
// assertions and authorization grants (RFC 7523), token exchange (RFC
// 8693) and DPoP (RFC 9449). Every JWT is built and verified by go-jose;
// keys are the standard library's.

// Grant types and token types of the extensions.
const (
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	GrantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
	AssertionTypeJWT       = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	TokenTypeIDToken       = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG         = "urn:ietf:params:oauth:token-type:id-jag"
	TypIDJAG               = "oauth-id-jag+jwt"
	TypDPoP                = "dpop+jwt"
)

// asymmetric are the JWS algorithms a client may sign with (RFC 9449
// §11.6: no symmetric algorithm, no none).
var asymmetric = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

// Key is a fresh P-256 signing key, the ES256 keys the official scenarios
// use.
type Key struct {
	Private *ecdsa.PrivateKey
}

// NewKey makes a key.
func NewKey() (*Key, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Key{Private: k}, nil
}

// Public is the key's public half.
func (k *Key) Public() crypto.PublicKey { return &k.Private.PublicKey }

// PEM is the private key as PKCS #8 PEM, registered as a secret.
func (k *Key) PEM() (string, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.Private)
	if err != nil {
		return "", err
	}
	s := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	secret.Add(s, strings.TrimSpace(s))
	return s, nil
}

// Sign signs claims as a compact JWT with header typ (none if "").
func (k *Key) Sign(typ string, claims ...any) (string, error) {
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.Private}, opts)
	if err != nil {
		return "", err
	}
	b := jwt.Signed(signer)
	for _, c := range claims {
		b = b.Claims(c)
	}
	s, err := b.Serialize()
	if err == nil {
		secret.Add(s)
	}
	return s, err
}

// JWT is a JWT whose signature verified, with its registered claims and
// the header members the extensions judge.
type JWT struct {
	Claims jwt.Claims
	// Extra holds every claim, registered or not.
	Extra map[string]any
	Typ   string
	Alg   string
	// HasIAT etc. say which registered claims were present at all.
	HasExp, HasJTI bool
}

// Verify checks s's signature with key and reads it; it judges no claim.
func Verify(s string, key crypto.PublicKey) (*JWT, error) {
	tok, err := jwt.ParseSigned(s, asymmetric)
	if err != nil {
		return nil, fmt.Errorf("not a signed JWT: %w", err)
	}
	out := &JWT{Extra: map[string]any{}}
	if err := tok.Claims(key, &out.Claims, &out.Extra); err != nil {
		return nil, fmt.Errorf("the signature does not verify with the key: %w", err)
	}
	h := tok.Headers[0]
	out.Alg = h.Algorithm
	out.Typ, _ = h.ExtraHeaders[jose.HeaderType].(string)
	_, out.HasExp = out.Extra["exp"]
	_, out.HasJTI = out.Extra["jti"]
	return out, nil
}

// Audiences are the values an assertion's aud may take to name the
// authorization server at issuer: its issuer identifier (with or without a
// trailing slash) or its token endpoint (RFC 7523 §3).
func Audiences(issuer, tokenEndpoint string) []string {
	i := strings.TrimSuffix(issuer, "/")
	return []string{i, i + "/", tokenEndpoint}
}

// AssertionProblems judges a client assertion or authorization grant
// against RFC 7523 §3: iss and sub as given ("" not judged), aud naming
// the server, an exp in the future, and jti where required.
func AssertionProblems(j *JWT, iss, sub string, audiences []string, wantJTI bool, now time.Time) []string {
	var bad []string
	if iss != "" && j.Claims.Issuer != iss {
		bad = append(bad, fmt.Sprintf("iss %q, not %q", j.Claims.Issuer, iss))
	}
	if sub != "" && j.Claims.Subject != sub {
		bad = append(bad, fmt.Sprintf("sub %q, not %q", j.Claims.Subject, sub))
	}
	named := false
	for _, a := range audiences {
		if j.Claims.Audience.Contains(a) {
			named = true
		}
	}
	if !named {
		bad = append(bad, fmt.Sprintf("aud %q names neither the issuer nor the token endpoint", []string(j.Claims.Audience)))
	}
	switch {
	case !j.HasExp:
		bad = append(bad, "no exp")
	case j.Claims.Expiry.Time().Before(now.Add(-30 * time.Second)):
		bad = append(bad, "exp in the past")
	}
	if wantJTI && (!j.HasJTI || j.Claims.ID == "") {
		bad = append(bad, "no jti")
	}
	return bad
}

// Proof is a DPoP proof as a server reads it (RFC 9449 §4.3).
type Proof struct {
	// JKT is the thumbprint of the proof's key ("" when unreadable).
	JKT   string
	JTI   string
	Nonce string
	// Problems are the rules of §4.2–4.3 the proof breaks.
	Problems []string
}

// CheckProof reads the DPoP header of a request to method uri and judges
// it: typ dpop+jwt, an asymmetric alg, a public jwk that verifies the
// signature, jti, htm, htu without query or fragment, iat within five
// minutes, and ath for accessToken ("" none expected). An unreadable proof
// has no JKT.
func CheckProof(values []string, method, uri, accessToken string, now time.Time) Proof {
	if len(values) == 0 {
		return Proof{Problems: []string{"no DPoP header"}}
	}
	if len(values) > 1 || strings.Contains(values[0], ",") {
		return Proof{Problems: []string{"more than one DPoP header"}}
	}
	tok, err := jwt.ParseSigned(values[0], asymmetric)
	if err != nil {
		if strings.Contains(err.Error(), "private parameters") {
			// go-jose refuses to read such a header at all.
			return Proof{Problems: []string{"the jwk header carries a private key"}}
		}
		return Proof{Problems: []string{"not a JWS signed with an asymmetric algorithm: " + err.Error()}}
	}
	h := tok.Headers[0]
	var p Proof
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != TypDPoP {
		p.Problems = append(p.Problems, fmt.Sprintf("typ %q, not %s", typ, TypDPoP))
	}
	if h.JSONWebKey == nil {
		return Proof{Problems: append(p.Problems, "no jwk header")}
	}
	if !h.JSONWebKey.IsPublic() {
		p.Problems = append(p.Problems, "the jwk header carries a private key")
	}
	pub := h.JSONWebKey.Public()
	var claims struct { // a DPoP proof's claims (RFC 9449 §4.2), no MCP message
		JTI   string   `json:"jti"`
		HTM   string   `json:"htm"`
		HTU   string   `json:"htu"`
		IAT   *float64 `json:"iat"`
		ATH   string   `json:"ath"`
		Nonce string   `json:"nonce"`
	}
	if err := tok.Claims(pub.Key, &claims); err != nil {
		return Proof{Problems: append(p.Problems, "the signature does not verify with the jwk header's key")}
	}
	if tp, err := pub.Thumbprint(crypto.SHA256); err == nil {
		p.JKT = base64.RawURLEncoding.EncodeToString(tp)
	}
	p.JTI, p.Nonce = claims.JTI, claims.Nonce
	if claims.JTI == "" {
		p.Problems = append(p.Problems, "no jti")
	}
	if claims.HTM != method {
		p.Problems = append(p.Problems, fmt.Sprintf("htm %q, not %s", claims.HTM, method))
	}
	if strings.ContainsAny(claims.HTU, "?#") {
		p.Problems = append(p.Problems, "htu with a query or fragment")
	} else if htuKey(claims.HTU) != htuKey(uri) {
		p.Problems = append(p.Problems, fmt.Sprintf("htu %q, not %s", claims.HTU, uri))
	}
	switch {
	case claims.IAT == nil:
		p.Problems = append(p.Problems, "no iat")
	case time.Unix(int64(*claims.IAT), 0).Sub(now).Abs() > 5*time.Minute:
		p.Problems = append(p.Problems, "iat more than five minutes off")
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		if claims.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			p.Problems = append(p.Problems, "ath is not the access token's hash")
		}
	} else if claims.ATH != "" {
		p.Problems = append(p.Problems, "ath on a proof that goes with no access token")
	}
	return p
}

// htuKey is a URI as RFC 9449 §4.3 compares htu: scheme, host and path,
// without a trailing slash.
func htuKey(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.Path, "/")
}

// DPoPBinder is an Options.Bind that issues DPoP-bound tokens (RFC 9449
// §5): a readable proof binds the token to its key, with token_type DPoP;
// a request without one gets a bearer token. With nonce set, a proof that
// does not carry it is refused with use_dpop_nonce and the nonce (§8).
func DPoPBinder(nonce string) func(r *TokenRequest, req *http.Request) Binding {
	return func(r *TokenRequest, req *http.Request) Binding {
		// The endpoint as this server is reached: loopback, plain HTTP.
		p := CheckProof(req.Header.Values("DPoP"), http.MethodPost, "http://"+req.Host+req.URL.Path, "", time.Now())
		if p.JKT == "" {
			return Binding{}
		}
		if nonce != "" && p.Nonce != nonce {
			return Binding{Error: "use_dpop_nonce", Description: "this authorization server requires a DPoP nonce", Status: http.StatusBadRequest,
				Header: http.Header{"Dpop-Nonce": {nonce}}}
		}
		return Binding{TokenType: "DPoP", JKT: p.JKT}
	}
}

// Mint is a fresh credential with prefix, registered as a secret (for a
// Grant hook that issues its own).
func Mint(prefix string) string { return secret.New(prefix) }
