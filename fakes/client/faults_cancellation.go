package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults of the reference client when it cancels a request of its own
// (client-cancel-timeout): on a call that outlives its timeout it sends
// notifications/cancelled naming the call and goes on, whatever arrives
// later. At 2026-07-28 over Streamable HTTP closing the call's stream is the
// cancellation (basic/patterns/cancellation.mdx) and no notification is
// sent, so the faults of the notification cannot show there.
var noCancelNotification = []fault.Place{{Transport: transport.HTTP, Version: protocol.V20260728}}

var (
	// NoCancelOnTimeout breaks "the sender SHOULD issue a cancellation
	// notification for that request" (lifecycle.mdx#timeouts).
	NoCancelOnTimeout = &fault.Fault{Name: "no-cancel-on-timeout", NotOn: noCancelNotification,
		Description: "stops waiting for a call that timed out without sending notifications/cancelled for it"}
	// CancelsWrongID breaks "Cancellation notifications MUST only reference
	// requests that: Were previously issued in the same direction".
	CancelsWrongID = &fault.Fault{Name: "cancels-wrong-id", NotOn: noCancelNotification,
		Description: `cancels a call that timed out with a requestId it never sent (the call's id with "-other" appended)`}
	// ExitsOnLateAnswer breaks "The sender of the cancellation notification
	// SHOULD ignore any response to the request that arrives afterward".
	// No late answer can follow the closed stream of 2026-07-28's
	// Streamable HTTP.
	ExitsOnLateAnswer = &fault.Fault{Name: "exits-on-late-answer", NotOn: noCancelNotification,
		Description: "gives up (closes the connection and exits with an error) when an answer to a call it cancelled arrives"}
)

var cancellationFaults = fault.Set{NoCancelOnTimeout, CancelsWrongID, ExitsOnLateAnswer}
