package server

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the MRTR fixtures (reference_mrtr.go, the server
// suite's mrtr family, 2026-07-28/basic/patterns/mrtr.mdx). Each fault
// breaks one fixture's answer and nothing else, so that the check reading
// that answer is the one that fails.
var (
	MRTROnToolsList = &fault.Fault{Name: "mrtr-on-tools-list", Versions: modern,
		Description: "answers tools/list with input_required (a roots/list input request and a requestState) when the client declares roots"}
	MRTRInputRequiredEmpty = &fault.Fault{Name: "mrtr-input-required-empty", Versions: modern,
		Description: "test_input_required_result_request_state answers input_required with neither inputRequests nor requestState"}
	MRTRUndeclaredElicitation = &fault.Fault{Name: "mrtr-undeclared-elicitation", Versions: modern,
		Description: "test_input_required_result_capabilities asks elicitation/create of a client that declared only sampling"}
	MRTRTamperedAccepted = &fault.Fault{Name: "mrtr-tampered-state-accepted", Versions: modern,
		Description: "does not verify the integrity of test_input_required_result_tampered_state's requestState and completes on a tampered one"}
	MRTRMissingAsError = &fault.Fault{Name: "mrtr-missing-response-error", Versions: modern,
		Description: "answers a retry whose inputResponses lack a requested response with -32602 instead of asking again"}
	MRTRResultTypeMissing = &fault.Fault{Name: "mrtr-result-type-missing", Versions: modern,
		Description: "test_input_required_result_elicitation answers its first round without resultType (inputRequests only)"}
	MRTRElicitationInvalid = &fault.Fault{Name: "mrtr-elicitation-invalid", Versions: modern,
		Description: "test_input_required_result_elicitation's elicitation/create input request has no message"}
	MRTRSamplingInvalid = &fault.Fault{Name: "mrtr-sampling-invalid", Versions: modern,
		Description: "test_input_required_result_sampling's sampling/createMessage input request has no maxTokens"}
	MRTRRootsWrongMethod = &fault.Fault{Name: "mrtr-roots-wrong-method", Versions: modern,
		Description: "test_input_required_result_list_roots asks for roots with method roots/get, which is no input request"}
	MRTRCompleteEmpty = &fault.Fault{Name: "mrtr-complete-empty", Versions: modern,
		Description: "the MRTR fixtures complete with empty content (tools), messages (the prompt) or contents (the resource)"}
	MRTRStateExpired = &fault.Fault{Name: "mrtr-state-expired", Versions: modern,
		Description: "test_input_required_result_request_state issues a requestState that has already expired, so every retry is refused"}
	MRTRMultipleAsksOne = &fault.Fault{Name: "mrtr-multiple-asks-one", Versions: modern,
		Description: "test_input_required_result_multiple_inputs asks only for user_name in its first round"}
	MRTRMultiRoundLoops = &fault.Fault{Name: "mrtr-multi-round-loops", Versions: modern,
		Description: "test_input_required_result_multi_round ignores its requestState and asks step1 again on every retry"}
	MRTRExtraResponseRefused = &fault.Fault{Name: "mrtr-extra-response-refused", Versions: modern,
		Description: "refuses a retry whose inputResponses hold a key it never asked for with -32602"}
	MRTRMalformedAccepted = &fault.Fault{Name: "mrtr-malformed-accepted", Versions: modern,
		Description: "test_input_required_result_elicitation takes a user_name response that is no ElicitResult (12345) as the name and completes"}
	MRTRAlsoRequested = &fault.Fault{Name: "mrtr-also-requested", Versions: modern,
		Description: "test_input_required_result_elicitation also sends its question as an elicitation/create request of its own, the pattern MRTR replaced"}
	MRTRStateUnbound = &fault.Fault{Name: "mrtr-state-unbound", Versions: modern,
		Description: "takes a requestState it signed on a request other than the one it was given for (the state names no originating request)"}
	MRTRMalformedToolError = &fault.Fault{Name: "mrtr-malformed-tool-error", Versions: modern,
		Description: "answers inputResponses that are not an object with an isError tool result instead of a JSON-RPC error"}
)

var mrtrFaults = fault.Set{MRTROnToolsList, MRTRInputRequiredEmpty, MRTRUndeclaredElicitation, MRTRTamperedAccepted, MRTRMissingAsError,
	MRTRResultTypeMissing, MRTRElicitationInvalid, MRTRSamplingInvalid, MRTRRootsWrongMethod, MRTRCompleteEmpty, MRTRStateExpired,
	MRTRMultipleAsksOne, MRTRMultiRoundLoops, MRTRExtraResponseRefused, MRTRMalformedAccepted, MRTRMalformedToolError, MRTRAlsoRequested, MRTRStateUnbound}

// Liberties: choices mrtr.mdx leaves to the server.
var (
	MRTRStateOnlyFirst = &fault.Fault{Name: "mrtr-state-only-first", Liberty: true, Versions: modern,
		Freedom:     "If the `InputRequiredResult` does _not_ contain the `inputRequests` field, the client **MAY** retry the original request immediately.",
		Description: "test_input_required_result_request_state first answers an input_required with a requestState only, and asks its question on the retry"}
	MRTRReprompts = &fault.Fault{Name: "mrtr-reprompts", Liberty: true, Versions: modern,
		Freedom: "Servers **MAY** choose to return an `InputRequiredResult` on multiple attempts at the same request if they want to repeatedly " +
			"prompt the user for information until they have what they need to complete the request.",
		Description: "test_input_required_result_elicitation, once answered, asks for a confirmation (key confirm) before it completes"}
	MRTRMissingCompletes = &fault.Fault{Name: "mrtr-missing-completes", Liberty: true, Versions: modern,
		Freedom:     "If the client fails to send all the information requested in a previous `InputRequests`, and the missing information is necessary for the server to process the request,",
		Description: "test_input_required_result_elicitation completes with a default name when the user_name response is missing"}
	MRTRMalformedAsksAgain = &fault.Fault{Name: "mrtr-malformed-asks-again", Liberty: true, Versions: modern,
		Freedom:     "Servers **MAY** respond to any supported client request with an `InputRequiredResult`.",
		Description: "answers a user_name response it cannot parse with a new input_required for user_name instead of -32602"}
	MRTRTamperedRestarts = &fault.Fault{Name: "mrtr-tampered-restarts", Liberty: true, Versions: modern,
		Freedom:     "and **MUST** reject state that fails verification.",
		Description: "discards a requestState that fails verification and starts the exchange afresh with a new input_required"}
	MRTRTamperedOtherCode = &fault.Fault{Name: "mrtr-tampered-other-code", Liberty: true, Versions: modern,
		Freedom:     "and **MUST** reject state that fails verification.",
		Description: "refuses a tampered requestState with the server-defined error -32001 instead of -32602"}
)

var mrtrLiberties = fault.Set{MRTRStateOnlyFirst, MRTRReprompts, MRTRMissingCompletes, MRTRMalformedAsksAgain, MRTRTamperedOtherCode, MRTRTamperedRestarts}
