// Package transportrules is the server transport-rules family (scenarios.md S8): Streamable HTTP sessions, versions, Origin, SSE polling, resumption and concurrent streams. The stdio rule (nothing but JSON-RPC on stdout) and WebSocket framing are judged by the wire family (wire-rules, and its websocket profile); the stdio page's stderr freedom asks nothing a server could fail.
package transportrules

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		sessionScenario,
		protocolVersionScenario,
		originScenario,
		ssePollingScenario,
		multipleStreamsScenario,
	}
}
