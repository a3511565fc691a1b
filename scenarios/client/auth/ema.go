package auth

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// Enterprise-managed authorization (SEP-990): the client exchanges the ID
// token the enterprise IdP gave it for an ID-JAG at the IdP's token
// endpoint (RFC 8693), then presents the ID-JAG to the MCP authorization
// server in the JWT bearer grant (RFC 7523), authenticated as its client.

const emaID = "client-auth-enterprise-managed-authorization"

// The official context's clients.
const (
	emaClientID     = "conformance-test-xaa-client"
	emaClientSecret = "conformance-test-xaa-secret"
	emaIdPClientID  = "conformance-test-idp-client"
	emaUser         = "demo-user@example.com"
)

var (
	emaCommon   = newExtCommon(emaID)
	emaExchange = extCheck(emaID, "token-exchange", scenarios.Must, emaPage+"#4-token-exchange",
		"the client makes a token exchange at the IdP's token endpoint: grant_type token-exchange, requested_token_type id-jag, audience the MCP authorization server's issuer, "+
			"resource the MCP server's resource identifier, subject_token the context's ID token with subject_token_type id_token",
		"To request a JWT Assertion Grant, the MCP Client MUST make a Token Exchange (RFC8693) request to the IdP's Token Endpoint with the following parameters:",
		client.AuthEMAWrongTokenType, client.AuthEMASkipsExchange)
	emaJWTBearer = extCheck(emaID, "jwt-bearer", scenarios.Must, emaPage+"#5-access-token-request",
		"the client's token request to the MCP authorization server is grant_type urn:ietf:params:oauth:grant-type:jwt-bearer with the ID-JAG the IdP issued as assertion",
		"MUST be urn:ietf:params:oauth:grant-type:jwt-bearer",
		client.AuthEMASkipsExchange)
	emaClientAuth = extCheck(emaID, "client-auth", scenarios.Must, emaPage+"#5-access-token-request",
		"the JWT bearer token request authenticates with the client's credentials at the MCP authorization server: client_secret_basic (the one method its metadata lists) with the context's client_id and client_secret",
		"The MCP Client authenticates with its credentials as registered with the MCP Server's authorization server.",
		client.AuthEMANoClientAuth)
)

var enterpriseManaged = &scenarios.Scenario{
	ID:         emaID,
	Official:   "auth/enterprise-managed-authorization",
	Title:      "Enterprise-managed authorization extension: token exchange at the IdP for an ID-JAG, then the JWT bearer grant at the MCP authorization server",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "An enterprise IdP (its own origin) serves token exchange; the MCP authorization server serves only the JWT bearer grant with client_secret_basic. " +
		"The context gives the client's credentials at the authorization server, its IdP client id, an ID token and the IdP's token endpoint. " +
		"The client must exchange the ID token for an ID-JAG, present it in the JWT bearer grant, and call " + testTool + ". Opt-in: --profile " + profileEnterprise + ".",
	Checks: optIn(profileEnterprise, append([]*scenarios.Check{emaExchange, emaJWTBearer, emaClientAuth}, emaCommon.listWithoutResource()...)...),
	Run: clientside.Body(func(t *clientside.T) {
		requireProfile(t, profileEnterprise)
		idpKey, err := authserver.NewKey()
		if err != nil {
			t.Abort("the IdP's key: %v", err)
		}
		jagKey, err := authserver.NewKey()
		if err != nil {
			t.Abort("the IdP's grant key: %v", err)
		}
		var p *clientside.Protected
		var idToken string
		f := serve(t, clientside.Protection{
			Servers: []authserver.Options{{
				EditMetadata: grantOnly(authserver.GrantJWTBearer, "client_secret_basic"),
				OnToken:      refuseOtherGrants,
				Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
					if r.GrantType != authserver.GrantJWTBearer {
						return nil, "unsupported_grant_type", http.StatusBadRequest, "only the JWT bearer grant is served here"
					}
					j, err := authserver.Verify(r.Form.Get("assertion"), jagKey.Public())
					if err != nil {
						return nil, "invalid_grant", http.StatusBadRequest, "the assertion is no ID-JAG of the IdP: " + err.Error()
					}
					// Lenient on the client's authentication, which a check
					// judges.
					return &authserver.Grant{ClientID: r.ClientID, Scopes: strings.Fields(r.Form.Get("scope")),
						Resource: fmt.Sprint(j.Extra["resource"])}, "", 0, ""
				},
			}, {
				Label:        "idp",
				OpenID:       true,
				EditMetadata: grantOnly(authserver.GrantTokenExchange, "none", "client_secret_basic", "client_secret_post"),
				OnToken:      refuseOtherGrants,
				Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
					if r.GrantType != authserver.GrantTokenExchange {
						return nil, "unsupported_grant_type", http.StatusBadRequest, "only token exchange is served here"
					}
					id, err := authserver.Verify(r.Form.Get("subject_token"), idpKey.Public())
					if err != nil {
						return nil, "invalid_grant", http.StatusBadRequest, "the subject token is no ID token of this IdP: " + err.Error()
					}
					// Lenient on the other parameters, which a check judges.
					now := time.Now()
					jag, err := jagKey.Sign(authserver.TypIDJAG, map[string]any{"iss": p.AS(1).Issuer(), "sub": id.Claims.Subject,
						"aud": r.Form.Get("audience"), "resource": r.Form.Get("resource"), "client_id": emaClientID,
						"jti": authserver.Mint("jag-"), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()})
					if err != nil {
						return nil, "server_error", http.StatusInternalServerError, "signing the ID-JAG: " + err.Error()
					}
					return &authserver.Grant{Access: jag, TokenType: "N_A", NotAccess: true,
						Answer: map[string]any{"issued_token_type": authserver.TokenTypeIDJAG, "expires_in": 300}}, "", 0, ""
				},
			}},
			Context: func(pr *clientside.Protected) map[string]any {
				p = pr
				secret.Add(emaClientSecret)
				now := time.Now()
				idToken, err = idpKey.Sign("JWT", map[string]any{"iss": pr.AS(1).Issuer(), "sub": emaUser, "email": emaUser,
					"aud": emaIdPClientID, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
				if err != nil {
					t.Abort("the ID token: %v", err)
				}
				return map[string]any{"client_id": emaClientID, "client_secret": emaClientSecret, "idp_client_id": emaIdPClientID,
					"idp_id_token": idToken, "idp_issuer": pr.AS(1).Issuer(), "idp_token_endpoint": pr.AS(1).Endpoint("/token")}
			},
		})
		as, idp := f.p.AS(0), f.p.AS(1)
		judgeExchange(f, idp, as, idToken)
		judgeJWTBearer(f, as, jagKey)
		emaCommon.judgeWithoutResource(f)
	}),
}

// judgeExchange: the client's token exchanges at the IdP carry the
// parameters SEP-990 §4 requires.
func judgeExchange(f *flow, idp, as *authserver.Server, idToken string) {
	reqs := f.tokenRequests(idp)
	if len(reqs) == 0 {
		if len(f.of(as.Label())) == 0 {
			f.t.Skip(emaExchange, "the client never set out to authorize: no request to the authorization server ("+f.end()+")")
			return
		}
		f.t.Fail(emaExchange, "a token exchange at the IdP's token endpoint", "no request to it ("+f.end()+")")
		return
	}
	want := map[string]string{"grant_type": authserver.GrantTokenExchange, "requested_token_type": authserver.TokenTypeIDJAG,
		"audience": as.Issuer(), "resource": f.p.ResourceID(), "subject_token_type": authserver.TokenTypeIDToken}
	var bad []string
	for _, e := range reqs {
		for _, k := range []string{"grant_type", "requested_token_type", "audience", "resource", "subject_token_type"} {
			if got := e.Form.Get(k); got != want[k] {
				bad = append(bad, fmt.Sprintf("%s %s, not %q", k, quoted(got), want[k]))
			}
		}
		if e.Form.Get("subject_token") != idToken {
			bad = append(bad, "subject_token "+present(e.Form.Get("subject_token"))+", not the context's ID token")
		}
	}
	f.t.Judge(emaExchange, len(bad) == 0, "a token exchange with the parameters of SEP-990 §4", listed(bad))
}

// judgeJWTBearer: the token requests to the MCP authorization server are
// the JWT bearer grant with an ID-JAG of the IdP, authenticated with
// client_secret_basic.
func judgeJWTBearer(f *flow, as *authserver.Server, jagKey *authserver.Key) {
	reqs := f.tokenRequests(as)
	if len(reqs) == 0 {
		for _, c := range []*scenarios.Check{emaJWTBearer, emaClientAuth} {
			if len(f.of(as.Label())) == 0 {
				f.t.Skip(c, "the client never set out to authorize: no request to the authorization server ("+f.end()+")")
			} else {
				f.t.Fail(c, "a token request to the MCP authorization server", "none ("+f.end()+")")
			}
		}
		return
	}
	var badGrant, badAuth []string
	for _, e := range reqs {
		if g := e.Form.Get("grant_type"); g != authserver.GrantJWTBearer {
			badGrant = append(badGrant, "grant_type "+quoted(g))
		} else if j, err := authserver.Verify(e.Form.Get("assertion"), jagKey.Public()); err != nil {
			badGrant = append(badGrant, "an assertion that is no ID-JAG the IdP issued")
		} else if j.Typ != authserver.TypIDJAG {
			badGrant = append(badGrant, "an assertion of typ "+quoted(j.Typ))
		}
		id, sec, ok := basicAuth(e.Header)
		switch {
		case !ok:
			badAuth = append(badAuth, "no Authorization: Basic header")
		case id != emaClientID || sec != emaClientSecret:
			badAuth = append(badAuth, "Basic credentials other than the context's client_id and client_secret")
		}
	}
	f.t.Judge(emaJWTBearer, len(badGrant) == 0, "the JWT bearer grant with the IdP's ID-JAG", listed(badGrant))
	f.t.Judge(emaClientAuth, len(badAuth) == 0, "Authorization: Basic with the context's client credentials", listed(badAuth))
}
