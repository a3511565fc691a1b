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
		Faults: []*fault.Fault{server.InitMissingCapabilities}}
	initializeVersionEchoed = &scenarios.Check{ID: "lifecycle-initialize/version-echoed", Level: scenarios.Must, Spec: lifecycleSpec + "#version-negotiation",
		Title:  "a supported requested version is answered with the same version",
		Faults: []*fault.Fault{server.InitWrongVersion}}
)

var initializeScenario = &scenarios.Scenario{
	ID:        "lifecycle-initialize",
	Handshake: true,
	Title:     "initialize answers with the requested version and a valid result",
	Family:    "lifecycle",
	Side:      scenarios.ServerSide,
	Versions:  protocol.JudgedStateful(),
	Purpose:   "The client sends initialize with a version the server should support; the result must echo it and validate against InitializeResult.",
	Checks:    []*scenarios.Check{initializeResultSchema, initializeVersionEchoed},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send initialize with protocolVersion %s", t.Env.Version)
		resp, err := t.Request(s, protocol.MethodInitialize, s.InitializeParams(t.Env.Version))
		if err != nil || resp.Error != nil {
			t.Fail(initializeResultSchema, "an InitializeResult", judge.Describe(resp, err))
			if serverside.Unanswered(s, err) {
				t.Unreachable("initialize was not answered: %s", judge.Describe(resp, err))
			}
			t.Blocked("initialize was not answered with a result")
		}
		if verr := judge.ValidateResult(t.Env.Version, protocol.MethodInitialize, resp.Result); verr != nil {
			t.Fail(initializeResultSchema, "a result valid against InitializeResult", verr.Error())
		} else {
			t.Pass(initializeResultSchema)
		}
		got := judge.StringField(resp.Result, "protocolVersion")
		t.Judge(initializeVersionEchoed, got == t.Env.Version,
			fmt.Sprintf("protocolVersion %q (the version requested)", t.Env.Version),
			fmt.Sprintf("protocolVersion %q", got))
	}),
}

var (
	discoverResultSchema = &scenarios.Check{ID: "lifecycle-discover/result-schema", Level: scenarios.Must, Spec: discoverSpec + "#response",
		Title:  "servers MUST implement server/discover; its result validates against DiscoverResult (resultType, supportedVersions, capabilities)",
		Faults: []*fault.Fault{server.DiscoverMissingVersions}}
	discoverServerInfo = &scenarios.Check{ID: "lifecycle-discover/server-info", Level: scenarios.Should, Spec: discoverSpec + "#discoverresult",
		Title:  "the result carries _meta[\"io.modelcontextprotocol/serverInfo\"] with name and version",
		Faults: []*fault.Fault{server.DiscoverNoServerInfo}}
)

var discoverScenario = &scenarios.Scenario{
	ID:        "lifecycle-discover",
	Handshake: true,
	Title:     "server/discover describes the server",
	Family:    "lifecycle",
	Side:      scenarios.ServerSide,
	Versions:  protocol.JudgedStateless(),
	Checks:    []*scenarios.Check{discoverResultSchema, discoverServerInfo},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send server/discover")
		resp, err := t.Request(s, protocol.MethodServerDiscover, map[string]any{})
		if err != nil || resp.Error != nil {
			t.Fail(discoverResultSchema, "a DiscoverResult", judge.Describe(resp, err))
			if serverside.Unanswered(s, err) {
				t.Unreachable("server/discover was not answered: %s", judge.Describe(resp, err))
			}
			t.Blocked("server/discover was not answered with a result")
		}
		if verr := judge.ValidateResult(t.Env.Version, protocol.MethodServerDiscover, resp.Result); verr != nil {
			t.Fail(discoverResultSchema, "a result valid against DiscoverResult", verr.Error())
		} else {
			t.Pass(discoverResultSchema)
		}
		var result struct {
			Meta map[string]struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(resp.Result, &result)
		info, ok := result.Meta[protocol.MetaServerInfo]
		t.Judge(discoverServerInfo, ok && info.Name != "" && info.Version != "",
			"_meta[\""+protocol.MetaServerInfo+"\"] with name and version",
			fmt.Sprintf("%+v", result.Meta))
	}),
}
