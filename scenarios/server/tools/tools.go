// Package tools is the server tools family (scenarios.md S8): tools/call of
// the official suite's fixture tools with every content type, isError,
// JSON Schema 2020-12 input schemas, progress, logging, and sampling and
// elicitation requests made from inside a call. Tools have side effects, so
// only fixtures are called.
package tools

import "github.com/mcpconform/mcpconform/scenarios"

// Scenarios is the family's catalogue, in the order a reader meets them.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		listScenario,
		pagingScenario,
		namesScenario,
		simpleTextScenario,
		elicitationScenario,
		imageScenario,
		audioScenario,
		embeddedScenario,
		mixedScenario,
		errorScenario,
		unknownToolScenario,
		invalidArgumentsScenario,
		structuredScenario,
		progressScenario,
		loggingScenario,
		samplingScenario,
		defaultsScenario,
		enumsScenario,
		schema2020Scenario,
	}
}
