package mrtr

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

var undeclaredDeclaredOnly = &scenarios.Check{ID: "client-mrtr-undeclared/declared-only", Level: scenarios.Should,
	Spec:  "2026-07-28/basic/patterns/mrtr.mdx#server-requirements-basic-workflow",
	Title: "asked (by a server that breaks the rule) for an input type it did not declare, the client does not answer it as if it had; judged only when the client leaves a type out",
	// Inferred, hence a SHOULD: the declaration is what a server relies on,
	// and a client that answers what it left out declares less than it does.
	Quote:     "Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities.",
	Faults:    []*fault.Fault{client.MRTRUndeclaredInput},
	Liberties: []*fault.Fault{client.MRTRNoSampling}}

var undeclaredScenario = &scenarios.Scenario{
	ID:       "client-mrtr-undeclared",
	Title:    "a server asks for elicitation, sampling and roots whatever the client declared",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientMRTRAllInputs, "the client calls it, as the toolCalls of $MCP_CONFORMANCE_CONTEXT say")},
	Purpose: "The fake server breaks a server rule on purpose: its input_required asks for all three input types even when " +
		"the request's _meta leaves one out. A client may stop, or retry without the answers it cannot give; it must not " +
		"answer a type it did not declare.",
	Checks: []*scenarios.Check{undeclaredDeclaredOnly},
	Run: clientside.Body(func(t *clientside.T) {
		all := []question{elicit("ask_user", "Your name?", "name", "string"), sample("ask_model", "Say hello"), roots("ask_roots")}
		t.Serve(clientside.Script{
			Tools: []clientside.Tool{{Name: fixtures.ClientMRTRAllInputs, Description: "asks for every input type", Call: roundsOf(func(n int, _ *jsonrpc.Message) map[string]any {
				if n == 0 {
					return inputRequired(ptr("all-inputs"), all...)
				}
				return textResult("answered")
			})}},
			Context: map[string]any{"toolCalls": []any{map[string]any{"name": fixtures.ClientMRTRAllInputs, "arguments": map[string]any{}}}},
		})
		t.Step("wait for the client to call %s and, perhaps, retry it", fixtures.ClientMRTRAllInputs)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.ToolCalls(r, fixtures.ClientMRTRAllInputs)) >= 2
		})
		calls := clientside.ToolCalls(t.Log().Entries(), fixtures.ClientMRTRAllInputs)
		if len(calls) == 0 {
			t.Missed("a tools/call of "+fixtures.ClientMRTRAllInputs, out)
		}
		caps := declared(calls[0].Msg)
		var left []question
		for _, q := range all {
			if !caps[capabilityOf[q.method]] {
				left = append(left, q)
			}
		}
		if len(left) == 0 {
			t.Skip(undeclaredDeclaredOnly, "the client declares elicitation, sampling and roots: no input type is left out to judge")
			return
		}
		if len(calls) < 2 {
			t.PassWith(undeclaredDeclaredOnly, "the client did not retry: it answered nothing it had not declared")
			return
		}
		r := readRetry(calls[1])
		var answered []string
		for _, q := range left {
			if _, ok := r.responses[q.key]; ok {
				answered = append(answered, fmt.Sprintf("%s (%s, capability %s not declared)", q.key, q.method, capabilityOf[q.method]))
			}
		}
		t.Judge(undeclaredDeclaredOnly, len(answered) == 0, "no answer to an input type the client did not declare",
			"the retry answers "+strings.Join(answered, ", "))
	}),
}
