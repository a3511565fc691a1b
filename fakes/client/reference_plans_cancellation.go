package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// CancelTimeoutScenario is the id of the scenario in which a tool call of
// the client's outlives its timeout (scenarios/client/cancellation).
const CancelTimeoutScenario = "client-cancel-timeout"

// cancelTimeoutContext is what the scenario's context adds to its toolCalls:
// how long the client waits for each call before it cancels it.
type cancelTimeoutContext struct {
	TimeoutMs int `json:"timeoutMs"`
}

func init() {
	scenarioPlans[CancelTimeoutScenario] = func(ctx context.Context, rc *referenceRun) error {
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		sc, err := rc.context()
		if err != nil {
			return err
		}
		var hint cancelTimeoutContext
		_ = json.Unmarshal([]byte(rc.opts.Context), &hint) // context() read it already
		timeout := rc.opts.ResponseTimeout
		if hint.TimeoutMs > 0 {
			timeout = time.Duration(hint.TimeoutMs) * time.Millisecond
		}
		for i, c := range sc.ToolCalls {
			if err := rc.callOrCancel(ctx, fmt.Sprintf("mcpconform-client-call-%d", i+1), c.Name, c.Arguments, timeout); err != nil {
				return err
			}
		}
		return nil
	}
}

// callOrCancel calls a tool and, when no answer comes within timeout,
// cancels the call (2025-11-25/basic/lifecycle.mdx#timeouts: "the sender
// SHOULD issue a cancellation notification for that request and stop
// waiting for a response") and goes on; an answer that comes afterwards is
// ignored (basic/utilities/cancellation.mdx#behavior-requirements).
func (rc *referenceRun) callOrCancel(ctx context.Context, idText string, name string, args map[string]any, timeout time.Duration) error {
	id := jsonrpc.StringID(idText)
	mark := rc.session.Inbox().Mark()
	cctx, stop := context.WithTimeout(ctx, timeout)
	resp, err := rc.session.Do(cctx, Call{ID: id, Method: protocol.MethodToolsCall, Params: map[string]any{"name": name, "arguments": orEmpty(args)}})
	stop()
	switch {
	case err == nil && resp.Error != nil:
		return fmt.Errorf("the server answered tools/call %s with error %d: %s", name, resp.Error.Code, resp.Error.Message)
	case err == nil:
		rc.logf("tools/call %s: ok", name)
		return nil
	case !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return fmt.Errorf("the server at %s did not answer: %w", rc.opts.Server, err)
	}
	rc.logf("tools/call %s (id %s): no answer within %s; cancelling it", name, id, timeout)
	// At 2026-07-28 over Streamable HTTP closing the call's stream is the
	// cancellation (basic/patterns/cancellation.mdx: "No
	// notifications/cancelled message is required or expected").
	if rc.session.Stateless() && rc.target.Kind == transport.HTTP {
		rc.session.CloseRequestStream(id)
	} else if !rc.is(NoCancelOnTimeout) {
		cancelled := id
		if rc.is(CancelsWrongID) {
			cancelled = jsonrpc.StringID(idText + "-other")
		}
		nctx, stop := rc.step(ctx)
		err := rc.session.Notify(nctx, protocol.NotificationCancelled, map[string]any{"requestId": cancelled, "reason": "timed out"})
		stop()
		if err != nil {
			return fmt.Errorf("cancelling tools/call %s: %w", name, err)
		}
	}
	if rc.is(ExitsOnLateAnswer) {
		wctx, stop := rc.step(ctx)
		defer stop()
		if _, err := rc.session.Inbox().WaitFrom(wctx, mark, func(m *jsonrpc.Message) bool { return m.IsResponse() && m.ID.Equal(id) }); err == nil {
			return fmt.Errorf("an answer to tools/call %s, which this client cancelled, arrived; giving up (fault %s)", name, ExitsOnLateAnswer.Name)
		}
	}
	return nil
}
