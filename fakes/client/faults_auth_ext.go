package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults of the reference client's authorization extensions
// (reference_auth_ext.go): client credentials (SEP-1046), enterprise-managed
// authorization (SEP-990), DPoP (SEP-1932) and workload identity federation
// (SEP-1933). Each acts in its extension's scenarios only.
var extVersions = protocol.From(protocol.V20251125)

var (
	// AuthCCWrongAudience breaks RFC 7523 §3's aud: the assertion names
	// another server.
	AuthCCWrongAudience = &fault.Fault{Name: "auth-cc-assertion-wrong-aud", Transports: httpOnly, Versions: extVersions,
		Description: "signs its client assertion with aud naming another server, not the authorization server"}
	// AuthCCWrongSubject breaks RFC 7523 §3's iss and sub: they are not
	// the client id.
	AuthCCWrongSubject = &fault.Fault{Name: "auth-cc-assertion-wrong-sub", Transports: httpOnly, Versions: extVersions,
		Description: "signs its client assertion with iss and sub other than its client id"}
	// AuthCCNoExpiry breaks RFC 7523 §3's exp.
	AuthCCNoExpiry = &fault.Fault{Name: "auth-cc-assertion-no-exp", Transports: httpOnly, Versions: extVersions,
		Description: "signs its client assertion without exp"}
	// AuthCCWrongAssertionType breaks RFC 7523 §2.2's client_assertion_type.
	AuthCCWrongAssertionType = &fault.Fault{Name: "auth-cc-wrong-assertion-type", Transports: httpOnly, Versions: extVersions,
		Description: "sends client_assertion_type urn:ietf:params:oauth:client-assertion-type:saml2-bearer with its JWT"}
	// AuthCCAuthorizationCode breaks the extension's flow: it runs the
	// authorization code grant instead of client_credentials.
	AuthCCAuthorizationCode = &fault.Fault{Name: "auth-cc-authorization-code", Transports: httpOnly, Versions: extVersions,
		Description: "ignores the client credentials it was given and runs the authorization code flow",
		Why:         "a server that offers client_credentials only refuses the code flow, so no token is issued and none is used"}
	// AuthCCSecretInBody breaks the basic scenario's client_secret_basic,
	// the only method the server supports.
	AuthCCSecretInBody = &fault.Fault{Name: "auth-cc-secret-in-body", Transports: httpOnly, Versions: extVersions,
		Description: "sends client_id and client_secret in the form body although the server supports client_secret_basic only"}
)

var (
	// AuthDPoPBearerScheme breaks "clients MUST include the access token
	// using the Authorization header with the DPoP authentication scheme".
	AuthDPoPBearerScheme = &fault.Fault{Name: "auth-dpop-bearer-scheme", Transports: httpOnly, Versions: extVersions,
		Description: "presents its DPoP-bound token with the Bearer scheme (the proof still goes in the DPoP header)"}
	// AuthDPoPReusesProof breaks "clients MUST include a fresh DPoP proof":
	// one proof goes with every MCP request.
	AuthDPoPReusesProof = &fault.Fault{Name: "auth-dpop-reuses-proof", Transports: httpOnly, Versions: extVersions,
		Description: "sends the same DPoP proof (same jti) with every MCP request"}
	// AuthDPoPNoATH breaks RFC 9449 §4.2's ath on a proof that goes with an
	// access token.
	AuthDPoPNoATH = &fault.Fault{Name: "auth-dpop-no-ath", Transports: httpOnly, Versions: extVersions,
		Description: "leaves ath (the access token's hash) out of the proofs of its MCP requests"}
	// AuthDPoPNoTokenProof breaks "the client MUST include a DPoP proof in
	// the DPoP header of its token request".
	AuthDPoPNoTokenProof = &fault.Fault{Name: "auth-dpop-no-token-proof", Transports: httpOnly, Versions: extVersions,
		Description: "makes its token request without a DPoP proof (and so gets, and presents, a bearer token)",
		Why:         "without a proof at the token request the token is a bearer token, which the client then presents with the Bearer scheme"}
	// AuthDPoPIgnoresASNonce breaks RFC 9449 §8: it does not retry the
	// token request with the nonce.
	AuthDPoPIgnoresASNonce = &fault.Fault{Name: "auth-dpop-ignores-as-nonce", Transports: httpOnly, Versions: extVersions,
		Description: "takes the token endpoint's use_dpop_nonce as final and never retries with the nonce",
		Why:         "without the retry no token is issued, so nothing is presented to the MCP server"}
	// AuthDPoPIgnoresRSNonce breaks RFC 9449 §9: it does not retry the MCP
	// request with the nonce.
	AuthDPoPIgnoresRSNonce = &fault.Fault{Name: "auth-dpop-ignores-rs-nonce", Transports: httpOnly, Versions: extVersions,
		Description: "answers the MCP server's use_dpop_nonce challenge by authorizing again, never with the nonce",
		Why:         "every MCP request stays refused, so the tool is never called"}
)

var (
	// AuthWIFClientCredentials breaks the WIF grant type: it asks for
	// client_credentials instead of the JWT bearer grant.
	AuthWIFClientCredentials = &fault.Fault{Name: "auth-wif-client-credentials", Transports: httpOnly, Versions: extVersions,
		Description: "asks for grant_type client_credentials with the workload JWT as a client assertion instead of the JWT bearer grant",
		Why:         "a server that offers the JWT bearer grant only refuses it, so no token is issued"}
	// AuthWIFRetriesAfterError breaks "clients should not retry a
	// JWT-bearer token request after the authorization server has rejected
	// the assertion": it sends the expired JWT first, then the valid one.
	AuthWIFRetriesAfterError = &fault.Fault{Name: "auth-wif-retries-after-error", Transports: httpOnly, Versions: extVersions,
		Description: "presents the context's expired workload JWT first and, refused with invalid_grant, retries with the valid one",
		Why:         "the expired assertion it presents first is one broken rule, the retry after its refusal another"}
	// AuthWIFFallsBack breaks "the client should not fall back to a
	// different grant type": refused once, it tries client_credentials.
	AuthWIFFallsBack = &fault.Fault{Name: "auth-wif-falls-back", Transports: httpOnly, Versions: extVersions,
		Description: "presents the wrong-audience workload JWT first and, refused, falls back to the client_credentials grant",
		Why:         "the fallback is refused too, so no token is issued"}
)

var (
	// AuthEMASkipsExchange breaks SEP-990's first step: it sends the ID
	// token itself to the MCP authorization server as the assertion.
	AuthEMASkipsExchange = &fault.Fault{Name: "auth-ema-skips-exchange", Transports: httpOnly, Versions: extVersions,
		Description: "skips the token exchange at the IdP and presents the ID token as the JWT bearer assertion",
		Why:         "the MCP authorization server refuses an ID token as an authorization grant, so no token is issued"}
	// AuthEMAWrongTokenType breaks RFC 8693's requested_token_type for an
	// ID-JAG.
	AuthEMAWrongTokenType = &fault.Fault{Name: "auth-ema-wrong-token-type", Transports: httpOnly, Versions: extVersions,
		Description: "asks the IdP for requested_token_type access_token instead of id-jag"}
	// AuthEMANoClientAuth breaks the MCP authorization server's
	// client_secret_basic at the JWT bearer grant.
	AuthEMANoClientAuth = &fault.Fault{Name: "auth-ema-no-client-auth", Transports: httpOnly, Versions: extVersions,
		Description: "presents the ID-JAG at the MCP authorization server without authenticating as the client"}
)

// authExtFaults are the extension scenarios' faults.
var authExtFaults = fault.Set{AuthCCWrongAudience, AuthCCWrongSubject, AuthCCNoExpiry, AuthCCWrongAssertionType, AuthCCAuthorizationCode,
	AuthCCSecretInBody, AuthDPoPBearerScheme, AuthDPoPReusesProof, AuthDPoPNoATH, AuthDPoPNoTokenProof, AuthDPoPIgnoresASNonce,
	AuthDPoPIgnoresRSNonce, AuthWIFClientCredentials, AuthWIFRetriesAfterError, AuthWIFFallsBack, AuthEMASkipsExchange,
	AuthEMAWrongTokenType, AuthEMANoClientAuth}
