package cancellation

import (
	"context"
	"encoding/json"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// At 2026-07-28 over Streamable HTTP the client cancels a request by
// closing its response stream (basic/patterns/cancellation.mdx,
// "Transport-Specific Cancellation"). The answer could travel only on that
// stream, so whether the server stops working cannot be seen; what can be
// is that the disconnect cancels that one request and nothing more.

const patternSpec = "2026-07-28/basic/patterns/cancellation.mdx#transport-specific-cancellation"

var disconnectSurvives = &scenarios.Check{ID: "cancel-by-disconnect/survives", Level: scenarios.Must, Spec: patternSpec,
	Quote: "The server MUST treat a client disconnect as cancellation of that request.",
	Title: "after the client closes the response stream of its tools/call of " + fixtures.TaskWorking + " while the call is " +
		"under way, the server answers the next request: the disconnect cancels that request, nothing more",
	Faults: []*fault.Fault{server.DiesOnDisconnect}}

var disconnectScenario = &scenarios.Scenario{
	ID:         "cancel-by-disconnect",
	Title:      "closing a call's response stream cancels that call only",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   []string{protocol.V20260728},
	Transports: []transport.Kind{transport.HTTP},
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.TaskWorking,
		"a plain call works for `ms` milliseconds, default argument ms: 60000; taskSupport optional, forbidden or absent")},
	Purpose: "The client calls a long-running tool with a progress token, waits until the call is under way (a progress " +
		"notification on its stream, or a quiet window), closes the call's stream, then sends the version's probe request, " +
		"which must be answered.",
	Checks: []*scenarios.Check{disconnectSurvives},
	Run: serverside.Body(func(t *serverside.T) {
		a := t.Open("A", client.Options{})
		fx := t.RequireTool(a, fixtures.TaskWorking, map[string]any{"ms": 60000})
		id := jsonrpc.StringID("mcpconform-disconnected-call-1")
		mark := a.Inbox().Mark()
		callCtx, closeStream := context.WithCancel(t.Ctx)
		defer closeStream()
		answered := make(chan *jsonrpc.Message, 1)
		ended := make(chan struct{})
		t.Step("call %s (id %s, progress token %s)", fx.Tool, id, server.DisconnectProgressToken)
		go func() {
			defer close(ended)
			resp, err := a.Do(callCtx, client.Call{ID: id, Method: protocol.MethodToolsCall,
				Params: map[string]any{"name": fx.Tool, "arguments": fx.Arguments},
				Meta:   map[string]any{"progressToken": server.DisconnectProgressToken}})
			if err == nil {
				answered <- resp
			}
		}()
		func() {
			// Progress is optional: without it the call is given a quiet
			// window to be under way.
			ctx, stop := context.WithTimeout(t.Ctx, t.QuietWindow())
			defer stop()
			token, _ := json.Marshal(server.DisconnectProgressToken)
			_, _ = a.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
				var p struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				}
				return m.Method == protocol.NotificationProgress && json.Unmarshal(m.Params, &p) == nil && string(p.ProgressToken) == string(token)
			})
		}()
		select {
		case resp := <-answered:
			t.NotJudgedRest("the call was answered before its stream could be closed (give the fixture a longer run: argument ms): " + string(resp.Raw))
		default:
		}
		t.Step("close the call's response stream")
		if !a.CloseRequestStream(id) {
			t.NotJudgedRest("the call's response stream had ended already (the call was answered as JSON, or its stream closed)")
		}
		closeStream()
		func() {
			ctx, stop := t.Wait()
			defer stop()
			select {
			case <-ended:
			case <-ctx.Done():
			}
		}()
		survives(t, a, server.AfterDisconnectID, disconnectSurvives)
	}),
}
