package auth

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The authorization response: its iss (RFC 9207 §2.4 as 2026-07-28 applies
// it, the official iss-* scenarios) and its state (mcpconform's own). Where
// the response must be refused, the client must never redeem its code nor
// make an MCP request with a token; it may exit with an error.

const (
	validation26 = index26 + "#authorization-response-validation"
	issFlag      = "authorization_response_iss_parameter_supported"
	issValidate  = "On receiving the authorization response, MCP clients MUST apply the validation in RFC9207 Section 2.4 before " +
		"transmitting the authorization code to any token endpoint:"
	issNoNormalizing = "After decoding the iss value from the application/x-www-form-urlencoded response per RFC 9207 Section 2.4, " +
		"clients MUST NOT apply scheme or host case folding, default-port elision, trailing-slash, or percent-encoding normalization " +
		"(RFC 3986 Sections 6.2.2-6.2.3) before comparison."
)

var issOnly = protocol.From(protocol.V20260728)

// unadvertised removes the iss flag from the metadata (RFC 9207 §3: absent
// means false).
func unadvertised(doc map[string]any) { delete(doc, issFlag) }

// refusalCommon are the common checks a refused flow can be judged on:
// those of the authorization request.
func (c *common) refusalList() []*scenarios.Check {
	return []*scenarios.Check{c.pkceChallenge, c.resource, c.state}
}

func (c *common) judgeRefusal(f *flow, resource string) {
	var authz []authserver.Exchange
	for _, as := range f.p.Servers {
		authz = append(authz, f.endpoint(as, "/authorize")...)
	}
	if len(authz) == 0 {
		noAuthorization(f, c.pkceChallenge, c.state)
	} else {
		c.judgeAuthzRequests(f, authz)
	}
	c.judgeResource(f, resource, authz, nil)
}

// judgeRefused: after the authorization responses (every one of them
// bad), no code was redeemed at a token endpoint and no MCP request
// carried an issued token.
func judgeRefused(f *flow, c *scenarios.Check, bad string) {
	if len(f.authorizations()) == 0 {
		f.t.Skip(c, "the client never reached the authorization endpoint, so it never had a response to refuse ("+f.end()+")")
		return
	}
	var redeemed []string
	for _, as := range f.p.Servers {
		for _, e := range f.endpoint(as, "/token") {
			if e.Form.Get("grant_type") == "authorization_code" {
				redeemed = append(redeemed, describe(e))
			}
		}
	}
	switch {
	case len(redeemed) > 0:
		f.t.Fail(c, "the response refused: its code never sent to a token endpoint",
			fmt.Sprintf("the code of a response with %s was redeemed: %s", bad, listed(redeemed)))
	case f.authorized():
		f.t.Fail(c, "the response refused: no MCP request with a token", "an MCP request carried an issued token")
	default:
		f.t.PassWith(c, "no code redeemed, no token used ("+f.end()+")")
	}
}

// judgeAccepted: the client redeemed the code of a good response.
func judgeAccepted(f *flow, c *scenarios.Check, good string) {
	if len(f.authorizations()) == 0 {
		f.t.Skip(c, "the client never reached the authorization endpoint ("+f.end()+")")
		return
	}
	redeemed := false
	for _, as := range f.p.Servers {
		for _, e := range f.endpoint(as, "/token") {
			if e.Form.Get("grant_type") == "authorization_code" && e.Status == 200 {
				redeemed = true
			}
		}
	}
	// What the token is used for next is the common checks' to judge.
	f.t.Judge(c, redeemed, "the response with "+good+" accepted: its code redeemed at the token endpoint",
		"no code redeemed ("+f.end()+")")
}

// issScenario is one of the iss family.
type issScenario struct {
	name, title, purpose string
	advertised           bool
	mode                 authserver.IssMode
	accept               bool
	check                *scenarios.Check
}

// refusesGood are the faults that refuse a good response: the flow ends,
// so they fail the common authorized check of an accepting scenario too.
var refusesGood = []*fault.Fault{client.AuthIssAgainstMetadataURL, client.AuthRequiresIss}

func (s issScenario) build() *scenarios.Scenario {
	id := "client-auth-" + s.name
	c := newCommon(id)
	checks := c.refusalList()
	if s.accept {
		c.withApplicationType()
		checks = c.list()
		for _, f := range refusesGood {
			if slices.Contains(s.check.Faults, f) {
				c.authorized.Faults = append(c.authorized.Faults, f)
			}
		}
	}
	desc := map[authserver.IssMode]string{authserver.IssCorrect: "the issuer as iss", authserver.IssOmitted: "no iss",
		authserver.IssWrong: "iss " + authserver.WrongIssuer, authserver.IssTrailingSlash: "the issuer with a trailing \"/\" as iss"}[s.mode]
	return &scenarios.Scenario{
		ID:         id,
		Official:   "auth/" + s.name,
		Title:      s.title,
		Family:     family,
		Side:       scenarios.ClientSide,
		Versions:   issOnly,
		Transports: httpOnly,
		Purpose:    s.purpose,
		Checks:     append([]*scenarios.Check{s.check}, checks...),
		Run: clientside.Body(func(t *clientside.T) {
			as := authserver.Options{Iss: s.mode}
			if !s.advertised {
				as.EditMetadata = unadvertised
			}
			f := serve(t, clientside.Protection{Servers: []authserver.Options{as}})
			if s.accept {
				judgeAccepted(f, s.check, desc)
				c.judge(f, f.p.ResourceID())
				return
			}
			judgeRefused(f, s.check, desc)
			c.judgeRefusal(f, f.p.ResourceID())
		}),
	}
}

func issCheck(name string, level scenarios.Level, title, quote string, f ...*fault.Fault) *scenarios.Check {
	return &scenarios.Check{ID: "client-auth-" + name, Level: level, Spec: validation26, Title: title, Quote: quote, Faults: f}
}

var issScenarios = []issScenario{
	{name: "iss-supported", advertised: true, mode: authserver.IssCorrect, accept: true,
		title:   "RFC 9207: the server advertises iss and sends its issuer; the client accepts",
		purpose: "The metadata sets " + issFlag + " true and the authorization response carries the issuer as iss. The client must compare it by simple string comparison, find it equal, and proceed.",
		check: issCheck("iss-supported/iss-accepted", scenarios.Must,
			"advertised and present, an iss equal to the recorded issuer is accepted: the code is redeemed",
			issValidate, client.AuthIssAgainstMetadataURL)},
	{name: "iss-not-advertised", mode: authserver.IssOmitted, accept: true,
		title:   "RFC 9207: the server neither advertises nor sends iss; the client proceeds",
		purpose: "The metadata has no " + issFlag + " and the authorization response carries no iss. The client must proceed.",
		check: issCheck("iss-not-advertised/proceeds-without-iss", scenarios.Must,
			"not advertised and absent, the response is accepted: the code is redeemed",
			issValidate, client.AuthRequiresIss)},
	{name: "iss-supported-missing", advertised: true, mode: authserver.IssOmitted,
		title:   "RFC 9207: the server advertises iss but its response has none; the client refuses",
		purpose: "The metadata sets " + issFlag + " true; the authorization response carries no iss. The client must reject it: never redeem the code.",
		check: issCheck("iss-supported-missing/rejects-missing-iss", scenarios.Must,
			"advertised and absent, the response is rejected: its code is never sent to a token endpoint, and no token is used",
			issValidate, client.AuthAcceptsWrongIss, client.AuthAcceptsMissingIss)},
	{name: "iss-wrong-issuer", advertised: true, mode: authserver.IssWrong,
		title:   "RFC 9207: the response's iss is another server's; the client refuses",
		purpose: "The metadata sets " + issFlag + " true; the authorization response carries iss " + authserver.WrongIssuer + ". The client must reject it.",
		check: issCheck("iss-wrong-issuer/rejects-wrong-iss", scenarios.Must,
			"advertised and present but another issuer's, the response is rejected: its code is never sent to a token endpoint",
			issValidate, client.AuthAcceptsWrongIss)},
	{name: "iss-unexpected", mode: authserver.IssWrong,
		title:   "RFC 9207: iss not advertised, yet sent and wrong; the client compares it and refuses",
		purpose: "The metadata has no " + issFlag + "; the authorization response carries iss " + authserver.WrongIssuer + ". 2026-07-28 compares a present iss whatever the metadata says: the client must reject it.",
		check: issCheck("iss-unexpected/rejects-unadvertised-wrong-iss", scenarios.Must,
			"not advertised but present and another issuer's, the response is rejected (the page's third row: compare regardless of advertisement)",
			issValidate, client.AuthAcceptsWrongIss, client.AuthIssOnlyWhenAdvertised)},
	{name: "iss-normalized", advertised: true, mode: authserver.IssTrailingSlash,
		title:   "RFC 9207: iss is the issuer with a trailing slash; simple string comparison refuses it",
		purpose: "The metadata sets " + issFlag + " true; the authorization response's iss is the issuer with \"/\" appended, the same URL only after normalization. The client must reject it.",
		check: issCheck("iss-normalized/no-normalization", scenarios.Must,
			"an iss equal to the issuer only after trailing-slash normalization is rejected: its code is never sent to a token endpoint",
			issNoNormalizing, client.AuthAcceptsWrongIss, client.AuthNormalizesIss)},
}

// --- mcpconform: an authorization response with another state ---------

const stateID = "client-auth-state-mismatch"

// foreignState is the state the fake authorization server answers with:
// never one the client sent.
const foreignState = "mcpc-state-not-yours"

var (
	stateCommon   = newCommon(stateID)
	stateVerified = &scenarios.Check{ID: stateID + "/state-verified", Level: scenarios.Should,
		Spec: page + "#open-redirection",
		Title: "an authorization response whose state is not the one the request sent is discarded: its code is never sent to a token " +
			"endpoint, and no token is used",
		Quote: "MCP clients SHOULD use and verify state parameters in the authorization code flow and discard any results that do not " +
			"include or have a mismatch with the original state.",
		Faults: faults(client.AuthIgnoresState)}
)

var stateMismatch = &scenarios.Scenario{
	ID:         stateID,
	Title:      "OAuth: the authorization response carries another state; the client discards it",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake authorization server redirects with a code and state=\"" + foreignState + "\" whatever state the request sent " +
		"(an injected response). The client must discard it and never redeem the code; it may exit with an error.",
	Checks: append([]*scenarios.Check{stateVerified}, stateCommon.refusalList()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{Servers: []authserver.Options{{State: func(string) string { return foreignState }}}})
		judgeRefused(f, stateVerified, "state "+foreignState)
		stateCommon.judgeRefusal(f, f.p.ResourceID())
	}),
}

// issCatalogue are the iss family's scenarios, built once.
var issCatalogue = func() []*scenarios.Scenario {
	var out []*scenarios.Scenario
	for _, s := range issScenarios {
		out = append(out, s.build())
	}
	return out
}()
