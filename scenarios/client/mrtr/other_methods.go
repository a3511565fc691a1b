package mrtr

import (
	"context"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	mrtrResource = "test://mrtr-resource"
	promptState  = "prompt-state:6f1c"
	readState    = "resource-state:9a0e"
)

var (
	otherPromptRetried = &scenarios.Check{ID: "client-mrtr-other-methods/prompt-retried", Level: scenarios.Must, Spec: mrtrSpec,
		Title:        "a prompts/get answered with input_required is retried with the answers and the exact requestState",
		Quote:        "If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request.",
		Faults:       []*fault.Fault{client.MRTRDropsState},
		Requirements: []string{"sep-2322-client-request-state-echoed"}}
	otherReadRetried = &scenarios.Check{ID: "client-mrtr-other-methods/read-retried", Level: scenarios.Must, Spec: mrtrSpec,
		Title:        "a resources/read answered with input_required is retried with the answers and the exact requestState",
		Quote:        "If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request.",
		Faults:       []*fault.Fault{client.MRTRDropsState},
		Requirements: []string{"sep-2322-client-request-state-echoed"}}
)

var otherMethodsScenario = &scenarios.Scenario{
	ID:       "client-mrtr-other-methods",
	Title:    "the MRTR loop on prompts/get and resources/read, the two other requests that may answer input_required",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientMRTRPrompt, "the client gets it, as the promptGets of $MCP_CONFORMANCE_CONTEXT say"),
		scenarios.NeedsOther("the client reads " + mrtrResource + ", as the resourceReads of $MCP_CONFORMANCE_CONTEXT say")},
	Purpose: "The fake server answers prompts/get of " + fixtures.ClientMRTRPrompt + " and resources/read of " + mrtrResource +
		" with one round of input_required each (an elicitation and a requestState), then with their results.",
	Checks: []*scenarios.Check{otherPromptRetried, otherReadRetried},
	Run: clientside.Body(func(t *clientside.T) {
		ask := func(state string) func(n int, req *jsonrpc.Message) map[string]any {
			return func(n int, req *jsonrpc.Message) map[string]any {
				if n == 0 {
					return inputRequired(ptr(state), askable(req, elicit("detail", "Which detail?", "detail", "string"))...)
				}
				if req.Method == protocol.MethodPromptsGet {
					return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "the prompt"}}}}
				}
				return map[string]any{"contents": []any{map[string]any{"uri": mrtrResource, "mimeType": "text/plain", "text": "the resource"}}}
			}
		}
		read := roundsOf(ask(readState))
		t.Serve(clientside.Script{
			Prompts: []clientside.Prompt{{Name: fixtures.ClientMRTRPrompt, Get: roundsOf(ask(promptState))}},
			Handlers: map[string]server.Handler{
				protocol.MethodResourcesList: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
					return map[string]any{"resources": []any{map[string]any{"uri": mrtrResource, "name": "mrtr-resource"}}}, nil
				},
				protocol.MethodResourcesRead: read,
			},
			Capabilities: map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}, "resources": map[string]any{}},
			Context: map[string]any{
				"promptGets":    []any{map[string]any{"name": fixtures.ClientMRTRPrompt, "arguments": map[string]any{}}},
				"resourceReads": []any{map[string]any{"uri": mrtrResource}},
			},
		})
		t.Step("wait for the client to get %s and read %s, each twice", fixtures.ClientMRTRPrompt, mrtrResource)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.Requests(r, protocol.MethodPromptsGet, fixtures.ClientMRTRPrompt)) >= 2 &&
				len(clientside.Requests(r, protocol.MethodResourcesRead, mrtrResource)) >= 2
		})
		entries := t.Log().Entries()
		gets, reads := clientside.Requests(entries, protocol.MethodPromptsGet, fixtures.ClientMRTRPrompt), clientside.Requests(entries, protocol.MethodResourcesRead, mrtrResource)
		if len(gets) == 0 && len(reads) == 0 {
			t.Missed("prompts/get of "+fixtures.ClientMRTRPrompt+" or resources/read of "+mrtrResource, out)
		}
		judgeRetry := func(c *scenarios.Check, what, state string, calls []clientside.Received) {
			if len(calls) < 2 {
				t.Fail(c, "a retry of "+what, "none; "+t.DescribeEnd(out))
				return
			}
			r := readRetry(calls[1])
			ok, actual := judgeEcho(state, r)
			t.Judge(c, ok, "the retry of "+what+" with requestState "+quoteShort(state), actual)
		}
		judgeRetry(otherPromptRetried, "prompts/get "+fixtures.ClientMRTRPrompt, promptState, gets)
		judgeRetry(otherReadRetried, "resources/read "+mrtrResource, readState, reads)
	}),
}
