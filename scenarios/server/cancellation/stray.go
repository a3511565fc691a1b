package cancellation

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Cancellations a server cannot act on: of a request it never received, of
// one it already answered, and many of them in a row. Each is judged by the
// request sent behind it on the same connection.

const (
	// The list item under "Invalid cancellation notifications SHOULD be
	// ignored:" (Error Handling), on every version's page.
	ignoredQuote = "Invalid cancellation notifications SHOULD be ignored:"
	raceQuote    = "Both parties MUST handle these race conditions gracefully:"
)

var (
	strayUnknownIgnored = &scenarios.Check{ID: "cancel-stray/unknown-ignored", Level: scenarios.Should, Spec: cancellationSpec + "#error-handling",
		Quote: ignoredQuote,
		Title: "after a notifications/cancelled for a request id the client never sent (the page's first invalid case, " +
			"\"Unknown request IDs\"), the server answers the next request on the same connection",
		Faults: []*fault.Fault{server.ClosesOnUnknownCancel}}
	strayAnsweredSurvived = &scenarios.Check{ID: "cancel-stray/answered-survived", Level: scenarios.Must, Spec: cancellationSpec + "#timing-considerations",
		Quote: raceQuote,
		Title: "after a notifications/cancelled for a request the server had already answered (the race the page describes: " +
			"\"cancellation notifications may arrive after request processing has completed\"), the server answers the next " +
			"request on the same connection",
		Faults: []*fault.Fault{server.ClosesOnLateCancel}}
	strayNoResponse = &scenarios.Check{ID: "cancel-stray/no-response", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#notifications",
		Quote: "The receiver MUST NOT send a response.",
		Title: "neither notification (unknown id, answered id) is answered: no response carrying the cancelled id arrives " +
			"before the next request's answer and a quiet window after it",
		Faults: []*fault.Fault{server.AnswersStrayCancel}}
)

var strayScenario = &scenarios.Scenario{
	ID:       "cancel-stray",
	Title:    "a cancellation of a request unknown or already answered is ignored",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Purpose: "On one connection the client cancels a request id it never sent; on another it sends " +
		"the version's probe request, takes the answer, then cancels that request. A request follows each cancellation " +
		"on its connection and must be answered; no response may answer either notification.",
	Checks: []*scenarios.Check{strayUnknownIgnored, strayAnsweredSurvived, strayNoResponse},
	Run: serverside.Body(func(t *serverside.T) {
		probe := t.Version().Probe
		unknown := jsonrpc.StringID(server.CancelUnknownPrefix + "1")
		answered := jsonrpc.StringID(server.CancelAnsweredPrefix + "1")

		a := t.Open("A", client.Options{})
		markA := a.Inbox().Mark()
		t.Step("cancel %s, which was never sent", unknown)
		cancel(t, a, unknown, "mcpconform: a request that never was")
		survives(t, a, "mcpconform-after-unknown-cancel", strayUnknownIgnored)

		b := t.Open("B", client.Options{})
		t.Step("send %s (id %s) and take its answer", probe, answered)
		if resp, err := t.Do(b, client.Call{ID: answered, Method: probe, Params: map[string]any{}}); err != nil || resp.Error != nil {
			t.NotJudged(strayAnsweredSurvived, probe+" was not answered with a result: "+judge.Describe(resp, err))
		} else {
			markB := b.Inbox().Mark()
			t.Step("cancel %s, already answered", answered)
			cancel(t, b, answered, "mcpconform: a cancellation that comes too late")
			survives(t, b, "mcpconform-after-late-cancel", strayAnsweredSurvived)
			if stray := quiet(t, b, markB, answers(answered)); stray != nil {
				t.Fail(strayNoResponse, "no response to the notifications/cancelled for "+answered.String(), describeStray(stray))
				return
			}
		}
		stray := quiet(t, a, markA, answers(unknown))
		t.Judge(strayNoResponse, stray == nil, "no response to the notifications/cancelled for "+unknown.String(), describeStray(stray))
	}),
}

// survives judges that the connection still answers a request: any
// response, a result or an error, proves the server alive and reading.
func survives(t *serverside.T, s *client.Session, id string, check *scenarios.Check) {
	rid := jsonrpc.StringID(id)
	resp, err := t.Do(s, client.Call{ID: rid, Method: t.Version().Probe, Params: map[string]any{}})
	status, note := serverside.StatusNote(s, rid)
	// Over HTTP a 404 means the session is gone (streamable HTTP session management).
	t.Judge(check, err == nil && status != 404, "a response to "+t.Version().Probe+" on the same connection", judge.Describe(resp, err)+note)
}

var burstSurvived = &scenarios.Check{ID: "cancel-burst/survived", Level: scenarios.Should, Spec: cancellationSpec + "#error-handling",
	Quote: ignoredQuote,
	Title: fmt.Sprintf("after %d notifications/cancelled in a row, each for a request id never sent, the server answers the next "+
		"request on the same connection", server.CancelBurstSize),
	Faults: []*fault.Fault{server.HangsAfterCancelBurst}}

var burstScenario = &scenarios.Scenario{
	ID:       "cancel-burst",
	Title:    "a burst of cancellations does not stop the server",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Purpose: fmt.Sprintf("The client sends %d notifications/cancelled back to back, for ids it never sent, then the version's "+
		"probe request, which must be answered.", server.CancelBurstSize),
	Checks: []*scenarios.Check{burstSurvived},
	Run: serverside.Body(func(t *serverside.T) {
		a := t.Open("A", client.Options{})
		t.Step("send %d cancellations", server.CancelBurstSize)
		for i := range server.CancelBurstSize {
			cancel(t, a, jsonrpc.StringID(fmt.Sprintf("%s%d", server.CancelBurstPrefix, i+1)), "mcpconform: one of a burst")
		}
		survives(t, a, "mcpconform-after-cancel-burst", burstSurvived)
	}),
}
