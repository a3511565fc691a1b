package httprules

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

var (
	metaRequired = &scenarios.Check{ID: "client-request-metadata/meta-required", Level: scenarios.Must, Spec: metaSpec,
		Title:        "every request's _meta carries io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities",
		Quote:        "Client requests carry the following io.modelcontextprotocol/* fields in _meta; fields marked as required MUST be included on every request.",
		Faults:       []*fault.Fault{client.MetaNoCapabilities},
		Requirements: []string{"sep-2575-client-populates-meta"}}
	metaClientInfo = &scenarios.Check{ID: "client-request-metadata/client-info", Level: scenarios.Should, Spec: metaSpec,
		Title:  "every request's _meta carries io.modelcontextprotocol/clientInfo (an object)",
		Quote:  "Clients SHOULD include io.modelcontextprotocol/clientInfo on every request unless specifically configured not to do so.",
		Faults: []*fault.Fault{client.MetaNoClientInfo},
		// clientInfo is a SHOULD on the page, a MUST in the SEP's list
		Requirements: []string{"sep-2575-client-populates-meta"}}
	metaCapabilitiesValid = &scenarios.Check{ID: "client-request-metadata/capabilities-valid", Level: scenarios.Must, Spec: metaSpec,
		Title:  "the clientCapabilities of _meta are a ClientCapabilities object: roots, sampling and elicitation, when declared, are objects",
		Quote:  "| io.modelcontextprotocol/clientCapabilities | ClientCapabilities | Yes | Client capabilities relevant to this request |",
		Faults: []*fault.Fault{client.CapabilityNotObject},
		// what a client supports is not observable; the type of what it declares is
		Requirements: []string{"sep-2575-client-declares-elicitation-capability", "sep-2575-client-declares-roots-capability",
			"sep-2575-client-declares-sampling-capability"}}
	metaVersionHeader = &scenarios.Check{ID: "client-request-metadata/version-header", Level: scenarios.Must, Spec: httpSpec + "#protocol-version-header",
		Title: "every POST of a 2026-07-28 message carries an MCP-Protocol-Version header (HTTP only; a legacy initialize after a " +
			"fallback, and the legacy messages after it, are the earlier revision's)",
		Quote:        "Every POST request to the MCP endpoint MUST include an MCP-Protocol-Version header.",
		Faults:       []*fault.Fault{client.NoVersionHeader},
		Liberties:    []*fault.Fault{client.LowercaseHeaderNames},
		Requirements: []string{"sep-2575-http-client-sends-version-header"}}
	metaVersionMatches = &scenarios.Check{ID: "client-request-metadata/version-header-matches", Level: scenarios.Must, Spec: httpSpec + "#protocol-version-header",
		Title:        "the MCP-Protocol-Version header equals the _meta protocolVersion of the same request (HTTP only)",
		Quote:        "The header value MUST match the io.modelcontextprotocol/protocolVersion field carried in the request body's _meta.",
		Faults:       []*fault.Fault{client.VersionHeaderMismatch},
		Requirements: []string{"sep-2575-http-version-header-matches-meta"}}
	metaRetry = &scenarios.Check{ID: "client-request-metadata/retry-supported-version", Level: scenarios.Should, Spec: versionDoc,
		Title:        "refused with -32022 for a version the fake server does not implement, listing only the version judged, the client retries at that version (its _meta protocolVersion)",
		Quote:        "The client SHOULD select a mutually supported version from the supported list and retry the request, or surface an error to the user if no compatible version exists.",
		Faults:       []*fault.Fault{client.NoVersionRetry, client.FallsBackToInitialize},
		Liberties:    []*fault.Fault{client.SkipsDiscover},
		Requirements: []string{"sep-2575-client-retry-supported-version"}}
	metaStdioProbe = &scenarios.Check{ID: "client-request-metadata/stdio-probe", Level: scenarios.Should, Spec: "2026-07-28/basic/transports/stdio.mdx#backward-compatibility",
		Title: "over stdio the client's first request is the server/discover probe (a SHOULD for a client that also speaks an " +
			"initialize-era version, RECOMMENDED for one that speaks only modern ones; stdio only)",
		Quote: "A client that only supports modern versions does not need to probe, but probing is still RECOMMENDED: some legacy servers " +
			"do not validate that a request arrives after initialize and would process an era-ambiguous method (such as tools/call) under legacy semantics.",
		Faults: []*fault.Fault{client.StdioNoProbe}}
)

var requestMetadataScenario = &scenarios.Scenario{
	ID:       "client-request-metadata",
	Official: "request-metadata",
	Title:    "per-request _meta and the MCP-Protocol-Version header, and the retry after an UnsupportedProtocolVersionError",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Purpose: "The fake server implements the version judged and no other: a request that asks for another (its _meta " +
		"protocolVersion, or a legacy initialize's params.protocolVersion) is refused with -32022 (over HTTP a 400) listing " +
		"only the version judged and naming the version requested; a request at the version judged is served (server/discover " +
		"and empty lists). The context's " + client.ContextFirstProtocolVersion + " (" + firstProtocolVersion + ") asks the " +
		"client to open with that version, which the fake does not implement, and then negotiate. Every request is judged for its _meta and, " +
		"over HTTP, its MCP-Protocol-Version header; the request after the first refusal for the retry.",
	Needs: []scenarios.Need{scenarios.NeedsOther("the client opens with the firstProtocolVersion of $MCP_CONFORMANCE_CONTEXT (" + firstProtocolVersion + ") and negotiates; " +
		"a client that ignores it and opens at the version judged is never refused, and retry-supported-version is skipped, saying so")},
	Checks: []*scenarios.Check{metaRequired, metaClientInfo, metaCapabilitiesValid, metaVersionHeader, metaVersionMatches, metaRetry, metaStdioProbe},
	Run: clientside.Body(func(t *clientside.T) {
		version := t.Env.Version
		// implemented answers the requests of the version judged with next,
		// and refuses any other version as a server that implements only
		// version must: -32022 listing it, naming the version requested.
		implemented := func(next server.Handler) server.Handler {
			return func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				requested, asked := requestedVersion(req)
				switch {
				case asked && requested != version:
					data, _ := json.Marshal(map[string]any{"supported": []string{version}, "requested": requested})
					return nil, &jsonrpc.Error{Code: codes.UnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
				case !asked:
					return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "Missing required _meta field " + protocol.MetaProtocolVersion}
				case next == nil:
					// initialize naming the version judged: a version it
					// implements, without initialize.
					return nil, &jsonrpc.Error{Code: codes.MethodNotFound, Message: "Method not found: initialize is no method of " + version}
				}
				return next(ctx, p, req)
			}
		}
		answer := func(result map[string]any) server.Handler {
			return func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				out := map[string]any{}
				for k, v := range result {
					out[k] = v
				}
				return out, nil
			}
		}
		caps := map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "resources": map[string]any{}}
		handlers := map[string]server.Handler{
			protocol.MethodInitialize: implemented(nil),
			protocol.MethodServerDiscover: implemented(answer(map[string]any{"supportedVersions": []string{version}, "capabilities": caps,
				"_meta": map[string]any{protocol.MetaServerInfo: clientside.FakeServerInfo}})),
			protocol.MethodPing:                   implemented(answer(map[string]any{})),
			protocol.MethodToolsList:              implemented(answer(map[string]any{"tools": []any{}})),
			protocol.MethodPromptsList:            implemented(answer(map[string]any{"prompts": []any{}})),
			protocol.MethodResourcesList:          implemented(answer(map[string]any{"resources": []any{}})),
			protocol.MethodResourcesTemplatesList: implemented(answer(map[string]any{"resourceTemplates": []any{}})),
		}
		t.Serve(clientside.Script{Handlers: handlers, Capabilities: caps,
			Context: map[string]any{client.ContextFirstProtocolVersion: firstProtocolVersion}})
		t.Step("wait for the client's first request (refused with -32022 when it asks for another version than %s) and its retry", version)
		out := t.Settle(func(r []clientside.Received) bool {
			reqs := requests(r)
			i := firstRefused(reqs, version)
			return len(reqs) >= 2 && i < len(reqs)-1
		})
		reqs := requests(t.Log().Entries())
		var modern []clientside.Received
		for _, r := range reqs {
			if r.Msg.Method != protocol.MethodInitialize {
				modern = append(modern, r)
			}
		}
		if len(modern) == 0 {
			t.Missed("a "+version+" request", out)
		}

		var missing, noInfo, badCaps []string
		for _, r := range modern {
			meta := metaOf(r.Msg)
			if _, ok := metaString(r.Msg, protocol.MetaProtocolVersion); !ok {
				missing = append(missing, describe(r)+": no string "+protocol.MetaProtocolVersion)
			}
			caps, ok := meta[protocol.MetaClientCapabilities]
			if !ok {
				missing = append(missing, describe(r)+": no "+protocol.MetaClientCapabilities)
			}
			if !isObject(meta[protocol.MetaClientInfo]) {
				noInfo = append(noInfo, describe(r))
			}
			if ok {
				if why := capabilitiesProblem(caps); why != "" {
					badCaps = append(badCaps, describe(r)+": "+why)
				}
			}
		}
		t.Judge(metaRequired, len(missing) == 0, "protocolVersion and clientCapabilities in the _meta of every request", listed(missing))
		t.Judge(metaClientInfo, len(noInfo) == 0, "an io.modelcontextprotocol/clientInfo object in the _meta of every request",
			"none on "+listed(noInfo))
		t.Judge(metaCapabilitiesValid, len(badCaps) == 0, "clientCapabilities an object whose roots, sampling and elicitation are objects", listed(badCaps))

		if !notHTTP(t, metaVersionHeader, metaVersionMatches) {
			var noHeader, mismatch []string
			compared := 0
			fellBack := false
			for _, r := range t.Log().Entries() {
				// The rule is 2026-07-28's: a legacy initialize after a
				// fallback, and what follows it in that era without a
				// 2026-07-28 _meta, are the earlier revision's messages
				// (the fallback itself is retry-supported-version's).
				if r.Msg.Method == protocol.MethodInitialize {
					fellBack = true
					continue
				}
				if _, modern := metaString(r.Msg, protocol.MetaProtocolVersion); fellBack && !modern {
					continue
				}
				h, ok := header(r, transport.HeaderProtocolVersion)
				if !ok {
					noHeader = append(noHeader, describe(r))
					continue
				}
				if m, ok := metaString(r.Msg, protocol.MetaProtocolVersion); ok {
					compared++
					if h != m {
						mismatch = append(mismatch, fmt.Sprintf("%s: header %q, _meta %q", describe(r), h, m))
					}
				}
			}
			t.Judge(metaVersionHeader, len(noHeader) == 0, "MCP-Protocol-Version on every POST of a 2026-07-28 message", "none on "+listed(noHeader))
			if compared == 0 {
				t.Skip(metaVersionMatches, "no POST carried both the header and a _meta protocolVersion to compare")
			} else {
				t.Judge(metaVersionMatches, len(mismatch) == 0, "the header equal to the _meta protocolVersion on every POST", listed(mismatch))
			}
		}

		first := reqs[0]
		if t.Env.Transport != transport.Stdio {
			t.Skip(metaStdioProbe, "the probe is the stdio page's; over "+string(t.Env.Transport)+" the client MAY send any request first")
		} else {
			t.Judge(metaStdioProbe, first.Msg.Method == protocol.MethodServerDiscover, "server/discover as the first request", describe(first))
		}
		i := firstRefused(reqs, version)
		if i == len(reqs) {
			asked, _ := requestedVersion(first.Msg)
			t.Skip(metaRetry, fmt.Sprintf("the client's first request (%s) asked for %s, which the fake server implements, and no request asked for "+
				"another version: no UnsupportedProtocolVersionError to retry from (the client did not open with the context's %s, %s)",
				describe(first), asked, client.ContextFirstProtocolVersion, firstProtocolVersion))
			return
		}
		refused := reqs[i]
		asked, _ := requestedVersion(refused.Msg)
		if i+1 == len(reqs) {
			t.Fail(metaRetry, "a retry at "+version+" after "+describe(refused)+fmt.Sprintf(" (at %q) was refused with -32022", asked),
				"none: "+t.DescribeEnd(out))
			return
		}
		retry := reqs[i+1]
		got, _ := metaString(retry.Msg, protocol.MetaProtocolVersion)
		// The version chosen is the _meta one; whether the header agrees
		// with it is version-header-matches' affair.
		t.Judge(metaRetry, got == version, "after "+describe(refused)+fmt.Sprintf(" at %q was refused, ", asked)+
			"the next request at "+version+", the one supported version the refusal listed",
			fmt.Sprintf("%s with _meta protocolVersion %q", describe(retry), got))
	}),
}

// firstProtocolVersion is the version the context asks the client to open
// with (client.ContextFirstProtocolVersion) before it negotiates: no MCP
// revision, so no server implements it.
const firstProtocolVersion = "2099-01-01"

// requestedVersion is the version a request asks for: a legacy
// initialize's params.protocolVersion, any other request's _meta
// protocolVersion; asked is false when it names none.
func requestedVersion(m *jsonrpc.Message) (version string, asked bool) {
	if m.Method == protocol.MethodInitialize {
		var params protocol.InitializeParams
		if json.Unmarshal(m.Params, &params) != nil || params.ProtocolVersion == nil {
			return "", false
		}
		return *params.ProtocolVersion, true
	}
	return metaString(m, protocol.MetaProtocolVersion)
}

// firstRefused is the index of the first request the fake server refused
// with -32022 (one that asks for a version other than version), or
// len(reqs).
func firstRefused(reqs []clientside.Received, version string) int {
	for i, r := range reqs {
		if v, asked := requestedVersion(r.Msg); asked && v != version {
			return i
		}
	}
	return len(reqs)
}

// capabilitiesProblem says what keeps caps from being a ClientCapabilities
// object, or "".
func capabilitiesProblem(caps json.RawMessage) string {
	if !isObject(caps) {
		return "clientCapabilities is " + string(caps) + ", not an object"
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(caps, &m)
	var bad []string
	for _, name := range []string{"roots", "sampling", "elicitation"} {
		if raw, ok := m[name]; ok && !isObject(raw) {
			bad = append(bad, fmt.Sprintf("%s is %s", name, raw))
		}
	}
	slices.Sort(bad)
	if len(bad) > 0 {
		return fmt.Sprint(bad)
	}
	return ""
}
