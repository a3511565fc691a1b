// Package resources is the server resources family (scenarios.md S8): resources/list, read (text, binary), templates, subscribe and unsubscribe, and missing resources.
package resources

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{} }
