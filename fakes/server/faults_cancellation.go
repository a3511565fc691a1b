package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults of the cancellation family (basic/utilities/cancellation.mdx; at
// 2026-07-28 basic/patterns/cancellation.mdx). Each fires only on a
// cancellation whose requestId carries one of the markers the family's
// scenarios send (CancelUnknownPrefix, CancelAnsweredPrefix,
// CancelBurstPrefix), so no other scenario can see it.

// The requestId markers of the cancellation scenarios.
const (
	// CancelUnknownPrefix starts the ids of requests the client never sent.
	CancelUnknownPrefix = "mcpconform-never-sent-"
	// CancelAnsweredPrefix starts the ids of requests already answered.
	CancelAnsweredPrefix = "mcpconform-answered-"
	// CancelBurstPrefix starts the ids of a burst of cancellations.
	CancelBurstPrefix = "mcpconform-burst-"
	// CancelBurstSize is how many cancellations a burst sends.
	CancelBurstSize = 50
	// DisconnectProgressToken is the progress token of the call whose
	// stream cancel-by-disconnect closes; AfterDisconnectID the id of the
	// request it sends next.
	DisconnectProgressToken = "mcpconform-disconnect-1"
	AfterDisconnectID       = "mcpconform-after-disconnect"
)

// Each 2026-07-28 Streamable HTTP POST is a connection of its own: what
// one notification's connection does, no later request's can see.
var eachPostItsOwn = []fault.Place{{Transport: transport.HTTP, Version: protocol.V20260728}}

var (
	ClosesOnUnknownCancel = &fault.Fault{Name: "closes-on-unknown-cancel", NotOn: eachPostItsOwn,
		Description: "ends the connection on a notifications/cancelled for a request id it never received (" + CancelUnknownPrefix + "…)"}
	ClosesOnLateCancel = &fault.Fault{Name: "closes-on-late-cancel", NotOn: eachPostItsOwn,
		Description: "ends the connection on a notifications/cancelled for a request it already answered (" + CancelAnsweredPrefix + "…)"}
	// A response to a notification can only name the cancelled id, which
	// the session either never sent or had answered already.
	AnswersStrayCancel = &fault.Fault{Name: "answers-stray-cancel",
		// Over Streamable HTTP a notification's POST has no stream to
		// answer on; the stdio and WebSocket connections carry anything.
		Transports: []transport.Kind{transport.Stdio, transport.WS},
		Why: "the only id an answer to a notifications/cancelled can carry is the cancelled one: one the session never sent " +
			"(wire-rules/response-id) or one already answered (wire-rules/one-response)",
		Description: "answers a notifications/cancelled for an unknown or answered request (" + CancelUnknownPrefix + "…, " +
			CancelAnsweredPrefix + "…) with an error response carrying that id",
		ShownBy: []string{"cancel-stray"}}
	// The notification cancels a plain call wherever the client sends one:
	// every version, but not 2026-07-28's Streamable HTTP, where closing
	// the call's stream cancels it and leaves nowhere to answer.
	RespondsAfterCancel = &fault.Fault{Name: "responds-after-cancel", NotOn: eachPostItsOwn,
		Versions:    []string{protocol.V20260728, protocol.V20251125, protocol.V20250618},
		Why:         "notifications/cancelled has no effect on any request, whatever it waits on (a question or its own work)",
		Description: "answers a tools/call after the client cancelled it with notifications/cancelled"}
	// At 2026-07-28 over Streamable HTTP a closed stream is the
	// cancellation; each POST is a connection of its own, so the fault
	// plays a server that went down with the stream by leaving the
	// scenario's next request unanswered.
	DiesOnDisconnect = &fault.Fault{Name: "dies-on-disconnect", Transports: []transport.Kind{transport.HTTP}, Versions: []string{protocol.V20260728},
		Description: "leaves the request a client sends after closing the stream of its call in flight (id " + AfterDisconnectID +
			", after a call with progress token " + DisconnectProgressToken + ") unanswered, as if the disconnect had taken the server down"}
	HangsAfterCancelBurst = &fault.Fault{Name: "hangs-after-cancel-burst", NotOn: eachPostItsOwn,
		Description: "once a connection has received a burst of notifications/cancelled (" + CancelBurstPrefix + "…), it answers " +
			"no further request on that connection"}
)

var cancellationFaults = fault.Set{ClosesOnUnknownCancel, ClosesOnLateCancel, AnswersStrayCancel, RespondsAfterCancel, HangsAfterCancelBurst, DiesOnDisconnect}
