package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults and liberties of the reference client's client identity and token
// endpoint layer (reference_auth_registration.go): client registration
// (pre-registration, client ID metadata documents, dynamic registration),
// client authentication at the token endpoint, refresh tokens, and the
// binding of credentials to their authorization server.
var (
	// refreshVersions are those whose page has the refresh token rules
	// (SEP-2207) and the authorization server binding (SEP-2352).
	refreshVersions = protocol.From(protocol.V20260728)
	// tokenAuthVersions are those of the official token endpoint
	// authentication scenarios (from 2025-06-18).
	tokenAuthVersions = protocol.From(protocol.V20250618)

	// AuthPrefersDCR breaks the registration priority order: it registers
	// dynamically although the server takes client ID metadata documents.
	AuthPrefersDCR = &fault.Fault{Name: "auth-prefers-dcr", Transports: httpOnly, Versions: protocol.From(protocol.V20251125),
		Description: "registers dynamically although the authorization server advertises client_id_metadata_document_supported"}
	// AuthCIMDHTTPURL breaks "The client_id URL MUST use the "https"
	// scheme and contain a path component".
	AuthCIMDHTTPURL = &fault.Fault{Name: "auth-cimd-http-url", Transports: httpOnly, Versions: protocol.From(protocol.V20251125),
		Description: "uses " + cimdHTTPURL + " (http, not https) as its client ID metadata document URL"}
	// AuthIgnoresPreRegistration breaks "MCP clients SHOULD support an
	// option for static client credentials": it never uses the client_id
	// and client_secret it was given.
	AuthIgnoresPreRegistration = &fault.Fault{Name: "auth-ignores-pre-registration", Transports: httpOnly, Versions: protocol.From(protocol.V20251125),
		Description: "ignores the pre-registered client_id and client_secret of $MCP_CONFORMANCE_CONTEXT",
		Why:         "where the authorization server has no registration endpoint and takes no client ID metadata document, a client without its pre-registered credentials has no client id and cannot authorize at all"}
	// AuthWrongAuthMethod breaks RFC 8414 / RFC 7591's token endpoint
	// authentication: it authenticates with another method than the one
	// the server supports and registered.
	AuthWrongAuthMethod = &fault.Fault{Name: "auth-wrong-auth-method", Transports: httpOnly, Versions: tokenAuthVersions,
		Description: "authenticates at the token endpoint with another method than the registered one: client_secret_post for client_secret_basic, HTTP Basic for client_secret_post and for none"}
	// AuthPreRegisteredPost is AuthWrongAuthMethod for pre-registered
	// credentials (the pre-registration scenario is younger than the token
	// endpoint ones): client_secret_post where only client_secret_basic is
	// offered.
	AuthPreRegisteredPost = &fault.Fault{Name: "auth-pre-registered-post", Transports: httpOnly, Versions: protocol.From(protocol.V20251125),
		Description: "sends its pre-registered client_secret in the token request body (client_secret_post) where the server supports client_secret_basic only"}
	// AuthNoRefreshGrantType breaks "SHOULD include refresh_token in their
	// grant_types client metadata": it registers for authorization_code
	// only, yet asks for offline_access and refreshes.
	AuthNoRefreshGrantType = &fault.Fault{Name: "auth-no-refresh-grant-type", Transports: httpOnly, Versions: refreshVersions,
		Description: "registers grant_types [authorization_code] only, yet asks for offline_access and uses the refresh token it gets"}
	// AuthRefreshTokenInQuery breaks "MUST keep refresh tokens confidential
	// in transit": its refresh request carries the refresh token in the
	// URL too.
	AuthRefreshTokenInQuery = &fault.Fault{Name: "auth-refresh-token-in-query", Transports: httpOnly, Versions: refreshVersions,
		Description: "puts the refresh token in the token endpoint URL's query string as well as in the body of its refresh request"}
	// AuthAlwaysOfflineAccess asks for offline_access where the
	// authorization server does not list it (SEP-2207 grants it only where
	// the metadata does).
	AuthAlwaysOfflineAccess = &fault.Fault{Name: "auth-always-offline-access", Transports: httpOnly, Versions: refreshVersions,
		Description: "adds offline_access to every authorization request, whatever the authorization server's scopes_supported lists"}
)

var (
	// AuthPrefersPost registers for client_secret_post where the server
	// offers client_secret_basic too.
	AuthPrefersPost = &fault.Fault{Name: "auth-prefers-post", Liberty: true, Transports: httpOnly, Versions: tokenAuthVersions,
		Description: "registers for client_secret_post where the authorization server supports both client_secret_basic and client_secret_post",
		Freedom: "RFC 8414 §2: token_endpoint_auth_methods_supported is the \"list of client authentication methods supported by this token endpoint\"; " +
			"RFC 7591 §2 lets the client ask for any of them as token_endpoint_auth_method, and OAuth 2.1 §2.4.1 makes the body parameters one every server MUST support"}
	// AuthNoRefreshTokens wants no refresh token: when its token expires it
	// authorizes again.
	AuthNoRefreshTokens = &fault.Fault{Name: "auth-no-refresh-tokens", Liberty: true, Transports: httpOnly, Versions: refreshVersions,
		Description: "wants no refresh token: registers grant_types [authorization_code], never asks for offline_access, and authorizes again when its token is refused",
		Freedom:     "The refresh token rules bind \"MCP Clients that desire refresh tokens\" (2026-07-28/basic/authorization/index.mdx#refresh-tokens); offline_access is a MAY"}
	// AuthRefreshesEarly refreshes right after the code exchange, before
	// its token is refused.
	AuthRefreshesEarly = &fault.Fault{Name: "auth-refreshes-early", Liberty: true, Transports: httpOnly, Versions: refreshVersions,
		Description: "uses its refresh token at once after the code exchange, and again when a token is refused",
		Freedom:     "No page names the moment of a refresh: OAuth 2.1 §4.3 lets a client holding a refresh token use it to obtain a new access token at any time"}
)

var authRegistrationFaults = fault.Set{AuthPrefersDCR, AuthCIMDHTTPURL, AuthIgnoresPreRegistration, AuthWrongAuthMethod, AuthPreRegisteredPost,
	AuthNoApplicationType, AuthReusesCredentials, AuthNoRefreshGrantType, AuthRefreshTokenInQuery, AuthAlwaysOfflineAccess}

var authRegistrationLiberties = fault.Set{AuthPrefersPost, AuthNoRefreshTokens, AuthRefreshesEarly}
