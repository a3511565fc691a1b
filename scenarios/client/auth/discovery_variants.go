package auth

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The official metadata-var* scenarios: the protected resource metadata
// at a well-known URI the challenge does not name, or at a custom URL it
// does; the authorization server's metadata at each of the locations the
// pages order, for issuers with and without a path.

// tenant is the issuer path of the var2 and var3 authorization servers.
const tenant = "/tenant1"

// customPRM is where var3 serves its protected resource metadata.
const customPRM = "/custom/metadata/location.json"

// prmOrder is the pages' order of the well-known protected resource
// metadata URIs for the endpoint /mcp: path inserted, then the root.
var prmOrder = []string{clientside.PRMDefault, clientside.PRMRoot}

// asOrderWithPath is the pages' priority order for an issuer with path p.
func asOrderWithPath(p string) []string {
	return []string{authserver.WellKnownOAuth + p, authserver.WellKnownOpenID + p, p + authserver.WellKnownOpenID}
}

// prmRequests are the client's GETs on the resource's origin other than the
// MCP endpoint, in order: its protected resource metadata requests.
func (f *flow) prmRequests() []string {
	var asked []string
	for _, e := range f.of("resource") {
		if e.Method == http.MethodGet && e.Path != "/mcp" {
			asked = append(asked, e.Path)
		}
	}
	return asked
}

// inOrder lists paths in the order asked, bounded, for a message.
func inOrder(paths []string) string {
	if len(paths) > 8 {
		return fmt.Sprintf("%s → … (%d in all)", strings.Join(paths[:8], " → "), len(paths))
	}
	return strings.Join(paths, " → ")
}

// judgeOrdered passes check when the client asked want, and before it every
// entry of order that precedes want and none that follows it, nor any trap.
// asked are the client's requests, in order.
func judgeOrdered(t *clientside.T, check *scenarios.Check, asked, order []string, want string, traps ...string) {
	i := slices.Index(asked, want)
	if i < 0 {
		t.Fail(check, "a GET of "+want, "GET "+inOrder(asked))
		return
	}
	before := asked[:i]
	for _, trap := range traps {
		if slices.Contains(before, trap) {
			t.Fail(check, "the metadata at "+want+", and no request to "+trap, "GET "+inOrder(asked[:i+1]))
			return
		}
	}
	pos := slices.Index(order, want)
	for j, o := range order {
		switch {
		case pos >= 0 && j < pos && !slices.Contains(before, o):
			t.Fail(check, "GET "+o+" before "+want+" (the pages' order: "+inOrder(order)+")", "GET "+inOrder(asked[:i+1]))
			return
		case pos >= 0 && j > pos && slices.Contains(before, o):
			t.Fail(check, "GET "+want+" before "+o+" (the pages' order: "+inOrder(order)+")", "GET "+inOrder(asked[:i+1]))
			return
		}
	}
	t.Pass(check)
}

// judgeWellKnownPRM: the challenge named no metadata, so after the 401 the
// client asks the well-known URIs in the pages' order until want answers.
func (d discoveryChecks) judgeWellKnownPRM(f *flow, want string) {
	asked := f.prmRequests()
	if len(asked) == 0 {
		if !f.contactedAS() {
			f.t.Skip(d.prm, "the client never set out to authorize: no metadata request, no request to an authorization server ("+f.end()+")")
			return
		}
		f.t.Fail(d.prm, "GET "+inOrder(prmOrder[:slices.Index(prmOrder, want)+1])+" after the 401", "no metadata request ("+f.end()+")")
		return
	}
	judgeOrdered(f.t, d.prm, asked, prmOrder, want)
}

// judgeASOrder: the client's metadata requests to as reach want, in the
// order given, with no trap before it.
func (d discoveryChecks) judgeASOrder(f *flow, as *authserver.Server, order []string, want string, traps ...string) {
	var asked []string
	for _, e := range f.of(as.Label()) {
		if e.Method == http.MethodGet && (e.Path == want || isWellKnown(e.Path)) {
			asked = append(asked, e.Path)
		}
	}
	if len(asked) == 0 {
		if len(f.of(as.Label())) == 0 {
			f.t.Skip(d.asMeta, "the client made no request to the authorization server ("+f.end()+")")
			return
		}
		f.t.Fail(d.asMeta, "a GET of "+want, "no metadata request to the authorization server, yet other requests to it ("+f.end()+")")
		return
	}
	judgeOrdered(f.t, d.asMeta, asked, order, want, traps...)
}

// asOrderNoPath is the pages' order for an issuer without a path: the
// list is numbered as the one for issuers with a path is, and is read as
// the same kind of order.
var asOrderNoPath = []string{authserver.WellKnownOAuth, authserver.WellKnownOpenID}

// The quotes of the authorization server metadata order.
const (
	quoteASNoPath    = "For issuer URLs without path components (e.g., https://auth.example.com), clients MUST try:"
	quoteASPathOrder = "For issuer URLs with path components (e.g., https://auth.example.com/tenant1), clients MUST try endpoints in the following priority order:"
)

var (
	var1Common    = newCommon("client-auth-metadata-var1").withApplicationType().alsoUnauthorizedBy(client.AuthOAuthMetadataOnly)
	var1Discovery = withASQuote(newDiscovery("client-auth-metadata-var1",
		"the challenge names no metadata URL: the client asks "+clientside.PRMDefault+" (the endpoint's path inserted) before the root well-known URI",
		faults(client.AuthPRMRootFirst),
		"the authorization server (issuer without path) publishes only an OpenID Connect configuration at "+authserver.WellKnownOpenID+
			": the client asks RFC 8414's "+authserver.WellKnownOAuth+" first, does not stop there, and reads the OpenID configuration",
		faults(client.AuthOAuthMetadataOnly, client.AuthOpenIDFirst)), quoteASNoPath)

	var2Common    = newCommon("client-auth-metadata-var2").withApplicationType()
	var2Discovery = withASQuote(newDiscovery("client-auth-metadata-var2",
		"the challenge names no metadata URL and only the root well-known URI has it: the client asks "+clientside.PRMDefault+" first, then "+clientside.PRMRoot,
		faults(client.AuthPRMRootFirst),
		"for the issuer with path "+tenant+" the client asks "+authserver.WellKnownOAuth+tenant+" (path inserted) first, never the origin's root "+authserver.WellKnownOAuth+" before it",
		faults(client.AuthASMetadataAtRoot, client.AuthOpenIDFirst)), quoteASPathOrder)

	var3Common    = newCommon("client-auth-metadata-var3").withApplicationType().alsoUnauthorizedBy(client.AuthOAuthMetadataOnly)
	var3Discovery = withASQuote(newDiscovery("client-auth-metadata-var3",
		"the client reads the protected resource metadata at the custom URL the challenge names ("+customPRM+"), asking no well-known URI before it",
		faults(client.AuthPRMRootFirst),
		"for the issuer with path "+tenant+" the client tries the locations in priority order, RFC 8414 and OpenID path insertion, then "+tenant+authserver.WellKnownOpenID+" where the metadata is, never the origin's root before it",
		faults(client.AuthASMetadataAtRoot, client.AuthOpenIDFirst, client.AuthOAuthMetadataOnly)), quoteASPathOrder)
)

// alsoUnauthorizedBy names, on the scenario's authorized check, the faults
// that break one of its discovery rules in a way that leaves the client
// without a token: the check fails for them too, and says so.
func (c *common) alsoUnauthorizedBy(f ...*fault.Fault) *common {
	c.authorized.Faults = append(slices.Clone(c.authorized.Faults), f...)
	return c
}

func withASQuote(d discoveryChecks, quote string) discoveryChecks {
	d.asMeta.Quote = quote
	return d
}

var metadataVar1 = &scenarios.Scenario{
	ID:         "client-auth-metadata-var1",
	Official:   "auth/metadata-var1",
	Title:      "OAuth discovery: metadata at the path-inserted well-known URI the challenge does not name, OpenID configuration only",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake server answers 401 with a challenge that names no metadata URL; its metadata is at " + clientside.PRMDefault +
		" and the root well-known URI answers 404. The authorization server (issuer without path) publishes only an OpenID Connect configuration at " +
		authserver.WellKnownOpenID + ". The client must probe in the pages' order, find both, authorize and call " + testTool + ".",
	Checks: append([]*scenarios.Check{var1Discovery.prm, var1Discovery.asMeta}, var1Common.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{HideMetadataURL: true, Servers: []authserver.Options{{OpenID: true}}})
		var1Discovery.judgeWellKnownPRM(f, clientside.PRMDefault)
		var1Discovery.judgeASOrder(f, f.p.AS(0), asOrderNoPath, authserver.WellKnownOpenID)
		var1Common.judge(f, f.p.ResourceID())
	}),
}

var metadataVar2 = &scenarios.Scenario{
	ID:         "client-auth-metadata-var2",
	Official:   "auth/metadata-var2",
	Title:      "OAuth discovery: metadata at the root well-known URI only, issuer with a path (RFC 8414 path insertion)",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake server's challenge names no metadata URL, and only " + clientside.PRMRoot + " serves it (resource: the origin). " +
		"The authorization server's issuer has the path " + tenant + "; its metadata is at " + authserver.WellKnownOAuth + tenant +
		" and the origin's root " + authserver.WellKnownOAuth + " answers 404. The client must probe both in order, authorize and call " + testTool + ".",
	Checks: append([]*scenarios.Check{var2Discovery.prm, var2Discovery.asMeta}, var2Common.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{HideMetadataURL: true, PRMPath: clientside.PRMRoot, Servers: []authserver.Options{{Prefix: tenant}}})
		var2Discovery.judgeWellKnownPRM(f, clientside.PRMRoot)
		var2Discovery.judgeASOrder(f, f.p.AS(0), asOrderWithPath(tenant), authserver.WellKnownOAuth+tenant, authserver.WellKnownOAuth)
		var2Common.judge(f, f.p.ResourceID())
	}),
}

var metadataVar3 = &scenarios.Scenario{
	ID:         "client-auth-metadata-var3",
	Official:   "auth/metadata-var3",
	Title:      "OAuth discovery: metadata at a custom URL the challenge names, OpenID configuration appended to the issuer's path",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake server answers 401 with resource_metadata naming " + customPRM + "; no well-known URI serves it. " +
		"The authorization server's issuer has the path " + tenant + " and its OpenID configuration is only at " + tenant + authserver.WellKnownOpenID +
		", the last of the pages' three locations. The client must use the named URL, try the locations in order, authorize and call " + testTool + ".",
	Checks: append([]*scenarios.Check{var3Discovery.prm, var3Discovery.asMeta}, var3Common.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{PRMPath: customPRM,
			Servers: []authserver.Options{{Prefix: tenant, OpenID: true, MetadataPath: tenant + authserver.WellKnownOpenID}}})
		var3Discovery.judgePRM(f, customPRM, clientside.PRMDefault, clientside.PRMRoot)
		var3Discovery.judgeASOrder(f, f.p.AS(0), asOrderWithPath(tenant), tenant+authserver.WellKnownOpenID, authserver.WellKnownOAuth)
		var3Common.judge(f, f.p.ResourceID())
	}),
}

// otherHost is the loopback address that plays a host of its own for the
// authorization server: another host than the MCP server's 127.0.0.1.
const otherHost = "127.0.0.2"

var (
	otherHostCommon = newCommon("client-auth-as-other-host").withApplicationType().alsoUnauthorizedBy(client.AuthRequiresSameHostAS)
	otherHostUsed   = &scenarios.Check{ID: "client-auth-as-other-host/uses-named-server", Level: scenarios.Must, Spec: page + "#overview",
		Title: "the protected resource metadata names an authorization server on another host (" + otherHost + ") than the MCP server's: " +
			"the client takes it as named (RFC 9728 §7.6 leaves the choice of server to it, not a same-host rule), reads its metadata and authorizes there",
		Quote:  "MCP clients MUST use OAuth 2.0 Protected Resource Metadata for authorization server discovery.",
		Faults: faults(client.AuthRequiresSameHostAS, client.AuthSkipsASMetadata)}
)

// canListen reports whether a listener can be opened on host.
func canListen(host string) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	return ln.Close()
}

// asOtherHost is mcpconform's own: an authorization server on another host
// is the normal case (the official scenarios only use other ports). The
// token the client obtains there is the MCP server's, and must not go back
// to that host (the common token-stays-with-resource check).
var asOtherHost = &scenarios.Scenario{
	ID:         "client-auth-as-other-host",
	Title:      "OAuth discovery: the authorization server on another host than the MCP server's",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake server (on 127.0.0.1) answers 401 naming its metadata, which names an authorization server on " + otherHost +
		". The client must discover and use it, authorize, call " + testTool + " with the token, and send that token to the MCP server only.",
	Checks: append([]*scenarios.Check{otherHostUsed}, otherHostCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		if err := canListen(otherHost); err != nil {
			// Linux routes all of 127.0.0.0/8 to loopback; other systems
			// may have 127.0.0.1 alone.
			t.SkipRest(fmt.Sprintf("this machine cannot listen on %s to play another host: %v", otherHost, err))
		}
		f := serve(t, clientside.Protection{Servers: []authserver.Options{{Host: otherHost}}})
		as := f.p.AS(0)
		if !f.contactedAS() && len(f.prmRequests()) == 0 {
			t.Skip(otherHostUsed, "the client never set out to authorize: no metadata request, no request to an authorization server ("+f.end()+")")
		} else {
			metadata := slices.ContainsFunc(f.at(as.Label(), authserver.WellKnownOAuth), func(e authserver.Exchange) bool {
				return e.Method == http.MethodGet && e.Status == http.StatusOK
			})
			authorize := len(f.endpoint(as, "/authorize")) > 0
			t.Judge(otherHostUsed, metadata && authorize, "a GET of "+as.Base+authserver.WellKnownOAuth+" and an authorization request there",
				fmt.Sprintf("metadata read: %t, authorization request: %t (%s)", metadata, authorize, f.end()))
		}
		otherHostCommon.judge(f, f.p.ResourceID())
	}),
}
