// Package httprules is the client rules of 2026-07-28 over Streamable HTTP and per-request _meta (scenarios.md C3), with the official client scenarios request-metadata, http-standard-headers, http-custom-headers, http-invalid-tool-headers and json-schema-ref-no-deref.
package httprules

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
