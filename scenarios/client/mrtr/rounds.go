package mrtr

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

// The states of the three rounds: long, unicode with JSON escapes, and
// opaque base64 with padding — what a client that trims, re-encodes,
// normalises or buffers would change.
var roundStates = []string{
	"long:" + strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0MjQyNDI=", 1500),
	"unicode: état ✓ 日本語 🙂 e\u0301 \u2028 \"quoted\" \\backslash\\ <tag> &amp; \t tab",
	"eyJhbGciOiJIUzI1NiJ9.eyJyb3VuZCI6M30+/=.c2lnbmF0dXJlPz8/Pw==",
}

// roundQuestions are the questions of each round, under keys that differ
// each time and would not survive careless handling.
var roundQuestions = [][]question{
	{elicit("first_name", "Your first name?", "name", "string"), roots("workspace.roots")},
	{elicit("ünïcødé-key", "Your favourite colour?", "color", "string"), sample("second/question:with~odd chars", "Say hello")},
	{elicit("q3-a", "Your age?", "age", "integer"), sample("q3-b", "Say goodbye"), roots("q3-c")},
}

var (
	roundsStateEchoed = &scenarios.Check{ID: "client-mrtr-rounds/state-echoed", Level: scenarios.Must, Spec: mrtrSpec,
		Title: "each retry carries the requestState of the round before, exactly: a 64 KiB one, unicode with JSON escapes, base64 with padding",
		Quote: "If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request. " +
			"Clients MUST NOT inspect, parse, modify, or make any assumptions about the requestState contents.",
		Faults:       []*fault.Fault{client.MRTRDropsState, client.MRTRTruncatesState},
		Requirements: []string{"sep-2322-client-request-state-echoed"}}
	roundsInputsAnswered = &scenarios.Check{ID: "client-mrtr-rounds/inputs-answered", Level: scenarios.Must, Spec: mrtrSpec,
		Title:  "each retry answers every key of the round's inputRequests, under the same key",
		Quote:  "If a client receives an InputRequiredResult that contains the inputRequests field, the client MUST construct the requested inputs before retrying the original request.",
		Faults: []*fault.Fault{client.MRTRPartialAnswers}}
)

var roundsScenario = &scenarios.Scenario{
	ID:       "client-mrtr-rounds",
	Title:    "three rounds of input_required with new keys and odd requestState values each time, then a result",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientMRTRRounds, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say")},
	Purpose: "The fake server answers " + fixtures.ClientMRTRRounds + " three times with input_required, each round with other keys " +
		"(dots, slashes, non-ASCII) and another requestState (64 KiB long; unicode with characters JSON escapes; base64 with " +
		"padding), asking only for the input types the request's _meta declares, then completes.",
	Checks: []*scenarios.Check{roundsStateEchoed, roundsInputsAnswered},
	Run: clientside.Body(func(t *clientside.T) {
		var (
			mu    sync.Mutex
			asked [][]question // what each round asked, as the handler saw it
		)
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{{Name: fixtures.ClientMRTRRounds, Description: "asks for input three times", Call: roundsOf(func(n int, req *jsonrpc.Message) map[string]any {
				if n >= len(roundStates) {
					return textResult("all rounds answered")
				}
				qs := askable(req, roundQuestions[n]...)
				mu.Lock()
				asked = append(asked, qs)
				mu.Unlock()
				return inputRequired(ptr(roundStates[n]), qs...)
			})}},
			Context: map[string]any{"toolCalls": []any{map[string]any{"name": fixtures.ClientMRTRRounds, "arguments": map[string]any{}}}},
		})
		t.Step("wait for the client to call %s and retry it %d times", fixtures.ClientMRTRRounds, len(roundStates))
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientMRTRRounds)) > len(roundStates)
		})
		calls := clientside.ToolCalls(t.Log().Entries(), fixtures.ClientMRTRRounds)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientMRTRRounds, out)
		}
		if len(calls) < 2 {
			t.Lost("a retry of "+fixtures.ClientMRTRRounds+" with the answers and the requestState", "no retry; "+t.DescribeEnd(out))
		}
		var echoes, answers []string
		mu.Lock()
		defer mu.Unlock()
		for i, c := range calls[1:] {
			if i >= len(roundStates) {
				break
			}
			r := readRetry(c)
			if ok, actual := judgeEcho(roundStates[i], r); !ok {
				echoes = append(echoes, fmt.Sprintf("retry %d: %s", i+1, actual))
			}
			var missing []string
			for _, q := range asked[i] {
				if _, ok := r.responses[q.key]; !ok {
					missing = append(missing, q.key)
				}
			}
			if len(missing) > 0 {
				answers = append(answers, fmt.Sprintf("retry %d lacks %s (it answered %s)", i+1, joinKeys(missing), joinKeys(sortedKeys(r.responses))))
			}
		}
		retries := len(calls) - 1
		t.Judge(roundsStateEchoed, len(echoes) == 0, fmt.Sprintf("each of the %d retries with the requestState of its round, byte for byte", retries),
			strings.Join(echoes, "; "))
		t.Judge(roundsInputsAnswered, len(answers) == 0, "every key of each round answered", strings.Join(answers, "; "))
	}),
}
