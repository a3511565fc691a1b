package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The reference server's cancellation family: the conformant reference
// ignores a notifications/cancelled it cannot act on
// (2025-11-25/basic/utilities/cancellation.mdx#error-handling: "Invalid
// cancellation notifications SHOULD be ignored"); the peer stops a request
// in flight on its own (fakes/peer). The family holds only the faults.
type cancellationFamily struct {
	familyBase
	// disconnected: the call whose stream cancel-by-disconnect closes has
	// come (the fault dies-on-disconnect).
	disconnected atomic.Bool
}

func newCancellationFamily(r *reference) family {
	return &cancellationFamily{familyBase: familyBase{r}}
}

func (*cancellationFamily) faults() fault.Set { return cancellationFaults }

// Keys of the connection state the burst fault keeps.
const (
	cancelBurstSeenKey = "cancel-burst-seen"
	cancelBurstHungKey = "cancel-burst-hung"
)

// notifications observes each notifications/cancelled, in the read loop
// (so a burst is counted before the request behind it is served).
func (r *cancellationFamily) notifications() map[string]NotificationHandler {
	return map[string]NotificationHandler{protocol.NotificationCancelled: r.cancelled}
}

func (r *cancellationFamily) cancelled(ctx context.Context, p *Peer, msg *jsonrpc.Message) {
	var params protocol.CancelledParams
	if json.Unmarshal(msg.Params, &params) != nil {
		return
	}
	var id string
	if json.Unmarshal(params.RequestID, &id) != nil {
		return // the markers are string ids
	}
	unknown, answered := strings.HasPrefix(id, CancelUnknownPrefix), strings.HasPrefix(id, CancelAnsweredPrefix)
	switch {
	case r.is(ClosesOnUnknownCancel) && unknown, r.is(ClosesOnLateCancel) && answered:
		p.Close()
	case r.is(AnswersStrayCancel) && (unknown || answered):
		p.ReplyError(ctx, jsonrpc.ID(params.RequestID), codes.InvalidParams, "No request in progress with id "+id, nil)
	case r.is(HangsAfterCancelBurst) && strings.HasPrefix(id, CancelBurstPrefix):
		seen, _ := p.Get(cancelBurstSeenKey).(int) // one read loop: no race
		p.Set(cancelBurstSeenKey, seen+1)
		if seen+1 >= CancelBurstSize {
			p.Set(cancelBurstHungKey, true)
		}
	}
}

// wrap notes, for dies-on-disconnect, the scenario's tools/call whose stream
// the client will close. It is noted when it starts: the server notices a
// closed stream when it next reads or writes, which may come after the
// request behind it, and the fault must not depend on that race.
func (r *cancellationFamily) wrap(method string, next Handler) Handler {
	if method != protocol.MethodToolsCall || !r.is(DiesOnDisconnect) {
		return next
	}
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		if token, ok := progressToken(req); ok && string(token) == `"`+DisconnectProgressToken+`"` {
			r.disconnected.Store(true)
		}
		return next(ctx, p, req)
	}
}

// layer leaves unanswered every request on a connection the burst hung,
// and the request after the disconnect once a disconnect "took the server
// down".
func (r *cancellationFamily) layer(next Handler) Handler {
	if !r.is(HangsAfterCancelBurst) && !r.is(DiesOnDisconnect) {
		return next
	}
	after := jsonrpc.StringID(AfterDisconnectID)
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		if hung, _ := p.Get(cancelBurstHungKey).(bool); hung {
			return peer.NoAnswer, nil
		}
		if r.disconnected.Load() && req.ID.Equal(after) {
			return peer.NoAnswer, nil
		}
		return next(ctx, p, req)
	}
}
