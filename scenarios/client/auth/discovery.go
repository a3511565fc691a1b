package auth

import (
	"strings"

	"github.com/mcpconform/mcpconform/fakes/authserver"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// Discovery: where the client looks for the protected resource metadata and
// the authorization server's metadata (the official metadata-* scenarios).

// discoveryChecks are the checks of where a scenario's client looked.
type discoveryChecks struct {
	prm, asMeta *scenarios.Check
}

func newDiscovery(id, prmTitle string, prmFaults []*fault.Fault, asTitle string, asFaults []*fault.Fault) discoveryChecks {
	return discoveryChecks{
		prm: &scenarios.Check{ID: id + "/prm-discovery", Level: scenarios.Must, Spec: page + "#protected-resource-metadata-discovery-requirements",
			Title: prmTitle,
			Quote: "MCP clients MUST support both discovery mechanisms and use the resource metadata URL from the parsed WWW-Authenticate headers when present; " +
				"otherwise, they MUST fall back to constructing and requesting the well-known URIs in the order listed above.",
			Faults: prmFaults},
		asMeta: &scenarios.Check{ID: id + "/as-metadata-discovery", Level: scenarios.Must, Spec: page + "#authorization-server-metadata-discovery",
			Title:  asTitle,
			Quote:  "MCP clients MUST support both discovery mechanisms to obtain the information required to interact with the authorization server.",
			Faults: asFaults},
	}
}

// judgePRM: the client's protected resource metadata requests, in order,
// begin with want and ask nothing of trap.
func (d discoveryChecks) judgePRM(f *flow, want string, traps ...string) {
	var asked []string
	for _, e := range f.of("resource") {
		if e.Method == "GET" && e.Path != "/mcp" {
			asked = append(asked, e.Path)
		}
	}
	if len(asked) == 0 {
		if !f.contactedAS() {
			f.t.Skip(d.prm, "the client never set out to authorize: no metadata request, no request to an authorization server ("+f.end()+")")
			return
		}
		f.t.Fail(d.prm, "a GET of "+want, "no metadata request, yet requests to the authorization server ("+f.end()+")")
		return
	}
	for _, p := range asked {
		if p == want {
			break
		}
		for _, trap := range traps {
			if p == trap {
				f.t.Fail(d.prm, "the metadata at "+want+" first", "GET "+p+" before it (requests: "+listed(asked)+")")
				return
			}
		}
	}
	for _, p := range asked {
		if p == want {
			f.t.Pass(d.prm)
			return
		}
	}
	f.t.Fail(d.prm, "a GET of "+want, "GET "+listed(asked))
}

// judgeAS: the client fetched the metadata at want, and asked none of
// traps before it.
func (d discoveryChecks) judgeAS(f *flow, as *authserver.Server, want string, traps ...string) {
	var asked []string
	for _, e := range f.of(as.Label()) {
		if e.Method == "GET" && (e.Path == want || isWellKnown(e.Path)) {
			asked = append(asked, e.Path)
		}
	}
	for _, p := range asked {
		if p == want {
			f.t.Pass(d.asMeta)
			return
		}
		for _, trap := range traps {
			if p == trap {
				f.t.Fail(d.asMeta, "the metadata at "+want, "GET "+p+" first (requests: "+listed(asked)+")")
				return
			}
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
	f.t.Fail(d.asMeta, "a GET of "+want, "GET "+listed(asked))
}

func isWellKnown(p string) bool { return strings.Contains(p, "/.well-known/") }

var (
	defaultCommon    = newCommon("client-auth-metadata-default").withApplicationType()
	defaultDiscovery = newDiscovery("client-auth-metadata-default",
		"the client reads the protected resource metadata from the URL the challenge's resource_metadata names, and does not ask the root well-known URI first",
		faults(client.AuthPRMRootFirst),
		"the client reads the authorization server's metadata from "+authserver.WellKnownOAuth+" (RFC 8414) before it authorizes",
		faults(client.AuthSkipsASMetadata))
)

var metadataDefault = &scenarios.Scenario{
	ID:         "client-auth-metadata-default",
	Official:   "auth/metadata-default",
	Title:      "OAuth discovery: metadata named by the challenge, authorization server metadata at the RFC 8414 location",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   fromNovember,
	Transports: httpOnly,
	Purpose: "The fake server answers 401 with resource_metadata pointing at " + clientside.PRMDefault + "; the root well-known URI answers 404. " +
		"The authorization server publishes its metadata at " + authserver.WellKnownOAuth + ", takes dynamic registration and approves at once. " +
		"The client must discover both, authorize with PKCE and resource, and call " + testTool + " with the token.",
	Checks: append([]*scenarios.Check{defaultDiscovery.prm, defaultDiscovery.asMeta}, defaultCommon.list()...),
	Run: clientside.Body(func(t *clientside.T) {
		f := serve(t, clientside.Protection{})
		defaultDiscovery.judgePRM(f, clientside.PRMDefault, clientside.PRMRoot)
		defaultDiscovery.judgeAS(f, f.p.AS(0), authserver.WellKnownOAuth)
		defaultCommon.judge(f, f.p.ResourceID())
	}),
}
