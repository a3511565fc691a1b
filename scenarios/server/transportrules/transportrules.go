// Package transportrules is the server transport-rules family (scenarios.md S8): Streamable HTTP sessions, versions, Origin, SSE polling, resumption and concurrent streams; stdio and WebSocket framing.
package transportrules

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
