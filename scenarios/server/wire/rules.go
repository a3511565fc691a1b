// Package wire is the family of the wire rules every message keeps,
// whatever the scenario: JSON-RPC only (over stdio, nothing else on
// stdout), UTF-8, "jsonrpc": "2.0", request ids, responses only to
// requests sent and once each, requests only for
// negotiated client capabilities, the HTTP Content-Type, and WebSocket
// framing. Every session of every scenario records what broke them
// (fakes/client, wire.go) into the ledger of its transport and version;
// wire-rules runs last there and judges all of it.
package wire

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{rulesScenario}
}

const (
	transportsSpec = "2025-11-25/basic/transports.mdx"
	messagesSpec   = "2025-11-25/basic/index.mdx"
	// WebSocketProfile enables the checks of the WebSocket convention
	// mcpconform follows (README: one message per text frame, subprotocol
	// "mcp"); no MCP page defines a WebSocket transport.
	WebSocketProfile = "websocket"
	customTransports = "Custom transports SHOULD document their specific connection establishment and message " +
		"exchange patterns to aid interoperability."
)

var (
	rulesJSONRPCOnly = &scenarios.Check{ID: "wire-rules/jsonrpc-only", Level: scenarios.Must, Spec: transportsSpec + "#stdio",
		Quote: "The server MUST NOT write anything to its stdout that is not a valid MCP message.",
		Title: "every frame the server sent, in every session of every scenario on this transport and version, is a JSON-RPC " +
			"message: over stdio nothing else on stdout (no banner, no line over the reader's limit), over HTTP and WebSocket " +
			"no other body or frame (the same sentence is on 2026-07-28/basic/transports/stdio.mdx)",
		Faults: []*fault.Fault{server.StdoutBanner, server.StdoutOverlongLine}}
	rulesUTF8 = &scenarios.Check{ID: "wire-rules/utf8", Level: scenarios.Must, Spec: transportsSpec,
		Quote:  "JSON-RPC messages MUST be UTF-8 encoded.",
		Title:  "every frame the server sent is valid UTF-8 (2026-07-28: basic/transports/index.mdx#messages)",
		Faults: []*fault.Fault{server.InvalidUTF8}}
	rulesJSONRPCVersion = &scenarios.Check{ID: "wire-rules/jsonrpc-version", Level: scenarios.Must, Spec: messagesSpec + "#messages",
		Quote:  "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title:  `every message the server sent has the member "jsonrpc" with exactly the value "2.0" (the schema's const JSONRPC_VERSION)`,
		Faults: []*fault.Fault{server.JSONRPCVersionWrong}}
	rulesRequestID = &scenarios.Check{ID: "wire-rules/request-id", Level: scenarios.Must, Spec: messagesSpec + "#requests",
		Quote:     "Requests MUST include a string or integer ID.",
		Title:     "every request the server sent has a string or integer id, never null (\"Unlike base JSON-RPC, the ID MUST NOT be null.\")",
		Faults:    []*fault.Fault{server.RequestIDNull},
		Liberties: []*fault.Fault{server.IntegerRequestIDs}}
	rulesResponseID = &scenarios.Check{ID: "wire-rules/response-id", Level: scenarios.Must, Spec: messagesSpec + "#responses",
		Quote: "Result responses MUST include the same ID as the request they correspond to.",
		Title: "every response the server sent, in every session of every scenario on this transport and version, answers a " +
			"request the client sent: its id is, as a JSON value, the id of one of the session's requests (JSON-RPC 2.0 §5: " +
			"\"It MUST be the same as the value of the id member in the Request Object\"); an error with id null, about a " +
			"request whose id could not be read, is not judged here",
		Faults:    []*fault.Fault{server.ResponseUnknownID, server.IdNumericStringUnquoted, server.AnswersStrayCancel},
		Liberties: []*fault.Fault{server.EscapesNonASCIIIds}}
	rulesOneResponse = &scenarios.Check{ID: "wire-rules/one-response", Level: scenarios.Must, Spec: messagesSpec + "#messages",
		Quote: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title: "the server answers each request once, never with a second response to the same id (JSON-RPC 2.0 §4: \"The " +
			"Server MUST reply with the same value in the id member\" of the one Response it sends for each Request; a request " +
			"the client sent twice with the same id may be answered twice)",
		Faults: []*fault.Fault{server.DuplicateResponse, server.AnswersStrayCancel}}
	rulesNegotiatedCapabilities = &scenarios.Check{ID: "wire-rules/negotiated-capabilities", Level: scenarios.Must,
		Spec:  "2025-11-25/basic/lifecycle.mdx#operation",
		Quote: "Only use capabilities that were successfully negotiated",
		Title: "the server sends sampling/createMessage, elicitation/create and roots/list only to a client whose handshake (or, " +
			"in 2026-07-28, request _meta) declared sampling, elicitation or roots; at 2025-11-25 an elicitation only in a mode " +
			"the client declared (client/elicitation.mdx: \"Servers MUST NOT send elicitation requests with modes that are not " +
			"supported by the client.\")",
		Faults: []*fault.Fault{server.UndeclaredCapabilityRequest}}
	rulesNegotiatedVersion = &scenarios.Check{ID: "wire-rules/negotiated-version", Level: scenarios.Must,
		Spec:  "2025-11-25/basic/lifecycle.mdx#operation",
		Quote: "Respect the negotiated protocol version",
		Title: "the server uses nothing of a version newer than the session's: no request or notification whose method only a " +
			"newer version's schema has (notifications/tasks/status at 2025-06-18, elicitation/create at 2025-03-26), and its " +
			"initialize result declares no capability that only a newer version's schema has (tasks before 2025-11-25); what " +
			"each version has is read from its generated schema, so a new version takes the rule in",
		Faults: []*fault.Fault{server.NewerCapabilityDeclared, server.NewerNotificationSent}}
	rulesContentType = &scenarios.Check{ID: "wire-rules/content-type", Level: scenarios.Must, Spec: transportsSpec + "#sending-messages-to-the-server",
		Quote: "If the input is a JSON-RPC _request_, the server MUST either return Content-Type: text/event-stream, to " +
			"initiate an SSE stream, or Content-Type: application/json, to return one JSON object.",
		Title: "Streamable HTTP: every answer to a POST that carries a request has Content-Type application/json or " +
			"text/event-stream, never another or none (2026-07-28: basic/transports/streamable-http.mdx)",
		Faults: []*fault.Fault{server.ContentTypeHTML, server.ContentTypeMissing}}
	rulesWSTextFrames = &scenarios.Check{ID: "wire-rules/ws-text-frames", Level: scenarios.Must, Spec: transportsSpec + "#custom-transports",
		Quote: customTransports, Profile: WebSocketProfile,
		Title: "opt-in (WebSocket, a custom transport): one message per text frame, never a binary frame, as the WebSocket " +
			"convention mcpconform follows has it (README; no MCP page defines WebSocket)",
		Faults: []*fault.Fault{server.WSBinaryFrames}}
	rulesWSSubprotocol = &scenarios.Check{ID: "wire-rules/ws-subprotocol", Level: scenarios.Must, Spec: transportsSpec + "#custom-transports",
		Quote: customTransports, Profile: WebSocketProfile,
		Title: `opt-in (WebSocket, a custom transport): the upgrade selects the subprotocol "mcp" the client offers, as the ` +
			"WebSocket convention mcpconform follows has it (README; no MCP page defines WebSocket)",
		Faults: []*fault.Fault{server.WSNoSubprotocol}}
)

// ruleChecks pairs each rule the sessions record with its check.
var ruleChecks = []struct {
	rule  client.WireRule
	check *scenarios.Check
	// only: the transport the rule exists on; "" for every transport.
	only transport.Kind
	// expected is the report's Expected line.
	expected string
}{
	{client.RuleJSONRPCOnly, rulesJSONRPCOnly, "", "every frame (every stdout line) a JSON-RPC message"},
	{client.RuleUTF8, rulesUTF8, "", "every frame UTF-8"},
	{client.RuleJSONRPCVersion, rulesJSONRPCVersion, "", `"jsonrpc": "2.0" in every message`},
	{client.RuleRequestID, rulesRequestID, "", "a string or integer id on every request the server sends"},
	{client.RuleResponseID, rulesResponseID, "", "every response with the id of a request the client sent"},
	{client.RuleOneResponse, rulesOneResponse, "", "one response per request"},
	{client.RuleNegotiatedCapabilities, rulesNegotiatedCapabilities, "", "sampling, elicitation and roots requests only to a client that declared them"},
	{client.RuleNegotiatedVersion, rulesNegotiatedVersion, "", "nothing of a version newer than the session's"},
	{client.RuleContentType, rulesContentType, transport.HTTP, "Content-Type application/json or text/event-stream on every answer to a request"},
	{client.RuleWSTextFrames, rulesWSTextFrames, transport.WS, "every message in a text frame"},
	{client.RuleWSSubprotocol, rulesWSSubprotocol, transport.WS, `the subprotocol "mcp" selected by the upgrade`},
}

var rulesScenario = &scenarios.Scenario{
	ID:       "wire-rules",
	Title:    "what the server sends, in every scenario, keeps the wire rules: JSON-RPC only, UTF-8, jsonrpc 2.0, request ids, one response per request and to requests sent only, negotiated capabilities, HTTP Content-Type, WebSocket framing",
	Family:   "wire",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	// Last on each transport and version: it judges the ledger the other
	// scenarios' sessions filled.
	Last: true,
	Purpose: "Every session of every scenario looks at each frame the server sends, before the handshake too, and at what " +
		"its transport saw (the Content-Type of each HTTP answer, WebSocket frame types and subprotocol, stdout lines " +
		"discarded as too long), and the driver adds what breaks a wire rule to a ledger per transport and version. This " +
		"scenario runs last there: it opens a session that declares no client capability, lists the tools and pings, " +
		"and judges that traffic with the ledger, naming the scenario and showing the start of each offending frame.",
	Checks: []*scenarios.Check{rulesJSONRPCOnly, rulesUTF8, rulesJSONRPCVersion, rulesRequestID, rulesResponseID, rulesOneResponse,
		rulesNegotiatedCapabilities, rulesNegotiatedVersion, rulesContentType, rulesWSTextFrames, rulesWSSubprotocol},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{Capabilities: map[string]any{}})
		if s.HasCapability("tools") {
			t.Step("tools/list")
			_, _ = t.Request(s, protocol.MethodToolsList, map[string]any{}) // its answer is judged frame by frame
		}
		// On an ordered connection (every one but stateless HTTP's POSTs)
		// the probe's answer comes after whatever the server wrote before
		// it: a second answer to tools/list included.
		if !s.Stateless() || t.Env.Transport != transport.HTTP {
			t.Barrier(s)
		}
		own := serverside.Breaches(t.Scenario().ID, s)
		for _, rc := range ruleChecks {
			if rc.only != "" && t.Env.Transport != rc.only {
				t.Skip(rc.check, fmt.Sprintf("a rule of the %s transport; this run is over %s", rc.only, t.Env.Transport))
				continue
			}
			var mine []scenarios.WireBreach
			for _, b := range own {
				if b.Rule == string(rc.rule) {
					mine = append(mine, b)
				}
			}
			kept, total := t.Env.Wire.Breaches(string(rc.rule))
			for _, b := range mine {
				total += 1 + b.Also
			}
			all := append(mine, kept...)
			t.Step("%s: %d breach(es) in this scenario and the ledger", rc.check.ID, total)
			if total > 0 {
				t.Fail(rc.check, rc.expected+", in every session of every scenario", Describe(all, total))
				continue
			}
			t.Pass(rc.check)
		}
	}),
}

// shown is how many distinct breaches Describe spells out.
const shown = 3

// rawShown bounds the excerpt of each frame shown.
const rawShown = 160

// Describe sums up the breaches of one rule, bounded: the first few
// distinct ones (the scenario that saw it, what was seen, the start of the
// frame with invalid bytes escaped, how often), then a count of the rest.
// total counts the breaches only tallied too.
func Describe(all []scenarios.WireBreach, total int) string {
	groups := judge.GroupBy(all,
		func(b scenarios.WireBreach) string { return b.What },
		func(b scenarios.WireBreach) string { return b.Scenario },
		func(b scenarios.WireBreach) int { return 1 + max(b.Also, 0) })
	var b strings.Builder
	fmt.Fprintf(&b, "%d breach(es)", total)
	for i, g := range groups {
		if i == shown {
			fmt.Fprintf(&b, "\nand %d more kind(s) of breach", len(groups)-i)
			break
		}
		fmt.Fprintf(&b, "\n- in %s: %s%s", g.First.Scenario, g.First.What, g.Seen())
		if len(g.First.Raw) > 0 {
			fmt.Fprintf(&b, "\n  %s", excerpt(g.First.Raw))
		}
	}
	return b.String()
}

// excerpt is the start of a frame, printable: bytes that are not UTF-8
// and control characters are escaped (\xff, \x1b).
func excerpt(raw []byte) string {
	var b strings.Builder
	cut := false
	for i := 0; i < len(raw); {
		if b.Len() >= rawShown {
			cut = true
			break
		}
		r, size := utf8.DecodeRune(raw[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, raw[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}
