package auth

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// Retry limits: a protected resource that refuses every new token, with a
// 403 insufficient_scope (the official auth/scope-retry-limit) or a 401
// invalid_token (mcpconform's own). The client must stop re-authorizing.

// authorizationLimit is the bound the official suite's
// auth/scope-retry-limit fails a client above; the page says "no more than
// a few times".
const authorizationLimit = 3

// loopFactor is how far past the limit a client still authorizing is taken
// for one that never stops, as the MRTR max-rounds check does.
const loopFactor = 10

// countAuthorizations counts the authorization requests among entries.
func countAuthorizations(p *clientside.Protected, entries []authserver.Exchange) int {
	n := 0
	for _, e := range entries {
		for _, as := range p.Servers {
			if e.Server == as.Label() && e.Path == as.EndpointPath("/authorize") {
				n++
			}
		}
	}
	return n
}

// serveLoop serves the protection and waits until the client has made more
// than over authorization requests (then stops it at once: a loop without
// end), exits, falls silent for the response timeout, or the deadline
// passes. The wait is on the fakes' HTTP log: a client refused at every
// request sends the fake server no MCP message at all.
func serveLoop(t *clientside.T, pr clientside.Protection, over int) (*flow, clientside.Outcome) {
	t.Serve(protectedScript(t, &pr))
	p := t.Auth()
	t.Step("count the client's authorizations (limit %d; still authorizing at %d is a loop without end)", authorizationLimit, over)
	out := clientside.Silent
	for {
		seen := p.Log.Total()
		ctx, cancel := t.Wait()
		go func() {
			select {
			case <-t.Exited():
				cancel()
			case <-ctx.Done():
			}
		}()
		p.Log.WaitFor(ctx, func(e []authserver.Exchange) bool { return countAuthorizations(p, e) > over || p.Log.Total() > seen })
		cancel()
		exited := false
		select {
		case <-t.Exited():
			exited = true
		default:
		}
		switch {
		case countAuthorizations(p, p.Log.Entries()) > over:
			out = clientside.Done
			t.StopClient()
		case exited:
			// What it sent just before exiting may still be in flight.
			late, cancel := context.WithTimeout(t.Ctx, t.QuietWindow())
			p.Log.WaitFor(late, func([]authserver.Exchange) bool { return false })
			cancel()
			out = clientside.Exited
		case t.Ctx.Err() != nil:
			out = clientside.TimedOut
		case p.Log.Total() > seen:
			continue
		default:
			out = clientside.Silent
		}
		break
	}
	return &flow{t: t, p: p, out: out, entries: p.Log.Entries(), received: t.Log().Entries()}, out
}

// judgeLimit judges a retry-limit check on the count of authorizations.
func judgeLimit(f *flow, c *scenarios.Check) {
	t := f.t
	n := countAuthorizations(f.p, f.entries)
	measured := fmt.Sprintf("the client made %d authorization requests; judged against the limit %d", n, authorizationLimit)
	t.Transcript().Eventf("", "%s", measured)
	expected := fmt.Sprintf("at most %d authorizations, then the refusal taken as final", authorizationLimit)
	switch {
	case n == 0:
		t.Skip(c, "the client made no authorization request ("+f.end()+")")
	case f.out == clientside.Done:
		// Robustness beyond the SHOULD: a client that re-authorizes without
		// end hangs its caller (and, with a person at the browser, asks
		// them for ever).
		t.Escalate(c, scenarios.Must, "still authorizing at ten times the limit: a loop without end")
		t.Fail(c, expected, fmt.Sprintf("still authorizing after %d authorization requests, %d times the limit; it was stopped", n, loopFactor))
	case f.out == clientside.TimedOut:
		t.Escalate(c, scenarios.Must, "still retrying at the scenario's deadline")
		t.Fail(c, expected, fmt.Sprintf("still sending refused requests when the scenario's deadline passed, after %d authorization requests", n))
	case n > authorizationLimit:
		t.Fail(c, expected, fmt.Sprintf("it stopped after %d authorization requests, more than the limit (%s)", n, f.end()))
	default:
		t.PassWith(c, measured)
	}
}

// allButAuthorized lists the common checks except authorized.
func (c *common) allButAuthorized() []*scenarios.Check {
	return []*scenarios.Check{c.pkceChallenge, c.pkceVerifier, c.resource, c.bearer, c.noQuery, c.tokenStays, c.state}
}

// --- auth/scope-retry-limit -------------------------------------------

const retryID = "client-auth-scope-retry-limit"

var (
	retryCommon = newCommon(retryID).withApplicationType()
	retryLimit  = &scenarios.Check{ID: retryID + "/retry-limit", Level: scenarios.Should,
		Spec: page + "#step-up-authorization-flow",
		Title: fmt.Sprintf("refused 403 insufficient_scope after every new token, the client stops authorizing within %d attempts "+
			"(\"no more than a few times\"; the official suite's bound); one still authorizing at %d, or at the deadline, fails: "+
			"a loop without end", authorizationLimit, loopFactor*authorizationLimit),
		Quote:     retryLimits,
		Faults:    faults(client.AuthRetriesForever, client.AuthHighRetryLimit),
		Liberties: []*fault.Fault{client.AuthRetriesToLimit}}
)

var scopeRetryLimit = &scenarios.Scenario{
	ID:         retryID,
	Official:   "auth/scope-retry-limit",
	Title:      "OAuth step-up that never succeeds: the client must stop re-authorizing",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The 401 names " + scopeAdmin + ", and every request with a token, whatever its scopes, is refused 403 insufficient_scope naming " +
		scopeAdmin + " again. The fakes count the client's authorization requests until it stops, exits, or reaches ten times the limit " +
		"(then it is stopped). A client that exits with an error is fine here.",
	Checks: append([]*scenarios.Check{retryLimit}, retryCommon.allButAuthorized()...),
	Run: clientside.Body(func(t *clientside.T) {
		f, _ := serveLoop(t, clientside.Protection{ChallengeScope: scopeAdmin, ScopesSupported: []string{scopeAdmin},
			Refuse: func(method string, _ *authserver.Grant) string {
				if method == "" || strings.HasPrefix(method, "notifications/") {
					return ""
				}
				return scopeAdmin
			}}, loopFactor*authorizationLimit)
		judgeLimit(f, retryLimit)
		retryCommon.judgeAllButAuthorized(f, f.p.ResourceID())
	}),
}

// --- mcpconform: every token refused 401 invalid_token ----------------

const refusedID = "client-auth-refused-token-loop"

var (
	refusedCommon = newCommon(refusedID).withApplicationType()
	refusedLimit  = &scenarios.Check{ID: refusedID + "/retry-limit", Level: scenarios.Should,
		Spec: page + "#step-up-authorization-flow",
		Title: fmt.Sprintf("refused 401 invalid_token after every new token, the client stops authorizing within %d attempts; one still "+
			"authorizing at %d, or at the deadline, fails: a loop without end (robustness: the page bounds the retries of scope errors, "+
			"a refused token is the same loop)", authorizationLimit, loopFactor*authorizationLimit),
		Quote:  retryLimits,
		Faults: faults(client.AuthRetriesForever, client.AuthHighRetryLimit)}
)

var refusedTokenLoop = &scenarios.Scenario{
	ID:         refusedID,
	Title:      "OAuth: every new token is refused 401 invalid_token; the client must stop re-authorizing",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The authorization server issues tokens; the protected resource answers every request that carries one 401 invalid_token, " +
		"as if it had been revoked. The fakes count the client's authorization requests until it stops, exits, or reaches ten times the " +
		"limit (then it is stopped). A client that exits with an error is fine here.",
	Checks: append([]*scenarios.Check{refusedLimit}, refusedCommon.allButAuthorized()...),
	Run: clientside.Body(func(t *clientside.T) {
		f, _ := serveLoop(t, clientside.Protection{RejectToken: func(method string, _ *authserver.Grant) bool {
			return method != "" && !strings.HasPrefix(method, "notifications/")
		}}, loopFactor*authorizationLimit)
		judgeLimit(f, refusedLimit)
		refusedCommon.judgeAllButAuthorized(f, f.p.ResourceID())
	}),
}
