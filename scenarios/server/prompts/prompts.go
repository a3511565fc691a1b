// Package prompts is the server prompts family (scenarios.md S4): prompts/list, prompts/get with its role, content and argument errors, and completion/complete.
package prompts

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
