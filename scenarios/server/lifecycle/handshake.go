package lifecycle

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The handshake of each era: initialize (2025-11-25 and older) and
// server/discover (2026-07-28). These run first on each transport and
// version; a target that cannot answer them is given up on there.

var (
	initializeResultSchema = &scenarios.Check{ID: "lifecycle-initialize/result-schema", Level: scenarios.Must, Spec: lifecycleSpec + "#initialization",
		Title:  "the initialize result validates against InitializeResult (protocolVersion, capabilities, serverInfo)",
		Quote:  "The server MUST respond with its own capabilities and information",
		Faults: []*fault.Fault{server.InitMissingCapabilities}}
	initializeVersionEchoed = &scenarios.Check{ID: "lifecycle-initialize/version-echoed", Level: scenarios.Must, Spec: lifecycleSpec + "#version-negotiation",
		Title: "initialize answers with the requested version, or with another MCP revision the server supports",
		Quote: "If the server supports the requested protocol version, it MUST respond with the same version. " +
			"Otherwise, the server MUST respond with another protocol version it supports.",
		Faults:    []*fault.Fault{server.InitUnknownVersion},
		Liberties: []*fault.Fault{server.DropsOldest}}
	initializeVersionImplemented = &scenarios.Check{ID: "lifecycle-initialize/version-implemented", Level: scenarios.Must, Spec: lifecycleSpec + "#version-negotiation",
		Title:  "the target implements the version judged: initialize answers with it (where --spec-version names the version; otherwise a target that negotiates another is reported and that version is not judged)",
		Quote:  "If the server supports the requested protocol version, it MUST respond with the same version.",
		Faults: []*fault.Fault{server.InitWrongVersion},
		// Each implements the session versions and not 2026-07-28: judged
		// at the versions it implements, it answers them.
		Liberties: []*fault.Fault{server.StatefulOnly, server.InitializeEraHTTP, server.DiscoverListsOlderVersions}}
)

var initializeScenario = &scenarios.Scenario{
	ID:        "lifecycle-initialize",
	Handshake: true,
	Title:     "initialize answers with the requested version and a valid result",
	Family:    "lifecycle",
	Side:      scenarios.ServerSide,
	Versions:  protocol.JudgedStateful(),
	Purpose: "The client sends initialize with the version judged; the result must validate against InitializeResult and name that " +
		"version, or another revision the server supports, in which case the server does not implement the version: that is " +
		"a failure where --spec-version names it, and information otherwise (the version is then not judged).",
	Checks: []*scenarios.Check{initializeResultSchema, initializeVersionEchoed, initializeVersionImplemented},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send initialize with protocolVersion %s", t.Env.Version)
		resp, err := t.Request(s, protocol.MethodInitialize, s.InitializeParams(t.Env.Version))
		if err != nil || resp.Error != nil {
			t.Fail(initializeResultSchema, "an InitializeResult", judge.Describe(resp, err))
			if serverside.Unanswered(s, err) {
				t.Unreachable("initialize was not answered: %s", judge.Describe(resp, err))
			}
			handshakeRefused(t, "initialize answered "+judge.Describe(resp, err))
		}
		if verr := judge.ValidateResult(t.Env.Version, protocol.MethodInitialize, resp.Result); verr != nil {
			t.Fail(initializeResultSchema, "a result valid against InitializeResult", verr.Error())
		} else {
			t.Pass(initializeResultSchema)
		}
		got := judge.StringField(resp.Result, "protocolVersion")
		t.Judge(initializeVersionEchoed, got == t.Env.Version || protocol.IsKnown(got),
			fmt.Sprintf("protocolVersion %q (the version requested) or another MCP revision", t.Env.Version),
			fmt.Sprintf("protocolVersion %q", got))
		switch {
		case got == t.Env.Version:
		case protocol.IsKnown(got):
			t.NotImplemented(initializeVersionImplemented, fmt.Sprintf("initialize for %s answered protocolVersion %q", t.Env.Version, got))
		default:
			t.Blocked("initialize answered protocolVersion %q, no MCP revision", got)
		}
		t.Pass(initializeVersionImplemented)
	}),
}

var (
	discoverResultSchema = &scenarios.Check{ID: "lifecycle-discover/result-schema", Level: scenarios.Must, Spec: discoverSpec + "#response",
		Title:        "servers MUST implement server/discover; its result validates against DiscoverResult (resultType, supportedVersions, capabilities)",
		Quote:        "server/discover lets a client query a server's supported protocol versions, capabilities, and identity before sending any other requests. Servers MUST implement it.",
		Faults:       []*fault.Fault{server.DiscoverMissingVersions},
		Requirements: []string{"sep-2575-server-implements-discover"}}
	discoverVersionImplemented = &scenarios.Check{ID: "lifecycle-discover/version-implemented", Level: scenarios.Must, Spec: "2026-07-28/schema.mdx#discoverrequest",
		Title: "the target implements the version judged: server/discover is answered with a DiscoverResult that lists it, not refused with -32022 or -32601, " +
			"nor with the answer of an initialize-era server (over HTTP a 400, 404 or 405 without a recognized modern error; over stdio any other error) " +
			"(where --spec-version names the version; otherwise such a target is reported and the version is not judged)",
		Quote:        "Servers MUST implement server/discover.",
		Faults:       []*fault.Fault{server.DiscoverVersionRefused, server.LegacyHTTPRefused, server.DiscoverOmitsVersion},
		Requirements: []string{"sep-2575-server-implements-discover"}}
	discoverServerInfo = &scenarios.Check{ID: "lifecycle-discover/server-info", Level: scenarios.Should, Spec: discoverSpec + "#discoverresult",
		Title:  "the result carries _meta[\"io.modelcontextprotocol/serverInfo\"] with name and version",
		Quote:  "_meta['io.modelcontextprotocol/serverInfo']: Name and version of the server software. Servers SHOULD include this field.",
		Faults: []*fault.Fault{server.DiscoverNoServerInfo}}
)

var discoverScenario = &scenarios.Scenario{
	ID:        "lifecycle-discover",
	Handshake: true,
	Title:     "server/discover describes the server",
	Family:    "lifecycle",
	Side:      scenarios.ServerSide,
	Versions:  protocol.JudgedStateless(),
	Checks:    []*scenarios.Check{discoverVersionImplemented, discoverResultSchema, discoverServerInfo},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send server/discover")
		resp, err := t.Request(s, protocol.MethodServerDiscover, map[string]any{})
		if why := serverside.NotImplementedAnswer(s, t.Version(), resp, err); why != "" {
			t.NotImplemented(discoverVersionImplemented, why)
		}
		if err == nil {
			t.Pass(discoverVersionImplemented)
		}
		if err != nil || resp.Error != nil {
			t.Fail(discoverResultSchema, "a DiscoverResult", judge.Describe(resp, err))
			if serverside.Unanswered(s, err) {
				t.Unreachable("server/discover was not answered: %s", judge.Describe(resp, err))
			}
			handshakeRefused(t, "server/discover answered "+judge.Describe(resp, err))
		}
		if verr := judge.ValidateResult(t.Env.Version, protocol.MethodServerDiscover, resp.Result); verr != nil {
			t.Fail(discoverResultSchema, "a result valid against DiscoverResult", verr.Error())
		} else {
			t.Pass(discoverResultSchema)
		}
		var result protocol.Meta
		_ = json.Unmarshal(resp.Result, &result)
		infos := map[string]protocol.Implementation{} // each _meta value read as one, for the message
		for k, raw := range result.Meta {
			var info protocol.Implementation
			_ = json.Unmarshal(raw, &info)
			infos[k] = info
		}
		info, ok := infos[protocol.MetaServerInfo]
		t.Judge(discoverServerInfo, ok && info.Name != "" && info.Version != "",
			"_meta[\""+protocol.MetaServerInfo+"\"] with name and version",
			fmt.Sprintf("%+v", infos))
	}),
}

// handshakeRefused stops the handshake's own scenario when the target
// answered the handshake, but with a refusal that does not say it lacks the
// version: its check has failed, and every later scenario on this transport
// and version would fail the same way at its own handshake, so they are
// reported once as not judged, saying why, as for a target that does not
// answer at all (T.Unreachable).
func handshakeRefused(t *serverside.T, what string) {
	t.Env.Gate.Close(fmt.Sprintf("the handshake failed in %s over %s at %s: %s", t.Scenario().ID, t.Env.Transport, t.Env.Version, what))
	t.Blocked("%s", what)
}
