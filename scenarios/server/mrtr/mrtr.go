// Package mrtr is the server's MRTR family (scenarios.md S5, 2026-07-28): InputRequiredResult, inputRequests, requestState and the retry.
package mrtr

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return nil }
