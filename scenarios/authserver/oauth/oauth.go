// Package oauth is the authorization-server family: an MCP authorization
// server judged as the pages and the RFCs they name ask — its metadata
// (RFC 8414 or OpenID Connect Discovery), the authorization code grant
// with PKCE (the official suite's two scenarios, under their ids), PKCE
// enforcement, single-use codes, exact redirect URIs, RFC 6749's error
// shape, refresh token rotation and dynamic registration where offered.
// mcpconform plays the client; the approval step must be automatic (a
// server's test mode), since nothing here can act for a user.
package oauth

import (
	"github.com/mcpconform/mcpconform/fakes/authref"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

const (
	family = "authserver"
	page   = "2025-11-25/basic/authorization.mdx"
)

var (
	httpOnly = []transport.Kind{transport.HTTP}
	// The pages ask authorization server metadata from 2025-06-18 (2025-03-26
	// lets the server fall back to default endpoints).
	versions = protocol.From(protocol.V20250618)
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{metadataScenario, grantScenario, pkceScenario, codeReuseScenario, redirectScenario, errorScenario,
		refreshScenario, registrationScenario, cimdScenario}
}

const (
	quoteOAuth21    = "Authorization servers MUST implement OAuth 2.1 with appropriate security measures for both confidential and public clients."
	quoteDiscovery  = "MCP authorization servers MUST provide at least one of the following discovery mechanisms:"
	quoteOIDCPKCE   = "Authorization servers providing OpenID Connect Discovery 1.0 MUST include code_challenge_methods_supported in their metadata to ensure MCP compatibility."
	quoteRedirect   = "Authorization servers MUST validate exact redirect URIs against pre-registered values to prevent redirection attacks."
	quoteRotate     = "For public clients, authorization servers MUST rotate refresh tokens as described in OAuth 2.1 Section 4.3.1 \"Token Endpoint Extension\"."
	quoteRegister   = "Authorization servers and MCP clients MAY support the OAuth 2.0 Dynamic Client Registration Protocol (RFC7591)."
	quoteIssAdvert  = "Authorization servers that include the iss parameter MUST advertise this by setting authorization_response_iss_parameter_supported to true in their metadata (RFC9207 Section 2.3)."
	issPage2026     = "2026-07-28/basic/authorization/index.mdx#authorization-response-validation"
	anchorOverview  = "#overview"
	anchorCodeProt  = "#authorization-code-protection"
	anchorOpenRedir = "#open-redirection"
	anchorTheft     = "#token-theft"
)

func check(id string, level scenarios.Level, anchor, quote, title string, faults []*fault.Fault, liberties ...*fault.Fault) *scenarios.Check {
	return &scenarios.Check{ID: id, Level: level, Spec: page + anchor, Quote: quote, Title: title, Faults: faults, Liberties: liberties}
}

func faults(f ...*fault.Fault) []*fault.Fault { return f }

var (
	metaJSON = check("authorization-server-metadata-endpoint/status-json", scenarios.Must, anchorOverview, quoteDiscovery,
		"the metadata is served with 200 as a JSON object, Content-Type application/json (RFC 8414 §3.2), at RFC 8414's location "+
			"or OpenID Connect Discovery's", faults(authref.MetadataNotJSON), authref.OpenIDOnly, authref.IssuerWithPath)
	metaIssuer = check("authorization-server-metadata-endpoint/issuer-matches", scenarios.Must, anchorOverview, quoteDiscovery,
		"its issuer is identical to the issuer the well-known URL was made from (RFC 8414 §3.3)", faults(authref.IssuerMismatch),
		authref.IssuerWithPath)
	metaFields = check("authorization-server-metadata-endpoint/required-fields", scenarios.Must, anchorOverview, quoteDiscovery,
		"it names issuer, authorization_endpoint, token_endpoint and response_types_supported (RFC 8414 §2: REQUIRED)",
		faults(authref.MetadataNoResponseTypes), authref.OpenIDOnly)
	metaPKCE = check("authorization-server-metadata-endpoint/pkce-advertised", scenarios.Must, anchorCodeProt, quoteOIDCPKCE,
		"code_challenge_methods_supported lists S256: without it MCP clients \"MUST refuse to proceed\" (either kind of metadata)",
		faults(authref.NoPKCEAdvertised), authref.OpenIDOnly)

	grantRedirect = check("authorization-code-grant/redirect-matches", scenarios.Must, anchorOpenRedir, quoteRedirect,
		"the authorization response goes to exactly the redirect_uri of the request", faults(authref.RedirectElsewhere), authref.IssuerWithPath)
	grantParams = check("authorization-code-grant/response-params", scenarios.Must, anchorOverview, quoteOAuth21,
		"the authorization response carries one non-empty code, no error, and the request's state exactly once (RFC 6749 §4.1.2: "+
			"state \"REQUIRED if the state parameter was present\")", faults(authref.StateDropped), authref.IssuerWithPath, authref.LoginForm)
	grantIss = check("authorization-code-grant/iss-matches", scenarios.Must, anchorOverview, quoteOAuth21,
		"an iss in the authorization response is identical to the issuer the request was sent to (RFC 9207 §2.4)", faults(authref.IssWrong))
	grantIssAdvertised = &scenarios.Check{ID: "authorization-code-grant/iss-advertised", Level: scenarios.Must, Spec: issPage2026,
		Quote: quoteIssAdvert, Title: "a server whose authorization responses carry iss sets authorization_response_iss_parameter_supported (2026-07-28)",
		Versions: protocol.From(protocol.V20260728), Faults: faults(authref.IssUnadvertised), Liberties: []*fault.Fault{authref.IssuerWithPath}}
	grantIssSent = &scenarios.Check{ID: "authorization-code-grant/iss-sent", Level: scenarios.Should, Spec: issPage2026,
		Quote:    "MCP authorization servers SHOULD include the iss parameter in authorization responses, including error responses, as defined in RFC9207 Section 2.",
		Title:    "the authorization response carries iss, the approval's and an error's alike (2026-07-28)",
		Versions: protocol.From(protocol.V20260728), Faults: faults(authref.IssOmitted), Liberties: []*fault.Fault{authref.IssuerWithPath}}
	grantToken = check("authorization-code-grant/token-response", scenarios.Must, anchorOverview, quoteOAuth21,
		"the code and its verifier get 200, application/json, with access_token and token_type (RFC 6749 §5.1)",
		faults(authref.TokenNoType), authref.NoRefreshToken)
	grantNoStore = check("authorization-code-grant/token-no-store", scenarios.Must, anchorOverview, quoteOAuth21,
		"the token response carries Cache-Control: no-store (RFC 6749 §5.1: \"MUST include\")", faults(authref.TokenCacheable), authref.NoRefreshToken)

	pkceRequired = check("authserver-pkce/required", scenarios.Must, anchorOverview, quoteOAuth21,
		"an authorization request without code_challenge gets no code (OAuth 2.1 §4.1.1: authorization servers MUST require PKCE "+
			"of public clients)", faults(authref.PKCEOptional), authref.PlainSupported, authref.LoginForm)
	pkcePlain = check("authserver-pkce/plain-refused", scenarios.Must, anchorCodeProt, quoteOIDCPKCE,
		"a plain code_challenge_method gets no code from a server that does not list plain in code_challenge_methods_supported "+
			"(a server that lists it may take it)", faults(authref.PlainAccepted), authref.PlainSupported)
	pkceVerifier = check("authserver-pkce/verifier-checked", scenarios.Must, anchorOverview, quoteOAuth21,
		"a code with a code_verifier that is not its challenge's is refused with invalid_grant (RFC 7636 §4.6)", faults(authref.VerifierUnchecked))

	codeOnce = check("authserver-code-single-use/second-refused", scenarios.Must, anchorOverview, quoteOAuth21,
		"a code exchanged once is refused the second time (OAuth 2.1 §4.1.3: the code must not have been used before; §7.5)",
		faults(authref.CodeReusable), authref.NoRefreshToken, authref.LoginForm)

	redirectExact = check("authserver-redirect-uri/exact-match", scenarios.Must, anchorOpenRedir, quoteRedirect,
		"an authorization request whose redirect_uri only starts with the registered one is not redirected there", faults(authref.RedirectPrefixAccepted))

	errorShape = check("authserver-token-errors/shape", scenarios.Must, anchorOverview, quoteOAuth21,
		"a token request with a code the server never issued gets 400, application/json, error invalid_grant (RFC 6749 §5.2)",
		faults(authref.ErrorShapeWrong))

	refreshRotated = check("authserver-refresh-rotation/rotated", scenarios.Must, anchorTheft, quoteRotate,
		"a public client's refresh gets a new refresh token and the old one is refused afterwards (a server that issues no "+
			"refresh token has none to rotate)", faults(authref.RefreshNotRotated, authref.OfflineRefreshNotRotated), authref.NoRefreshToken, authref.RefreshOfflineAccess)

	cimdUnfetchable = &scenarios.Check{ID: "authserver-cimd/unfetchable-refused", Level: scenarios.Must,
		Spec:  page + "#implementation-requirements",
		Quote: "MUST validate the document structure is valid JSON and contains required fields",
		Title: "a server that advertises Client ID Metadata Documents issues no code to a URL client_id whose document it cannot fetch " +
			"(nothing to validate the client or its redirect_uri against; 2025-11-25 and after)",
		Versions: protocol.From(protocol.V20251125),
		Faults:   faults(authref.CIMDUnvalidated), Liberties: []*fault.Fault{authref.CIMD}}
	registrationAnswer = check("authserver-registration/client-information", scenarios.Must, "#dynamic-client-registration", quoteRegister,
		"where registration is offered, a valid request gets 201 and a JSON object with client_id (RFC 7591 §3.2.1)",
		faults(authref.RegistrationNoClientID), authref.IssuerWithPath)
)
