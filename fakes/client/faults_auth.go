package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults of the reference client's OAuth layer (reference_auth.go), each
// breaking one rule of the authorization pages. They act in the auth/*
// scenarios only, over Streamable HTTP (the pages' transport for
// authorization).
var (
	// authVersions are those at which the family's scenarios run; a fault
	// is run by the self-test at each of its versions, so they must be
	// those of the scenarios whose checks name it.
	authVersions = protocol.From(protocol.V20251125)

	// AuthSkipsPKCE breaks "MCP clients MUST implement PKCE".
	AuthSkipsPKCE = &fault.Fault{Name: "auth-skips-pkce", Transports: httpOnly, Versions: authVersions,
		Description: "sends neither code_challenge nor code_verifier",
		Why:         "PKCE is one rule judged at both ends: the challenge in the authorization request and the verifier in the token request"}
	// AuthPlainPKCE breaks "MCP clients MUST use the S256 code challenge
	// method when technically capable".
	AuthPlainPKCE = &fault.Fault{Name: "auth-plain-pkce", Transports: httpOnly, Versions: authVersions,
		Description: "sends the PKCE verifier itself as the challenge, with code_challenge_method plain",
		Why:         "a plain challenge is the wrong method in the authorization request and a verifier whose S256 hash matches nothing in the token request"}
	// AuthDropsResource breaks "The resource parameter MUST be included
	// in both authorization requests and token requests".
	AuthDropsResource = &fault.Fault{Name: "auth-drops-resource", Transports: httpOnly, Versions: authVersions,
		Description: "leaves the resource parameter out of the authorization and token requests"}
	// AuthTokenInQuery breaks "Access tokens MUST NOT be included in the
	// URI query string" (and with it the Authorization header rule).
	AuthTokenInQuery = &fault.Fault{Name: "auth-token-in-query", Transports: httpOnly, Versions: authVersions,
		Description: "sends the access token as an access_token query parameter instead of an Authorization header",
		Why:         "a token moved into the query is, by the same act, missing from the Authorization header, so the server refuses the requests"}
	// AuthRetriesForever breaks the retry limits a client SHOULD have and
	// the robustness bound of a loop: it authorizes again after every
	// refusal.
	AuthRetriesForever = &fault.Fault{Name: "auth-retries-forever", Transports: httpOnly, Versions: protocol.From(protocol.V20251125),
		Description: "authorizes again after every 401 or 403 insufficient_scope, without limit"}
	// AuthIgnoresChallengeScope breaks "Clients MUST treat the scopes
	// provided in the challenge as authoritative".
	AuthIgnoresChallengeScope = &fault.Fault{Name: "auth-ignores-challenge-scope", Transports: httpOnly, Versions: protocol.From(protocol.V20251125),
		Description: "asks for scopes_supported even when the challenge names a scope"}
	// AuthAcceptsResourceMismatch breaks RFC 9728 §3.3: it uses metadata
	// whose resource is not the server it is accessing.
	AuthAcceptsResourceMismatch = &fault.Fault{Name: "auth-accepts-resource-mismatch", Transports: httpOnly, Versions: authVersions,
		Description: "uses protected resource metadata whose resource is another server's"}
	// AuthAcceptsIssuerMismatch breaks RFC 8414 §3.3: it uses metadata
	// whose issuer is not the one the well-known URL was built from.
	AuthAcceptsIssuerMismatch = &fault.Fault{Name: "auth-accepts-issuer-mismatch", Transports: httpOnly, Versions: authVersions,
		Description: "uses authorization server metadata whose issuer is not the one it asked for"}
	// AuthAcceptsWrongIss breaks RFC 9207 §2.4: it takes a code from a
	// response whose iss is missing or another server's.
	AuthAcceptsWrongIss = &fault.Fault{Name: "auth-accepts-wrong-iss", Transports: httpOnly, Versions: protocol.From(protocol.V20260728),
		Description: "takes the code from an authorization response whatever its iss says"}
	// AuthReusesCredentials breaks "no reuse of credentials across
	// authorization servers" (SEP-2352).
	// Its scenario (authorization-server-migration) runs at 2026-07-28 only.
	AuthReusesCredentials = &fault.Fault{Name: "auth-reuses-credentials", Transports: httpOnly, Versions: protocol.From(protocol.V20260728),
		Description: "uses the client id registered at one authorization server at another"}
	// AuthNoApplicationType breaks SEP-837's "MUST specify an appropriate
	// application_type" in dynamic registration.
	AuthNoApplicationType = &fault.Fault{Name: "auth-no-application-type", Transports: httpOnly, Versions: protocol.From(protocol.V20260728),
		Description: "registers without application_type"}
)

var (
	// AuthIgnores401 breaks "MCP clients MUST be able to parse
	// WWW-Authenticate headers and respond appropriately to HTTP 401": it
	// never authorizes.
	AuthIgnores401 = &fault.Fault{Name: "auth-ignores-401", Transports: httpOnly, Versions: authVersions,
		Description: "takes a 401 as the server's final answer and never authorizes"}
	// AuthTokenToAS breaks OAuth 2.1 §7.1's care for tokens: it sends the
	// MCP access token to the authorization server.
	AuthTokenToAS = &fault.Fault{Name: "auth-token-to-as", Transports: httpOnly,
		Description: "fetches the authorization server's metadata again (at 2025-03-26, GETs its token endpoint) with the new access token in its Authorization header"}
	// AuthNoState breaks "MCP clients SHOULD use and verify state
	// parameters".
	AuthNoState = &fault.Fault{Name: "auth-no-state", Transports: httpOnly, Versions: authVersions,
		Description: "sends the authorization request without state"}
)

var (
	// AuthPRMRootFirst breaks "use the resource metadata URL from the
	// parsed WWW-Authenticate headers when present; otherwise … the
	// well-known URIs in the order listed": it asks the root first.
	AuthPRMRootFirst = &fault.Fault{Name: "auth-prm-root-first", Transports: httpOnly, Versions: authVersions,
		Description: "asks for the protected resource metadata at the root well-known URI before the one the challenge names"}
	// AuthASMetadataAtRoot breaks RFC 8414 §3.1's path insertion: for an
	// issuer with a path it asks the root well-known URI first.
	AuthASMetadataAtRoot = &fault.Fault{Name: "auth-as-metadata-at-root", Transports: httpOnly, Versions: authVersions,
		Description: "asks for the authorization server metadata at the origin's root well-known URI before the issuer's"}
)

// AuthSkipsASMetadata breaks "MCP clients MUST support both discovery
// mechanisms to obtain the information required to interact with the
// authorization server": it never fetches the metadata and assumes
// /authorize, /token and /register under the issuer (the 2025-03-26
// fallback, out of its era).
var AuthSkipsASMetadata = &fault.Fault{Name: "auth-skips-as-metadata", Transports: httpOnly, Versions: authVersions,
	Description: "never fetches the authorization server's metadata and assumes its endpoints at /authorize, /token and /register"}

// authFaults are those a check names; the others join as their
// scenarios do.
var authFaults = fault.Set{AuthIgnores401, AuthSkipsPKCE, AuthPlainPKCE, AuthDropsResource, AuthTokenInQuery, AuthTokenToAS,
	AuthNoState, AuthPRMRootFirst, AuthSkipsASMetadata}

// authFaultScenarios confine the faults that would break every flow to the
// official scenarios whose checks name them (as the header faults are
// confined to theirs), so that each fails its own checks and no other
// scenario's: a client that skips the metadata, for instance, also misses
// the CIMD and iss support it advertises, which other scenarios judge.
var authFaultScenarios = map[*fault.Fault][]string{
	AuthSkipsASMetadata:       {"auth/metadata-default", "auth/metadata-issuer-mismatch"},
	AuthIgnoresChallengeScope: {"auth/scope-from-www-authenticate"},
	AuthAlwaysOfflineAccess:   {"auth/offline-access-not-supported"},
	AuthCCAuthorizationCode:   {"auth/client-credentials-basic", "auth/client-credentials-jwt"},
	AuthPreRegisteredPost:     {"auth/pre-registration"},
	AuthWrongAuthMethod: {"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-none", "auth/token-endpoint-auth-post",
		// client-auth-token-endpoint-auth-either is told auth/metadata-default,
		// where the method is judged by no check.
		"auth/metadata-default"},
	AuthIssAgainstMetadataURL: {"auth/iss-supported"},
}
