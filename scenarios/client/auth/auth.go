// Package auth is the authorization family of the client suite: the
// official auth/* scenarios, each a scripted protected resource (the fake
// MCP server behind OAuth) and scripted authorization servers on loopback
// (fakes/authserver), driving the client under test through OAuth 2.1 as
// the authorization pages define it, and judging it from the record of
// every HTTP request it made to any of them.
//
// Over Streamable HTTP only: "Implementations using an STDIO transport
// SHOULD NOT follow this specification, and instead retrieve credentials
// from the environment" (basic/authorization.mdx#protocol-requirements).
package auth

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

const family = "auth"

// The pages the checks cite (2025-11-25 is where the rules the official
// scenarios judge first stand together; 2026-07-28 keeps them in the
// authorization folder).
const (
	page        = "2025-11-25/basic/authorization.mdx"
	page0326    = "2025-03-26/basic/authorization.mdx"
	discovery26 = "2026-07-28/basic/authorization/authorization-server-discovery.mdx"
)

// The versions the official scenarios run at: those introduced in
// 2025-11-25 run at it and after.
var (
	fromNovember = protocol.From(protocol.V20251125)
	httpOnly     = []transport.Kind{transport.HTTP}
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return append(scenarios.Catalogue{metadataDefault, metadataVar1, metadataVar2, metadataVar3, resourceMismatch, metadataIssuerMismatch,
		resourceTrailingSlash, metadataBackcompat, endpointFallback, asOtherHost, clientCredentialsJWT, clientCredentialsBasic,
		wifJWTBearer, dpopScenario, dpopNonceScenario, enterpriseManaged}, append(scopesCatalogue(), registrationScenarios()...)...)
}

// flow is one client's pass through a protected server: what every request
// of it to the fakes was, and what the fake server received over MCP.
type flow struct {
	t        *clientside.T
	p        *clientside.Protected
	out      clientside.Outcome
	entries  []authserver.Exchange
	received []clientside.Received
	// scheme is the Authorization scheme tokens go with ("" Bearer; DPoP
	// for the DPoP extension).
	scheme string
}

// presented is the token a request carries in the flow's scheme.
func (f *flow) presented(h http.Header) (string, bool) {
	if f.scheme == "" {
		return clientside.BearerToken(h)
	}
	scheme, token, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, f.scheme) || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// testTool is the protected server's one tool (the official scenarios').
const testTool = client.AuthTestTool

// toldOwn is what a client is told in mcpconform's own scenarios.
const toldOwn = "auth/metadata-default"

// protectedScript is the fake server of the family: the official
// scenarios' one tool behind the protection. A client is told an
// mcpconform scenario of its own as auth/metadata-default, the official
// scenario whose moves it needs (authorize, list the tools, call
// test-tool), so that a harness prepared for the official suite runs it.
func protectedScript(t *clientside.T, pr *clientside.Protection) clientside.Script {
	s := clientside.Script{
		Tools:   []clientside.Tool{{Name: testTool, Description: "the protected server's one tool"}},
		Protect: pr,
	}
	if t.Scenario().Official == "" {
		s.Tell = toldOwn
	}
	return s
}

// serve serves the protection with the official scenarios' tool and waits
// until the client has called it, exits, or falls silent.
func serve(t *clientside.T, pr clientside.Protection) *flow {
	t.Serve(protectedScript(t, &pr))
	t.Step("wait for the client to authorize and call %s", testTool)
	out := t.Settle(func(r []clientside.Received) bool { return len(clientside.ToolCalls(r, testTool)) > 0 })
	return &flow{t: t, p: t.Auth(), out: out, entries: t.Auth().Log.Entries(), received: t.Log().Entries()}
}

// of are the flow's requests to one server ("resource", "as", "as2").
func (f *flow) of(server string) []authserver.Exchange { return authserver.Of(f.entries, server) }

// at are the requests to server for path (any method).
func (f *flow) at(server, path string) []authserver.Exchange {
	var out []authserver.Exchange
	for _, e := range f.of(server) {
		if e.Path == path {
			out = append(out, e)
		}
	}
	return out
}

// endpoint are the requests to an authorization server's endpoint
// ("/authorize", "/token", "/register").
func (f *flow) endpoint(as *authserver.Server, name string) []authserver.Exchange {
	var out []authserver.Exchange
	for _, e := range f.of(as.Label()) {
		if e.Path == as.EndpointPath(name) {
			out = append(out, e)
		}
	}
	return out
}

// contactedAS reports whether the client made any request to an
// authorization server.
func (f *flow) contactedAS() bool {
	for _, e := range f.entries {
		if e.Server != "resource" {
			return true
		}
	}
	return false
}

// mcpRequests are the requests to the MCP endpoint.
func (f *flow) mcpRequests() []authserver.Exchange { return f.at("resource", "/mcp") }

// authorized reports whether some MCP request carried a token the servers
// issued.
func (f *flow) authorized() bool {
	for _, e := range f.mcpRequests() {
		tok, ok := clientside.BearerToken(e.Header)
		if !ok {
			tok, ok = f.presented(e.Header)
		}
		if ok {
			if g, _ := f.p.Lookup(tok); g != nil {
				return true
			}
		}
	}
	return false
}

// called reports whether the tool call reached the fake server.
func (f *flow) called() bool { return len(clientside.ToolCalls(f.received, testTool)) > 0 }

// end says how the wait ended, for a message.
func (f *flow) end() string {
	s := f.t.DescribeEnd(f.out)
	if out := f.t.Output(); out != "" {
		s += "; its output: " + out
	}
	return s
}

// listed joins items for a message, bounded.
func listed(items []string) string {
	sort.Strings(items)
	if len(items) > 6 {
		return fmt.Sprintf("%s … (%d in all)", strings.Join(items[:6], "; "), len(items))
	}
	return strings.Join(items, "; ")
}

// describe names an exchange for a message: "GET /path → 404".
func describe(e authserver.Exchange) string {
	return fmt.Sprintf("%s %s %s → %d", e.Server, e.Method, e.Path, e.Status)
}

// faults lists the reference client's faults a check names.
func faults(f ...*fault.Fault) []*fault.Fault { return f }
