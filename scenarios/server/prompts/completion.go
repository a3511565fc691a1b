package prompts

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

var (
	completeMax = liberties(faults(check("completion-complete/values-max-100", "completion/complete for argument arg1 of test_prompt_with_arguments (value \"test\") answers completion.values with at most 100 strings",
		scenarios.Must, completionPage+"#completion-results", "Maximum 100 items per response"), server.CompletionTooManyValues, server.CompletionError), server.CompletionNoValues)
	completeTotal = liberties(faults(check("completion-complete/total-consistent", "total, when given, is at least the number of values, and hasMore is true when total exceeds it",
		scenarios.Must, completionPage+"#completion-results", "Optional total number of available matches"), server.CompletionTotalInconsistent), server.CompletionNoValues)
	completeUnknown = faults(check("completion-complete/unknown-prompt", "completion/complete with a ref/prompt the target does not list is answered with -32602",
		scenarios.Should, completionPage+"#error-handling", "Invalid prompt name: -32602 (Invalid params)"), server.CompletionUnknownPromptEmpty)
	completeUndeclared = faults(check("completion-undeclared/method-not-found", "a target that does not declare completions answers completion/complete with -32601",
		scenarios.Should, completionPage+"#error-handling", "Method not found: -32601 (Capability not supported)"), server.CompletionUndeclaredServed)
)

var completeUnknownTemplate = liberties(faults(check("completion-complete/unknown-template", "completion/complete with a ref/resource URI that is no template of the target is refused with a JSON-RPC error (any code: the page names none for it)",
	scenarios.Should, completionPage+"#implementation-considerations", "Validate all inputs"), server.CompletionUnknownTemplateEmpty), server.CompletionUnknownTemplateOtherCode)

var completeScenario = &scenarios.Scenario{
	ID: "completion-complete", Title: "completion/complete for a prompt argument and a resource template", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("completions"),
		scenarios.NeedsFixture(fixtures.PromptWithArguments, "its argument arg1 is completed, when the target declares prompts"),
		scenarios.NeedsOther("a resource template (the first one listed)")},
	Purpose: "argument arg1 of test_prompt_with_arguments and the first variable of the first listed resource template are completed; an " +
		"empty list of values is acceptable (the official suite's reading); the bound and total/hasMore are judged on what comes.",
	Checks: []*scenarios.Check{completeMax, completeTotal, completeUnknown, completeUnknownTemplate},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		var refs []completionRef
		if s.HasCapability("prompts") {
			prompts, _, _, _ := listPrompts(t, s)
			if p := findPrompt(t, prompts, fixtures.PromptWithArguments); p != nil {
				refs = append(refs, completionRef{"prompt " + p.Name + " argument arg1", map[string]any{"type": "ref/prompt", "name": p.Name}, "arg1"})
			}
		}
		if s.HasCapability("resources") {
			if ref, ok := firstTemplate(t, s); ok {
				refs = append(refs, ref)
			}
		}
		if len(refs) == 0 {
			t.Skip(completeMax, "neither the prompt test_prompt_with_arguments nor a resource template to complete")
			t.Skip(completeTotal, "neither the prompt test_prompt_with_arguments nor a resource template to complete")
		} else {
			judgeCompletions(t, s, refs)
		}
		t.Step("completion/complete for an unknown prompt")
		resp, err := raw(t, s, "mcpconform-complete-unknown", methodComplete, map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": "mcpconform_no_such_prompt"}, "argument": map[string]any{"name": "arg1", "value": "test"}})
		answered(t, "completion/complete for an unknown prompt", resp, err)
		t.Judge(completeUnknown, isCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
		t.Step("completion/complete for an unknown resource template")
		resp, err = raw(t, s, "mcpconform-complete-unknown-template", methodComplete, map[string]any{
			"ref": map[string]any{"type": "ref/resource", "uri": "mcpconform-no-such-template://{x}"}, "argument": map[string]any{"name": "x", "value": ""}})
		answered(t, "completion/complete for an unknown resource template", resp, err)
		t.Judge(completeUnknownTemplate, resp.Error != nil, "a JSON-RPC error", judge.Describe(resp, err))
	}),
}

type completionRef struct {
	what     string
	ref      map[string]any
	argument string
}

var templateVar = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_]+)`)

// firstTemplate is the first listed resource template with a variable.
func firstTemplate(t *serverside.T, s *client.Session) (completionRef, bool) {
	t.Step("resources/templates/list")
	resp, err := t.Request(s, protocol.MethodResourcesTemplatesList, map[string]any{})
	if err != nil || resp.Error != nil {
		return completionRef{}, false
	}
	var res protocol.ResourceTemplatesPage
	_ = json.Unmarshal(resp.Result, &res)
	for _, tpl := range res.ResourceTemplates {
		if m := templateVar.FindStringSubmatch(tpl.URITemplate); m != nil {
			return completionRef{"template " + tpl.URITemplate + " variable " + m[1], map[string]any{"type": "ref/resource", "uri": tpl.URITemplate}, m[1]}, true
		}
	}
	return completionRef{}, false
}

// judgeCompletions completes each ref and judges the bound and the
// total/hasMore consistency over all of them, once each.
func judgeCompletions(t *serverside.T, s *client.Session, refs []completionRef) {
	var tooMany, inconsistent, notResult []string
	judged := 0
	for i, r := range refs {
		t.Step("completion/complete for %s", r.what)
		value := "test"
		if r.ref["type"] == "ref/resource" {
			value = ""
		}
		resp, err := raw(t, s, fmt.Sprintf("mcpconform-complete-%d", i), methodComplete, map[string]any{
			"ref": r.ref, "argument": map[string]any{"name": r.argument, "value": value}})
		answered(t, "completion/complete for "+r.what, resp, err)
		var res protocol.CompleteResult
		if resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil || res.Completion == nil || res.Completion.Values == nil {
			notResult = append(notResult, r.what+": "+judge.Describe(resp, nil))
			continue
		}
		judged++
		c := res.Completion
		if len(c.Values) > 100 {
			tooMany = append(tooMany, fmt.Sprintf("%s: %d values", r.what, len(c.Values)))
		}
		if c.Total != nil && (*c.Total < len(c.Values) || *c.Total > len(c.Values) && (c.HasMore == nil || !*c.HasMore)) {
			hasMore := "absent"
			if c.HasMore != nil {
				hasMore = fmt.Sprint(*c.HasMore)
			}
			inconsistent = append(inconsistent, fmt.Sprintf("%s: %d values, total %d, hasMore %s", r.what, len(c.Values), *c.Total, hasMore))
		}
	}
	// A prompt argument the target lists must complete; a template may
	// legitimately not (the page asks no server to complete every one).
	if len(notResult) > 0 && refs[0].ref["type"] == "ref/prompt" && strings.HasPrefix(notResult[0], refs[0].what) {
		t.Fail(completeMax, "a result with completion.values, an array of strings", notResult[0])
		t.Skip(completeTotal, "no completion values to judge for the prompt")
		return
	}
	if judged == 0 {
		t.Skip(completeMax, "no completion result to judge: "+strings.Join(notResult, "; "))
		t.Skip(completeTotal, "no completion result to judge")
		return
	}
	t.Judge(completeMax, len(tooMany) == 0, "at most 100 values", strings.Join(tooMany, "; "))
	t.Judge(completeTotal, len(inconsistent) == 0, "total ≥ the values given, and hasMore true when total exceeds them", strings.Join(inconsistent, "; "))
}

var completeUndeclaredScenario = &scenarios.Scenario{
	ID: "completion-undeclared", Title: "completion/complete without the completions capability is -32601", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsOther("a target that does not declare completions")},
	Checks: []*scenarios.Check{completeUndeclared},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		if s.HasCapability("completions") {
			t.SkipRest("the target declares completions (judged by completion-complete)")
		}
		if s.ServerCapabilities == nil {
			// An answer without capabilities says nothing either way; the
			// handshake's own checks judge it.
			t.SkipRest("the target declared no capabilities object at all (lifecycle-initialize judges that)")
		}
		t.Step("completion/complete without the capability")
		resp, err := raw(t, s, "mcpconform-undeclared-1", methodComplete, map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": fixtures.PromptWithArguments}, "argument": map[string]any{"name": "arg1", "value": "test"}})
		answered(t, "completion/complete", resp, err)
		t.Judge(completeUndeclared, isCode(resp, codes.MethodNotFound), "error -32601", judge.Describe(resp, err))
	}),
}
