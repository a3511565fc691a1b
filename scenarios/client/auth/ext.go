package auth

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The authorization extensions (ext-auth): each is optional for a client,
// so every check of their scenarios is opt-in under the extension's
// profile, and a run that does not enable it does not launch the client.
// They run where the official suite runs them: 2025-11-25 and 2026-07-28.

// The extensions' profiles.
const (
	profileClientCredentials = "ext-oauth-client-credentials"
	profileEnterprise        = "ext-enterprise-managed-authorization"
	profileDPoP              = "ext-dpop"
	profileWIF               = "ext-wif"
)

// The pages the extensions' checks cite.
const (
	ccPage  = "ext-auth/oauth-client-credentials.mdx"
	emaPage = "ext-auth/enterprise-managed-authorization.mdx"
	// The DPoP and workload identity extensions have no page beside the
	// spec: their requirements are quoted as the official suite states them.
	dpopReqs = "official-conformance/seps/sep-1932.yaml"
	wifReqs  = "official-conformance/seps/sep-1933.yaml"
	sep1046  = "seps/1046-support-oauth-client-credentials-flow-in-authoriza.md"
)

// The official context's client of the client credentials scenarios.
const (
	ccClientID     = "conformance-test-client"
	ccClientSecret = "conformance-test-secret"
	wifClientID    = "conformance-wif-workload"
	wifIssuer      = "https://idp.conformance-test.local"
	wifSubject     = "conformance-workload"
)

// optIn makes every check of checks opt-in under profile.
func optIn(profile string, checks ...*scenarios.Check) []*scenarios.Check {
	for _, c := range checks {
		c.Profile = profile
	}
	return checks
}

// requireProfile stops the body before the client is launched when the
// run does not enable profile: the checks would be reported skipped anyway.
func requireProfile(t *clientside.T, profile string) {
	if !slices.Contains(t.Env.Profiles, profile) {
		t.SkipRest(fmt.Sprintf("opt-in profile %s is not enabled (--profile %s)", profile, profile))
	}
}

// extCheck is one check of an extension scenario.
func extCheck(id, name string, level scenarios.Level, spec, title, quote string, f ...*fault.Fault) *scenarios.Check {
	return &scenarios.Check{ID: id + "/" + name, Level: level, Spec: spec, Title: title, Quote: quote, Faults: f}
}

// grantOnly edits the metadata to offer only grant, with methods for the
// token endpoint, and no registration (the extensions use pre-registered
// clients).
func grantOnly(grant string, methods ...string) func(doc map[string]any) {
	return func(doc map[string]any) {
		doc["grant_types_supported"] = []any{grant}
		var ms []any
		for _, m := range methods {
			ms = append(ms, m)
		}
		doc["token_endpoint_auth_methods_supported"] = ms
		delete(doc, "registration_endpoint")
	}
}

// refuseOtherGrants refuses the grants the server serves itself
// (authorization_code, refresh_token) where only an extension grant is
// offered.
func refuseOtherGrants(r *authserver.TokenRequest) (string, int, string) {
	if r.GrantType == "authorization_code" || r.GrantType == "refresh_token" {
		return "unsupported_grant_type", http.StatusBadRequest, "this server offers only the grant its metadata lists"
	}
	return "", 0, ""
}

// tokenRequests are the requests to as's token endpoint.
func (f *flow) tokenRequests(as *authserver.Server) []authserver.Exchange {
	return f.endpoint(as, "/token")
}

// ccCommon are the baseline checks a client credentials, JWT bearer or
// token exchange scenario judges: no authorization code flow, so no PKCE
// and no state.
type ccCommon struct{ *common }

func newExtCommon(id string) ccCommon {
	c := newCommon(id)
	// No authorization request here: the token request alone carries it.
	c.resource.Title = "every token request carries resource, exactly the resource the protected resource metadata publishes"
	return ccCommon{c}
}

func (c ccCommon) list() []*scenarios.Check {
	return []*scenarios.Check{c.authorized, c.resource, c.bearer, c.noQuery, c.tokenStays}
}

// listWithoutResource leaves out the resource parameter, where the
// extension carries the resource elsewhere (SEP-990: in the token exchange
// and the ID-JAG).
func (c ccCommon) listWithoutResource() []*scenarios.Check {
	return []*scenarios.Check{c.authorized, c.bearer, c.noQuery, c.tokenStays}
}

func (c ccCommon) judgeWithoutResource(f *flow) {
	f.t.Judge(c.authorized, f.authorized() && f.called(), "an MCP request with an issued token, and the call of "+testTool,
		c.describeProgress(f))
	c.judgeTokenUse(f)
}

// judge judges them on the token requests of grant to as.
func (c ccCommon) judge(f *flow, as *authserver.Server, grant, resource string) {
	f.t.Judge(c.authorized, f.authorized() && f.called(), "an MCP request with an issued token, and the call of "+testTool,
		c.describeProgress(f))
	var reqs []authserver.Exchange
	for _, e := range f.tokenRequests(as) {
		if e.Form.Get("grant_type") == grant {
			reqs = append(reqs, e)
		}
	}
	c.judgeResource(f, resource, nil, reqs)
	c.judgeTokenUse(f)
}

// Client credentials with a JWT client assertion (RFC 7523 §2.2).

const ccJWTID = "client-auth-client-credentials-jwt"

var (
	ccJWTCommon    = newExtCommon(ccJWTID)
	ccJWTGrantType = extCheck(ccJWTID, "grant-type", scenarios.Must, ccPage+"#client-credentials-flow",
		"the client asks the token endpoint for grant_type client_credentials with the credentials the context gives, and runs no authorization code flow",
		"This flow requires pre-registered client credentials, which are typically established out-of-band through administrative channels.",
		client.AuthCCAuthorizationCode)
	ccJWTAssertionType = extCheck(ccJWTID, "assertion-type", scenarios.Must, ccPage+"#client-authentication-methods",
		"the token request carries client_assertion_type urn:ietf:params:oauth:client-assertion-type:jwt-bearer and a client_assertion (RFC 7523 §2.2)",
		"Clients use JWT Authentication as defined in RFC 7523 Section 2.2.",
		client.AuthCCWrongAssertionType)
	ccJWTIdentity = extCheck(ccJWTID, "assertion-identity", scenarios.Must, ccPage+"#client-authentication-methods",
		"the client assertion verifies with the public half of the context's private key, and its iss and sub are the client id (RFC 7523 §3)",
		"Clients use JWT Authentication as defined in RFC 7523 Section 2.2.",
		client.AuthCCWrongSubject)
	ccJWTAudience = extCheck(ccJWTID, "assertion-audience", scenarios.Must, ccPage+"#client-authentication-methods",
		"the client assertion's aud names the authorization server: its issuer identifier or its token endpoint URL (RFC 7523 §3)",
		"Clients use JWT Authentication as defined in RFC 7523 Section 2.2.",
		client.AuthCCWrongAudience)
	ccJWTExpiry = extCheck(ccJWTID, "assertion-expiry", scenarios.Must, ccPage+"#client-authentication-methods",
		"the client assertion carries an exp that has not passed (RFC 7523 §3)",
		"Clients use JWT Authentication as defined in RFC 7523 Section 2.2.",
		client.AuthCCNoExpiry)
)

func init() {
	ccJWTAudience.Liberties = []*fault.Fault{client.AuthCCAudTokenEndpoint}
	// Faults that leave the client without a token fail authorized too.
	ccJWTCommon.authorized.Faults = append(ccJWTCommon.authorized.Faults, client.AuthCCAuthorizationCode)
	ccBasicCommon.authorized.Faults = append(ccBasicCommon.authorized.Faults, client.AuthCCAuthorizationCode)
	wifCommon.authorized.Faults = append(wifCommon.authorized.Faults, client.AuthWIFClientCredentials, client.AuthWIFFallsBack)
	emaCommon.authorized.Faults = append(emaCommon.authorized.Faults, client.AuthEMASkipsExchange)
}

var clientCredentialsJWT = &scenarios.Scenario{
	ID:         ccJWTID,
	Official:   "auth/client-credentials-jwt",
	Title:      "Client credentials extension: client_credentials grant with a private_key_jwt client assertion",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The authorization server offers only the client_credentials grant with private_key_jwt (ES256); the context gives the client id, " +
		"a private key (PEM) and the signing algorithm. The client must sign a client assertion (iss = sub = client id, aud the server, exp), " +
		"get a token with it and call " + testTool + ". Opt-in: --profile " + profileClientCredentials + ".",
	Checks: optIn(profileClientCredentials, append([]*scenarios.Check{ccJWTGrantType, ccJWTAssertionType, ccJWTIdentity, ccJWTAudience, ccJWTExpiry},
		ccJWTCommon.list()...)...),
	Run: clientside.Body(func(t *clientside.T) {
		requireProfile(t, profileClientCredentials)
		key, err := authserver.NewKey()
		if err != nil {
			t.Abort("the client's key pair: %v", err)
		}
		keyPEM, err := key.PEM()
		if err != nil {
			t.Abort("the client's key pair: %v", err)
		}
		f := serve(t, clientside.Protection{
			Servers: []authserver.Options{{
				EditMetadata: func(doc map[string]any) {
					grantOnly(authserver.GrantClientCredentials, "private_key_jwt")(doc)
					doc["token_endpoint_auth_signing_alg_values_supported"] = []any{"ES256"}
				},
				OnToken: refuseOtherGrants,
				Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
					if r.GrantType != authserver.GrantClientCredentials {
						return nil, "unsupported_grant_type", http.StatusBadRequest, "only client_credentials is served here"
					}
					j, err := authserver.Verify(r.Form.Get("client_assertion"), key.Public())
					if err != nil {
						return nil, "invalid_client", http.StatusUnauthorized, "the client assertion: " + err.Error()
					}
					// Lenient on the claims, which the checks judge.
					return &authserver.Grant{ClientID: j.Claims.Subject, Scopes: strings.Fields(r.Form.Get("scope"))}, "", 0, ""
				},
			}},
			Context: func(*clientside.Protected) map[string]any {
				return map[string]any{"client_id": ccClientID, "private_key_pem": keyPEM, "signing_algorithm": "ES256"}
			},
		})
		as := f.p.AS(0)
		reqs := f.tokenRequests(as)
		judgeGrantType(f, ccJWTGrantType, as, authserver.GrantClientCredentials)
		var cc []authserver.Exchange
		for _, e := range reqs {
			if e.Form.Get("grant_type") == authserver.GrantClientCredentials {
				cc = append(cc, e)
			}
		}
		if len(cc) == 0 {
			for _, c := range []*scenarios.Check{ccJWTAssertionType, ccJWTIdentity, ccJWTAudience, ccJWTExpiry} {
				t.Skip(c, "the client made no client_credentials token request ("+f.end()+")")
			}
		} else {
			var badType, badID, badAud, badExp []string
			for _, e := range cc {
				if got := e.Form.Get("client_assertion_type"); got != authserver.AssertionTypeJWT || e.Form.Get("client_assertion") == "" {
					badType = append(badType, fmt.Sprintf("client_assertion_type %s, client_assertion %s", quoted(got), present(e.Form.Get("client_assertion"))))
				}
				j, err := authserver.Verify(e.Form.Get("client_assertion"), key.Public())
				if err != nil {
					badID = append(badID, "the client assertion: "+err.Error())
					continue
				}
				// One judgement of RFC 7523 §3, its findings sorted by claim.
				for _, p := range authserver.AssertionProblems(j, ccClientID, ccClientID, authserver.Audiences(as.Issuer(), as.Endpoint("/token")), false, e.At) {
					switch {
					case strings.HasPrefix(p, "iss"), strings.HasPrefix(p, "sub"):
						badID = append(badID, p)
					case strings.HasPrefix(p, "aud"):
						badAud = append(badAud, p)
					default:
						badExp = append(badExp, p)
					}
				}
			}
			t.Judge(ccJWTAssertionType, len(badType) == 0, "client_assertion_type "+authserver.AssertionTypeJWT+" with a client_assertion", listed(badType))
			t.Judge(ccJWTIdentity, len(badID) == 0, fmt.Sprintf("an assertion signed with the context's key, iss and sub %q", ccClientID), listed(badID))
			t.Judge(ccJWTAudience, len(badAud) == 0, fmt.Sprintf("aud %q or %q", as.Issuer(), as.Endpoint("/token")), listed(badAud))
			t.Judge(ccJWTExpiry, len(badExp) == 0, "an exp in the future", listed(badExp))
		}
		ccJWTCommon.judge(f, as, authserver.GrantClientCredentials, f.p.ResourceID())
	}),
}

// judgeGrantType: the client asked for grant at as, and made no
// authorization request and no token request of another grant.
func judgeGrantType(f *flow, c *scenarios.Check, as *authserver.Server, grant string) {
	reqs := f.tokenRequests(as)
	if len(reqs) == 0 && len(f.endpoint(as, "/authorize")) == 0 {
		if !f.contactedAS() {
			f.t.Skip(c, "the client never set out to authorize: no request to an authorization server ("+f.end()+")")
			return
		}
		f.t.Fail(c, "a token request with grant_type "+grant, "no token request ("+f.end()+")")
		return
	}
	var bad []string
	if n := len(f.endpoint(as, "/authorize")); n > 0 {
		bad = append(bad, fmt.Sprintf("%d authorization request(s)", n))
	}
	for _, e := range reqs {
		if g := e.Form.Get("grant_type"); g != grant {
			bad = append(bad, "a token request with grant_type "+quoted(g))
		}
	}
	f.t.Judge(c, len(bad) == 0, "token requests with grant_type "+grant+" only", listed(bad))
}

// Client credentials with client_secret_basic.

const ccBasicID = "client-auth-client-credentials-basic"

var (
	ccBasicCommon    = newExtCommon(ccBasicID)
	ccBasicGrantType = extCheck(ccBasicID, "grant-type", scenarios.Must, ccPage+"#client-credentials-flow",
		"the client asks the token endpoint for grant_type client_credentials with the credentials the context gives, and runs no authorization code flow",
		"This flow requires pre-registered client credentials, which are typically established out-of-band through administrative channels.",
		client.AuthCCAuthorizationCode)
)

// The page's example puts the secret in the form body, yet the metadata it
// requires names client_secret_basic, and SEP-1046 allows secrets "via
// HTTP Basic authentication": the server here supports that method only,
// so the body is a method it did not offer.
var ccBasicAuthCheck = &scenarios.Check{ID: ccBasicID + "/basic-auth", Level: scenarios.Must, Spec: ccPage + "#server-metadata-requirements",
	Source: sep1046,
	Title: "the server supports client_secret_basic only: every client_credentials token request authenticates with HTTP Basic, " +
		"the context's client id and secret form-urlencoded (RFC 6749 §2.3.1), and puts no client_secret in the body",
	Quote:  "Client Secrets via HTTP Basic authentication",
	Faults: []*fault.Fault{client.AuthCCSecretInBody}}

var clientCredentialsBasic = &scenarios.Scenario{
	ID:         ccBasicID,
	Official:   "auth/client-credentials-basic",
	Title:      "Client credentials extension: client_credentials grant with client_secret_basic",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The authorization server offers only the client_credentials grant with client_secret_basic; the context gives the client id and secret. " +
		"The client must authenticate with HTTP Basic, get a token and call " + testTool + ". Opt-in: --profile " + profileClientCredentials + ".",
	Checks: optIn(profileClientCredentials, append([]*scenarios.Check{ccBasicGrantType, ccBasicAuthCheck}, ccBasicCommon.list()...)...),
	Run: clientside.Body(func(t *clientside.T) {
		requireProfile(t, profileClientCredentials)
		f := serve(t, clientside.Protection{
			Servers: []authserver.Options{{
				EditMetadata: grantOnly(authserver.GrantClientCredentials, "client_secret_basic"),
				OnToken:      refuseOtherGrants,
				Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
					if r.GrantType != authserver.GrantClientCredentials {
						return nil, "unsupported_grant_type", http.StatusBadRequest, "only client_credentials is served here"
					}
					// Lenient on the method (the check judges it), strict
					// on the credentials.
					if r.ClientID != ccClientID || r.Secret != ccClientSecret {
						return nil, "invalid_client", http.StatusUnauthorized, "unknown client or wrong secret"
					}
					return &authserver.Grant{ClientID: r.ClientID, Scopes: strings.Fields(r.Form.Get("scope"))}, "", 0, ""
				},
			}},
			Context: func(*clientside.Protected) map[string]any {
				secret.Add(ccClientSecret)
				return map[string]any{"client_id": ccClientID, "client_secret": ccClientSecret}
			},
		})
		as := f.p.AS(0)
		judgeGrantType(f, ccBasicGrantType, as, authserver.GrantClientCredentials)
		var cc []authserver.Exchange
		for _, e := range f.tokenRequests(as) {
			if e.Form.Get("grant_type") == authserver.GrantClientCredentials {
				cc = append(cc, e)
			}
		}
		if len(cc) == 0 {
			t.Skip(ccBasicAuthCheck, "the client made no client_credentials token request ("+f.end()+")")
		} else {
			var bad []string
			for _, e := range cc {
				id, sec, ok := basicAuth(e.Header)
				switch {
				case !ok:
					bad = append(bad, "no Authorization: Basic header")
				case id != ccClientID || sec != ccClientSecret:
					bad = append(bad, "Basic credentials other than the context's client id and secret")
				}
				if e.Form.Get("client_secret") != "" {
					bad = append(bad, "a client_secret in the form body")
				}
			}
			t.Judge(ccBasicAuthCheck, len(bad) == 0, "Authorization: Basic with the context's client id and secret", listed(bad))
		}
		ccBasicCommon.judge(f, as, authserver.GrantClientCredentials, f.p.ResourceID())
	}),
}

// basicAuth reads an Authorization: Basic header, each half
// form-urlencoded (RFC 6749 §2.3.1).
func basicAuth(h http.Header) (id, sec string, ok bool) {
	scheme, cred, found := strings.Cut(h.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "", "", false
	}
	id, sec, ok = strings.Cut(string(raw), ":")
	if u, err := url.QueryUnescape(id); err == nil {
		id = u
	}
	if u, err := url.QueryUnescape(sec); err == nil {
		sec = u
	}
	return id, sec, ok
}

// Workload identity federation: the JWT bearer grant with a workload JWT.

const wifID = "client-auth-wif-jwt-bearer"

var (
	wifCommon    = newExtCommon(wifID)
	wifGrantType = extCheck(wifID, "grant-type", scenarios.Must, wifReqs,
		"the client's first token request asks for grant_type urn:ietf:params:oauth:grant-type:jwt-bearer",
		"clients MUST use this grant type for JWT-bearer authorization grants",
		client.AuthWIFClientCredentials)
	wifAssertion = extCheck(wifID, "assertion", scenarios.Must, wifReqs,
		"every JWT bearer token request carries the context's valid workload JWT as assertion: its signature, audience and expiry verify (RFC 7523 §2.1, §3)",
		"the assertion parameter is REQUIRED and MUST contain the JWT",
		client.AuthWIFRetriesAfterError, client.AuthWIFFallsBack)
	wifNoRetry = extCheck(wifID, "no-retry", scenarios.Should, wifReqs,
		"once a JWT bearer token request is refused (invalid_grant, invalid_scope, unauthorized_client), the client makes no further JWT bearer token request: it surfaces the error",
		"Clients should not retry a JWT-bearer token request after the authorization server has rejected the assertion, including after invalid_scope responses",
		client.AuthWIFRetriesAfterError)
	wifNoFallback = extCheck(wifID, "no-fallback", scenarios.Should, wifReqs,
		"once a JWT bearer token request is refused, the client asks for no other grant type",
		"When the authorization server returns unauthorized_client for a JWT-bearer token request, the client should not fall back to a different grant type",
		client.AuthWIFFallsBack)
)

var wifJWTBearer = &scenarios.Scenario{
	ID:         wifID,
	Official:   "auth/wif-jwt-bearer",
	Title:      "Workload identity federation extension: the JWT bearer grant with a workload JWT, errors surfaced without retry or fallback",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The authorization server offers only the JWT bearer grant (RFC 7523) to a client without authentication and no registration; the context gives " +
		"a valid workload JWT, one with the wrong audience and an expired one. The client must present the valid one as assertion, get a token and call " +
		testTool + "; a refused request must be surfaced, not retried nor followed by another grant. Opt-in: --profile " + profileWIF + ".",
	Checks: optIn(profileWIF, append([]*scenarios.Check{wifGrantType, wifAssertion, wifNoRetry, wifNoFallback}, wifCommon.list()...)...),
	Run: clientside.Body(func(t *clientside.T) {
		requireProfile(t, profileWIF)
		key, err := authserver.NewKey()
		if err != nil {
			t.Abort("the workload identity provider's key: %v", err)
		}
		var as func() *authserver.Server
		audiences := func() []string { return authserver.Audiences(as().Issuer(), as().Endpoint("/token")) }
		f := serve(t, clientside.Protection{
			Servers: []authserver.Options{{
				EditMetadata: grantOnly(authserver.GrantJWTBearer, "none"),
				OnToken:      refuseOtherGrants,
				Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
					if r.GrantType != authserver.GrantJWTBearer {
						return nil, "unsupported_grant_type", http.StatusBadRequest, "only the JWT bearer grant is served here"
					}
					j, err := authserver.Verify(r.Form.Get("assertion"), key.Public())
					if err != nil {
						return nil, "invalid_grant", http.StatusBadRequest, "the assertion: " + err.Error()
					}
					if p := authserver.AssertionProblems(j, "", "", audiences(), false, time.Now()); len(p) > 0 {
						return nil, "invalid_grant", http.StatusBadRequest, "the assertion: " + strings.Join(p, "; ")
					}
					return &authserver.Grant{ClientID: j.Claims.Subject, Scopes: strings.Fields(r.Form.Get("scope"))}, "", 0, ""
				},
			}},
			Context: func(p *clientside.Protected) map[string]any {
				as = func() *authserver.Server { return p.AS(0) }
				now := time.Now()
				sign := func(aud string, exp time.Time) string {
					s, err := key.Sign("JWT", map[string]any{"iss": wifIssuer, "sub": wifSubject, "aud": aud, "iat": now.Unix(),
						"exp": exp.Unix(), "jti": authserver.Mint("wif-")})
					if err != nil {
						t.Abort("a workload JWT: %v", err)
					}
					return s
				}
				return map[string]any{"client_id": wifClientID, "valid_jwt": sign(p.AS(0).Issuer(), now.Add(time.Hour)),
					"wrong_audience_jwt": sign("https://wrong.example", now.Add(time.Hour)), "expired_jwt": sign(p.AS(0).Issuer(), now.Add(-time.Minute))}
			},
		})
		reqs := f.tokenRequests(f.p.AS(0))
		if len(reqs) == 0 {
			for _, c := range []*scenarios.Check{wifGrantType, wifAssertion, wifNoRetry, wifNoFallback} {
				t.Skip(c, "the client made no token request ("+f.end()+")")
			}
		} else {
			first := reqs[0].Form.Get("grant_type")
			t.Judge(wifGrantType, first == authserver.GrantJWTBearer, "grant_type "+authserver.GrantJWTBearer, "grant_type "+quoted(first))
			var badAssertion, retried, fellBack []string
			refused, bearers := false, 0
			for _, e := range reqs {
				bearer := e.Form.Get("grant_type") == authserver.GrantJWTBearer
				if refused && bearer {
					retried = append(retried, "a JWT bearer token request after a refused one")
				}
				if refused && !bearer {
					fellBack = append(fellBack, "grant_type "+quoted(e.Form.Get("grant_type"))+" after a refused JWT bearer request")
				}
				if bearer {
					bearers++
					j, err := authserver.Verify(e.Form.Get("assertion"), key.Public())
					switch {
					case err != nil:
						badAssertion = append(badAssertion, "assertion: "+err.Error())
					default:
						for _, p := range authserver.AssertionProblems(j, "", "", audiences(), false, e.At) {
							badAssertion = append(badAssertion, "assertion: "+p)
						}
					}
					if e.Status != http.StatusOK {
						refused = true
					}
				}
			}
			if bearers == 0 {
				t.Skip(wifAssertion, "the client made no JWT bearer token request ("+f.end()+")")
			} else {
				t.Judge(wifAssertion, len(badAssertion) == 0, "the valid workload JWT as assertion", listed(badAssertion))
			}
			if !refused {
				// Nothing was refused, so nothing could be retried: say so.
				t.PassWith(wifNoRetry, "no JWT bearer token request was refused, so there was none to retry")
				t.PassWith(wifNoFallback, "no JWT bearer token request was refused, so there was no grant to fall back from")
			} else {
				t.Judge(wifNoRetry, len(retried) == 0, "no JWT bearer token request after a refusal", listed(retried))
				t.Judge(wifNoFallback, len(fellBack) == 0, "no other grant after a refusal", listed(fellBack))
			}
		}
		wifCommon.judge(f, f.p.AS(0), authserver.GrantJWTBearer, f.p.ResourceID())
	}),
}
