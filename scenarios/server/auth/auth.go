// Package auth is the server-side authorization family: an MCP server over
// HTTP (or the WebSocket handshake) as an OAuth 2.1 resource server. It
// judges what a protected server answers without a token, with malformed
// credentials, and, where the run has an issuer the target trusts
// (scenarios.Env.Auth: mcpconform's own authorization server), with tokens
// minted per check: valid, expired, not yet valid, for another audience,
// from another issuer, signed by another key, unsigned, or lacking the
// scope. A server that serves a request without a token is not protected
// (authorization is optional): its checks are skipped with that reason.
//
// Over stdio the pages ask nothing of a server ("Implementations using an
// STDIO transport SHOULD NOT follow this specification"), so the family
// runs over Streamable HTTP and WebSocket only. The sentences the checks
// rest on, per version and with the RFCs behind them, are in
// docs/auth-server-requirements.md.
package auth

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

const (
	family = "auth"
	page   = "2025-11-25/basic/authorization.mdx"
)

var (
	transports = []transport.Kind{transport.HTTP, transport.WS}
	versions   = protocol.From(protocol.V20250326)
	// Protected Resource Metadata and audience validation came with
	// 2025-06-18; 2025-11-25 made the challenge one of two ways to find
	// the document and asked for scope in it.
	withPRM         = protocol.Where(func(v protocol.Version) bool { return v.Judged && v.ProtectedResourceMetadata })
	discoveryChoice = protocol.From(protocol.V20251125)
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{unauthenticatedScenario, malformedScenario, tokenScenario, scopeScenario, dpopScenario}
}

// Quotes used by several checks.
const (
	quoteStatusCodes   = "Servers MUST return appropriate HTTP status codes for authorization errors:"
	quoteInvalid401    = "Invalid or expired tokens MUST receive a HTTP 401 response."
	quoteRespond53     = "If validation fails, servers MUST respond according to OAuth 2.1 Section 5.3 error handling requirements."
	quotePRM           = "MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers."
	quoteOtherTokens   = "MCP servers MUST NOT accept or transit any other tokens."
	quoteDiscoveryMech = "MCP servers MUST implement one of the following discovery mechanisms to provide authorization server location information to MCP clients:"
)

var (
	unauthStatus = &scenarios.Check{ID: "auth-unauthenticated/status-401", Level: scenarios.Must, Spec: page + "#error-handling",
		Quote: quoteStatusCodes,
		Title: "a request without a token is refused with 401 Unauthorized (the table: \"Authorization required\"), not 403 or 400 " +
			"(2025-03-26: \"When authorization is required and not yet proven by the client, servers MUST respond with HTTP 401 Unauthorized\")",
		Faults: []*fault.Fault{server.NoToken403}, Liberties: []*fault.Fault{server.Protected}}
	unauthChallenge = &scenarios.Check{ID: "auth-unauthenticated/challenge-bearer", Level: scenarios.Must, Spec: page + "#token-handling",
		Quote: quoteRespond53,
		Title: "the refusal carries a WWW-Authenticate header with a Bearer challenge (OAuth 2.1 §5.3 and RFC 6750 §3: the resource " +
			"server MUST include the WWW-Authenticate response header field)",
		Faults: []*fault.Fault{server.NoWWWAuthenticate}, Liberties: []*fault.Fault{server.Protected}}
	challengeResourceMetadata = &scenarios.Check{ID: "auth-unauthenticated/challenge-resource-metadata", Level: scenarios.Must,
		Spec:     "2025-06-18/basic/authorization.mdx#authorization-server-location",
		Quote:    "MCP servers MUST use the HTTP header WWW-Authenticate when returning a _401 Unauthorized_ to indicate the location of the resource server metadata URL",
		Title:    "the 401 challenge names the Protected Resource Metadata in resource_metadata (RFC 9728 §5.1; 2025-06-18, the one way its page names)",
		Versions: []string{protocol.V20250618},
		Faults:   []*fault.Fault{server.NoResourceMetadata, server.PRMUndiscoverable, server.NoWWWAuthenticate}, Liberties: []*fault.Fault{server.Protected}}
	prmDiscoverable = &scenarios.Check{ID: "auth-unauthenticated/prm-discoverable", Level: scenarios.Must,
		Spec: page + "#protected-resource-metadata-discovery-requirements", Quote: quoteDiscoveryMech,
		Title: "the Protected Resource Metadata can be found: named by resource_metadata in the 401 challenge, or served at the " +
			"well-known URI of the endpoint's path or of the root (2025-11-25 and after)",
		Versions:  discoveryChoice,
		Faults:    []*fault.Fault{server.PRMUndiscoverable},
		Liberties: []*fault.Fault{server.PRMWellKnownOnly, server.PRMAtRoot}}
	prmJSON = &scenarios.Check{ID: "auth-unauthenticated/prm-json", Level: scenarios.Must, Versions: withPRM, Spec: page + "#authorization-server-location",
		Quote:  quotePRM,
		Title:  "the document is served with 200 as a JSON object, Content-Type application/json (RFC 9728 §3.2)",
		Faults: []*fault.Fault{server.PRMNotJSON}, Liberties: []*fault.Fault{server.PRMAtRoot}}
	prmAuthorizationServers = &scenarios.Check{ID: "auth-unauthenticated/prm-authorization-servers", Level: scenarios.Must, Versions: withPRM,
		Spec:   page + "#authorization-server-location",
		Quote:  "The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.",
		Title:  "the document's authorization_servers is an array of at least one issuer URL",
		Faults: []*fault.Fault{server.PRMNoAuthorizationServers}, Liberties: []*fault.Fault{server.Protected}}
	prmResource = &scenarios.Check{ID: "auth-unauthenticated/prm-resource", Level: scenarios.Must, Versions: withPRM, Spec: page + "#authorization-server-location",
		Quote: quotePRM,
		Title: "the document's resource identifies this server: at a well-known URI, the URL the suffix was inserted into (RFC 9728 §3.3: " +
			"\"MUST be identical\"); named by the challenge, the endpoint's URL or a path prefix of it on its origin (its canonical URI, RFC 8707)",
		Faults: []*fault.Fault{server.PRMResourceWrong}, Liberties: []*fault.Fault{server.PRMAtRoot}}
	challengeScope = &scenarios.Check{ID: "auth-unauthenticated/challenge-scope", Level: scenarios.Should,
		Spec:     page + "#protected-resource-metadata-discovery-requirements",
		Quote:    "MCP servers SHOULD include a scope parameter in the WWW-Authenticate header as defined in RFC 6750 Section 3 to indicate the scopes required for accessing the resource.",
		Title:    "a server that has scopes (scopes_supported in its document) names those it requires in the 401 challenge's scope (2025-11-25 and after)",
		Versions: discoveryChoice,
		Faults:   []*fault.Fault{server.ChallengeWithoutScope, server.NoWWWAuthenticate}, Liberties: []*fault.Fault{server.NoScopes}}
	noOfflineAccess = &scenarios.Check{ID: "auth-unauthenticated/no-offline-access", Level: scenarios.Should,
		Spec:     "2026-07-28/basic/authorization/index.mdx#refresh-tokens",
		Quote:    "MCP Servers (Protected Resources) SHOULD NOT include offline_access in WWW-Authenticate scope or Protected Resource Metadata scopes_supported, as refresh tokens are not a resource requirement.",
		Title:    "neither the challenge's scope nor scopes_supported lists offline_access (2026-07-28)",
		Versions: protocol.From(protocol.V20260728),
		Faults:   []*fault.Fault{server.OfflineAccessAdvertised}, Liberties: []*fault.Fault{server.Protected}}

	malformedRefused = &scenarios.Check{ID: "auth-malformed-credentials/malformed-refused", Level: scenarios.Must, Spec: page + "#error-handling",
		Quote: quoteStatusCodes,
		Title: "an Authorization header that is no well-formed bearer credential (\"Bearer\" with no token, two tokens) is refused with 400 " +
			"(the table: \"Malformed authorization request\"; RFC 6750 §3.1 invalid_request) or 401, never served",
		Faults: []*fault.Fault{server.MalformedHeaderServed}, Liberties: []*fault.Fault{server.MalformedHeader401}}
	otherSchemeRefused = &scenarios.Check{ID: "auth-malformed-credentials/other-scheme-refused", Level: scenarios.Must, Spec: page + "#token-handling",
		Quote:  quoteOtherTokens,
		Title:  "a request with Basic credentials instead of a bearer token is refused with 401 (or 400), never served",
		Faults: []*fault.Fault{server.OtherSchemeServed}, Liberties: []*fault.Fault{server.Protected}}

	expiredRefused = tokenCheck("expired-401", quoteInvalid401, "#token-handling",
		"an expired token (exp an hour ago) is refused with 401", server.ExpiredAccepted)
	notYetValidRefused = tokenCheck("not-yet-valid-401", quoteInvalid401, "#token-handling",
		"a token not valid yet (nbf an hour ahead; RFC 7519 §4.1.5: \"MUST NOT be accepted for processing\") is refused with 401", server.NotYetValidAccepted)
	audienceRefused = tokenCheck("audience-401",
		"MCP servers MUST validate that access tokens were issued specifically for them as the intended audience, according to RFC 8707 Section 2.", "#token-handling",
		"a token issued for another resource (aud "+"another server's URL) is refused with 401 (2025-06-18 and after)", server.AudienceUnchecked)
	issuerRefused = tokenCheck("issuer-401", quoteInvalid401, "#token-handling",
		"a token whose iss names another issuer, signed with the trusted issuer's key, is refused with 401 (RFC 9068 §4: iss "+
			"\"MUST exactly match\")", server.IssuerUnchecked)
	signatureRefused = tokenCheck("signature-401", quoteInvalid401, "#token-handling",
		"a JWT signed by another key under the trusted key's kid is refused with 401", server.SignatureUnchecked)
	algNoneRefused = tokenCheck("alg-none-401", quoteInvalid401, "#token-handling",
		"an unsigned JWT (\"alg\": \"none\") with otherwise valid claims is refused with 401 (RFC 9068 §4: \"MUST reject any JWT in "+
			"which the value of alg is none\")", server.AlgNoneAccepted)
	everyRequest = tokenCheck("every-request", "Note that authorization MUST be included in every HTTP request from client to server, even if they are part of the same logical session.",
		"#token-requirements",
		"within a session opened with a valid token, a request carrying a token that is none of the issuer's is refused: the "+
			"session does not stand in for the token (Streamable HTTP, sessions)", server.SessionTrustsInitialize)
	queryTokenRefused = &scenarios.Check{ID: "auth-token-validation/query-token-refused", Level: scenarios.Must, Spec: page + "#token-requirements",
		Quote: "Access tokens MUST NOT be included in the URI query string",
		Title: "a valid token in the access_token query parameter, with no Authorization header, is refused with 401: the page binds " +
			"token use to OAuth 2.1 §5, whose §5.1 says \"resource servers MUST ignore access tokens in a URI query parameter\"",
		Faults: []*fault.Fault{server.QueryTokenAccepted}, Liberties: []*fault.Fault{server.Protected}}
	refusalInvalidToken = &scenarios.Check{ID: "auth-token-validation/refusal-invalid-token", Level: scenarios.Should, Spec: page + "#token-handling",
		Quote: quoteRespond53,
		Title: "the 401 for an invalid token carries a Bearer challenge with error=\"invalid_token\" (RFC 6750 §3: the resource server " +
			"SHOULD include the error attribute when a request's token failed authentication)",
		Faults: []*fault.Fault{server.InvalidTokenNoError}, Liberties: []*fault.Fault{server.OpaqueTokens}}

	challengeSyntax = &scenarios.Check{ID: "auth-token-validation/challenge-syntax", Level: scenarios.Must, Spec: page + "#token-handling",
		Quote: quoteRespond53,
		Title: "each refusal's WWW-Authenticate parses: RFC 9110 §11.6.1's grammar (params of tokens or quoted-strings, comma-separated), " +
			"and RFC 6750 §3: error_description \"MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E\" (no bare quote), " +
			"so that a client can read resource_metadata and scope",
		Faults: []*fault.Fault{server.ChallengeUnescapedQuote}, Liberties: []*fault.Fault{server.OpaqueTokens}}
	scope403 = &scenarios.Check{ID: "auth-insufficient-scope/status-403", Level: scenarios.Must, Spec: page + "#error-handling",
		Quote: quoteStatusCodes,
		Title: "a valid token without the scope a request needs is refused with 403 (the table: \"Invalid scopes or insufficient " +
			"permissions\"), not 401 (\"token invalid\": it is not)",
		Faults: []*fault.Fault{server.Scope401}, Liberties: []*fault.Fault{server.Protected}}
	scopeChallenge = &scenarios.Check{ID: "auth-insufficient-scope/challenge", Level: scenarios.Should, Spec: page + "#runtime-insufficient-scope-errors",
		Quote:    "When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with:",
		Title:    "the 403 carries a Bearer challenge with error=\"insufficient_scope\" and the scope to ask for (RFC 6750 §3.1; 2025-11-25 and after)",
		Versions: discoveryChoice,
		Faults:   []*fault.Fault{server.ScopeNoChallenge}, Liberties: []*fault.Fault{server.Protected}}
)

func tokenCheck(name, quote, anchor, title string, f *fault.Fault) *scenarios.Check {
	c := &scenarios.Check{ID: "auth-token-validation/" + name, Level: scenarios.Must, Spec: page + anchor, Quote: quote, Title: title,
		Versions: f.Versions, Faults: []*fault.Fault{f}}
	if f != server.SessionTrustsInitialize {
		// judged over every transport the liberty runs on
		c.Liberties = []*fault.Fault{server.OpaqueTokens}
	}
	return c
}
