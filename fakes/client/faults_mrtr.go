package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults and liberties of the reference client's MRTR loop
// (2026-07-28/basic/patterns/mrtr.mdx, "Client Requirements"). Each fault
// breaks one rule; the loop only exists at 2026-07-28.
var mrtrVersions = protocol.From(protocol.V20260728)

var (
	// MRTRReusesID breaks "The JSON-RPC id MUST be different between the
	// initial request and the retry".
	MRTRReusesID = &fault.Fault{Name: "mrtr-reuses-id", Versions: mrtrVersions,
		Description: "retries an input_required request with the JSON-RPC id of the original request"}
	// MRTRDropsState breaks "the client MUST echo back the exact value of
	// that field when retrying".
	MRTRDropsState = &fault.Fault{Name: "mrtr-drops-state", Versions: mrtrVersions,
		Description: "retries without the requestState the server sent"}
	// MRTRTruncatesState breaks the same sentence only for long states, as a
	// client with a fixed buffer would.
	MRTRTruncatesState = &fault.Fault{Name: "mrtr-truncates-state", Versions: mrtrVersions,
		Description: "echoes only the first 256 bytes of a requestState"}
	// MRTRInventsState breaks "If the InputRequiredResult does not contain a
	// requestState field, the client MUST NOT include one in the retry."
	MRTRInventsState = &fault.Fault{Name: "mrtr-invents-state", Versions: mrtrVersions,
		Description: `retries with requestState "mcpconform-invented" when the server sent none`}
	// MRTRPartialAnswers breaks "the client MUST construct the requested
	// inputs before retrying".
	MRTRPartialAnswers = &fault.Fault{Name: "mrtr-partial-answers", Versions: mrtrVersions,
		Description: "answers only the first key (in sorted order) of inputRequests"}
	// MRTRLeaksState breaks "Both the inputRequests and requestState fields
	// affect only the client's retry of the original request. They MUST NOT
	// be used for any other request".
	MRTRLeaksState = &fault.Fault{Name: "mrtr-leaks-state", Versions: mrtrVersions,
		Description: "sends the previous call's last inputResponses and requestState with its next, unrelated call"}
	// MRTRRetriesComplete breaks "If resultType is not specified, clients
	// MUST assume a default value of \"complete\"".
	MRTRRetriesComplete = &fault.Fault{Name: "mrtr-retries-complete", Versions: mrtrVersions,
		Description: "takes a result without resultType for input_required and retries the request once"}
	// MRTRNoLimit never stops retrying: the robustness rule of the vendor's
	// MaxRounds (seeds 001) and of rate limiting.
	MRTRNoLimit = &fault.Fault{Name: "mrtr-no-limit", Versions: mrtrVersions,
		Description: "retries for as long as the server answers input_required"}
	// MRTRHighLimit stops, but only after 15 rounds: above the default
	// limit of 10, so a warning.
	MRTRHighLimit = &fault.Fault{Name: "mrtr-high-limit", Versions: mrtrVersions,
		Description: "stops retrying only after 15 rounds of input_required"}
	// MRTRUndeclaredInput answers an input type it did not declare, so its
	// capabilities say less than it does.
	MRTRUndeclaredInput = &fault.Fault{Name: "mrtr-undeclared-input", Versions: mrtrVersions,
		Description: "declares no sampling capability, yet answers sampling/createMessage input requests"}

	// MRTRLowLimit stops after 3 rounds: the spec sets no bound, so any
	// limit is conformant.
	MRTRLowLimit = &fault.Fault{Name: "mrtr-low-limit", Liberty: true, Versions: mrtrVersions,
		Description: "stops retrying after 3 rounds of input_required (any bound is allowed)",
		Freedom:     "Servers MUST NOT assume that clients will fulfill the inputRequests or retry the original request."}
	// MRTRNoSampling declares no sampling capability and, asked for
	// sampling anyway, stops and hands the input_required result to its
	// caller instead of answering.
	MRTRNoSampling = &fault.Fault{Name: "mrtr-no-sampling", Liberty: true, Versions: mrtrVersions,
		Description: "declares no sampling capability and stops when asked for sampling",
		Freedom: "Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities. " +
			"Servers MUST NOT assume that clients will fulfill the inputRequests or retry the original request."}
)

var mrtrFaults = fault.Set{MRTRReusesID, MRTRDropsState, MRTRTruncatesState, MRTRInventsState, MRTRPartialAnswers,
	MRTRLeaksState, MRTRRetriesComplete, MRTRNoLimit, MRTRHighLimit, MRTRUndeclaredInput}

var mrtrLiberties = fault.Set{MRTRLowLimit, MRTRNoSampling}
