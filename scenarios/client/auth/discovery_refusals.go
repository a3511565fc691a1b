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

// Metadata the client must refuse: protected resource metadata for another
// resource (RFC 9728 §3.3), authorization server metadata for another
// issuer (RFC 8414 §3.3). The client may stop there (exit non-zero); what
// it must not do is go on with what the document says.

// foreignResource is the resource the mismatched metadata names: another
// server's URL, on an origin nothing listens on (a client never fetches a
// resource identifier).
const foreignResource = "https://other-server.invalid/mcp"

// judgeNotUsed passes check when, once the bad document was read, the
// client made none of the requests used lists; read says whether it read
// the document at all (the check cannot apply before).
func judgeNotUsed(f *flow, check *scenarios.Check, read bool, unread string, used []authserver.Exchange, expected string) {
	if !read {
		f.t.Skip(check, unread+" ("+f.end()+")")
		return
	}
	var bad []string
	for _, e := range used {
		bad = append(bad, describe(e))
	}
	for _, e := range f.mcpRequests() {
		if tok, ok := clientside.BearerToken(e.Header); ok {
			if g, _ := f.p.Lookup(tok); g != nil {
				bad = append(bad, "resource "+e.Method+" /mcp with an issued token")
			}
		}
	}
	f.t.Judge(check, len(bad) == 0, expected, listed(bad))
}

// asRequests are every request to the scenario's authorization servers.
func (f *flow) asRequests() []authserver.Exchange {
	var out []authserver.Exchange
	for _, as := range f.p.Servers {
		out = append(out, f.of(as.Label())...)
	}
	return out
}

// endpointRequests are the requests to the endpoints an authorization
// server's metadata names (registration, authorization, token).
func (f *flow) endpointRequests() []authserver.Exchange {
	var out []authserver.Exchange
	for _, as := range f.p.Servers {
		for _, name := range []string{"/register", "/authorize", "/token"} {
			out = append(out, f.endpoint(as, name)...)
		}
	}
	return out
}

// readPRM reports whether the client fetched the served metadata.
func (f *flow) readPRM() bool {
	for _, e := range f.at("resource", strings.TrimPrefix(f.p.PRMURL(), f.p.Origin)) {
		if e.Method == http.MethodGet && e.Status == http.StatusOK {
			return true
		}
	}
	return false
}

// quoteIdentifies is the resource parameter rule the mismatched metadata
// would have the client break, the MCP page's sentence nearest RFC 9728
// §3.3 (which no MCP page restates).
const quoteIdentifies = "MUST identify the MCP server that the client intends to use the token with."

var (
	mismatchDiscovery = newDiscovery("client-auth-resource-mismatch",
		"the client reads the protected resource metadata from the URL the challenge names, and does not ask the root well-known URI first",
		faults(client.AuthPRMRootFirst), "", nil)
	mismatchRefused = &scenarios.Check{ID: "client-auth-resource-mismatch/refuses-foreign-resource", Level: scenarios.Must,
		Spec: "2026-07-28/basic/authorization/index.mdx#resource-parameter-implementation",
		Title: "the protected resource metadata names another resource (" + foreignResource + "): the client does not authorize with it — " +
			"no registration, authorization or token request, no token (RFC 9728 §3.3: the resource MUST be identical to the URL the client used; if not, the data MUST NOT be used)",
		Quote:  quoteIdentifies,
		Faults: faults(client.AuthAcceptsResourceMismatch)}
	mismatchUntouched = &scenarios.Check{ID: "client-auth-resource-mismatch/validates-before-use", Level: scenarios.Must,
		Spec: "2026-07-28/basic/authorization/index.mdx#overview",
		Title: "the client validates the metadata's resource before it uses anything the document says: no request at all, not even for its metadata, " +
			"to the authorization server the foreign metadata names (RFC 9728 §3.3: \"If these values are not identical, the data contained in the response MUST NOT be used\")",
		Quote:  "MCP clients MUST use OAuth 2.0 Protected Resource Metadata for authorization server discovery.",
		Faults: faults(client.AuthValidatesResourceLate, client.AuthAcceptsResourceMismatch)}
)

var resourceMismatch = &scenarios.Scenario{
	ID:         "client-auth-resource-mismatch",
	Official:   "auth/resource-mismatch",
	Title:      "OAuth discovery: protected resource metadata for another resource is refused",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   protocol.From(protocol.V20260728),
	Transports: httpOnly,
	Purpose: "The fake server answers 401 naming its metadata, which says resource " + foreignResource + " and names a working authorization server. " +
		"The client must see that the metadata is not its server's and go no further: no registration, authorization or token request there. It may exit with an error.",
	Checks: []*scenarios.Check{mismatchDiscovery.prm, mismatchRefused, mismatchUntouched},
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{Resource: foreignResource})
		mismatchDiscovery.judgePRM(f, clientside.PRMDefault, clientside.PRMRoot)
		unread := "the client never read the protected resource metadata, so it never met the resource it must refuse"
		judgeNotUsed(f, mismatchRefused, f.readPRM(), unread, f.endpointRequests(), "no registration, authorization or token request, and no token")
		judgeNotUsed(f, mismatchUntouched, f.readPRM(), unread, f.asRequests(), "no request to the authorization server the foreign metadata names")
	}),
}

var (
	slashDiscovery = newDiscovery("client-auth-resource-trailing-slash",
		"the client reads the protected resource metadata from the URL the challenge names, and does not ask the root well-known URI first",
		faults(client.AuthPRMRootFirst), "", nil)
	slashRefused = &scenarios.Check{ID: "client-auth-resource-trailing-slash/refuses-other-resource", Level: scenarios.Must,
		Spec: page + "#canonical-server-uri",
		Title: "the protected resource metadata's resource is the endpoint's URL with a trailing slash (…/mcp/): another URI than the …/mcp the client used " +
			"(RFC 3986 §6.2.3 equates only an empty path with \"/\"), so by RFC 9728 §3.3 (\"MUST be identical to the URL that the client used to make the request\"; " +
			"\"If these values are not identical, the data contained in the response MUST NOT be used\") the client does not authorize with it: " +
			"no registration, authorization or token request at the authorization server it names, no token (when it asks that server is resource-mismatch's to judge)",
		Quote: "For the purposes of this specification, the canonical URI of an MCP server is defined as the resource identifier as specified in RFC 8707 Section 2 " +
			"and aligns with the resource parameter in RFC 9728.",
		Faults: faults(client.AuthAcceptsResourceMismatch, client.AuthResourceTrailingSlash)}
)

// resourceTrailingSlash is mcpconform's own: the official suite has no
// such scenario. RFC 9728 binds clients from 2025-06-18, but the discovery
// rules its prm-discovery check quotes stand from 2025-11-25, like the
// official discovery scenarios'. RFC 9728 §3.3 leaves no choice (identical, or unused);
// the MCP note on trailing slashes concerns the form a client sends and
// calls both forms valid, that is distinct, URIs.
var resourceTrailingSlash = &scenarios.Scenario{
	ID:         "client-auth-resource-trailing-slash",
	Title:      "OAuth discovery: protected resource metadata whose resource differs from the endpoint's URL by a trailing slash is refused",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake server answers 401 naming its metadata, whose resource is the endpoint's URL with \"/\" appended. " +
		"The client must take it for another resource's and go no further. It may exit with an error.",
	Checks: []*scenarios.Check{slashDiscovery.prm, slashRefused},
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{ResourceSuffix: "/"})
		slashDiscovery.judgePRM(f, clientside.PRMDefault, clientside.PRMRoot)
		judgeNotUsed(f, slashRefused, f.readPRM(), "the client never read the protected resource metadata, so it never met the resource it must refuse",
			f.endpointRequests(), "no registration, authorization or token request, and no token")
	}),
}

var (
	issuerDiscovery = newDiscovery("client-auth-metadata-issuer-mismatch", "", nil,
		"the client reads the authorization server's metadata from "+authserver.WellKnownOAuth+" (RFC 8414)",
		faults(client.AuthSkipsASMetadata))
	issuerRefused = &scenarios.Check{ID: "client-auth-metadata-issuer-mismatch/refuses-foreign-issuer", Level: scenarios.Must,
		Spec: discovery26 + "#authorization-server-metadata-discovery",
		Title: "the authorization server's metadata names the issuer " + authserver.WrongIssuer + ", not the one its well-known URL was built from: " +
			"the client uses none of it — no registration, authorization or token request at the endpoints it names, no token",
		Quote:  "If they differ, the client MUST NOT use the metadata.",
		Faults: faults(client.AuthAcceptsIssuerMismatch)}
)

var metadataIssuerMismatch = &scenarios.Scenario{
	ID:         "client-auth-metadata-issuer-mismatch",
	Official:   "auth/metadata-issuer-mismatch",
	Title:      "OAuth discovery: authorization server metadata for another issuer is refused",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   protocol.From(protocol.V20260728),
	Transports: httpOnly,
	Purpose: "The protected resource metadata names the authorization server; the metadata at its " + authserver.WellKnownOAuth +
		" says issuer " + authserver.WrongIssuer + " and names the server's own working endpoints. The client must refuse the document " +
		"and use none of its endpoints. It may exit with an error.",
	Checks: []*scenarios.Check{issuerDiscovery.asMeta, issuerRefused},
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{Servers: []authserver.Options{{EditMetadata: func(doc map[string]any) {
			doc["issuer"] = authserver.WrongIssuer
		}}}})
		as := f.p.AS(0)
		issuerDiscovery.judgeAS(f, as, authserver.WellKnownOAuth)
		read := false
		for _, e := range f.at(as.Label(), authserver.WellKnownOAuth) {
			read = read || e.Method == http.MethodGet && e.Status == http.StatusOK
		}
		judgeNotUsed(f, issuerRefused, read, "the client never read the authorization server's metadata, so it never met the issuer it must refuse",
			f.endpointRequests(), "no request to the endpoints of the mismatched metadata, and no token")
	}),
}
