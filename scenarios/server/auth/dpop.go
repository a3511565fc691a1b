package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The DPoP extension (SEP-1932) at the resource server, opt-in as on the
// client side: a token bound to a key (cnf.jkt) is no bearer token, and
// without its proof it is refused.

const (
	profileDPoP = "ext-dpop"
	dpopReqs    = "official-conformance/seps/sep-1932.yaml"
)

var dpopProofRequired = &scenarios.Check{ID: "auth-dpop/proof-required", Level: scenarios.Must, Spec: dpopReqs, Profile: profileDPoP,
	Quote: "If any validation step fails, the MCP server MUST reject the request with an HTTP 401 response and include appropriate error information in the `WWW-Authenticate` header as specified in RFC 9449 Section 7.1",
	Title: "a server that advertises DPoP refuses a DPoP-bound token with 401 when no DPoP proof comes with it, under the DPoP scheme " +
		"or as a bearer token (RFC 9449 §7.1, §7.2)",
	Faults: []*fault.Fault{server.DPoPProofUnchecked}, Liberties: []*fault.Fault{server.DPoPAdvertised}}

var dpopScenario = &scenarios.Scenario{
	ID:         "auth-dpop",
	Title:      "a protected server that advertises DPoP refuses a bound token without its proof",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   discoveryChoice,
	Transports: transports,
	Needs:      []scenarios.Need{scenarios.NeedsOther("an issuer the target trusts"), scenarios.NeedsOther("DPoP advertised in the Protected Resource Metadata"), scenarios.NeedsOther("--profile ext-dpop")},
	Purpose: "mcpconform's issuer mints a token bound to a fresh key's thumbprint (cnf.jkt); it is sent with Authorization: DPoP and " +
		"no DPoP header, then as a bearer token. A server whose metadata names no DPoP is not judged.",
	Checks: []*scenarios.Check{dpopProofRequired},
	Run: serverside.Body(func(t *serverside.T) {
		a := needIssuer(t)
		p := newProber(t)
		refusal := requireProtected(t, p)
		doc := p.findPRM(refusal)
		if doc == nil || (doc.doc["dpop_signing_alg_values_supported"] == nil && doc.doc["dpop_bound_access_tokens_required"] != true) {
			t.SkipRest("the server's Protected Resource Metadata advertises no DPoP (dpop_signing_alg_values_supported, dpop_bound_access_tokens_required)")
		}
		jkt, err := freshThumbprint()
		if err != nil {
			t.Abort("a DPoP key: %v", err)
		}
		tok, err := a.MintBound("mcpconform-subject-a", jkt)
		if err != nil {
			t.Abort("minting a bound token: %v", err)
		}
		var served []string
		for _, scheme := range []string{"DPoP", "Bearer"} {
			t.Step("send %s with a DPoP-bound token under the %s scheme, without a DPoP proof", t.Version().Handshake, scheme)
			ans, err := p.send(credentials{authorization: scheme + " " + tok, what: "a DPoP-bound token without proof (" + scheme + ")"})
			if err != nil {
				t.Abort("no HTTP answer: %v", err)
			}
			if ans.status != http.StatusUnauthorized {
				served = append(served, fmt.Sprintf("%s: %s", scheme, ans))
			}
		}
		t.Judge(dpopProofRequired, len(served) == 0, "HTTP 401 to both", strings.Join(served, "; "))
	}),
}

// freshThumbprint is the JWK SHA-256 thumbprint (RFC 7638) of a new key.
func freshThumbprint() (string, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	tp, err := (&jose.JSONWebKey{Key: k.Public()}).Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// findPRM fetches the Protected Resource Metadata as a client would: from
// the refusal's resource_metadata when it is on the target's origin, else
// from the well-known URIs; nil when none is served.
func (p *prober) findPRM(refusal *answer) *prmDoc {
	endpoint, err := url.Parse(p.target.URL)
	if err != nil {
		return nil
	}
	var places []string
	if ch, ok := bearer(refusal.header); ok && ch.Params["resource_metadata"] != "" {
		if u, err := url.Parse(ch.Params["resource_metadata"]); err == nil && u.IsAbs() && sameOrigin(u, endpoint) {
			places = append(places, u.String())
		}
	}
	for _, u := range append(places, wellKnownPRM(endpoint)...) {
		if d, err := p.fetchPRM(u); err == nil && d.status == http.StatusOK && d.doc != nil {
			return d
		}
	}
	return nil
}
