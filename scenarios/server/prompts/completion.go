package prompts

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

var (
	completeMax = liberties(faults(check("completion-complete/values-max-100", "completion/complete for argument arg1 of test_prompt_with_arguments (value \"test\") answers completion.values with at most 100 strings",
		scenarios.Must, completionPage+"#completion-results", "Maximum 100 items per response"), server.CompletionTooManyValues), server.CompletionNoValues)
	completeTotal = liberties(faults(check("completion-complete/total-consistent", "total, when given, is at least the number of values, and hasMore is true when total exceeds it",
		scenarios.Must, completionPage+"#completion-results", "Optional total number of available matches"), server.CompletionTotalInconsistent), server.CompletionNoValues)
	completeUnknown = faults(check("completion-complete/unknown-prompt", "completion/complete with a ref/prompt the target does not list is answered with -32602",
		scenarios.Should, completionPage+"#error-handling", "Invalid prompt name: -32602 (Invalid params)"), server.CompletionUnknownPromptEmpty)
	completeUndeclared = faults(check("completion-undeclared/method-not-found", "a target that does not declare completions answers completion/complete with -32601",
		scenarios.Should, completionPage+"#error-handling", "Method not found: -32601 (Capability not supported)"), server.CompletionUndeclaredServed)
)

var completeScenario = &scenarios.Scenario{
	ID: "completion-complete", Title: "completion/complete for a prompt argument", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []string{"the completions capability", "prompt test_prompt_with_arguments"},
	Purpose: "An empty list of values is acceptable (the official suite's reading); the bound and total/hasMore are judged on what comes.",
	Checks:  []*scenarios.Check{completeMax, completeTotal, completeUnknown},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		if !s.HasCapability("completions") {
			t.SkipRest("the target does not declare the completions capability")
		}
		p := requirePrompt(t, s, "test_prompt_with_arguments")
		t.Step("completion/complete for %s argument arg1", p.Name)
		resp, err := raw(t, s, "mcpconform-complete-1", methodComplete, map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": p.Name}, "argument": map[string]any{"name": "arg1", "value": "test"}})
		answered(t, "completion/complete", resp, err)
		var res struct {
			Completion *struct {
				Values  []string `json:"values"`
				Total   *int     `json:"total"`
				HasMore *bool    `json:"hasMore"`
			} `json:"completion"`
		}
		if resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil || res.Completion == nil || res.Completion.Values == nil {
			t.Fail(completeMax, "a result with completion.values, an array of strings", judge.Describe(resp, nil))
			t.Skip(completeTotal, "no completion values to judge")
		} else {
			c := res.Completion
			t.Judge(completeMax, len(c.Values) <= 100, "at most 100 values", fmt.Sprintf("%d values", len(c.Values)))
			ok, actual := true, fmt.Sprintf("%d values", len(c.Values))
			if c.Total != nil {
				actual += fmt.Sprintf(", total %d", *c.Total)
				ok = *c.Total >= len(c.Values)
				if *c.Total > len(c.Values) && (c.HasMore == nil || !*c.HasMore) {
					ok = false
				}
			}
			if c.HasMore != nil {
				actual += fmt.Sprintf(", hasMore %v", *c.HasMore)
			}
			t.Judge(completeTotal, ok, "total ≥ the values given, and hasMore true when total exceeds them", actual)
		}
		t.Step("completion/complete for an unknown prompt")
		resp, err = raw(t, s, "mcpconform-complete-2", methodComplete, map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": "mcpconform_no_such_prompt"}, "argument": map[string]any{"name": "arg1", "value": "test"}})
		answered(t, "completion/complete for an unknown prompt", resp, err)
		t.Judge(completeUnknown, isCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
	}),
}

var completeUndeclaredScenario = &scenarios.Scenario{
	ID: "completion-undeclared", Title: "completion/complete without the completions capability is -32601", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []string{"a target that does not declare completions"},
	Checks: []*scenarios.Check{completeUndeclared},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		if s.HasCapability("completions") {
			t.SkipRest("the target declares completions (judged by completion-complete)")
		}
		t.Step("completion/complete without the capability")
		resp, err := raw(t, s, "mcpconform-undeclared-1", methodComplete, map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "test"}})
		answered(t, "completion/complete", resp, err)
		t.Judge(completeUndeclared, isCode(resp, codes.MethodNotFound), "error -32601", judge.Describe(resp, err))
	}),
}
