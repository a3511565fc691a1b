package server

import (
	"context"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// subscriptions/listen (2026-07-28/basic/patterns/subscriptions.mdx) on the
// reference server, part of the stateless family: a listen request stays
// open, is acknowledged first, and carries the list_changed notifications
// its filter asks for, each tagged with the request's id; the fixtures
// test_trigger_tool_change and test_trigger_prompt_change (the official
// server-stateless scenario's) announce a change to every open subscription.

const (
	methodSubscriptionsAck = "notifications/subscriptions/acknowledged"
)

// subscriptionsFamily serves subscriptions/listen. Its state is the
// reference's open subscriptions: over Streamable HTTP every POST is a
// connection of its own, so they cannot live on a connection.
type subscriptionsFamily struct {
	familyBase
	set subscriptionSet
}

func newSubscriptionsFamily(r *reference) family {
	return &subscriptionsFamily{familyBase: familyBase{r}, set: subscriptionSet{open: map[*subscription]bool{}}}
}

func (r *subscriptionsFamily) handlers() map[string]Handler {
	return map[string]Handler{protocol.MethodSubscriptionsListen: r.listen}
}

func (*subscriptionsFamily) capabilities(version string, caps map[string]any) {
	if !protocol.IsStateless(version) {
		return
	}
	// The trigger fixtures change the lists: the server says so.
	for _, c := range []string{"tools", "prompts"} {
		m, ok := caps[c].(map[string]any)
		if !ok {
			m = map[string]any{}
			caps[c] = m
		}
		m["listChanged"] = true
	}
}

func (r *subscriptionsFamily) tools() []refTool {
	return []refTool{
		{name: fixtures.TriggerToolChange, description: "Announces a change of the tool list to every open subscriptions/listen stream that asked for it.",
			call: func(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
				r.announce(protocol.NotificationToolsListChanged)
				return textResult(ctx, "Tool list changed.", false), nil
			}},
		{name: fixtures.TriggerPromptChange, description: "Announces a change of the prompt list to every open subscriptions/listen stream that asked for it.",
			call: func(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
				r.announce(protocol.NotificationPromptsListChanged)
				return textResult(ctx, "Prompt list changed.", false), nil
			}},
	}
}

func (*subscriptionsFamily) faults() fault.Set { return subscriptionFaults }

// subscription is one open subscriptions/listen request.
type subscription struct {
	p       *Peer
	id      jsonrpc.ID
	ctx     context.Context
	tools   bool // toolsListChanged asked
	prompts bool // promptsListChanged asked
}

type subscriptionSet struct {
	mu   sync.Mutex
	open map[*subscription]bool
}

func (r *subscriptionsFamily) subscriptions() *subscriptionSet { return &r.set }

// listen serves subscriptions/listen at 2026-07-28 (the session versions
// have no such method): the acknowledgement first, then the stream stays
// open until the client cancels it or the connection ends.
func (r *subscriptionsFamily) listen(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if !isModern(ctx) {
		return r.notFound(ctx, p, req)
	}
	var params protocol.ListenParams
	_ = json.Unmarshal(req.Params, &params)
	sub := &subscription{p: p, id: req.ID, ctx: ctx, tools: params.Notifications.ToolsListChanged, prompts: params.Notifications.PromptsListChanged}
	honored := map[string]any{} // resources are not offered on subscriptions: omitted
	if sub.tools {
		honored["toolsListChanged"] = true
	}
	if sub.prompts {
		honored["promptsListChanged"] = true
	}
	// Open before the acknowledgement: a change the client makes once it
	// has the acknowledgement reaches this subscription.
	set := r.subscriptions()
	set.mu.Lock()
	set.open[sub] = true
	set.mu.Unlock()
	if !r.is(ListenNoAck) {
		_ = p.Notify(transport.WithRelatedRequest(ctx, req.ID), methodSubscriptionsAck,
			map[string]any{"_meta": map[string]any{protocol.MetaSubscriptionID: req.ID}, "notifications": honored})
	}
	defer func() {
		set.mu.Lock()
		delete(set.open, sub)
		set.mu.Unlock()
	}()
	<-ctx.Done()
	return peer.NoAnswer, nil
}

// announce sends a list_changed notification on every open subscription
// that asked for it, tagged with the subscription's id.
func (r *subscriptionsFamily) announce(method string) {
	set := r.subscriptions()
	set.mu.Lock()
	var subs []*subscription
	for s := range set.open {
		subs = append(subs, s)
	}
	set.mu.Unlock()
	for _, s := range subs {
		asked := s.tools
		if method == protocol.NotificationPromptsListChanged {
			asked = s.prompts
		}
		switch {
		case r.is(ListenFilterIgnored):
		case !asked:
			continue
		case r.is(ListenNoToolsChanged) && method == protocol.NotificationToolsListChanged,
			r.is(ListenNoPromptsChanged) && method == protocol.NotificationPromptsListChanged:
			continue
		}
		params := map[string]any{"_meta": map[string]any{protocol.MetaSubscriptionID: s.id}}
		if r.is(ListenUntagged) {
			params = map[string]any{}
		}
		_ = s.p.Notify(transport.WithRelatedRequest(s.ctx, s.id), method, params)
	}
}

// Faults of subscriptions/listen.
var (
	ListenNoAck = &fault.Fault{Name: "listen-no-ack", Versions: modern,
		Description: "opens a subscriptions/listen stream without notifications/subscriptions/acknowledged"}
	ListenUntagged = &fault.Fault{Name: "listen-untagged", Versions: modern,
		Description: "sends list_changed notifications on a subscriptions/listen stream without _meta io.modelcontextprotocol/subscriptionId"}
	ListenFilterIgnored = &fault.Fault{Name: "listen-filter-ignored", Versions: modern,
		Description: "sends every list_changed notification to every open subscription, whatever its filter asked"}
	ListenNoToolsChanged = &fault.Fault{Name: "listen-no-tools-changed", Versions: modern,
		Description: "declares tools.listChanged but sends no notifications/tools/list_changed when test_trigger_tool_change changes the list"}
	ListenNoPromptsChanged = &fault.Fault{Name: "listen-no-prompts-changed", Versions: modern,
		Description: "declares prompts.listChanged but sends no notifications/prompts/list_changed when test_trigger_prompt_change changes the list"}
)

var subscriptionFaults = fault.Set{ListenNoAck, ListenUntagged, ListenFilterIgnored, ListenNoToolsChanged, ListenNoPromptsChanged}
