package auth

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// DPoP (SEP-1932, RFC 9449): the authorization code flow, with a proof at
// every token request, a DPoP-bound token, and the token presented with
// the DPoP scheme and a fresh proof on every MCP request; in the nonce
// scenario both servers first ask for a nonce.

// The nonces the servers hand out (the official values).
const (
	asNonce = "conformance-as-dpop-nonce"
	rsNonce = "conformance-rs-dpop-nonce"
)

// dpopChecks are a DPoP scenario's checks beyond the common ones.
type dpopChecks struct {
	c                                          *common
	tokenProof, freshProof, asNonceC, rsNonceC *scenarios.Check
	nonce                                      bool
}

func newDPoP(id string, nonce bool) *dpopChecks {
	c := newCommon(id)
	// The DPoP scheme takes the place of Bearer (RFC 9449 §7.1).
	c.bearer.ID = id + "/dpop-auth-scheme"
	c.bearer.Spec = dpopReqs
	c.bearer.Title = "once it holds its DPoP-bound token, every HTTP request of the client to the MCP endpoint carries it as Authorization: DPoP"
	c.bearer.Quote = "When making requests to protected MCP server resources, clients MUST include the access token using the `Authorization` header with the `DPoP` authentication scheme as specified in RFC 9449 Section 7.1"
	c.bearer.Faults = faults(client.AuthDPoPBearerScheme, client.AuthTokenInQuery, client.AuthDPoPNoTokenProof)
	d := &dpopChecks{c: c, nonce: nonce,
		tokenProof: extCheck(id, "token-request-proof", scenarios.Must, dpopReqs,
			"every token request carries one well-formed DPoP proof (RFC 9449 §4.2–4.3, §5): typ dpop+jwt, an asymmetric alg, a public jwk that verifies it, jti, htm POST, htu the token endpoint without query or fragment, iat now",
			"To obtain a DPoP-bound access token, the client MUST include a DPoP proof in the `DPoP` header of its token request (RFC 9449 Section 5)",
			client.AuthDPoPNoTokenProof),
		freshProof: extCheck(id, "fresh-proof", scenarios.Must, dpopReqs,
			"every MCP request with the token carries a well-formed proof of the token's key, with htm and htu of the request and ath the token's hash, and no two share a jti",
			"When making requests to protected MCP server resources, clients MUST include a fresh DPoP proof in the `DPoP` header",
			client.AuthDPoPReusesProof, client.AuthDPoPNoATH, client.AuthDPoPNoTokenProof),
	}
	if nonce {
		// Without a nonce retry the client never gets through.
		c.authorized.Faults = append(c.authorized.Faults, client.AuthDPoPIgnoresASNonce, client.AuthDPoPIgnoresRSNonce)
		d.asNonceC = extCheck(id, "as-nonce", scenarios.Must, dpopReqs,
			"answered use_dpop_nonce with a DPoP-Nonce by the token endpoint, the client retries the token request with a proof carrying that nonce (RFC 9449 §8)",
			"When the authorization server responds with `use_dpop_nonce`, the client MUST retry the token request with a DPoP proof that includes the supplied `nonce` (RFC 9449 Section 8)",
			client.AuthDPoPIgnoresASNonce)
		d.rsNonceC = extCheck(id, "rs-nonce", scenarios.Must, dpopReqs,
			"answered 401 with WWW-Authenticate: DPoP error=\"use_dpop_nonce\" and a DPoP-Nonce by the MCP server, the client retries the request with a proof carrying that nonce (RFC 9449 §9)",
			"When the MCP server responds with `use_dpop_nonce`, the client MUST retry the request with a DPoP proof that includes the supplied `nonce` (RFC 9449 Section 9)",
			client.AuthDPoPIgnoresRSNonce)
	}
	return d
}

func (d *dpopChecks) list() []*scenarios.Check {
	out := append([]*scenarios.Check{d.tokenProof, d.freshProof}, d.c.list()...)
	if d.nonce {
		out = append(out, d.asNonceC, d.rsNonceC)
	}
	return out
}

// protection is the scenario's protected resource and server: the server
// advertises ES256 for proofs and binds tokens; the resource takes a
// DPoP-bound token with its proof (and, for the nonce scenario, asks for
// its nonce first).
func (d *dpopChecks) protection() clientside.Protection {
	var nonceAS, nonceRS string
	if d.nonce {
		nonceAS, nonceRS = asNonce, rsNonce
	}
	return clientside.Protection{
		Servers: []authserver.Options{{
			EditMetadata: func(doc map[string]any) { doc["dpop_signing_alg_values_supported"] = []any{"ES256"} },
			Bind:         authserver.DPoPBinder(nonceAS),
		}},
		Present: func(p *clientside.Protected, r *http.Request) (*authserver.Grant, string, http.Header) {
			challenge := func(errCode string) string {
				s := `DPoP algs="ES256"`
				if errCode != "" {
					s += fmt.Sprintf(", error=%q", errCode)
				}
				return s + fmt.Sprintf(", resource_metadata=%q", p.PRMURL())
			}
			_, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
			tok = strings.TrimSpace(tok)
			if !ok || tok == "" {
				return nil, challenge(""), nil
			}
			g, _ := p.Lookup(tok)
			if g == nil {
				return nil, challenge("invalid_token"), nil
			}
			// Lenient: a bearer token, a wrong scheme or a bad proof still
			// passes (the checks judge them); only the nonce is asked for.
			if nonceRS != "" && g.JKT != "" {
				proof := authserver.CheckProof(r.Header.Values("DPoP"), r.Method, p.Endpoint, tok, time.Now())
				if proof.JKT != "" && proof.Nonce != nonceRS {
					return nil, challenge("use_dpop_nonce"), http.Header{"Dpop-Nonce": {nonceRS}}
				}
			}
			return g, "", nil
		},
		Context: func(*clientside.Protected) map[string]any { return map[string]any{} },
	}
}

// judge judges a DPoP flow.
func (d *dpopChecks) judge(f *flow) {
	t := f.t
	f.scheme = "DPoP"
	d.c.judge(f, f.p.ResourceID())
	as := f.p.AS(0)
	tokens := f.tokenRequests(as)
	if len(tokens) == 0 {
		t.Skip(d.tokenProof, "the client made no token request ("+f.end()+")")
	} else {
		var bad []string
		for _, e := range tokens {
			for _, p := range authserver.CheckProof(e.Header.Values("DPoP"), http.MethodPost, as.Endpoint("/token"), "", e.At).Problems {
				bad = append(bad, "token request: "+p)
			}
		}
		t.Judge(d.tokenProof, len(bad) == 0, "a well-formed proof on every token request", listed(bad))
	}
	var presented int
	var bad []string
	seen := map[string]bool{}
	for _, e := range f.mcpRequests() {
		_, tok, ok := strings.Cut(e.Header.Get("Authorization"), " ")
		if !ok {
			continue
		}
		g, _ := f.p.Lookup(strings.TrimSpace(tok))
		if g == nil {
			continue
		}
		presented++
		p := authserver.CheckProof(e.Header.Values("DPoP"), e.Method, f.p.Endpoint, strings.TrimSpace(tok), e.At)
		for _, x := range p.Problems {
			bad = append(bad, e.Method+" /mcp: "+x)
		}
		switch {
		case g.JKT == "":
			bad = append(bad, e.Method+" /mcp: a token that is not DPoP-bound")
		case p.JKT != "" && p.JKT != g.JKT:
			bad = append(bad, e.Method+" /mcp: a proof of a key other than the token's")
		}
		if p.JTI != "" {
			if seen[p.JTI] {
				bad = append(bad, e.Method+" /mcp: a proof sent before (its jti again)")
			}
			seen[p.JTI] = true
		}
	}
	if presented == 0 {
		t.Skip(d.freshProof, "the client presented no issued token to the MCP server ("+f.end()+")")
	} else {
		t.Judge(d.freshProof, len(bad) == 0, "a fresh, well-formed proof of the token's key on every MCP request", listed(bad))
	}
	if d.nonce {
		d.judgeNonce(f, d.asNonceC, f.of(as.Label()), as.EndpointPath("/token"), asNonce, "the token endpoint")
		d.judgeNonce(f, d.rsNonceC, f.of("resource"), "/mcp", rsNonce, "the MCP server")
	}
}

// judgeNonce: after the first use_dpop_nonce answer at path, a request
// followed whose proof carries nonce, and it was not refused again.
func (d *dpopChecks) judgeNonce(f *flow, c *scenarios.Check, entries []authserver.Exchange, path, nonce, who string) {
	asked := -1
	for i, e := range entries {
		if e.Path == path && e.Status/100 == 4 && len(e.Header.Values("DPoP")) > 0 && proofNonce(e) != nonce {
			asked = i
			break
		}
	}
	if asked < 0 {
		f.t.Skip(c, who+" never had a proof to answer with use_dpop_nonce ("+f.end()+")")
		return
	}
	for _, e := range entries[asked+1:] {
		if e.Path == path && proofNonce(e) == nonce {
			f.t.Judge(c, e.Status/100 == 2, "the request retried with the nonce, and let through",
				fmt.Sprintf("the retry with the nonce was answered %d", e.Status))
			return
		}
	}
	f.t.Fail(c, "a retry whose proof carries the nonce "+who+" gave", "no request with the nonce followed ("+f.end()+")")
}

// proofNonce is the nonce of a request's proof ("" none), whatever else
// the proof breaks.
func proofNonce(e authserver.Exchange) string {
	return authserver.CheckProof(e.Header.Values("DPoP"), e.Method, "", "", e.At).Nonce
}

var (
	dpopPlain = newDPoP("client-auth-dpop", false)
	dpopNonce = newDPoP("client-auth-dpop-nonce", true)
)

var dpopScenario = &scenarios.Scenario{
	ID:         "client-auth-dpop",
	Official:   "auth/dpop",
	Title:      "DPoP extension: a proof at the token request, a DPoP-bound token, the DPoP scheme and a fresh proof on every MCP request",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The authorization server advertises dpop_signing_alg_values_supported ES256 and binds the token of a request with a proof to its key " +
		"(token_type DPoP). The client must authorize with PKCE, send a proof with its token request, and present the token with the DPoP scheme " +
		"and a fresh proof (ath, htm, htu) on every MCP request. Opt-in: --profile " + profileDPoP + ".",
	Checks: optIn(profileDPoP, dpopPlain.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		requireProfile(t, profileDPoP)
		dpopPlain.judge(serve(t, dpopPlain.protection()))
	}),
}

var dpopNonceScenario = &scenarios.Scenario{
	ID:         "client-auth-dpop-nonce",
	Official:   "auth/dpop-nonce",
	Title:      "DPoP extension with server nonces: the token request and the MCP request retried with the nonce each server asks for",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "As client-auth-dpop, but the token endpoint answers a proof without its nonce with 400 use_dpop_nonce and a DPoP-Nonce header, and the " +
		"MCP server answers a request whose proof lacks its nonce with 401 WWW-Authenticate: DPoP error=\"use_dpop_nonce\" and a DPoP-Nonce. " +
		"The client must retry each with the nonce. Opt-in: --profile " + profileDPoP + ".",
	Checks: optIn(profileDPoP, dpopNonce.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		requireProfile(t, profileDPoP)
		dpopNonce.judge(serve(t, dpopNonce.protection()))
	}),
}
