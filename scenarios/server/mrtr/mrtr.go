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

// The official requirement ids of the server side of SEP-2322
// (official-conformance seps/sep-2322.yaml) and the checks that judge them:
//
//	sep-2322-result-type-included          input-required-result-result-type/present
//	sep-2322-not-on-unsupported-requests   input-required-result-unsupported-methods/not-on-other-requests
//	sep-2322-elicitation-incomplete        input-required-result-basic-elicitation/asks-elicitation
//	sep-2322-sampling-incomplete           input-required-result-basic-sampling/asks-sampling
//	sep-2322-list-roots-incomplete         input-required-result-basic-list-roots/asks-roots
//	sep-2322-reject-tampered-state         input-required-result-tampered-state/rejected
//	sep-2322-request-state-incomplete      input-required-result-request-state/at-least-one
//	sep-2322-respect-client-capabilities   input-required-result-capability-check/declared-only
//	sep-2322-validate-input-responses      input-required-result-validate-input/not-completed
//	sep-2322-error-on-protocol-error       input-required-result-validate-input/error-response
//	sep-2322-ignore-unexpected-params      input-required-result-ignore-extra-params/ignored
//	sep-2322-missing-response-rerequests   input-required-result-missing-input-response/asks-again
//	sep-2322-default-result-type-complete  none: it is the client's rule (the client suite's MRTR family)
//	sep-2322-client-*                      none: the client's rules (the client suite's MRTR family)
//
// The sentence sep-2322.yaml excludes as tested indirectly ("Servers MUST
// send server-to-client requests … using the MRTR pattern") is judged by
// input-required-result-basic-elicitation/no-server-request.
//
// So is one part of the SHOULD it excludes as the contents of requestState:
// a state replayed on a request other than its own is rejected
// (input-required-result-tampered-state/foreign-state-rejected); its
// principal and expiry parts would need a second authorization context or
// a wait past the server's TTL, and have no check.
//
// The official scenario flow gates without a requirement row
// (sep-2322-*-complete, -multi-round-r*, -non-tool-*,
// -multiple-inputs-incomplete) are judged by the …/completes,
// input-required-result-multi-round/converges and
// input-required-result-multiple-input-requests/asks-all checks. The other
// excluded sentences of sep-2322.yaml (key uniqueness, attacker-controlled
// input, how the state is protected, single use, not assuming a retry) are
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
