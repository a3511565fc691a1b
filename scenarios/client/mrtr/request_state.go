package mrtr

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The official suite's sep-2322-client-request-state: four tools, each
// called once by the client.

const echoState = "state-v1.eyJzdGVwIjoxLCJ0b29sIjoiZWNobyJ9.c2lnbmF0dXJl"

var (
	requestStateNewID = &scenarios.Check{ID: "client-mrtr-request-state/new-id", Level: scenarios.Must, Spec: mrtrSpec,
		Title:        "every retry has a JSON-RPC id different from the original request's and from the earlier retries'",
		Quote:        "The JSON-RPC id MUST be different between the initial request and the retry, as they are independent requests.",
		Faults:       []*fault.Fault{client.MRTRReusesID},
		Requirements: []string{"sep-2322-client-jsonrpc-id-different"}}
	requestStateEchoed = &scenarios.Check{ID: "client-mrtr-request-state/state-echoed", Level: scenarios.Must, Spec: mrtrSpec,
		Title:        "the retry carries the requestState the server sent, exactly",
		Quote:        "If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request.",
		Faults:       []*fault.Fault{client.MRTRDropsState},
		Requirements: []string{"sep-2322-client-request-state-echoed"}}
	requestStateNoneInvented = &scenarios.Check{ID: "client-mrtr-request-state/none-invented", Level: scenarios.Must, Spec: mrtrSpec,
		Title:        "a retry after an InputRequiredResult without requestState carries none",
		Quote:        "If the InputRequiredResult does not contain a requestState field, the client MUST NOT include one in the retry.",
		Faults:       []*fault.Fault{client.MRTRInventsState},
		Requirements: []string{"sep-2322-client-no-state-omitted"}}
	requestStateIsolated = &scenarios.Check{ID: "client-mrtr-request-state/not-reused", Level: scenarios.Must, Spec: mrtrSpec,
		Title:  "another request (a later call of another tool) carries neither inputResponses nor requestState",
		Quote:  "Both the inputRequests and requestState fields affect only the client's retry of the original request. They MUST NOT be used for any other request that the client may be sending in parallel.",
		Faults: []*fault.Fault{client.MRTRLeaksState},
		// on a later call: a harness cannot make a client send two calls at once
		Requirements: []string{"sep-2322-client-parallel-isolation"}}
	requestStateDefaultComplete = &scenarios.Check{ID: "client-mrtr-request-state/default-complete", Level: scenarios.Must, Spec: resultTypeDoc,
		Title:        "a result without resultType is taken as complete: the client does not retry it",
		Quote:        `For backward compatibility with servers implementing earlier protocol versions, which do not include resultType, clients MUST treat an absent resultType as "complete".`,
		Faults:       []*fault.Fault{client.MRTRRetriesComplete},
		Requirements: []string{"sep-2322-default-result-type-complete"}}
)

var requestStateScenario = &scenarios.Scenario{
	ID:       "client-mrtr-request-state",
	Official: "sep-2322-client-request-state",
	Title:    "the client's MRTR retries: new ids, requestState echoed or absent, nothing reused, no resultType means complete",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientMRTREchoState, "the client calls it"),
		scenarios.NeedsFixture(fixtures.ClientMRTRNoState, "the client calls it"),
		scenarios.NeedsFixture(fixtures.ClientMRTRUnrelated, "the client calls it"),
		scenarios.NeedsFixture(fixtures.ClientMRTRNoResultType, "the client calls it")},
	Purpose: "The fake server offers the official scenario's four tools. " + fixtures.ClientMRTREchoState + " answers input_required with one " +
		"elicitation (key confirm) and a requestState, " + fixtures.ClientMRTRNoState + " the same without requestState; both complete on the retry. " +
		fixtures.ClientMRTRUnrelated + " completes at once and " + fixtures.ClientMRTRNoResultType + " answers a result without resultType.",
	Checks: []*scenarios.Check{requestStateNewID, requestStateEchoed, requestStateNoneInvented, requestStateIsolated, requestStateDefaultComplete},
	Run: clientside.Body(func(t *clientside.T) {
		confirm := elicit("confirm", "Please confirm", "confirmed", "boolean")
		answerOnce := func(state *string) func(n int, req *jsonrpc.Message) map[string]any {
			return func(n int, req *jsonrpc.Message) map[string]any {
				if n == 0 {
					return inputRequired(state, askable(req, confirm)...)
				}
				return textResult("confirmed")
			}
		}
		t.Serve(clientside.Script{Tools: []clientside.Tool{
			{Name: fixtures.ClientMRTREchoState, Description: "asks for a confirmation, with a requestState", Call: roundsOf(answerOnce(ptr(echoState)))},
			{Name: fixtures.ClientMRTRNoState, Description: "asks for a confirmation, without requestState", Call: roundsOf(answerOnce(nil))},
			{Name: fixtures.ClientMRTRUnrelated, Description: "answers at once", Call: roundsOf(func(int, *jsonrpc.Message) map[string]any { return textResult("unrelated") })},
			{Name: fixtures.ClientMRTRNoResultType, Description: "answers a result without resultType",
				Call: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
					return clientside.AsIs(textResult("no resultType")), nil
				}},
		}})
		t.Step("wait for the client to call the four tools and retry the two that ask for input")
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientMRTREchoState)) >= 2 && len(clientside.ToolCalls(r, fixtures.ClientMRTRNoState)) >= 2 &&
				len(clientside.ToolCalls(r, fixtures.ClientMRTRUnrelated)) >= 1 && len(clientside.ToolCalls(r, fixtures.ClientMRTRNoResultType)) >= 1
		})
		entries := t.Log().Entries()
		echo, none := clientside.ToolCalls(entries, fixtures.ClientMRTREchoState), clientside.ToolCalls(entries, fixtures.ClientMRTRNoState)
		if len(echo) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientMRTREchoState, out)
		}
		if len(echo) < 2 {
			t.Fail(requestStateEchoed, "a retry of "+fixtures.ClientMRTREchoState+" with the requestState", "no retry; "+t.DescribeEnd(out))
			t.Blocked("the client did not retry " + fixtures.ClientMRTREchoState)
		}

		var reused []string
		for _, calls := range [][]clientside.Received{echo, none} {
			seen := map[string]bool{}
			for _, c := range calls {
				if seen[c.Msg.ID.Key()] {
					reused = append(reused, fmt.Sprintf("%s reused id %s", clientside.ReadCall(c.Msg).Name, c.Msg.ID))
				}
				seen[c.Msg.ID.Key()] = true
			}
		}
		t.Judge(requestStateNewID, len(reused) == 0, "a new JSON-RPC id on every retry", fmt.Sprint(reused))

		ok, actual := judgeEcho(echoState, readRetry(echo[1]))
		t.Judge(requestStateEchoed, ok, "requestState "+quoteShort(echoState)+" on the retry of "+fixtures.ClientMRTREchoState, actual)

		if len(none) < 2 {
			t.Fail(requestStateNoneInvented, "a retry of "+fixtures.ClientMRTRNoState+" without requestState", "no retry; "+t.DescribeEnd(out))
		} else {
			r := readRetry(none[1])
			t.Judge(requestStateNoneInvented, !r.hasState, "no requestState on the retry of "+fixtures.ClientMRTRNoState, describeState(r))
		}

		if unrelated := clientside.ToolCalls(entries, fixtures.ClientMRTRUnrelated); len(unrelated) == 0 {
			t.Fail(requestStateIsolated, "a call of "+fixtures.ClientMRTRUnrelated, "none; "+t.DescribeEnd(out))
		} else {
			var leaks []string
			for _, c := range unrelated {
				if r := readRetry(c); r.has || r.hasState {
					leaks = append(leaks, fmt.Sprintf("inputResponses present: %t, %s", r.has, describeState(r)))
				}
			}
			t.Judge(requestStateIsolated, len(leaks) == 0, "no inputResponses and no requestState on "+fixtures.ClientMRTRUnrelated, fmt.Sprint(leaks))
		}

		switch calls := clientside.ToolCalls(entries, fixtures.ClientMRTRNoResultType); {
		case len(calls) == 0:
			t.Fail(requestStateDefaultComplete, "a call of "+fixtures.ClientMRTRNoResultType, "none; "+t.DescribeEnd(out))
		default:
			t.Judge(requestStateDefaultComplete, len(calls) == 1, "one call of "+fixtures.ClientMRTRNoResultType+", taken as complete",
				fmt.Sprintf("%d calls: the client retried a result that has no resultType", len(calls)))
		}
	}),
}
