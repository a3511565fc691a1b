package client

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// The discovery faults' changes to the reference client's OAuth layer
// (reference_auth.go keeps the conformant order; these hooks bend it).

// Well-known suffixes of RFC 8414 and OpenID Connect Discovery.
const (
	wellKnownOAuth  = "/.well-known/oauth-authorization-server"
	wellKnownOpenID = "/.well-known/openid-configuration"
)

// adjustASCandidates is the list of authorization server metadata URLs the
// client tries, as a discovery fault changes it.
func (a *authorizer) adjustASCandidates(candidates []string) []string {
	switch {
	case a.is(AuthRequiresSameHostAS) && len(candidates) > 0 && hostOf(candidates[0]) != a.server.Hostname():
		a.rc.logf("authorization: the authorization server %s is not on the MCP server's host; refusing it", hostOf(candidates[0]))
		return nil
	case a.is(AuthLegacySkipsMetadata):
		return nil
	case a.is(AuthOAuthMetadataOnly):
		return slices.DeleteFunc(slices.Clone(candidates), func(c string) bool { return strings.Contains(c, wellKnownOpenID) })
	case a.is(AuthOpenIDFirst):
		// OpenID before RFC 8414, and the appended form first: the
		// reverse of the pages' priority order.
		out := slices.Clone(candidates)
		slices.Reverse(out)
		return out
	}
	return candidates
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Hostname()
	}
	return ""
}

// lateResourceCheck is the fault that validates the protected resource
// metadata's resource only once it has fetched the authorization server's
// metadata the document names (nil otherwise: the check came first).
func (a *authorizer) lateResourceCheck(prm prmDoc) error {
	if !a.is(AuthValidatesResourceLate) || prm.legacy || a.resourceMatches(prm.resource) {
		return nil
	}
	return fmt.Errorf("the protected resource metadata names resource %q, not the server %s (RFC 9728 §3.3), seen after its authorization server was asked", prm.resource, a.server)
}

// legacyBase is the 2025-03-26 authorization base URL: the server's origin,
// or, for the fault that keeps the path, its whole URL.
func (a *authorizer) legacyBase(origin string) string {
	if a.is(AuthLegacyBaseKeepsPath) {
		return origin + strings.TrimSuffix(a.server.Path, "/")
	}
	return origin
}

// resourcePaths are the paths of a metadata's resource and of the server
// URL, as the client compares them: "/" is the empty path (RFC 3986
// §6.2.3), anything else stays as it is, so "/mcp/" is not "/mcp" (RFC
// 9728 §3.3 asks for identical values). The trailing-slash fault trims
// both.
func (a *authorizer) resourcePaths(resource, server string) (string, string) {
	if a.is(AuthResourceTrailingSlash) {
		resource, server = strings.TrimSuffix(resource, "/"), strings.TrimSuffix(server, "/")
	}
	if resource == "/" {
		resource = ""
	}
	if server == "/" {
		server = ""
	}
	return resource, server
}
