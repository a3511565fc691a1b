package surface

import (
	"context"
	"sync"
	"time"

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

// The server asks for a form and, while the client's user has not
// answered, cancels the question with notifications/cancelled. A client
// whose user answers at once gives the cancellation nothing to act on and
// is not judged; one still holding the question must not answer it.

var cancelledNoAnswer = &scenarios.Check{ID: "client-elicitation-cancelled/no-answer-after-cancel", Level: scenarios.Should,
	Spec: "2025-11-25/basic/utilities/cancellation.mdx#behavior-requirements",
	Title: "an elicitation/create the server cancelled while it was pending gets no answer afterwards " +
		"(watched for the quiet window; judged only when the client had not answered within the quiet window before the cancellation)",
	Quote:  "Not send a response for the cancelled request",
	Faults: []*fault.Fault{client.AnswersAfterCancel}}

// cancelledID is the id of the question the server cancels: chosen here,
// so that the cancellation can name it.
var cancelledID = jsonrpc.StringID("mcpconform-elicitation-to-cancel")

var cancelledScenario = &scenarios.Scenario{
	ID:       client.ElicitationCancelledScenario,
	Title:    "an elicitation the server cancels while the user has not answered gets no answer",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: withElicitation,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientElicitationCancelled, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say"),
		scenarios.NeedsOther("the elicitation capability"), scenarios.NeedsOther("a user (or harness) that takes longer than the quiet window to answer a form")},
	Purpose: "The fake server's " + fixtures.ClientElicitationCancelled + " sends elicitation/create on its call's stream, waits the quiet window for " +
		"an answer, then sends notifications/cancelled for it and watches another quiet window for an answer that should not come.",
	Checks: []*scenarios.Check{cancelledNoAnswer},
	Run: clientside.Body(func(t *clientside.T) {
		var (
			mu         sync.Mutex
			asked      bool
			early      *jsonrpc.Message // answered before the cancellation
			late       *jsonrpc.Message // answered after it
			cancelErr  error
			cancelSent time.Time
		)
		done := make(chan struct{})
		var once sync.Once
		finish := func() { once.Do(func() { close(done) }) }
		answerTo := func(m *jsonrpc.Message) bool { return m.IsResponse() && m.ID.Equal(cancelledID) }
		params := map[string]any{"message": "Please confirm (this question will be withdrawn)", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"confirmed": map[string]any{"type": "boolean"}}, "required": []any{"confirmed"}}}
		if protocol.Features(t.Env.Version).ElicitationModes {
			params["mode"] = "form"
		}
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{{Name: fixtures.ClientElicitationCancelled, Description: "Asks for a confirmation, then withdraws the question",
				Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					defer finish()
					if _, ok := declared(t)["elicitation"]; !ok {
						return textResult("This tool needs the client's elicitation capability."), nil
					}
					related := transport.WithRelatedRequest(ctx, req.ID)
					msg, err := jsonrpc.NewRequest(cancelledID, protocol.MethodElicitationCreate, params)
					if err != nil {
						return nil, &jsonrpc.Error{Code: -32603, Message: err.Error()}
					}
					frame, err := msg.Encode()
					if err != nil {
						return nil, &jsonrpc.Error{Code: -32603, Message: err.Error()}
					}
					mark := p.Inbox().Mark()
					if err := p.SendRaw(related, frame); err != nil {
						return nil, &jsonrpc.Error{Code: -32603, Message: err.Error()}
					}
					mu.Lock()
					asked = true
					mu.Unlock()
					qctx, cancel := context.WithTimeout(ctx, t.QuietWindow())
					m, _ := p.Inbox().WaitFrom(qctx, mark, answerTo)
					cancel()
					if m != nil {
						mu.Lock()
						early = m
						mu.Unlock()
						return textResult("answered before it could be withdrawn"), nil
					}
					err = p.Notify(related, protocol.NotificationCancelled, map[string]any{
						"requestId": cancelledID, "reason": "The server no longer needs this input"})
					mu.Lock()
					cancelErr, cancelSent = err, time.Now()
					mu.Unlock()
					qctx, cancel = context.WithTimeout(ctx, t.QuietWindow())
					m, _ = p.Inbox().WaitFrom(qctx, mark, answerTo)
					cancel()
					mu.Lock()
					late = m
					mu.Unlock()
					return textResult("question withdrawn"), nil
				}}},
			Context: toolCalls(fixtures.ClientElicitationCancelled),
		})
		t.Step("wait for the client to call %s; the server withdraws its question", fixtures.ClientElicitationCancelled)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientElicitationCancelled)) > 0
		})
		if len(clientside.ToolCalls(t.Log().Entries(), fixtures.ClientElicitationCancelled)) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientElicitationCancelled, out)
		}
		ctx, cancel := t.Wait()
		select {
		case <-done:
		case <-ctx.Done():
		}
		cancel()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !asked:
			t.SkipRest("the client declares no elicitation capability")
		case early != nil:
			t.SkipRest("the client answered the form within the quiet window (" + t.QuietWindow().String() +
				"), before the server could withdraw it: no pending question to cancel")
		case cancelErr != nil:
			t.Lost("the client to stay connected while its question is withdrawn", "notifications/cancelled could not be sent: "+cancelErr.Error())
		case cancelSent.IsZero():
			t.Abort("the tool did not finish within the response timeout (a defect in mcpconform)")
		}
		if late != nil {
			t.Fail(cancelledNoAnswer, "no answer to "+cancelledID.String()+" after notifications/cancelled",
				"an answer "+abbreviate(jsonText(late))+" after the cancellation")
			return
		}
		t.PassWith(cancelledNoAnswer, "no answer within "+t.QuietWindow().String()+" of the cancellation")
	}),
}
