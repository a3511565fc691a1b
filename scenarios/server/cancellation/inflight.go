package cancellation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// A request in flight, cancelled with notifications/cancelled: a tools/call
// blocked on its elicitation, and a long-running tools/call. The server
// should stop and send no response. (The ids and the family are older
// than this package: they were judged in the tasks family first.)

const (
	cancellationBehaviourSpec = "2025-11-25/basic/utilities/cancellation.mdx#behavior-requirements"
	// The list item under "Receivers of cancellation notifications SHOULD:".
	noResponseAfterCancel = "Not send a response for the cancelled request"
)

var (
	toolsCancelDuringElicitationNoResponseAfterCancel = &scenarios.Check{ID: "tools-cancel-during-elicitation/no-response-after-cancel", Level: scenarios.Should, Spec: cancellationBehaviourSpec,
		Quote:  noResponseAfterCancel,
		Title:  "after notifications/cancelled the server sends no response for the cancelled tools/call",
		Faults: []*fault.Fault{server.RespondsAfterCancel}}
)

var callCancelledScenario = &scenarios.Scenario{
	ID:       "tools-cancel-during-elicitation",
	Title:    "a tools/call cancelled while it waits for an elicitation is never answered",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: protocol.StatefulWith(protocol.MethodElicitationCreate),
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.Elicitation, "official fixture: elicits with the given message")},
	Purpose: "The non-task variant: the client sends notifications/cancelled for a tools/call blocked on its elicitation, " +
		"then answers the elicitation anyway. The server should stop and send no response for the cancelled call.",
	Checks: []*scenarios.Check{toolsCancelDuringElicitationNoResponseAfterCancel},
	Run: serverside.Body(func(t *serverside.T) {
		a := t.Open("A", client.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}})
		fx := t.RequireTool(a, fixtures.Elicitation, map[string]any{"message": "mcpconform: please confirm"})
		held := a.Hold(protocol.MethodElicitationCreate)
		id := jsonrpc.StringID("mcpconform-cancelled-call-1")
		req, _ := jsonrpc.NewRequest(id, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments})
		frame, _ := req.Encode()
		mark := a.Inbox().Mark()
		t.Step("call %s (id %s) and wait for its elicitation", fx.Tool, id)
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			if err := a.SendRaw(ctx, frame); err != nil {
				t.Abort("could not send to the target: %v", err)
			}
		}()
		h := callElicitation(t, a, held, mark, id)
		t.Step("send notifications/cancelled for %s, then answer the elicitation anyway", id)
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			_ = a.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": id, "reason": "mcpconform: cancelled by the user"})
		}()
		h.Answer(client.ElicitationAnswer("accept", map[string]any{"username": "mcpconform", "email": "conformance@example.com", "confirm": true}))
		// A server may drop the connection on the late answer (the fault
		// crash-on-late-answer): tasks-cancel-during-elicitation/survives-late-answer
		// judges that; here it only means no response can come.
		t.BarrierOrEnd(a)
		stray := quiet(t, a, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) })
		actual := "no response"
		if stray != nil {
			actual = string(stray.Raw)
		}
		t.Judge(toolsCancelDuringElicitationNoResponseAfterCancel, stray == nil, "no response for "+id.String(), actual)
	}),
}

var (
	toolsCancelLongRunningNoResponseAfterCancel = &scenarios.Check{ID: "tools-cancel-long-running/no-response-after-cancel", Level: scenarios.Should, Spec: cancellationBehaviourSpec,
		Quote:  noResponseAfterCancel,
		Title:  "a plain (not task-augmented) tools/call of a long-running tool, cancelled with notifications/cancelled, gets no response",
		Faults: []*fault.Fault{server.RespondsAfterCancel}}
)

// The progress token the long-running call carries: a progress
// notification for it says the server has the call in hand.
const longRunningProgressToken = "mcpconform-long-running-1"

var callCancelledLongRunningScenario = &scenarios.Scenario{
	ID:       "tools-cancel-long-running",
	Title:    "a long-running tools/call cancelled with notifications/cancelled is never answered",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: []string{protocol.V20260728, protocol.V20251125, protocol.V20250618},
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.TaskWorking, "a plain call works for `ms` milliseconds, default argument ms: 2000; taskSupport optional, forbidden or absent")},
	Purpose: "Cancellation without any fixture that asks a question: the client calls a long-running tool plainly, with a progress " +
		"token, waits until the server has the call in hand (a progress notification, or a quiet window), sends " +
		"notifications/cancelled and watches until the call would have finished. The server should stop and send no response.",
	Checks: []*scenarios.Check{toolsCancelLongRunningNoResponseAfterCancel},
	Run:    serverside.Body(runCancelLongRunning),
}

func runCancelLongRunning(t *serverside.T) {
	if protocol.IsStateless(t.Env.Version) && t.Env.Transport == transport.HTTP {
		t.SkipRest("at 2026-07-28 over Streamable HTTP a client cancels by closing the call's response stream (basic/patterns/cancellation.mdx: " +
			"\"No notifications/cancelled message is required or expected.\"), and that stream was the only way an answer could come")
	}
	a := t.Open("A", client.Options{})
	// Long enough that the cancellation lands first on a busy machine.
	fx := t.RequireTool(a, fixtures.TaskWorking, map[string]any{"ms": 2000})
	if tools, err := t.ListTools(a); err == nil && tools[fx.Tool].Execution.TaskSupport == "required" {
		t.SkipRest(fmt.Sprintf("tool %q has execution.taskSupport required: it has no plain call to cancel with notifications/cancelled", fx.Tool))
	}
	id := jsonrpc.StringID("mcpconform-long-call-1")
	meta := map[string]any{"progressToken": longRunningProgressToken}
	if a.Stateless() {
		for k, v := range a.RequestMeta() { // the frame is raw: the per-request _meta is ours to add
			meta[k] = v
		}
	}
	req, _ := jsonrpc.NewRequest(id, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments, "_meta": meta})
	frame, _ := req.Encode()
	mark := a.Inbox().Mark()
	started := time.Now()
	t.Step("call %s plainly (id %s, progress token %s)", fx.Tool, id, longRunningProgressToken)
	func() {
		ctx, cancel := t.Wait()
		defer cancel()
		if err := a.SendRaw(ctx, frame); err != nil {
			t.Abort("could not send to the target: %v", err)
		}
	}()
	answer := func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) }
	func() {
		// Progress is optional: without it the call is given a quiet window
		// to be under way.
		ctx, cancel := context.WithTimeout(t.Ctx, t.QuietWindow())
		defer cancel()
		first, _ := a.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
			return answer(m) || m.Method == protocol.NotificationProgress && strings.Contains(string(m.Params), longRunningProgressToken)
		})
		if first != nil && answer(first) {
			t.NotJudgedRest("the call was answered before it could be cancelled (give the fixture a longer run: argument ms)")
		}
		if first != nil {
			started = time.Now() // the server has the call in hand: its run counts from here
		}
	}()
	t.Step("send notifications/cancelled for %s", id)
	func() {
		ctx, cancel := t.Wait()
		defer cancel()
		_ = a.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": id, "reason": "mcpconform: cancelled by the user"})
	}()
	t.Barrier(a)
	// Watch until the call would have finished, and a margin more: the
	// quiet window, or the run again when that is longer (a server's timer
	// and its write slip on a busy machine, in proportion to the run).
	run := runTime(fx.Arguments, t.Env.Timing.ResponseTimeout)
	watch := time.Until(started.Add(run)) + max(t.QuietWindow(), run)
	t.Step("watch %s for a response to %s", watch.Round(time.Millisecond), id)
	ctx, cancel := context.WithTimeout(t.Ctx, max(watch, t.QuietWindow()))
	defer cancel()
	stray, _ := a.Inbox().WaitFrom(ctx, mark, answer)
	actual := "no response"
	if stray != nil {
		actual = string(stray.Raw)
	}
	t.Judge(toolsCancelLongRunningNoResponseAfterCancel, stray == nil, "no response for "+id.String(), actual)
}

// runTime is how long a call of the fixture runs: its `ms` argument when it
// has one (the fixture's contract), else fallback.
func runTime(args map[string]any, fallback time.Duration) time.Duration {
	switch ms := args["ms"].(type) {
	case int:
		return time.Duration(ms) * time.Millisecond
	case int64:
		return time.Duration(ms) * time.Millisecond
	case float64:
		return time.Duration(ms * float64(time.Millisecond))
	}
	return fallback
}

// callElicitation waits for the elicitation a plain tools/call (sent raw,
// so its answer lands in the inbox) asks from inside itself. A call
// answered without asking stops the wait at once: there is nothing to
// cancel during.
func callElicitation(t *serverside.T, s *client.Session, held *client.HeldRequests, mark int, id jsonrpc.ID) *client.Held {
	ctx, cancel := t.Wait()
	defer cancel()
	asked := make(chan *client.Held, 1)
	go func() {
		if h, err := held.Next(ctx); err == nil {
			asked <- h
		}
	}()
	answered := make(chan *jsonrpc.Message, 1)
	go func() {
		if m, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) }); err == nil {
			answered <- m
		}
	}()
	select {
	case h := <-asked:
		return h
	case m := <-answered:
		t.Blocked("the call was answered without asking for input: %s", judge.Describe(m, nil))
	case <-ctx.Done():
		t.Blocked("the call asked for no input within %s", t.Env.Timing.ResponseTimeout)
	}
	return nil
}
