// Package stateless is the stateless protocol of 2026-07-28 on the server (scenarios.md S6/S8): headers, caching, logging by request, serverInfo in _meta, HTTP methods.
package stateless

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return nil }
