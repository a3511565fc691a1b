// Package mrtr is the server's MRTR family (scenarios.md S5, 2026-07-28):
// tools/call, prompts/get and resources/read answered with resultType
// "input_required", inputRequests and requestState, and completed when the
// client retries with its answers; the rules of what a server may ask, of
// whom, on which requests, and how it treats retries that are missing
// answers, carry answers never asked for, cannot be parsed, or come with
// tampered state. The scenarios keep the official suite's scenario ids and
// fixture names (fixtures.md 1g), so a target prepared for it runs
// unchanged.
package mrtr

import (
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
)

// Of what sep-2322.yaml excludes, the official scenarios' flow gates (no
// requirement row) are judged by the …/completes, multi-round/converges and
// multiple-input-requests/asks-all checks; key uniqueness, attacker-controlled
// input, how the state is protected, single use and not assuming a retry are
// not observable on the wire and have no check.

const (
	family       = "mrtr"
	mrtrPage     = "2026-07-28/basic/patterns/mrtr.mdx"
	serverReqs   = mrtrPage + "#server-requirements-basic-workflow"
	errorHandled = mrtrPage + "#error-handling"
	basicFlow    = mrtrPage + "#basic-workflow"
	supported    = mrtrPage + "#supported-requests"
	resultsDoc   = "2026-07-28/basic/index.mdx#result-responses"

	// Quotes shared by several checks.
	valuesQuote = "inputRequests values are request objects that MUST be one of ElicitRequest, CreateMessageRequest, or ListRootsRequest"
	finalQuote  = "Server determines it has sufficient information to complete the operation, and responds with the final result."
)

var versions = protocol.From(protocol.V20260728)

// Scenarios is the family's catalogue, in the order a reader meets them.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{
		basicElicitationScenario,
		basicSamplingScenario,
		basicRootsScenario,
		requestStateScenario,
		multipleScenario,
		multiRoundScenario,
		nonToolScenario,
		resultTypeScenario,
		unsupportedScenario,
		tamperedScenario,
		capabilityScenario,
		missingScenario,
		extraScenario,
		validateScenario,
	}
}
