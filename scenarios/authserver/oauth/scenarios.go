package oauth

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/asside"
)

func scenario(id, title, purpose string, checks ...*scenarios.Check) *scenarios.Scenario {
	return &scenarios.Scenario{ID: id, Title: title, Purpose: purpose, Family: family, Side: scenarios.AuthServerSide,
		Versions: versions, Transports: httpOnly, Checks: checks}
}

var metadataScenario = func() *scenarios.Scenario {
	s := scenario("authorization-server-metadata-endpoint", "the authorization server's metadata: where, what shape, which fields",
		"The official scenario: the metadata is fetched at RFC 8414's location for the issuer (path inserted), then OpenID "+
			"Connect Discovery's, as the pages tell clients to; the first document served is judged.",
		metaJSON, metaIssuer, metaFields, metaPKCE)
	s.Run = asside.Body(func(t *asside.T) {
		m := t.Metadata()
		t.Judge(metaJSON, m.Answer.MediaType() == "application/json" && m.Doc() != nil, "HTTP 200, application/json, a JSON object",
			m.URL+": "+m.Answer.String())
		actual := fmt.Sprintf("issuer %q", m.Str("issuer"))
		if strings.TrimSuffix(m.Str("issuer"), "/") == strings.TrimSuffix(m.Issuer, "/") && m.Str("issuer") != m.Issuer {
			actual += " (the two differ in a trailing slash: if the issuer is the server's, give --url exactly as it)"
		}
		t.Judge(metaIssuer, m.Str("issuer") == m.Issuer, fmt.Sprintf("issuer %q (the URL %s was made from)", m.Issuer, m.URL), actual)
		var missing []string
		for _, k := range []string{"issuer", "authorization_endpoint", "token_endpoint"} {
			if m.Str(k) == "" {
				missing = append(missing, k)
			}
		}
		if len(m.Strings("response_types_supported")) == 0 {
			missing = append(missing, "response_types_supported")
		}
		t.Judge(metaFields, len(missing) == 0, "issuer, authorization_endpoint, token_endpoint, response_types_supported",
			"missing: "+strings.Join(missing, ", "))
		t.Judge(metaPKCE, slices.Contains(m.Strings("code_challenge_methods_supported"), "S256"),
			`code_challenge_methods_supported: ["S256", …]`, fmt.Sprintf("code_challenge_methods_supported %q", m.Strings("code_challenge_methods_supported")))
	})
	return s
}()

// flow is one authorization request with PKCE S256 and its answer.
type flow struct {
	client   asside.Client
	state    string
	verifier string
	request  url.Values
	answer   *asside.Answer
}

// authorize sends a PKCE S256 authorization request; edit may change its
// parameters first.
func authorize(t *asside.T, c asside.Client, edit func(url.Values)) *flow {
	f := &flow{client: c, state: oauth2.GenerateVerifier()[:22], verifier: oauth2.GenerateVerifier()}
	f.request = url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {c.RedirectURI}, "state": {f.state},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(f.verifier)}, "code_challenge_method": {"S256"}}
	if edit != nil {
		edit(f.request)
	}
	f.answer = t.Authorize(f.request)
	return f
}

// code reads the approval's code or stops the scenario (not judged).
func (f *flow) code(t *asside.T) string {
	code, why := asside.Approved(f.answer, f.client.RedirectURI)
	if why != "" {
		t.Abort("%s", why)
	}
	if code == "" {
		t.Abort("the authorization response carries no code: %s", f.answer)
	}
	return code
}

// exchange sends the token request for code with the flow's verifier
// (or another).
func (f *flow) exchange(t *asside.T, code, verifier string) *asside.Answer {
	if verifier == "" {
		verifier = f.verifier
	}
	return t.Token(f.client, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {f.client.RedirectURI},
		"code_verifier": {verifier}})
}

func served(a *asside.Answer) bool { return a.Status == http.StatusOK && a.Str("access_token") != "" }

var grantScenario = func() *scenarios.Scenario {
	s := scenario("authorization-code-grant", "the authorization code grant with PKCE S256, approved at once, and its token",
		"The official scenario, without a browser: a client (the given one, or one registered dynamically) sends a PKCE S256 "+
			"authorization request; the server must approve it at once (a test mode) with a redirect whose Location is read, "+
			"not followed; the code is exchanged.",
		grantRedirect, grantParams, grantIss, grantIssAdvertised, grantIssSent, grantToken, grantNoStore)
	s.Run = asside.Body(func(t *asside.T) {
		c := t.Client()
		f := authorize(t, c, nil)
		code := f.code(t)
		loc := *f.answer.Location
		loc.RawQuery = ""
		t.Judge(grantRedirect, loc.String() == strings.SplitN(c.RedirectURI, "?", 2)[0], c.RedirectURI, loc.String())
		q := f.answer.Location.Query()
		var bad []string
		if len(q["code"]) != 1 || code == "" {
			bad = append(bad, fmt.Sprintf("%d code parameters", len(q["code"])))
		}
		if len(q["state"]) != 1 || q.Get("state") != f.state {
			bad = append(bad, fmt.Sprintf("state %q (sent %q)", q["state"], f.state))
		}
		if len(q["iss"]) > 1 {
			bad = append(bad, "iss more than once")
		}
		t.Judge(grantParams, len(bad) == 0, "one code, the request's state once, no error", strings.Join(bad, "; "))
		// RFC 9207 §2.4: the issuer the request was sent to (the
		// metadata's own issuer is judged by the metadata scenario).
		issuer := t.Metadata().Issuer
		switch iss, sent := q.Get("iss"), q.Has("iss"); {
		case !sent:
			t.PassWith(grantIss, "the response carries no iss")
		default:
			t.Judge(grantIss, iss == issuer, fmt.Sprintf("iss %q (the issuer the request was sent to)", issuer), fmt.Sprintf("iss %q", iss))
		}
		if !grantIssAdvertised.JudgedAt(t.Env.Version) {
			t.Skip(grantIssAdvertised, "a rule of 2026-07-28's page")
		} else {
			advertised, _ := t.Metadata().Doc()["authorization_response_iss_parameter_supported"].(bool)
			t.Judge(grantIssAdvertised, !q.Has("iss") || advertised, "authorization_response_iss_parameter_supported: true",
				fmt.Sprintf("iss sent, authorization_response_iss_parameter_supported %v", t.Metadata().Doc()["authorization_response_iss_parameter_supported"]))
		}
		if !grantIssSent.JudgedAt(t.Env.Version) {
			t.Skip(grantIssSent, "a rule of 2026-07-28's page")
		} else {
			// An error response too: a response_type the server does not
			// serve, answered by a redirect with error (RFC 6749 §4.1.2.1).
			bad := authorize(t, c, func(v url.Values) { v.Set("response_type", "mcpconform-unknown") })
			var missing []string
			if !q.Has("iss") {
				missing = append(missing, "the approval has no iss")
			}
			if bad.answer.Location != nil && bad.answer.Location.Query().Get("error") != "" && !bad.answer.Location.Query().Has("iss") {
				missing = append(missing, "the error response has no iss: "+bad.answer.String())
			}
			t.Judge(grantIssSent, len(missing) == 0, "iss in every authorization response", strings.Join(missing, "; "))
		}
		a := f.exchange(t, code, "")
		t.Judge(grantToken, served(a) && a.MediaType() == "application/json" && a.Str("token_type") != "",
			"HTTP 200, application/json, access_token and token_type", a.String())
		t.Judge(grantNoStore, strings.Contains(strings.ToLower(a.Header.Get("Cache-Control")), "no-store"), "Cache-Control: no-store",
			fmt.Sprintf("Cache-Control %q", a.Header.Get("Cache-Control")))
	})
	return s
}()

// refused reports an authorization answer that issued no code.
func refusedAuthorization(a *asside.Answer) bool {
	if a.Location == nil || a.Status/100 != 3 {
		return true // an error page: no code
	}
	return a.Location.Query().Get("code") == ""
}

var pkceScenario = func() *scenarios.Scenario {
	s := scenario("authserver-pkce", "PKCE enforced: no code without a challenge, no plain unless offered, no token for a wrong verifier",
		"Three authorization requests of one client: without code_challenge, with a plain one, and a sound S256 one whose code "+
			"is then exchanged with another verifier.", pkceRequired, pkcePlain, pkceVerifier)
	s.Run = asside.Body(func(t *asside.T) {
		c := t.Client()
		f := authorize(t, c, func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") })
		t.Judge(pkceRequired, refusedAuthorization(f.answer), "no code (an error redirect or an error page)", f.answer.String())
		if slices.Contains(t.Metadata().Strings("code_challenge_methods_supported"), "plain") {
			t.PassWith(pkcePlain, "the server lists plain in code_challenge_methods_supported: it may take it")
		} else {
			f = authorize(t, c, func(v url.Values) {
				v.Set("code_challenge", v.Get("state")+"-plain-challenge-value-0123456789")
				v.Set("code_challenge_method", "plain")
			})
			t.Judge(pkcePlain, refusedAuthorization(f.answer), "no code for code_challenge_method=plain", f.answer.String())
		}
		f = authorize(t, c, nil)
		code := f.code(t)
		a := f.exchange(t, code, oauth2.GenerateVerifier())
		t.Judge(pkceVerifier, !served(a) && a.Status >= 400, "a refusal (400 invalid_grant)", a.String())
	})
	return s
}()

var codeReuseScenario = func() *scenarios.Scenario {
	s := scenario("authserver-code-single-use", "an authorization code is exchanged once",
		"A sound grant, then the same code and verifier exchanged again.", codeOnce)
	s.Run = asside.Body(func(t *asside.T) {
		f := authorize(t, t.Client(), nil)
		code := f.code(t)
		if first := f.exchange(t, code, ""); !served(first) {
			t.Abort("the first exchange of a sound code was refused: %s", first)
		}
		again := f.exchange(t, code, "")
		t.Judge(codeOnce, !served(again) && again.Status >= 400, "a refusal (400 invalid_grant)", again.String())
	})
	return s
}()

var redirectScenario = func() *scenarios.Scenario {
	s := scenario("authserver-redirect-uri", "redirect URIs matched exactly",
		"An authorization request whose redirect_uri is the registered one with a path segment appended.", redirectExact)
	s.Run = asside.Body(func(t *asside.T) {
		c := t.Client()
		other := strings.TrimSuffix(c.RedirectURI, "/") + "/elsewhere"
		f := authorize(t, c, func(v url.Values) { v.Set("redirect_uri", other) })
		went := f.answer.Location != nil && f.answer.Status/100 == 3 && strings.HasPrefix(f.answer.Location.String(), other)
		t.Judge(redirectExact, !went, "no redirect to "+other+" (an error page)", f.answer.String())
	})
	return s
}()

var errorScenario = func() *scenarios.Scenario {
	s := scenario("authserver-token-errors", "token endpoint errors in RFC 6749 §5.2's shape",
		"A token request with a code the server never issued.", errorShape)
	s.Run = asside.Body(func(t *asside.T) {
		c := t.Client()
		a := t.Token(c, url.Values{"grant_type": {"authorization_code"}, "code": {"mcpconform-never-issued-code"},
			"redirect_uri": {c.RedirectURI}, "code_verifier": {oauth2.GenerateVerifier()}})
		t.Judge(errorShape, a.Status == http.StatusBadRequest && a.MediaType() == "application/json" && a.Str("error") == "invalid_grant",
			`HTTP 400, application/json, {"error": "invalid_grant", …}`, a.String())
	})
	return s
}()

var refreshScenario = func() *scenarios.Scenario {
	s := scenario("authserver-refresh-rotation", "refresh tokens of public clients rotated",
		"A sound grant of a public client; its refresh token is used, then used again.", refreshRotated)
	s.Run = asside.Body(func(t *asside.T) {
		c := t.Client()
		if c.Secret != "" {
			t.SkipRest("the client is confidential: the pages ask rotation for public clients")
		}
		f := authorize(t, c, nil)
		tok := f.exchange(t, f.code(t), "")
		rt := tok.Str("refresh_token")
		if rt == "" && slices.Contains(t.Metadata().Strings("scopes_supported"), "offline_access") {
			// A server may issue refresh tokens only to a grant that asks
			// offline_access (2026-07-28, "Refresh Tokens"): ask it.
			f = authorize(t, c, func(v url.Values) { v.Set("scope", "offline_access") })
			tok = f.exchange(t, f.code(t), "")
			rt = tok.Str("refresh_token")
		}
		if rt == "" {
			t.PassWith(refreshRotated, "the server issued no refresh token (with offline_access too, where it offers it): nothing to rotate")
			return
		}
		first := t.Token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
		if !served(first) {
			t.Abort("the refresh with a fresh refresh token was refused: %s", first)
		}
		next := first.Str("refresh_token")
		again := t.Token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
		t.Judge(refreshRotated, next != "" && next != rt && !served(again), "a new refresh token, and the old one refused",
			fmt.Sprintf("new refresh token %v; the old one then: %s", next != "" && next != rt, again))
	})
	return s
}()

var registrationScenario = func() *scenarios.Scenario {
	s := scenario("authserver-registration", "dynamic client registration where offered (RFC 7591)",
		"A public client's metadata POSTed to the registration_endpoint; a server that offers none is not judged.", registrationAnswer)
	s.Run = asside.Body(func(t *asside.T) {
		if t.Metadata().Str("registration_endpoint") == "" {
			t.SkipRest("the metadata offers no registration_endpoint (registration is a MAY)")
		}
		a := t.Register(map[string]any{"client_name": "mcpconform", "redirect_uris": []string{asside.DefaultRedirectURI},
			"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code"}, "response_types": []string{"code"}})
		t.Judge(registrationAnswer, a.Status == http.StatusCreated && a.MediaType() == "application/json" && a.Str("client_id") != "",
			"HTTP 201, application/json, client_id", a.String())
	})
	return s
}()

// unreachableDocument is a client_id URL nothing serves: an address on the
// loopback (127.0.0.2 plays another host) where nothing listens, so the
// server's fetch fails on this machine and goes nowhere else.
const unreachableDocument = "https://127.0.0.2:9/mcpconform-client.json"

var cimdScenario = func() *scenarios.Scenario {
	s := scenario("authserver-cimd", "Client ID Metadata Documents validated before any approval",
		"Where the metadata sets client_id_metadata_document_supported, an authorization request whose client_id is the URL of "+
			"a document nothing serves (on the loopback: the server's fetch fails here). A server that does not advertise "+
			"the documents is not judged.", cimdUnfetchable)
	s.Versions = protocol.From(protocol.V20251125)
	s.Run = asside.Body(func(t *asside.T) {
		if on, _ := t.Metadata().Doc()["client_id_metadata_document_supported"].(bool); !on {
			t.SkipRest("the metadata does not set client_id_metadata_document_supported (the documents are a SHOULD)")
		}
		f := authorize(t, asside.Client{ID: unreachableDocument, RedirectURI: asside.DefaultRedirectURI}, nil)
		t.Judge(cimdUnfetchable, refusedAuthorization(f.answer), "no code (an error page or an error redirect)", f.answer.String())
	})
	return s
}()
