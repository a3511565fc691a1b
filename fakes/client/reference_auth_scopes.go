package client

import (
	"net/url"
	"slices"
	"strings"
)

// The reference client's retry limits, and where its faults and liberties
// change its choice of scopes and its check of iss (reference_auth.go asks
// these at each point of choice).

// highRetryLimit is AuthHighRetryLimit's bound: past the official suite's
// three, short of a loop without end.
const highRetryLimit = 6

// retryLimit is how many authorizations one request gets.
func (a *authorizer) retryLimit() int {
	if a.is(AuthHighRetryLimit) {
		return highRetryLimit
	}
	return maxAuthorizations
}

// tracksScopes: the reference gives up at once on a 403 naming scopes its
// token already has (2025-11-25/basic/authorization.mdx#step-up-authorization-flow:
// "SHOULD track scope upgrade attempts"); these variants do not.
func (a *authorizer) tracksScopes() bool {
	return !a.is(AuthRetriesForever) && !a.is(AuthRetriesToLimit) && !a.is(AuthHighRetryLimit)
}

// keepsGranted: a step-up asks for the scopes granted before besides the
// challenge's (2026-07-28/basic/authorization/index.mdx#scope-selection-strategy).
func (a *authorizer) keepsGranted() bool {
	return !a.is(AuthDropsGrantedScopes) && !a.is(AuthStepUpChallengeOnly)
}

// faultyScopes is the scope choice as a fault changes it; chosen is the
// reference's.
func (a *authorizer) faultyScopes(ch challenge, chosen []string, prm prmDoc, asMeta map[string]any) []string {
	switch {
	case a.is(AuthWidensChallengeScope) && ch.scope != "":
		for _, s := range prm.scopes {
			if !slices.Contains(chosen, s) {
				chosen = append(chosen, s)
			}
		}
	case a.is(AuthFirstSupportedScope) && ch.scope == "" && len(prm.scopes) > 1:
		chosen = prm.scopes[:1]
	case a.is(AuthScopeFromAS) && len(chosen) == 0:
		chosen = metaStrings(asMeta, "scopes_supported")
	case a.is(AuthStepUpKeepsScopes) && ch.errCode == "insufficient_scope":
		a.mu.Lock()
		defer a.mu.Unlock()
		if len(a.scopes) > 0 {
			chosen = append([]string(nil), a.scopes...)
		}
	}
	return chosen
}

// issMatches compares a present iss with the recorded issuer: simple
// string comparison (RFC 9207 §2.4), whether or not the metadata
// advertises the parameter (2026-07-28/basic/authorization/index.mdx#authorization-response-validation).
func (a *authorizer) issMatches(iss, issuer string, advertised bool) bool {
	switch {
	case a.is(AuthIssOnlyWhenAdvertised) && !advertised:
		return true
	case a.is(AuthNormalizesIss):
		return strings.EqualFold(strings.TrimSuffix(iss, "/"), strings.TrimSuffix(issuer, "/"))
	case a.is(AuthIssAgainstMetadataURL):
		return iss == metadataURLOf(issuer)
	}
	return iss == issuer
}

// issRequired: a response without iss is refused when the metadata
// advertises the parameter.
func (a *authorizer) issRequired(advertised bool) bool {
	switch {
	case a.is(AuthAcceptsMissingIss):
		return false
	case a.is(AuthRequiresIss):
		return true
	}
	return advertised
}

// metadataURLOf is the RFC 8414 metadata URL of issuer (AuthIssAgainstMetadataURL's
// mistaken expectation).
func metadataURLOf(issuer string) string {
	u, err := url.Parse(issuer)
	if err != nil {
		return issuer
	}
	return u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
}
