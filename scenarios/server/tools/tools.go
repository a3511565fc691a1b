// Package tools is the server tools family (scenarios.md S8): tools/list and tools/call with every content type, isError, structured content, JSON Schema 2020-12, progress, logging and requests made from inside a call.
package tools

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
