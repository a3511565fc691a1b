package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults of the reference client's discovery (reference_auth.go,
// reference_auth_discovery.go): where it looks for the metadata, and what
// it accepts of what it finds.
var (
	// AuthOAuthMetadataOnly breaks "MCP clients MUST attempt multiple
	// well-known endpoints": it asks the RFC 8414 locations only, never
	// OpenID Connect Discovery.
	AuthOAuthMetadataOnly = &fault.Fault{Name: "auth-oauth-metadata-only", Transports: httpOnly,
		Versions:    protocol.From(protocol.V20251125),
		Description: "asks for the authorization server metadata at the RFC 8414 well-known URI only, never at OpenID Connect Discovery's",
		Why:         "a server that publishes only an OpenID configuration then has no endpoints for it, so it never authorizes"}
	// AuthOpenIDFirst breaks the pages' order of the authorization server
	// metadata locations: it tries OpenID Connect Discovery (appending
	// first, for an issuer with a path) before RFC 8414.
	AuthOpenIDFirst = &fault.Fault{Name: "auth-openid-first", Transports: httpOnly,
		Versions:    protocol.From(protocol.V20251125),
		Description: "asks for the authorization server metadata at the OpenID Connect locations, path appended first, before the RFC 8414 one"}
	// AuthResourceTrailingSlash compares the protected resource metadata's
	// resource with the server's URL with trailing slashes trimmed, as some
	// SDKs do: "/mcp/" passes for "/mcp" (RFC 9728 §3.3 asks them identical).
	AuthResourceTrailingSlash = &fault.Fault{Name: "auth-resource-trailing-slash", Transports: httpOnly, Versions: authVersions,
		Description: "takes protected resource metadata whose resource differs from the server's URL by a trailing slash as its own"}

	// AuthValidatesResourceLate breaks RFC 9728 §3.3's "the data
	// contained in the response MUST NOT be used" in its order: it asks the
	// authorization server the metadata names for its metadata, then finds
	// that the resource is not its server's and stops.
	AuthValidatesResourceLate = &fault.Fault{Name: "auth-validates-resource-late", Transports: httpOnly, Versions: authVersions,
		Description: "fetches the metadata of the authorization server a protected resource metadata names before it checks the document's resource, then refuses"}
	// AuthRequiresSameHostAS breaks "MCP clients MUST use OAuth 2.0
	// Protected Resource Metadata for authorization server discovery": it
	// refuses an authorization server on another host than the MCP
	// server's, as if the metadata could not name one.
	AuthRequiresSameHostAS = &fault.Fault{Name: "auth-requires-same-host-as", Transports: httpOnly, Versions: authVersions,
		Description: "refuses to use an authorization server whose host is not the MCP server's",
		Why:         "refusing the only authorization server named is never authorizing"}

	// legacyVersions: the 2025-03-26 authorization (no resource metadata).
	legacyVersions = []string{protocol.V20250326}

	// AuthLegacySkipsMetadata breaks "Clients MUST first attempt to
	// discover endpoints via the metadata document before falling back to
	// default paths" (2025-03-26).
	AuthLegacySkipsMetadata = &fault.Fault{Name: "auth-legacy-skips-metadata", Transports: httpOnly, Versions: legacyVersions,
		Description: "goes straight to /authorize, /token and /register at the server's root without asking for its metadata",
		Why:         "where the server does publish metadata its endpoints are elsewhere, so the default ones it uses are not there and it never authorizes"}
	// AuthLegacyBaseKeepsPath breaks "The authorization base URL MUST be
	// determined from the MCP server URL by discarding any existing path
	// component" (2025-03-26): it keeps /mcp.
	AuthLegacyBaseKeepsPath = &fault.Fault{Name: "auth-legacy-base-keeps-path", Transports: httpOnly, Versions: legacyVersions,
		Description: "takes the MCP endpoint's URL with its path (/mcp) as the authorization base URL, for the metadata and the default endpoints",
		Why:         "nothing is served under /mcp, so it finds neither the metadata nor the endpoints and never authorizes"}
	// AuthLegacyNoFallback breaks "For servers that do not implement OAuth
	// 2.0 Authorization Server Metadata, clients MUST use the following
	// default endpoint paths" (2025-03-26): without metadata it gives up.
	AuthLegacyNoFallback = &fault.Fault{Name: "auth-legacy-no-fallback", Transports: httpOnly, Versions: legacyVersions,
		Description: "gives up when the server publishes no authorization server metadata, instead of using the default endpoints",
		Why:         "giving up is also never authorizing"}
)

// authDiscoveryFaults are the discovery scenarios' faults, with the ones
// faults_auth.go declares for them.
var authDiscoveryFaults = fault.Set{AuthASMetadataAtRoot, AuthOAuthMetadataOnly, AuthOpenIDFirst, AuthAcceptsResourceMismatch,
	AuthAcceptsIssuerMismatch, AuthResourceTrailingSlash, AuthValidatesResourceLate, AuthRequiresSameHostAS, AuthLegacySkipsMetadata, AuthLegacyBaseKeepsPath, AuthLegacyNoFallback}
