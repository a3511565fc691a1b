// Package utilities is the server utilities family (scenarios.md S8): logging/setLevel and filtering, pagination, list_changed notifications and the cancellation of a plain request.
package utilities

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
