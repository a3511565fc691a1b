package auth

import (
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// 2025-03-26's authorization: no protected resource metadata; the MCP
// server's origin is the authorization base URL, its metadata at the root
// well-known URI, and without metadata the default endpoints /authorize,
// /token and /register at that root.

// legacyPrefix is where the back-compat server keeps its endpoints, so a
// client that guesses the default ones instead of reading the metadata
// shows it.
const legacyPrefix = "/oauth"

// onlyMarch is the version these scenarios run at: the rules stand on the
// 2025-03-26 page alone (2025-06-18 replaced them by resource metadata).
var onlyMarch = protocol.Where(func(v protocol.Version) bool { return v.Judged && !v.ProtectedResourceMetadata })

// legacyCommon is newCommon without the resource check (2025-03-26 has no
// resource indicators), citing the 2025-03-26 page's own sentences where it
// states the rule (state it does not: that check keeps its later page).
func legacyCommon(id string) *common {
	c := newCommon(id)
	c.resource = nil
	cite := func(ch *scenarios.Check, anchor, quote string) { ch.Spec, ch.Quote = page0326+"#"+anchor, quote }
	cite(c.authorized, "example-authorization-code-grant",
		"Clients initiate the OAuth 2.1 IETF DRAFT authorization flow after receiving the _HTTP 401 Unauthorized_.")
	cite(c.pkceChallenge, "implementation-requirements", "PKCE is REQUIRED for all clients")
	cite(c.pkceVerifier, "implementation-requirements", "PKCE is REQUIRED for all clients")
	cite(c.bearer, "token-requirements",
		"Note that authorization MUST be included in every HTTP request from client to server, even if they are part of the same logical session.")
	cite(c.noQuery, "token-requirements", "Access tokens MUST NOT be included in the URI query string")
	cite(c.tokenStays, "security-considerations", "Clients MUST securely store tokens following OAuth 2.0 best practices")
	return c
}

// endpointName is the default endpoint a path ends with ("" for none).
func endpointName(path string) string {
	for _, name := range []string{"/register", "/authorize", "/token"} {
		if strings.HasSuffix(path, name) {
			return name
		}
	}
	return ""
}

// requestPaths are every request of the client to the fakes but the MCP
// endpoint's, in order, "METHOD path" for a message.
func (f *flow) requestPaths() []string {
	var out []string
	for _, e := range f.entries {
		if e.Server == "resource" && e.Path == "/mcp" {
			continue
		}
		out = append(out, e.Method+" "+e.Path)
	}
	return out
}

// skipUnstarted skips check when the client never set out to authorize:
// no request but to the MCP endpoint (the authorized check judges that).
func (f *flow) skipUnstarted(check *scenarios.Check) bool {
	if len(f.requestPaths()) > 0 {
		return false
	}
	f.t.Skip(check, "the client never set out to authorize: no request but to the MCP endpoint ("+f.end()+")")
	return true
}

// judgeMetadataFirst judges that the client asked for the metadata at a
// /.well-known/oauth-authorization-server URL before any request to a
// registration, authorization or token endpoint; with metadataEndpoints it
// also judges that those requests went to the endpoints the metadata
// names, not to default paths.
func judgeMetadataFirst(f *flow, check *scenarios.Check, as *authserver.Server, metadataEndpoints bool) {
	if f.skipUnstarted(check) {
		return
	}
	asked := false
	var strays []string
	for _, e := range f.entries {
		if e.Method == http.MethodGet && strings.Contains(e.Path, authserver.WellKnownOAuth) {
			asked = true
			continue
		}
		name := endpointName(e.Path)
		if name == "" {
			continue
		}
		if !asked {
			f.t.Fail(check, "a GET of the metadata at "+authserver.WellKnownOAuth+" before any registration, authorization or token request",
				e.Method+" "+e.Path+" first (requests: "+inOrder(f.requestPaths())+")")
			return
		}
		if metadataEndpoints && (e.Server != as.Label() || e.Path != as.EndpointPath(name)) {
			strays = append(strays, e.Method+" "+e.Path+", not the metadata's "+as.EndpointPath(name))
		}
	}
	if !asked {
		f.t.Fail(check, "a GET of the metadata at "+authserver.WellKnownOAuth, "none (requests: "+inOrder(f.requestPaths())+"; "+f.end()+")")
		return
	}
	f.t.Judge(check, len(strays) == 0, "the registration, authorization and token requests at the endpoints the metadata names", listed(strays))
}

// judgeBaseURL: the metadata asked at the origin's root, and nothing asked
// under the endpoint's path.
func judgeBaseURL(f *flow, check *scenarios.Check) {
	if f.skipUnstarted(check) {
		return
	}
	root := false
	var under []string
	for _, e := range f.entries {
		switch {
		case e.Method == http.MethodGet && e.Path == authserver.WellKnownOAuth:
			root = true
		case strings.HasPrefix(e.Path, "/mcp/"), strings.HasSuffix(e.Path, authserver.WellKnownOAuth+"/mcp"):
			under = append(under, e.Method+" "+e.Path)
		}
	}
	switch {
	case len(under) > 0:
		f.t.Fail(check, "the authorization base URL is the origin: nothing asked under /mcp", inOrder(under))
	case !root:
		f.t.Fail(check, "a GET of "+authserver.WellKnownOAuth+" at the origin's root", "none (requests: "+inOrder(f.requestPaths())+"; "+f.end()+")")
	default:
		f.t.Pass(check)
	}
}

// judgeFallback: without metadata, the authorization request at /authorize
// of the root, and any token request or registration at its /token and
// /register (whether the flow gets that far the authorized check judges).
func judgeFallback(f *flow, check *scenarios.Check, as *authserver.Server) {
	if f.skipUnstarted(check) {
		return
	}
	var strays []string
	for _, e := range f.entries {
		if name := endpointName(e.Path); name != "" && (e.Server != as.Label() || e.Path != name) {
			strays = append(strays, e.Method+" "+e.Path+", not "+name+" at the root")
		}
	}
	switch {
	case len(strays) > 0:
		f.t.Fail(check, "the default endpoints at the origin's root", listed(strays))
	case len(f.endpoint(as, "/authorize")) == 0:
		f.t.Fail(check, "an authorization request at /authorize of the origin's root",
			"requests: "+inOrder(f.requestPaths())+" ("+f.end()+")")
	default:
		f.t.Pass(check)
	}
}

var (
	backcompatID       = "client-auth-2025-03-26-oauth-metadata-backcompat"
	backcompatCommon   = legacyCommon(backcompatID).alsoUnauthorizedBy(client.AuthLegacySkipsMetadata, client.AuthLegacyBaseKeepsPath)
	backcompatMetadata = &scenarios.Check{ID: backcompatID + "/as-metadata-discovery", Level: scenarios.Must, Spec: page0326 + "#server-metadata-discovery",
		Title: "the client asks for the authorization server metadata at " + authserver.WellKnownOAuth + " before it registers or authorizes, " +
			"and uses the endpoints it names (under " + legacyPrefix + "), not the default paths",
		Quote:  "MCP clients _MUST_ follow the OAuth 2.0 Authorization Server Metadata protocol defined in RFC8414.",
		Faults: faults(client.AuthLegacySkipsMetadata, client.AuthLegacyBaseKeepsPath)}
	backcompatBase = &scenarios.Check{ID: backcompatID + "/authorization-base-url", Level: scenarios.Must, Spec: page0326 + "#authorization-base-url",
		Title:  "the metadata is asked at the MCP server's origin with the endpoint's path discarded: " + authserver.WellKnownOAuth + " at the root, nothing under /mcp",
		Quote:  "The authorization base URL MUST be determined from the MCP server URL by discarding any existing path component.",
		Faults: faults(client.AuthLegacyBaseKeepsPath, client.AuthLegacySkipsMetadata)}
)

var metadataBackcompat = &scenarios.Scenario{
	ID:         backcompatID,
	Official:   "auth/2025-03-26-oauth-metadata-backcompat",
	Title:      "2025-03-26 OAuth discovery: no resource metadata, authorization server metadata at the MCP server's root",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   onlyMarch,
	Transports: httpOnly,
	Purpose: "The fake server answers 401 with a bare Bearer challenge and serves no protected resource metadata. Its own origin serves the " +
		"authorization server metadata at " + authserver.WellKnownOAuth + " (issuer: the origin), naming endpoints under " + legacyPrefix +
		". The client must read it, register, authorize with PKCE there and call " + testTool + " with the token.",
	Checks: append([]*scenarios.Check{backcompatMetadata, backcompatBase}, backcompatCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{SameOrigin: true, PRMPath: "-", Servers: []authserver.Options{{
			Prefix: legacyPrefix, MetadataPath: authserver.WellKnownOAuth,
			// The base URL is the issuer (2025-03-26 knows no RFC 9207 iss).
			Iss: authserver.IssOmitted,
			EditMetadata: func(doc map[string]any) {
				issuer, _ := doc["issuer"].(string)
				doc["issuer"] = strings.TrimSuffix(issuer, legacyPrefix)
				delete(doc, "authorization_response_iss_parameter_supported")
			},
		}}})
		as := f.p.AS(0)
		judgeMetadataFirst(f, backcompatMetadata, as, true)
		judgeBaseURL(f, backcompatBase)
		backcompatCommon.judge(f, "")
	}),
}

var (
	fallbackID     = "client-auth-2025-03-26-oauth-endpoint-fallback"
	fallbackCommon = legacyCommon(fallbackID).alsoUnauthorizedBy(client.AuthLegacyNoFallback, client.AuthLegacyBaseKeepsPath)
	fallbackFirst  = &scenarios.Check{ID: fallbackID + "/metadata-first", Level: scenarios.Must, Spec: page0326 + "#fallbacks-for-servers-without-metadata-discovery",
		Title:  "the client asks for the metadata at " + authserver.WellKnownOAuth + " before it falls back to the default endpoints",
		Quote:  "Clients MUST first attempt to discover endpoints via the metadata document before falling back to default paths.",
		Faults: faults(client.AuthLegacySkipsMetadata)}
	fallbackEndpoints = &scenarios.Check{ID: fallbackID + "/fallback-endpoints", Level: scenarios.Must, Spec: page0326 + "#fallbacks-for-servers-without-metadata-discovery",
		Title: "without metadata the client authorizes at /authorize, and exchanges the code at /token and registers (if at all) at /register, " +
			"all at the MCP server's origin with the path discarded",
		Quote:  "For servers that do not implement OAuth 2.0 Authorization Server Metadata, clients MUST use the following default endpoint paths relative to the authorization base URL:",
		Faults: faults(client.AuthLegacyNoFallback, client.AuthLegacyBaseKeepsPath)}
)

var endpointFallback = &scenarios.Scenario{
	ID:         fallbackID,
	Official:   "auth/2025-03-26-oauth-endpoint-fallback",
	Title:      "2025-03-26 OAuth discovery: no metadata at all, the default endpoints at the MCP server's root",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   onlyMarch,
	Transports: httpOnly,
	Purpose: "The fake server answers 401 with a bare Bearer challenge; no metadata of any kind is served (every well-known URI answers 404). " +
		"Its origin serves /authorize, /token and /register. The client must try the metadata first, then fall back to those, " +
		"authorize with PKCE and call " + testTool + " with the token.",
	Checks: append([]*scenarios.Check{fallbackFirst, fallbackEndpoints}, fallbackCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		// No metadata, so nothing advertises RFC 9207's iss, which
		// 2025-03-26 does not know: the response carries none (a client
		// may discard one it was not told of, RFC 9207 §2.4).
		f := serve(t, clientside.Protection{SameOrigin: true, PRMPath: "-", Servers: []authserver.Options{{MetadataPath: "-", Iss: authserver.IssOmitted}}})
		as := f.p.AS(0)
		judgeMetadataFirst(f, fallbackFirst, as, false)
		judgeFallback(f, fallbackEndpoints, as)
		fallbackCommon.judge(f, "")
	}),
}
