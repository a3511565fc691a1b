package server

import (
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults and liberties of a protected server (the authorization pages:
// an MCP server as an OAuth 2.1 resource server). Each is the reference
// served behind its resource-server front (reference_auth.go), which bends
// one rule; the reference itself is unprotected, as authorization is
// optional, and the liberty Protected is the front that bends none.
var (
	// The header carries the credentials: Streamable HTTP, and the
	// WebSocket handshake.
	authTransports = []transport.Kind{transport.HTTP, transport.WS}
	// Protected Resource Metadata came with 2025-06-18.
	withPRM = protocol.From(protocol.V20250618)
	// 2025-11-25 made the challenge's resource_metadata one of two ways
	// to find the document, and asked for scope in the challenge.
	withDiscoveryChoice = protocol.From(protocol.V20251125)

	Protected = &fault.Fault{Name: "protected", Liberty: true, Transports: authTransports,
		Freedom:     `2025-11-25/basic/authorization.mdx, "Introduction": "Authorization is OPTIONAL for MCP implementations."`,
		Description: "serves only requests that carry a valid access token of mcpconform's issuer for its own URL, with its scope (mcp:tools)"}
	PRMAtRoot = &fault.Fault{Name: "prm-at-root", Liberty: true, Transports: authTransports, Versions: withPRM,
		Freedom:     `2025-11-25/basic/authorization.mdx, "Protected Resource Metadata Discovery Requirements": "This can be either: At the path of the server's MCP endpoint … At the root"`,
		Description: "serves its Protected Resource Metadata at the root well-known URI only, for the resource named by its origin"}
	PRMWellKnownOnly = &fault.Fault{Name: "prm-well-known-only", Liberty: true, Transports: authTransports, Versions: withDiscoveryChoice,
		Freedom:     `2025-11-25/basic/authorization.mdx, "Protected Resource Metadata Discovery Requirements": "MCP servers MUST implement one of the following discovery mechanisms"`,
		Description: "names no resource_metadata in its 401 challenge; the document is at the well-known URI of its endpoint"}
	MalformedHeader401 = &fault.Fault{Name: "malformed-header-401", Liberty: true, Transports: authTransports,
		Freedom:     `RFC 6750 §3.1: invalid_request "The resource server SHOULD respond with the HTTP 400 (Bad Request) status code"; the pages' table: 401 for "Authorization required or token invalid"`,
		Description: "refuses a malformed Authorization header with 401 (invalid_token) instead of 400"}
	OpaqueTokens = &fault.Fault{Name: "opaque-tokens", Liberty: true, Transports: authTransports,
		Freedom:     `2025-11-25/basic/authorization.mdx, "Token Handling": tokens are validated "as described in OAuth 2.1 Section 5.2", which leaves the token's format to the authorization server (RFC 7662 introspection, or a JWT)`,
		Description: "takes opaque access tokens and asks the issuer's introspection endpoint (RFC 7662) about each"}
	DPoPAdvertised = &fault.Fault{Name: "dpop-advertised", Liberty: true, Transports: authTransports, Versions: withDiscoveryChoice,
		Freedom:     `RFC 9728 §2: dpop_signing_alg_values_supported and dpop_bound_access_tokens_required are OPTIONAL metadata; the DPoP extension (SEP-1932) is opt-in`,
		Description: "advertises DPoP in its Protected Resource Metadata, and refuses a DPoP-bound token without a valid proof"}
	NoScopes = &fault.Fault{Name: "no-scopes", Liberty: true, Transports: authTransports, Versions: withDiscoveryChoice,
		Freedom:     `2025-11-25/basic/authorization.mdx: the challenge's scope indicates "the scopes required for accessing the resource"; a server that requires none has none to name`,
		Description: "requires no scope: names none in its challenge or metadata and serves any valid token"}

	NoToken403 = &fault.Fault{Name: "no-token-403", Transports: authTransports,
		Description: "refuses a request without a token with 403 instead of 401"}
	NoWWWAuthenticate = &fault.Fault{Name: "no-www-authenticate", Transports: authTransports,
		Description: "refuses a request without a token with a bare 401: no WWW-Authenticate header",
		Why:         "a bare 401 lacks the challenge and so what the challenge carries: resource_metadata (2025-06-18) and scope (2025-11-25 and after)"}
	NoResourceMetadata = &fault.Fault{Name: "no-resource-metadata", Transports: authTransports, Versions: []string{protocol.V20250618},
		Description: "names no resource_metadata in its 401 challenge (its document is still at the well-known URI)"}
	PRMUndiscoverable = &fault.Fault{Name: "prm-undiscoverable", Transports: authTransports, Versions: withPRM,
		Description: "names no resource_metadata in its challenge and serves no document at either well-known URI"}
	PRMResourceWrong = &fault.Fault{Name: "prm-resource-wrong", Transports: authTransports, Versions: withPRM,
		Description: "its Protected Resource Metadata names another server's URL as resource"}
	PRMNoAuthorizationServers = &fault.Fault{Name: "prm-no-authorization-servers", Transports: authTransports, Versions: withPRM,
		Description: "its Protected Resource Metadata lists no authorization server"}
	PRMNotJSON = &fault.Fault{Name: "prm-not-json", Transports: authTransports, Versions: withPRM,
		Description: "serves its Protected Resource Metadata as text/html"}
	ChallengeWithoutScope = &fault.Fault{Name: "challenge-without-scope", Transports: authTransports, Versions: withDiscoveryChoice,
		Description: "names no scope in its 401 challenge although it requires one (it is only in scopes_supported)"}
	MalformedHeaderServed = &fault.Fault{Name: "malformed-header-served", Transports: authTransports,
		Description: `serves a request whose Authorization header is "Bearer" with no token (as if it were anonymous and allowed)`}
	OtherSchemeServed = &fault.Fault{Name: "other-scheme-served", Transports: authTransports,
		Description: "serves a request whose Authorization header uses the Basic scheme"}
	QueryTokenAccepted = &fault.Fault{Name: "query-token-accepted", Transports: authTransports,
		Description: "takes an access token from the access_token query parameter when no header carries one"}
	ExpiredAccepted = &fault.Fault{Name: "expired-token-accepted", Transports: authTransports,
		Description: "does not check exp: serves an expired token"}
	NotYetValidAccepted = &fault.Fault{Name: "not-yet-valid-accepted", Transports: authTransports,
		Description: "does not check nbf: serves a token before it becomes valid"}
	AudienceUnchecked = &fault.Fault{Name: "audience-unchecked", Transports: authTransports, Versions: withPRM,
		Description: "does not check aud: serves a token issued for another resource"}
	IssuerUnchecked = &fault.Fault{Name: "issuer-unchecked", Transports: authTransports,
		Description: "does not check iss: serves a token that names another issuer (signed with its issuer's key)"}
	SignatureUnchecked = &fault.Fault{Name: "signature-unchecked", Transports: authTransports,
		Description: "reads a JWT's claims without verifying its signature: serves a token signed by another key"}
	AlgNoneAccepted = &fault.Fault{Name: "alg-none-accepted", Transports: authTransports,
		Description: `serves an unsigned JWT ("alg": "none") whose claims are otherwise valid`}
	InvalidTokenNoError = &fault.Fault{Name: "invalid-token-no-error", Transports: authTransports,
		Description: `refuses an invalid token with 401 and a challenge without error="invalid_token"`}
	ChallengeUnescapedQuote = &fault.Fault{Name: "challenge-unescaped-quote", Transports: authTransports,
		Description: `refuses an invalid token with a challenge whose error_description holds unescaped quotes ("the "exp" claim …"), so the header no longer parses`}
	DPoPProofUnchecked = &fault.Fault{Name: "dpop-proof-unchecked", Transports: authTransports, Versions: withDiscoveryChoice,
		Description: "advertises DPoP but serves a DPoP-bound token without a DPoP proof, under the DPoP scheme or as a bearer token"}
	SessionTrustsInitialize = &fault.Fault{Name: "session-trusts-initialize", Transports: []transport.Kind{transport.HTTP}, Versions: legacy,
		Description: "checks the token of a session's initialize only: a later request of the session is served whatever token it carries"}
	Scope401 = &fault.Fault{Name: "insufficient-scope-401", Transports: authTransports,
		Description: "refuses a valid token that lacks its scope with 401 instead of 403"}
	ScopeNoChallenge = &fault.Fault{Name: "insufficient-scope-no-challenge", Transports: authTransports, Versions: withDiscoveryChoice,
		Description: `refuses a valid token that lacks its scope with 403 and a challenge without error="insufficient_scope" or scope`}
	OfflineAccessAdvertised = &fault.Fault{Name: "offline-access-advertised", Transports: authTransports, Versions: protocol.From(protocol.V20260728),
		Description: "lists offline_access in its scopes_supported and its challenge's scope"}
)

var (
	authLiberties = fault.Set{Protected, PRMAtRoot, PRMWellKnownOnly, MalformedHeader401, OpaqueTokens, NoScopes, DPoPAdvertised}
	authFaults    = fault.Set{NoToken403, NoWWWAuthenticate, NoResourceMetadata, PRMUndiscoverable, PRMResourceWrong,
		PRMNoAuthorizationServers, PRMNotJSON, ChallengeWithoutScope, MalformedHeaderServed, OtherSchemeServed,
		QueryTokenAccepted, ExpiredAccepted, NotYetValidAccepted, AudienceUnchecked, IssuerUnchecked, SignatureUnchecked,
		AlgNoneAccepted, InvalidTokenNoError, ChallengeUnescapedQuote, DPoPProofUnchecked, SessionTrustsInitialize, Scope401, ScopeNoChallenge, OfflineAccessAdvertised}
)

// authFamily has no handlers and no state: its variants live in its HTTP
// front (reference_auth.go).
type authFamily struct{ familyBase }

func newAuthFamily(r *reference) family { return &authFamily{familyBase{r}} }

func (*authFamily) faults() fault.Set    { return authFaults }
func (*authFamily) liberties() fault.Set { return authLiberties }

// IsProtected reports whether the variant is served behind the
// resource-server front: the auth family's faults and liberties.
func IsProtected(v *fault.Fault) bool {
	return v != nil && (slices.Contains(authFaults, v) || slices.Contains(authLiberties, v))
}
