package authref

import (
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference authorization server's variants: each fault breaks one rule
// the authorization-server family judges, each liberty takes one freedom
// the RFCs or the pages leave it.
var (
	httpOnly = []transport.Kind{transport.HTTP}
	// RFC 9207's iss in the authorization response is named by 2026-07-28.
	withIss = protocol.From(protocol.V20260728)
	// Client ID Metadata Documents came with 2025-11-25.
	withCIMD = protocol.From(protocol.V20251125)

	MetadataNotJSON = &fault.Fault{Name: "as-metadata-not-json", Transports: httpOnly,
		Description: "serves its metadata as text/plain"}
	IssuerMismatch = &fault.Fault{Name: "as-issuer-mismatch", Transports: httpOnly,
		Description: "its metadata names another issuer than the URL it is served for"}
	MetadataNoResponseTypes = &fault.Fault{Name: "as-metadata-no-response-types", Transports: httpOnly,
		Description: "its metadata lacks response_types_supported (REQUIRED by RFC 8414 §2)"}
	NoPKCEAdvertised = &fault.Fault{Name: "as-no-pkce-advertised", Transports: httpOnly,
		Description: "its metadata lacks code_challenge_methods_supported (it still enforces S256)"}
	StateDropped = &fault.Fault{Name: "as-state-dropped", Transports: httpOnly,
		Description: "its authorization response carries no state although the request sent one"}
	RedirectElsewhere = &fault.Fault{Name: "as-redirect-elsewhere", Transports: httpOnly,
		Description: "its authorization response goes to the redirect_uri with /approved appended"}
	IssWrong = &fault.Fault{Name: "as-iss-wrong", Transports: httpOnly,
		Description: "its authorization response's iss names another issuer"}
	IssUnadvertised = &fault.Fault{Name: "as-iss-unadvertised", Transports: httpOnly, Versions: withIss,
		Description: "sends iss in its authorization responses but does not set authorization_response_iss_parameter_supported"}
	IssOmitted = &fault.Fault{Name: "as-iss-omitted", Transports: httpOnly, Versions: withIss,
		Description: "sends no iss in its authorization responses (and does not advertise it)"}
	TokenCacheable = &fault.Fault{Name: "as-token-cacheable", Transports: httpOnly,
		Description: "answers the token request without Cache-Control: no-store"}
	PKCEOptional = &fault.Fault{Name: "as-pkce-optional", Transports: httpOnly,
		Description: "issues a code to an authorization request without code_challenge"}
	PlainAccepted = &fault.Fault{Name: "as-plain-accepted", Transports: httpOnly,
		Description: "issues a code to a plain code_challenge_method it does not advertise"}
	VerifierUnchecked = &fault.Fault{Name: "as-verifier-unchecked", Transports: httpOnly,
		Description: "exchanges a code for a code_verifier that does not match its challenge"}
	CodeReusable = &fault.Fault{Name: "as-code-reusable", Transports: httpOnly,
		Description: "exchanges the same authorization code twice"}
	RedirectPrefixAccepted = &fault.Fault{Name: "as-redirect-prefix-accepted", Transports: httpOnly,
		Description: "accepts a redirect_uri that only starts with a registered one, and redirects there"}
	TokenNoType = &fault.Fault{Name: "as-token-no-type", Transports: httpOnly,
		Description: "answers the token request without token_type"}
	ErrorShapeWrong = &fault.Fault{Name: "as-error-shape-wrong", Transports: httpOnly,
		Description: "refuses a token request with a text/plain body and no error code"}
	RefreshNotRotated = &fault.Fault{Name: "as-refresh-not-rotated", Transports: httpOnly,
		Description: "answers a public client's refresh with the same refresh token, which stays valid"}
	OfflineRefreshNotRotated = &fault.Fault{Name: "as-offline-refresh-not-rotated", Transports: httpOnly,
		Description: "issues refresh tokens only to a grant that asks offline_access, and does not rotate them"}
	CIMDUnvalidated = &fault.Fault{Name: "as-cimd-unvalidated", Transports: httpOnly, Versions: withCIMD,
		Description: "advertises Client ID Metadata Documents but approves a URL client_id without fetching or validating its document"}
	RegistrationNoClientID = &fault.Fault{Name: "as-registration-no-client-id", Transports: httpOnly,
		Description: "answers a dynamic registration with 201 and no client_id"}

	IssuerWithPath = &fault.Fault{Name: "as-issuer-with-path", Liberty: true, Transports: httpOnly,
		Freedom:     `RFC 8414 §3: "If the issuer identifier value contains a path component, any terminating "/" MUST be removed before inserting "/.well-known/" and the well-known URI suffix between the host component and the path component."`,
		Description: "its issuer has a path (/tenant1): the metadata is at /.well-known/oauth-authorization-server/tenant1"}
	OpenIDOnly = &fault.Fault{Name: "as-openid-only", Liberty: true, Transports: httpOnly,
		Freedom:     `2025-11-25/basic/authorization.mdx, "Overview": "MCP authorization servers MUST provide at least one of the following discovery mechanisms: OAuth 2.0 Authorization Server Metadata (RFC8414) OpenID Connect Discovery 1.0"`,
		Description: "serves OpenID Connect Discovery only (with code_challenge_methods_supported), no RFC 8414 document"}
	NoRefreshToken = &fault.Fault{Name: "as-no-refresh-token", Liberty: true, Transports: httpOnly,
		Freedom:     `RFC 6749 §5.1: refresh_token "OPTIONAL"`,
		Description: "issues no refresh token"}
	RefreshOfflineAccess = &fault.Fault{Name: "as-refresh-offline-access", Liberty: true, Transports: httpOnly,
		Freedom:     `2026-07-28/basic/authorization/index.mdx, "Refresh Tokens": clients "MUST NOT assume refresh tokens will be issued; the AS retains discretion" and "MAY add offline_access to the scope parameter … when the Authorization Server metadata contains it in scopes_supported"`,
		Description: "lists offline_access in scopes_supported and issues refresh tokens (rotated) only to grants that ask it"}
	CIMD = &fault.Fault{Name: "as-cimd", Liberty: true, Transports: httpOnly, Versions: withCIMD,
		Freedom:     `2025-11-25/basic/authorization.mdx, "Overview": "Authorization servers and MCP clients SHOULD support OAuth Client ID Metadata Documents"`,
		Description: "supports Client ID Metadata Documents: an https client_id is fetched (no redirect followed) and validated before any approval"}
	LoginForm = &fault.Fault{Name: "as-login-form", Liberty: true, Transports: httpOnly,
		Freedom:     `RFC 6749 §4.1.1: "the authorization server authenticates the resource owner and obtains an authorization decision (by asking the resource owner or by establishing approval via other means)"`,
		Description: "asks for a login (an HTML form: username, password, a hidden request id) before it approves, with a session cookie"}
	PlainSupported = &fault.Fault{Name: "as-plain-supported", Liberty: true, Transports: httpOnly,
		Freedom:     `RFC 7636 §4.2: "plain" is a code_challenge_method an authorization server may support; it advertises it in code_challenge_methods_supported (RFC 8414 §2)`,
		Description: "advertises and accepts the plain code_challenge_method beside S256"}
)

var (
	faults = fault.Set{MetadataNotJSON, IssuerMismatch, MetadataNoResponseTypes, NoPKCEAdvertised, StateDropped, RedirectElsewhere,
		IssWrong, IssUnadvertised, IssOmitted, TokenCacheable, PKCEOptional, PlainAccepted, VerifierUnchecked, CodeReusable, RedirectPrefixAccepted,
		TokenNoType, ErrorShapeWrong, RefreshNotRotated, OfflineRefreshNotRotated, CIMDUnvalidated, RegistrationNoClientID}
	liberties = fault.Set{IssuerWithPath, OpenIDOnly, NoRefreshToken, PlainSupported, RefreshOfflineAccess, LoginForm, CIMD}
)

// LoginFields are the credentials the as-login-form variant's form takes.
var LoginFields = map[string]string{"username": "mcpconform-user", "password": "mcpconform-password-1234"}

// Faults lists the reference authorization server's faults, sorted by name.
func Faults() fault.Set { return slices.Clone(faults).Sorted() }

// Liberties lists its conformant variants, sorted by name.
func Liberties() fault.Set { return slices.Clone(liberties).Sorted() }
