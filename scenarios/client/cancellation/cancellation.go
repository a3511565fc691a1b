// Package cancellation is the client cancellation family: a client that
// cancels a request of its own. A tool call the server does not answer
// outlives the timeout the scenario's context gives; the client cancels it
// (notifications/cancelled naming the call; at 2026-07-28 over Streamable
// HTTP, closing the call's stream) and goes on when the answer comes late.
// (What a client does with the server's cancellations is judged by the
// surface family: client-elicitation-cancelled, client-cancel-races.)
package cancellation

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

const family = "cancellation"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue { return scenarios.Catalogue{timeoutScenario} }

const (
	cancellationSpec = "2025-11-25/basic/utilities/cancellation.mdx"
	// timeoutMs is the timeout the context asks the client to give its
	// calls: short, so that the scenario is.
	timeoutMs = 1000
)

var (
	timeoutCancels = &scenarios.Check{ID: "client-cancel-timeout/cancels", Level: scenarios.Should, Spec: "2025-11-25/basic/lifecycle.mdx#timeouts",
		Quote: "When the request has not received a success or error response within the timeout period, the sender SHOULD " +
			"issue a cancellation notification for that request and stop waiting for a response.",
		Title: fmt.Sprintf("a tools/call of %s, which the server does not answer within the timeout the context gives (timeoutMs %d), "+
			"is cancelled: with notifications/cancelled, or at 2026-07-28 over Streamable HTTP by closing the call's response stream "+
			"(basic/patterns/cancellation.mdx: \"Closing the SSE response stream is the cancellation signal.\")", fixtures.ClientTimesOut, timeoutMs),
		Faults: []*fault.Fault{client.NoCancelOnTimeout}}
	timeoutRequestID = &scenarios.Check{ID: "client-cancel-timeout/request-id", Level: scenarios.Must, Spec: cancellationSpec + "#behavior-requirements",
		Quote: "Cancellation notifications MUST only reference requests that:",
		Title: "the requestId of each notifications/cancelled the client sends is, as a JSON value, the id of its tools/call in " +
			"flight (the list's first item: \"Were previously issued in the same direction\")",
		Faults: []*fault.Fault{client.CancelsWrongID}}
	timeoutIgnoresLateAnswer = &scenarios.Check{ID: "client-cancel-timeout/ignores-late-answer", Level: scenarios.Should, Spec: cancellationSpec + "#behavior-requirements",
		Quote:  "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward",
		Title:  "once the server has answered the cancelled call anyway, the client goes on: it calls " + fixtures.ClientStillThere + " after that",
		Faults: []*fault.Fault{client.ExitsOnLateAnswer}}
)

var timeoutScenario = &scenarios.Scenario{
	ID:       client.CancelTimeoutScenario,
	Title:    "a client cancels a call that outlives its timeout and ignores the late answer",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: protocol.Judged(),
	Needs: []scenarios.Need{
		scenarios.NeedsFixture(fixtures.ClientTimesOut, fmt.Sprintf("the client calls it first, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say, "+
			"and gives up on it after the context's timeoutMs (%d)", timeoutMs)),
		scenarios.NeedsFixture(fixtures.ClientStillThere, "the client calls it twice after that")},
	Purpose: "The fake server's " + fixtures.ClientTimesOut + " answers nothing until the client cancels the call; then it answers " +
		"anyway, late (not at 2026-07-28 over Streamable HTTP, where the cancellation closed the call's only stream). " +
		fixtures.ClientStillThere + " answers once the late answer is out, so the client's second call of it comes after the late answer.",
	Checks: []*scenarios.Check{timeoutCancels, timeoutRequestID, timeoutIgnoresLateAnswer},
	Run:    clientside.Body(runTimeout),
}

func runTimeout(t *clientside.T) {
	streamIsCancel := protocol.IsStateless(t.Env.Version) && t.Env.Transport == transport.HTTP
	var (
		mu       sync.Mutex
		closed   bool      // the call's context ended without a notification in sight
		lateErr  error     // why the late answer could not go out
		lateSent time.Time // when it went out
	)
	lateDone := make(chan struct{})
	var once sync.Once
	finish := func() { once.Do(func() { close(lateDone) }) }
	isCancel := func(m *jsonrpc.Message) bool { return m.Method == protocol.NotificationCancelled }
	t.Serve(clientside.Script{
		Tools: []clientside.Tool{
			{Name: fixtures.ClientTimesOut, Description: "Answers only once the call is cancelled: give it a short timeout",
				Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					defer finish()
					mark := p.Inbox().Mark()
					// The client's timeout, then the response timeout for its cancellation.
					wctx, stop := context.WithTimeout(p.Context(), timeoutMs*time.Millisecond+t.Env.Timing.ResponseTimeout)
					defer stop()
					cancelled := make(chan struct{})
					go func() {
						if _, err := p.Inbox().WaitFrom(wctx, mark, isCancel); err == nil {
							close(cancelled)
						}
					}()
					select {
					case <-cancelled:
					case <-ctx.Done():
					case <-wctx.Done():
					}
					// Decided from state, not from which case won: the call's
					// stream closing ends ctx and wctx at once (both hang off
					// the connection's context), and select picks at random.
					if ctx.Err() != nil && streamIsCancel {
						mu.Lock()
						closed = true
						mu.Unlock()
						return peer.NoAnswer, nil
					}
					if p.Context().Err() != nil {
						return peer.NoAnswer, nil // the client has gone: nobody to answer late
					}
					if ctx.Err() == nil && len(p.Inbox().Matching(mark, isCancel)) == 0 {
						return peer.NoAnswer, nil // never cancelled within the time given
					}
					mu.Lock()
					defer mu.Unlock()
					if streamIsCancel {
						return peer.NoAnswer, nil // no stream left to answer on
					}
					result := textResult("an answer after the cancellation")
					if protocol.IsStateless(t.Env.Version) {
						result["resultType"] = "complete" // what the script adds to the answers it sends itself
					}
					late, err := jsonrpc.NewResult(req.ID, result)
					if err == nil {
						var frame []byte
						if frame, err = late.Encode(); err == nil {
							sctx, stop := t.Wait()
							err = p.SendRaw(transport.WithRelatedRequest(sctx, req.ID), frame)
							stop()
						}
					}
					lateErr, lateSent = err, time.Now()
					return peer.NoAnswer, nil
				}},
			{Name: fixtures.ClientStillThere, Description: "Answers at once",
				Call: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
					wctx, stop := t.Wait()
					defer stop()
					select {
					case <-lateDone:
					case <-wctx.Done():
					}
					return textResult("still there"), nil
				}},
		},
		Context: map[string]any{"timeoutMs": timeoutMs, "toolCalls": []any{
			map[string]any{"name": fixtures.ClientTimesOut, "arguments": map[string]any{}},
			map[string]any{"name": fixtures.ClientStillThere, "arguments": map[string]any{}},
			map[string]any{"name": fixtures.ClientStillThere, "arguments": map[string]any{}}}},
	})
	t.Step("wait for the client to call %s, cancel it, and call %s twice", fixtures.ClientTimesOut, fixtures.ClientStillThere)
	out := t.Settle(func(r []clientside.Received) bool {
		return len(clientside.ToolCalls(r, fixtures.ClientStillThere)) >= 2
	})
	entries := t.Log().Entries()
	calls := clientside.ToolCalls(entries, fixtures.ClientTimesOut)
	if len(calls) == 0 {
		t.Missed("a tools/call of "+fixtures.ClientTimesOut, out)
	}
	call := calls[0]
	var cancels []clientside.Received
	for _, r := range entries {
		if r.Msg.Method == protocol.NotificationCancelled && !r.At.Before(call.At) {
			cancels = append(cancels, r)
		}
	}
	// The call's handler is over once the second call was made (that call
	// waits for it), or gave up waiting.
	wctx, stop := t.Wait()
	select {
	case <-lateDone:
	case <-wctx.Done():
	}
	stop()
	mu.Lock()
	defer mu.Unlock()

	cancelled := len(cancels) > 0 || streamIsCancel && closed
	expected, actual := "notifications/cancelled for the call", "no notifications/cancelled"
	if streamIsCancel {
		expected, actual = expected+", or its stream closed", actual+", and the call's stream stayed open"
	}
	t.Judge(timeoutCancels, cancelled, expected, actual+"; "+t.DescribeEnd(out))

	if len(cancels) == 0 {
		t.NotJudged(timeoutRequestID, "the client sent no notifications/cancelled")
	} else {
		wrong := ""
		for _, c := range cancels {
			var p protocol.CancelledParams
			_ = json.Unmarshal(c.Msg.Params, &p)
			if !jsonrpc.ID(p.RequestID).Equal(call.Msg.ID) {
				wrong = string(c.Msg.Raw)
				break
			}
		}
		t.Judge(timeoutRequestID, wrong == "", "requestId "+call.Msg.ID.String(), wrong)
	}

	switch {
	case streamIsCancel:
		t.Skip(timeoutIgnoresLateAnswer, "at 2026-07-28 over Streamable HTTP the cancellation closed the call's stream: no answer can follow it")
	case lateSent.IsZero():
		t.NotJudged(timeoutIgnoresLateAnswer, "the call was not cancelled, so no late answer was sent")
	case lateErr != nil:
		t.NotJudged(timeoutIgnoresLateAnswer, "the late answer could not be sent: "+lateErr.Error())
	default:
		after := 0
		for _, r := range clientside.ToolCalls(t.Log().Entries(), fixtures.ClientStillThere) {
			if r.At.After(lateSent) {
				after++
			}
		}
		t.Judge(timeoutIgnoresLateAnswer, after > 0, "a call of "+fixtures.ClientStillThere+" after the late answer", "none; "+t.DescribeEnd(out))
	}
}

func textResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}
