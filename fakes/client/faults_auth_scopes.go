package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults and liberties of the reference client's scope choice, step-up,
// retry limits, and its checks of the authorization response (state, RFC
// 9207 iss): the auth/scope-*, auth/iss-* scenarios and mcpconform's own
// state and refused-token ones.
var (
	scopeVersions = protocol.From(protocol.V20251125)
	issVersions   = protocol.From(protocol.V20260728)

	// AuthWidensChallengeScope breaks the priority order of the scope
	// selection strategy without breaking the challenge's authority: it
	// asks what the challenge names and all of scopes_supported besides.
	AuthWidensChallengeScope = &fault.Fault{Name: "auth-widens-challenge-scope", Transports: httpOnly, Versions: scopeVersions,
		Description: "asks for the challenge's scope and every scope of scopes_supported besides"}
	// AuthFirstSupportedScope breaks "use all scopes defined in
	// scopes_supported": it asks for the first only.
	AuthFirstSupportedScope = &fault.Fault{Name: "auth-first-supported-scope", Transports: httpOnly, Versions: scopeVersions,
		Description: "without a scope in the challenge, asks for the first scope of scopes_supported only"}
	// AuthScopeFromAS breaks "omitting the scope parameter if
	// scopes_supported is undefined": it falls back on the authorization
	// server's scopes_supported.
	AuthScopeFromAS = &fault.Fault{Name: "auth-scope-from-as", Transports: httpOnly, Versions: scopeVersions,
		Description: "without a scope in the challenge or the protected resource metadata, asks for the authorization server metadata's scopes_supported"}
	// AuthNoStepUp breaks "Clients acting on behalf of a user SHOULD
	// attempt the step-up authorization flow".
	AuthNoStepUp = &fault.Fault{Name: "auth-no-step-up", Transports: httpOnly, Versions: scopeVersions,
		Description: "takes a 403 insufficient_scope as the final answer and never authorizes again",
		Why:         "the call that needs the wider scope never reaches the server, which the common authorized check also looks for"}
	// AuthStepUpKeepsScopes breaks "Clients MUST treat the scopes
	// provided in the challenge as authoritative": on a 403 it authorizes
	// again for the scopes it already had.
	AuthStepUpKeepsScopes = &fault.Fault{Name: "auth-step-up-keeps-scopes", Transports: httpOnly, Versions: scopeVersions,
		Description: "answers a 403 insufficient_scope by authorizing again for the scopes it already had, not the challenge's",
		Why:         "a token without the challenged scope is refused again, so neither the step-up nor the call completes"}
	// AuthDropsGrantedScopes breaks 2026-07-28's "When re-authorizing,
	// clients SHOULD include these scopes alongside any previously granted
	// scopes": its step-up asks for the challenge's scope alone.
	AuthDropsGrantedScopes = &fault.Fault{Name: "auth-drops-granted-scopes", Transports: httpOnly, Versions: protocol.From(protocol.V20260728),
		Description: "re-authorizes for the 403 challenge's scope alone, dropping the scopes it was granted"}
	// AuthHighRetryLimit breaks the retry limit without looping for ever:
	// it authorizes up to six times for one request.
	AuthHighRetryLimit = &fault.Fault{Name: "auth-high-retry-limit", Transports: httpOnly, Versions: scopeVersions,
		Description: "authorizes again after a refusal up to six times for one request, even when its token already has the challenged scope"}
	// AuthIgnoresState breaks "MCP clients SHOULD use and verify state
	// parameters ... and discard any results that do not include or have
	// a mismatch with the original state".
	AuthIgnoresState = &fault.Fault{Name: "auth-ignores-state", Transports: httpOnly, Versions: scopeVersions,
		Description: "takes the code from an authorization response whatever its state says"}
	// AuthAcceptsMissingIss breaks RFC 9207 §2.4 as 2026-07-28 applies
	// it: it compares a present iss but takes a response without one from
	// a server that advertises the parameter.
	AuthAcceptsMissingIss = &fault.Fault{Name: "auth-accepts-missing-iss", Transports: httpOnly, Versions: issVersions,
		Description: "takes an authorization response without iss from a server whose metadata advertises authorization_response_iss_parameter_supported"}
	// AuthIssOnlyWhenAdvertised breaks the third row of 2026-07-28's
	// validation table: it compares iss only when the metadata advertises
	// the parameter.
	AuthIssOnlyWhenAdvertised = &fault.Fault{Name: "auth-iss-only-when-advertised", Transports: httpOnly, Versions: issVersions,
		Description: "compares iss only when the metadata advertises authorization_response_iss_parameter_supported, and takes any iss otherwise"}
	// AuthNormalizesIss breaks "clients MUST NOT apply ... trailing-slash
	// ... normalization ... before comparison".
	AuthNormalizesIss = &fault.Fault{Name: "auth-normalizes-iss", Transports: httpOnly, Versions: issVersions,
		Description: "compares iss with the issuer after case folding and dropping a trailing slash"}
	// AuthIssAgainstMetadataURL breaks the comparison with the recorded
	// issuer: it compares iss with the URL the metadata was read from, and
	// so refuses a correct iss.
	AuthIssAgainstMetadataURL = &fault.Fault{Name: "auth-iss-against-metadata-url", Transports: httpOnly, Versions: issVersions,
		Description: "compares iss with the metadata document's URL instead of the issuer, refusing a correct iss",
		Why:         "a refused correct response ends the flow, so the client never authorizes (the common authorized check)"}
	// AuthRequiresIss breaks the last row of 2026-07-28's validation
	// table ("Proceed"): it refuses every response without iss.
	AuthRequiresIss = &fault.Fault{Name: "auth-requires-iss", Transports: httpOnly, Versions: issVersions,
		Description: "refuses an authorization response without iss even from a server that does not advertise the parameter",
		Why:         "a refused response ends the flow, so the client never authorizes (the common authorized check)"}
)

// AuthRetriesToLimit is a conformant variant: it does not track which
// scopes a refused token had, and retries up to its limit of three
// authorizations (the official suite's bound) before it gives up.
var AuthRetriesToLimit = &fault.Fault{Name: "auth-retries-to-limit", Liberty: true, Transports: httpOnly, Versions: scopeVersions,
	Description: "after a refusal, authorizes again up to three times for one request without checking whether its token already had the challenged scope",
	Freedom:     "Retry the original request with the new authorization no more than a few times and treat this as a permanent authorization failure"}

// AuthStepUpChallengeOnly is a conformant variant at 2025-11-25, which
// asks no union of scopes: its step-up asks for the challenge's scope
// alone (the behaviour of AuthDropsGrantedScopes, a fault at 2026-07-28).
var AuthStepUpChallengeOnly = &fault.Fault{Name: "auth-step-up-challenge-only", Liberty: true, Transports: httpOnly,
	Versions:    []string{protocol.V20251125},
	Description: "re-authorizes for the 403 challenge's scope alone",
	Freedom:     "Determine required scopes as outlined in Scope Selection Strategy."}

var authScopesFaults = fault.Set{AuthRetriesForever, AuthIgnoresChallengeScope, AuthAcceptsWrongIss,
	AuthWidensChallengeScope, AuthFirstSupportedScope, AuthScopeFromAS, AuthNoStepUp, AuthStepUpKeepsScopes,
	AuthDropsGrantedScopes, AuthHighRetryLimit, AuthIgnoresState, AuthAcceptsMissingIss, AuthIssOnlyWhenAdvertised,
	AuthNormalizesIss, AuthIssAgainstMetadataURL, AuthRequiresIss}

var authScopesLiberties = fault.Set{AuthRetriesToLimit, AuthStepUpChallengeOnly}
