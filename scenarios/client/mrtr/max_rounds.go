package mrtr

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// hangFactor is how far past the limit a client still retrying is taken
// for one that never stops.
const hangFactor = 10

var maxRoundsStops = &scenarios.Check{ID: "client-mrtr-max-rounds/stops", Level: scenarios.Should,
	Spec: "2026-07-28/client/sampling.mdx#security-considerations",
	Title: "a client asked for input without end stops retrying within the round limit (--max-rounds, default 10); " +
		"one still retrying at ten times the limit, or at the deadline, fails: it would hang its caller",
	Quote: "If the server asks for input more than MCPOptions.MRTR.MaxRounds times, the loop stops and the error is reported through OnError.",
	// Robustness, not a spec rule: the spec sets no bound on rounds
	// (mrtr.mdx: "Servers MAY choose to return an InputRequiredResult on
	// multiple attempts at the same request") and asks clients to rate-limit
	// (Spec); the vendor's loop stops at MaxRounds, default 10.
	Source:    "seeds/001_4242ac442c8e44e1.txt",
	Faults:    []*fault.Fault{client.MRTRNoLimit, client.MRTRHighLimit},
	Liberties: []*fault.Fault{client.MRTRLowLimit}}

var maxRoundsScenario = &scenarios.Scenario{
	ID:       "client-mrtr-max-rounds",
	Title:    "a server that never stops answering input_required: the client's loop must end",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientMRTREndless, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say")},
	Purpose: "The fake server answers every call of " + fixtures.ClientMRTREndless + " with input_required (a new key and requestState each " +
		"round) and counts the client's retries until it stops, exits, or reaches ten times the limit.",
	Checks: []*scenarios.Check{maxRoundsStops},
	Run: clientside.Body(func(t *clientside.T) {
		limit := t.Env.RoundLimit()
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{{Name: fixtures.ClientMRTREndless, Description: "asks for input for ever", Call: roundsOf(func(n int, req *jsonrpc.Message) map[string]any {
				key := fmt.Sprintf("round_%d", n+1)
				return inputRequired(ptr(fmt.Sprintf("round-%d", n+1)), askable(req, elicit(key, "One more answer, please", "answer", "string"))...)
			})}},
			Context: map[string]any{"toolCalls": []any{map[string]any{"name": fixtures.ClientMRTREndless, "arguments": map[string]any{}}}},
		})
		hang := hangFactor * limit
		t.Step("count the client's retries of %s (limit %d; still retrying at %d is a hang)", fixtures.ClientMRTREndless, limit, hang)
		out := t.SettleUntil(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientMRTREndless)) > hang
		})
		if out == clientside.Done {
			t.StopClient()
		}
		calls := clientside.ToolCalls(t.Log().Entries(), fixtures.ClientMRTREndless)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientMRTREndless, out)
		}
		retries := len(calls) - 1
		if out == clientside.Done {
			retries = hang // what the verdict rests on; the client went on until it was stopped
		}
		measured := fmt.Sprintf("the client made %d retries; judged against the limit %d (--max-rounds)", retries, limit)
		t.Transcript().Eventf("", "%s", measured)
		switch {
		case out == clientside.Done:
			t.Escalate(maxRoundsStops, scenarios.Must, "still retrying at ten times the limit: a client without a bound hangs its caller")
			t.Fail(maxRoundsStops, fmt.Sprintf("the loop to stop within %d retries", limit),
				fmt.Sprintf("still retrying after %d retries, %d times the limit; it was stopped", hang, hangFactor))
		case out == clientside.TimedOut:
			t.Escalate(maxRoundsStops, scenarios.Must, "still retrying at the scenario's deadline")
			t.Fail(maxRoundsStops, fmt.Sprintf("the loop to stop within %d retries", limit),
				fmt.Sprintf("still retrying when the scenario's deadline passed, after %d retries", retries))
		case retries > limit:
			t.Fail(maxRoundsStops, fmt.Sprintf("the loop to stop within %d retries", limit),
				fmt.Sprintf("it stopped after %d retries, more than the limit", retries))
		default:
			t.PassWith(maxRoundsStops, measured)
		}
	}),
}
