package surface

import (
	"context"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// Cancellations that race: the server cancels a ping the client has
// already answered, then a request id it never sent. Either is a
// cancellation the client must take in its stride; a client that does
// keeps making the calls it was asked for, so each check is judged by the
// call that follows.

const cancelSpec = "2025-11-25/basic/utilities/cancellation.mdx"

var (
	pingToCancel = jsonrpc.StringID("mcpconform-ping-then-cancel")
	neverSent    = jsonrpc.StringID("mcpconform-never-sent")
)

var (
	cancelRacesLate = &scenarios.Check{ID: "client-cancel-races/survives-late-cancel", Level: scenarios.Must,
		Spec:   cancelSpec + "#timing-considerations",
		Title:  "after a cancellation of a request it had already answered, the client goes on: it makes its next call",
		Quote:  "Both parties MUST handle these race conditions gracefully",
		Faults: []*fault.Fault{client.ExitsOnLateCancel}}
	cancelRacesUnknown = &scenarios.Check{ID: "client-cancel-races/ignores-unknown-cancel", Level: scenarios.Should,
		Spec:   cancelSpec + "#error-handling",
		Title:  "after a cancellation of a request id the server never sent, the client goes on: it makes its next call",
		Quote:  "Invalid cancellation notifications SHOULD be ignored",
		Faults: []*fault.Fault{client.ExitsOnUnknownCancel}}
)

var cancelRacesScenario = &scenarios.Scenario{
	ID:       client.CancelRacesScenario,
	Title:    "the client takes cancellations of requests no longer in flight in its stride",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: stateful,
	Needs: []scenarios.Need{
		scenarios.NeedsFixture(fixtures.ClientCancelAnswered, "the client calls it first, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, in order"),
		scenarios.NeedsFixture(fixtures.ClientCancelUnknown, "the client calls it second"),
		scenarios.NeedsFixture(fixtures.ClientStillThere, "the client calls it last")},
	Purpose: "The fake server's " + fixtures.ClientCancelAnswered + " pings the client on its call's stream and, once answered, sends " +
		"notifications/cancelled for that ping; " + fixtures.ClientCancelUnknown + " sends notifications/cancelled for an id it never used; " +
		fixtures.ClientStillThere + " just answers. Each tool answers after its cancellation.",
	Checks: []*scenarios.Check{cancelRacesLate, cancelRacesUnknown},
	Run: clientside.Body(func(t *clientside.T) {
		cancel := func(ctx context.Context, p *server.Peer, call *jsonrpc.Message, id jsonrpc.ID) {
			_ = p.Notify(transport.WithRelatedRequest(ctx, call.ID), protocol.NotificationCancelled,
				map[string]any{"requestId": id, "reason": "mcpconform: a cancellation that comes too late"})
		}
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{
				{Name: fixtures.ClientCancelAnswered, Description: "Pings the client, then cancels the answered ping",
					Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
						msg, err := jsonrpc.NewRequest(pingToCancel, protocol.MethodPing, nil)
						if err != nil {
							return nil, &jsonrpc.Error{Code: -32603, Message: err.Error()}
						}
						frame, err := msg.Encode()
						if err != nil {
							return nil, &jsonrpc.Error{Code: -32603, Message: err.Error()}
						}
						mark := p.Inbox().Mark()
						if err := p.SendRaw(transport.WithRelatedRequest(ctx, req.ID), frame); err != nil {
							return nil, &jsonrpc.Error{Code: -32603, Message: err.Error()}
						}
						wctx, stop := t.Wait()
						_, _ = p.Inbox().WaitFrom(wctx, mark, func(m *jsonrpc.Message) bool { return m.IsResponse() && m.ID.Equal(pingToCancel) })
						stop()
						// Answered or not, the ping is over for the server:
						// the cancellation comes after the fact.
						cancel(ctx, p, req, pingToCancel)
						return textResult("pinged, then cancelled the ping"), nil
					}},
				{Name: fixtures.ClientCancelUnknown, Description: "Cancels a request it never sent",
					Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
						cancel(ctx, p, req, neverSent)
						return textResult("cancelled a request that never was"), nil
					}},
				{Name: fixtures.ClientStillThere, Description: "Answers at once"},
			},
			Context: toolCalls(fixtures.ClientCancelAnswered, fixtures.ClientCancelUnknown, fixtures.ClientStillThere),
		})
		t.Step("wait for the client to call %s, %s and %s in turn", fixtures.ClientCancelAnswered, fixtures.ClientCancelUnknown, fixtures.ClientStillThere)
		out := t.Settle(func(r []clientside.Received) bool { return len(clientside.ToolCalls(r, fixtures.ClientStillThere)) > 0 })
		entries := t.Log().Entries()
		if len(clientside.ToolCalls(entries, fixtures.ClientCancelAnswered)) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientCancelAnswered, out)
		}
		if len(clientside.ToolCalls(entries, fixtures.ClientCancelUnknown)) == 0 {
			t.Fail(cancelRacesLate, "a call of "+fixtures.ClientCancelUnknown+" after the late cancellation of the answered ping",
				"none; "+t.DescribeEnd(out))
			t.Blocked("the client made no call after the late cancellation")
		}
		t.Pass(cancelRacesLate)
		t.Judge(cancelRacesUnknown, len(clientside.ToolCalls(entries, fixtures.ClientStillThere)) > 0,
			"a call of "+fixtures.ClientStillThere+" after the cancellation of an id never sent", "none; "+t.DescribeEnd(out))
	}),
}
