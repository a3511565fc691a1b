package client

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference client's authorization extensions (ext-auth): the client
// credentials grant with a JWT client assertion or client_secret_basic
// (SEP-1046), enterprise-managed authorization (SEP-990: token exchange at
// the IdP for an ID-JAG, then the JWT bearer grant), workload identity
// federation (SEP-1933: the JWT bearer grant with a workload JWT) and DPoP
// (SEP-1932, RFC 9449). Token requests are golang.org/x/oauth2's
// clientcredentials (whose grant_type may be replaced); every JWT is
// go-jose's.

// The official extension scenarios the reference client knows.
const (
	scenarioCCJWT      = "auth/client-credentials-jwt"
	scenarioCCBasic    = "auth/client-credentials-basic"
	scenarioEMA        = "auth/enterprise-managed-authorization"
	scenarioWIF        = "auth/wif-jwt-bearer"
	scenarioDPoP       = "auth/dpop"
	scenarioDPoPNonce  = "auth/dpop-nonce"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	assertionTypeJWT   = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// extContext are the context keys of the extension scenarios (the
// official ones).
type extContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	ValidJWT         string `json:"valid_jwt"`
	WrongAudienceJWT string `json:"wrong_audience_jwt"`
	ExpiredJWT       string `json:"expired_jwt"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// extState is the extensions' state of one authorizer.
type extState struct {
	once sync.Once
	dpop *dpopKey
	err  error
}

func (a *authorizer) scenario() string { return a.rc.opts.Scenario }

func (a *authorizer) dpopOn() bool {
	return a.scenario() == scenarioDPoP || a.scenario() == scenarioDPoPNonce
}

// dpopKeyOf is the client's DPoP key, made on first use.
func (a *authorizer) dpopKeyOf() (*dpopKey, error) {
	a.ext.once.Do(func() { a.ext.dpop, a.ext.err = newDPoPKey() })
	return a.ext.dpop, a.ext.err
}

// wrapExt puts the DPoP layer under the MCP requests of a DPoP scenario.
func (a *authorizer) wrapExt(next http.RoundTripper) http.RoundTripper {
	if !a.dpopOn() {
		return next
	}
	return &dpopTransport{a: a, next: next, resource: true}
}

// tokenClient is the HTTP client of token requests: with DPoP proofs in a
// DPoP scenario.
func (a *authorizer) tokenClient() *http.Client {
	if !a.dpopOn() || a.is(AuthDPoPNoTokenProof) {
		return a.hc
	}
	return transport.NewHTTPClient(&dpopTransport{a: a, next: a.hc.Transport})
}

// scheme is the Authorization scheme tok is presented with (RFC 9449 §7.1).
func (a *authorizer) scheme(tok *oauth2.Token) string {
	if strings.EqualFold(tok.TokenType, "DPoP") && !a.is(AuthDPoPBearerScheme) {
		return "DPoP"
	}
	return "Bearer"
}

// authorizeExtension runs the grant of a client credentials, WIF or
// enterprise-managed scenario instead of the authorization code flow; it
// reports false for every other scenario.
func (a *authorizer) authorizeExtension(ctx context.Context, ch challenge) (bool, error) {
	switch a.scenario() {
	case scenarioCCJWT, scenarioCCBasic, scenarioWIF, scenarioEMA:
	default:
		return false, nil
	}
	if a.is(AuthCCAuthorizationCode) {
		return false, nil
	}
	var ext extContext
	if err := json.Unmarshal([]byte(a.rc.opts.Context), &ext); err != nil {
		return true, fmt.Errorf("the scenario's context is not the JSON object expected: %w", err)
	}
	prm, err := a.resourceMetadata(ctx, ch)
	if err != nil {
		return true, err
	}
	asMeta, issuer, err := a.serverMetadata(ctx, prm)
	if err != nil {
		return true, err
	}
	tokenURL := metaString(asMeta, "token_endpoint")
	if err := loopbackURL(tokenURL); err != nil {
		return true, err
	}
	scopes := a.chooseScopes(ch, prm, asMeta)
	params := url.Values{}
	if prm.resource != "" && !a.is(AuthDropsResource) {
		params.Set("resource", prm.resource)
	}
	cfg := clientcredentials.Config{TokenURL: tokenURL, Scopes: scopes, EndpointParams: params, AuthStyle: oauth2.AuthStyleInParams}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, a.hc)
	var tok *oauth2.Token
	switch a.scenario() {
	case scenarioCCJWT:
		assertion, err := a.clientAssertion(ext, issuer, tokenURL)
		if err != nil {
			return true, err
		}
		params.Set("client_assertion_type", assertionTypeJWT)
		if a.is(AuthCCWrongAssertionType) {
			params.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
		}
		params.Set("client_assertion", assertion)
		tok, err = cfg.Token(hctx)
	case scenarioCCBasic:
		cfg.ClientID, cfg.ClientSecret, cfg.AuthStyle = ext.ClientID, ext.ClientSecret, oauth2.AuthStyleInHeader
		if a.is(AuthCCSecretInBody) {
			cfg.AuthStyle = oauth2.AuthStyleInParams
		}
		tok, err = cfg.Token(hctx)
	case scenarioWIF:
		tok, err = a.workloadToken(hctx, cfg, ext)
	case scenarioEMA:
		tok, err = a.enterpriseToken(hctx, cfg, ext, issuer, prm.resource)
	}
	if err != nil {
		// Surfaced, never retried with another grant (SEP-1933).
		return true, fmt.Errorf("the token request failed: %w", err)
	}
	a.mu.Lock()
	a.token, a.scopes, a.issuer = tok, scopes, issuer
	a.mu.Unlock()
	a.rc.logf("authorization: %s token issued by %s", a.scenario(), issuer)
	if a.is(AuthTokenToAS) {
		a.leakToken(ctx, prm, tok.AccessToken)
	}
	return true, nil
}

// clientAssertion is the private_key_jwt assertion of RFC 7523 §2.2 and
// §3: iss and sub the client id, aud the authorization server's issuer (or
// its token endpoint, the liberty), exp five minutes on, a fresh jti.
func (a *authorizer) clientAssertion(ext extContext, issuer, tokenURL string) (string, error) {
	key, err := parsePrivateKey(ext.PrivateKeyPEM)
	if err != nil {
		return "", err
	}
	alg := jose.SignatureAlgorithm(ext.SigningAlgorithm)
	if alg == "" {
		alg = jose.ES256
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("the client assertion's signer: %w", err)
	}
	now := time.Now()
	claims := map[string]any{"iss": ext.ClientID, "sub": ext.ClientID, "aud": issuer, "iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "jti": randomState()}
	switch {
	case a.is(AuthCCAudTokenEndpoint):
		claims["aud"] = tokenURL
	case a.is(AuthCCWrongAudience):
		claims["aud"] = "https://another-server.invalid"
	case a.is(AuthCCWrongSubject):
		claims["iss"], claims["sub"] = "someone-else", "someone-else"
	case a.is(AuthCCNoExpiry):
		delete(claims, "exp")
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

func parsePrivateKey(s string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, errors.New("the context's private_key_pem is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the context's private_key_pem: %w", err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, errors.New("the context's private_key_pem is not a signing key")
	}
	return signer, nil
}

// workloadToken is the JWT bearer grant with the workload JWT as the
// assertion (RFC 7523 §2.1, SEP-1933). An error is the answer: no retry,
// no other grant.
func (a *authorizer) workloadToken(ctx context.Context, cfg clientcredentials.Config, ext extContext) (*oauth2.Token, error) {
	cfg.ClientID = ext.ClientID
	cfg.EndpointParams.Set("grant_type", grantJWTBearer)
	assertion := ext.ValidJWT
	switch {
	case a.is(AuthWIFRetriesAfterError):
		assertion = ext.ExpiredJWT
	case a.is(AuthWIFFallsBack):
		assertion = ext.WrongAudienceJWT
	case a.is(AuthWIFClientCredentials):
		cfg.EndpointParams.Del("grant_type")
		cfg.EndpointParams.Set("client_assertion_type", assertionTypeJWT)
		cfg.EndpointParams.Set("client_assertion", ext.ValidJWT)
		return cfg.Token(ctx)
	}
	cfg.EndpointParams.Set("assertion", assertion)
	tok, err := cfg.Token(ctx)
	if err == nil {
		return tok, nil
	}
	switch {
	case a.is(AuthWIFRetriesAfterError):
		cfg.EndpointParams.Set("assertion", ext.ValidJWT)
		return cfg.Token(ctx)
	case a.is(AuthWIFFallsBack):
		cfg.EndpointParams.Del("grant_type")
		cfg.EndpointParams.Del("assertion")
		cfg.EndpointParams.Set("client_assertion_type", assertionTypeJWT)
		cfg.EndpointParams.Set("client_assertion", ext.ValidJWT)
		return cfg.Token(ctx)
	}
	return nil, err
}

// enterpriseToken is SEP-990's two steps: the ID token exchanged at the
// IdP for an ID-JAG naming the MCP authorization server and the resource
// (RFC 8693), then the ID-JAG presented to that server in the JWT bearer
// grant (RFC 7523), authenticated as the client.
func (a *authorizer) enterpriseToken(ctx context.Context, cfg clientcredentials.Config, ext extContext, issuer, resource string) (*oauth2.Token, error) {
	assertion := ext.IdPIDToken
	if !a.is(AuthEMASkipsExchange) {
		if err := loopbackURL(ext.IdPTokenEndpoint); err != nil {
			return nil, err
		}
		requested := "urn:ietf:params:oauth:token-type:id-jag"
		if a.is(AuthEMAWrongTokenType) {
			requested = "urn:ietf:params:oauth:token-type:access_token"
		}
		xcfg := clientcredentials.Config{TokenURL: ext.IdPTokenEndpoint, ClientID: ext.IdPClientID, Scopes: cfg.Scopes,
			AuthStyle: oauth2.AuthStyleInParams, EndpointParams: url.Values{
				"grant_type":           {grantTokenExchange},
				"requested_token_type": {requested},
				"audience":             {issuer},
				"resource":             {resource},
				"subject_token":        {ext.IdPIDToken},
				"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
			}}
		jag, err := xcfg.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("the token exchange at the IdP: %w", err)
		}
		assertion = jag.AccessToken
	}
	cfg.EndpointParams.Set("grant_type", grantJWTBearer)
	cfg.EndpointParams.Set("assertion", assertion)
	cfg.ClientID, cfg.ClientSecret, cfg.AuthStyle = ext.ClientID, ext.ClientSecret, oauth2.AuthStyleInHeader
	if a.is(AuthEMANoClientAuth) {
		cfg.ClientID, cfg.ClientSecret, cfg.AuthStyle = "", "", oauth2.AuthStyleInParams
	}
	return cfg.Token(ctx)
}

func loopbackURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", s)
	}
	return loopbackOnly(u)
}

// dpopKey is the client's DPoP key pair and the nonces servers gave it.
type dpopKey struct {
	signer jose.Signer
	mu     sync.Mutex
	nonces map[string]string // by origin
	reused map[string]string // the fault auth-dpop-reuses-proof: a proof by nonce
}

func newDPoPKey() (*dpopKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, err
	}
	return &dpopKey{signer: signer, nonces: map[string]string{}, reused: map[string]string{}}, nil
}

// proof is a fresh proof for method and uri (RFC 9449 §4.2): htu without
// query or fragment, ath for an access token, the server's nonce if any.
func (k *dpopKey) proof(method string, u *url.URL, token, nonce string) (string, error) {
	htu := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	claims := map[string]any{"jti": randomState(), "htm": method, "htu": htu.String(), "iat": time.Now().Unix()}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	return jwt.Signed(k.signer).Claims(claims).Serialize()
}

// dpopTransport puts a proof on every request (token requests; MCP
// requests that carry a token) and retries once with the nonce a server
// asks for (RFC 9449 §8, §9).
type dpopTransport struct {
	a        *authorizer
	next     http.RoundTripper
	resource bool
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	token := ""
	if scheme, cred, ok := strings.Cut(req.Header.Get("Authorization"), " "); ok && (strings.EqualFold(scheme, "DPoP") || strings.EqualFold(scheme, "Bearer")) {
		token = strings.TrimSpace(cred)
	}
	if t.resource && token == "" {
		return next.RoundTrip(req)
	}
	key, err := t.a.dpopKeyOf()
	if err != nil {
		return nil, fmt.Errorf("the DPoP key: %w", err)
	}
	origin := req.URL.Scheme + "://" + req.URL.Host
	send := func() (*http.Response, error) {
		r := req.Clone(req.Context())
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		key.mu.Lock()
		nonce := key.nonces[origin]
		if t.resource && t.a.is(AuthDPoPIgnoresRSNonce) {
			nonce = ""
		}
		proof, reused := key.reused[nonce]
		key.mu.Unlock()
		if !reused || !t.resource || !t.a.is(AuthDPoPReusesProof) {
			ath := token
			if t.resource && t.a.is(AuthDPoPNoATH) || !t.resource {
				ath = ""
			}
			if proof, err = key.proof(r.Method, r.URL, ath, nonce); err != nil {
				return nil, err
			}
			key.mu.Lock()
			key.reused[nonce] = proof
			key.mu.Unlock()
		}
		r.Header.Set("DPoP", proof)
		return next.RoundTrip(r)
	}
	resp, err := send()
	if err != nil {
		return nil, err
	}
	if !t.askedNonce(resp, key, origin) {
		return resp, nil
	}
	if t.resource && t.a.is(AuthDPoPIgnoresRSNonce) || !t.resource && t.a.is(AuthDPoPIgnoresASNonce) {
		return resp, nil
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	t.a.rc.logf("authorization: %s asks for a DPoP nonce; retrying with it", origin)
	return send()
}

// askedNonce records a DPoP-Nonce the answer carries and reports whether
// the answer is a use_dpop_nonce refusal: a 400 from the token endpoint
// with that error (§8), a 401 whose DPoP challenge names it (§9).
func (t *dpopTransport) askedNonce(resp *http.Response, key *dpopKey, origin string) bool {
	nonce := resp.Header.Get("DPoP-Nonce")
	if nonce == "" {
		return false
	}
	key.mu.Lock()
	key.nonces[origin] = nonce
	key.mu.Unlock()
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		for _, v := range resp.Header.Values("WWW-Authenticate") {
			if strings.Contains(v, "use_dpop_nonce") {
				return true
			}
		}
	case http.StatusBadRequest:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var e struct { // an OAuth error response (RFC 6749 §5.2), no MCP message
			Error string `json:"error"`
		}
		return json.Unmarshal(body, &e) == nil && e.Error == "use_dpop_nonce"
	}
	return false
}

// AuthCCAudTokenEndpoint is a liberty: the client assertion's aud is the
// token endpoint's URL, which RFC 7523 §3 allows as well as the issuer.
var AuthCCAudTokenEndpoint = &fault.Fault{Name: "auth-cc-aud-token-endpoint", Liberty: true, Transports: httpOnly, Versions: extVersions,
	Description: "names the token endpoint's URL as the client assertion's aud instead of the issuer",
	Freedom:     "The token endpoint URL of the authorization server MAY be used as a value for an \"aud\" element to identify the authorization server as an intended audience of the JWT."}

// authExtLiberties are the extension scenarios' liberties.
var authExtLiberties = fault.Set{AuthCCAudTokenEndpoint}
