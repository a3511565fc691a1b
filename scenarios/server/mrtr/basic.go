package mrtr

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The basic workflow: one input request of each kind, several at once,
// several rounds, and the requests other than tools/call that may ask.

// judgeAsks judges a first answer that must ask for input: an
// input_required result whose inputRequests are all valid input requests
// (ElicitRequest, CreateMessageRequest, ListRootsRequest), among them
// want (each of them, for several).
func judgeAsks(t *serverside.T, c *scenarios.Check, r reply, want ...string) bool {
	expected := "an input_required result whose inputRequests hold " + strings.Join(want, ", ") +
		" requests, each a valid ElicitRequest, CreateMessageRequest or ListRootsRequest"
	if !r.inputRequired() || len(r.requests) == 0 {
		t.Fail(c, expected, r.String())
		return false
	}
	seen := map[string]bool{}
	var bad []string
	for key, raw := range r.requests {
		method, err := validInputRequest(t.Env.Version, raw)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", key, err))
			continue
		}
		seen[method] = true
	}
	var missing []string
	for _, w := range want {
		if !seen[w] {
			missing = append(missing, "no "+w+" request")
		}
	}
	problems := append(bad, missing...)
	return t.Judge(c, len(problems) == 0, expected, strings.Join(problems, "; ")+" in "+strings.Join(inputMethods(r.requests), ", "))
}

// judgeCompletes runs the exchange to its end and judges that it completed
// with a non-empty member (content, messages, contents) and, for a tool,
// without isError. A first answer the client cannot answer (a question of
// no known kind) blocks the check: the asks check says why.
func judgeCompletes(t *serverside.T, c *scenarios.Check, x *exchange, first reply, member string) reply {
	last, rounds := x.converge(first)
	if last.inputRequired() {
		if _, unanswerable := answers(last.requests); len(unanswerable) > 0 {
			t.Blocked("the server asked for input the client cannot give (%s)", strings.Join(inputMethods(last.requests), ", "))
		}
	}
	expected := fmt.Sprintf("a complete result with a non-empty %s after answering (within %d rounds)", member, maxRounds)
	if !last.complete() {
		t.Fail(c, expected, fmt.Sprintf("after %d input_required answers: %s", rounds, last))
		return last
	}
	t.Judge(c, succeeded(last) && nonEmpty(last, member), expected+" (and no isError)", last.String())
	return last
}

var (
	asksElicitation = &scenarios.Check{ID: "input-required-result-basic-elicitation/asks-elicitation", Level: scenarios.Must, Spec: serverReqs,
		Quote: valuesQuote,
		Title: "test_input_required_result_elicitation, called without answers, is answered input_required with an elicitation/create " +
			"input request that is a valid ElicitRequest (form mode, message, requestedSchema)",
		Faults:       []*fault.Fault{server.MRTRElicitationInvalid},
		Requirements: []string{"sep-2322-elicitation-incomplete"}}
	elicitationCompletes = &scenarios.Check{ID: "input-required-result-basic-elicitation/completes", Level: scenarios.Must, Spec: basicFlow,
		Quote: finalQuote,
		Title: "retried with a new id, the accepted form in inputResponses and any requestState echoed, it completes: resultType " +
			"complete, non-empty content, no isError",
		Faults: []*fault.Fault{server.MRTRCompleteEmpty}, Liberties: []*fault.Fault{server.MRTRReprompts}}
	// sep-2322.yaml excludes this sentence as tested indirectly, so it has no
	// requirement id; it is judged here directly.
	noServerRequest = &scenarios.Check{ID: "input-required-result-basic-elicitation/no-server-request", Level: scenarios.Must, Spec: mrtrPage,
		Quote: "Servers MUST send server-to-client requests (such as roots/list, sampling/createMessage, or elicitation/create) " +
			"using the MRTR pattern.",
		Title:  "while the exchange runs, the server sends the client no JSON-RPC request of its own (its question comes in inputRequests only)",
		Faults: []*fault.Fault{server.MRTRAlsoRequested}}
)

var basicElicitationScenario = &scenarios.Scenario{
	ID: "input-required-result-basic-elicitation", Title: "a tool asks the user through an elicitation input request, then completes",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRElicitation, "asks a name, key user_name")},
	Purpose: "The fake client declares elicitation, calls the fixture, answers the form it is asked (accept, name Alice) and " +
		"retries with a new JSON-RPC id, inputResponses and the requestState as received, until the call completes.",
	Checks: []*scenarios.Check{asksElicitation, elicitationCompletes, noServerRequest},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRElicitation))
		first := x.first()
		judgeAsks(t, asksElicitation, first, protocol.MethodElicitationCreate)
		judgeCompletes(t, elicitationCompletes, x, first, "content")
		// Each request was sent on its answer's stream, before its answer:
		// whatever the server sent there is in by now.
		requests := x.serverRequests()
		t.Judge(noServerRequest, len(requests) == 0, "no request from the server", strings.Join(requests, "; "))
	}),
}

var (
	asksSampling = &scenarios.Check{ID: "input-required-result-basic-sampling/asks-sampling", Level: scenarios.Must, Spec: serverReqs,
		Quote: valuesQuote,
		Title: "test_input_required_result_sampling, called without answers, is answered input_required with a sampling/createMessage " +
			"input request that is a valid CreateMessageRequest (messages, maxTokens)",
		Faults:       []*fault.Fault{server.MRTRSamplingInvalid},
		Requirements: []string{"sep-2322-sampling-incomplete"}}
	samplingCompletes = &scenarios.Check{ID: "input-required-result-basic-sampling/completes", Level: scenarios.Must, Spec: basicFlow,
		Quote:  finalQuote,
		Title:  "retried with the model's answer (an assistant text) in inputResponses, it completes: non-empty content, no isError",
		Faults: []*fault.Fault{server.MRTRCompleteEmpty}}
)

var basicSamplingScenario = &scenarios.Scenario{
	ID: "input-required-result-basic-sampling", Title: "a tool asks the client's model through a sampling input request, then completes",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRSampling, "asks the capital of France")},
	Purpose: "The fake client declares sampling, calls the fixture, answers the sampling request (Paris, model test-model) and retries.",
	Checks:  []*scenarios.Check{asksSampling, samplingCompletes},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("sampling"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRSampling))
		first := x.first()
		judgeAsks(t, asksSampling, first, protocol.MethodSamplingCreateMessage)
		judgeCompletes(t, samplingCompletes, x, first, "content")
	}),
}

var (
	asksRoots = &scenarios.Check{ID: "input-required-result-basic-list-roots/asks-roots", Level: scenarios.Must, Spec: serverReqs,
		Quote: valuesQuote,
		Title: "test_input_required_result_list_roots, called without answers, is answered input_required with a roots/list " +
			"input request (a valid ListRootsRequest)",
		Faults:       []*fault.Fault{server.MRTRRootsWrongMethod},
		Requirements: []string{"sep-2322-list-roots-incomplete"}}
	rootsCompletes = &scenarios.Check{ID: "input-required-result-basic-list-roots/completes", Level: scenarios.Must, Spec: basicFlow,
		Quote:  finalQuote,
		Title:  "retried with the roots (file:///test/root) in inputResponses, it completes: non-empty content, no isError",
		Faults: []*fault.Fault{server.MRTRCompleteEmpty}}
)

var basicRootsScenario = &scenarios.Scenario{
	ID: "input-required-result-basic-list-roots", Title: "a tool asks for the client's roots through an input request, then completes",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRListRoots, "asks for the roots")},
	Purpose: "The fake client declares roots, calls the fixture, answers roots/list with one root and retries.",
	Checks:  []*scenarios.Check{asksRoots, rootsCompletes},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("roots"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRListRoots))
		first := x.first()
		judgeAsks(t, asksRoots, first, protocol.MethodRootsList)
		judgeCompletes(t, rootsCompletes, x, first, "content")
	}),
}

var (
	asksAll = &scenarios.Check{ID: "input-required-result-multiple-input-requests/asks-all", Level: scenarios.Must, Spec: serverReqs,
		Quote: valuesQuote,
		Title: "test_input_required_result_multiple_inputs asks in one input_required result for an elicitation, a sampling and a " +
			"roots/list request, each a valid input request",
		Faults: []*fault.Fault{server.MRTRMultipleAsksOne}}
	multipleCompletes = &scenarios.Check{ID: "input-required-result-multiple-input-requests/completes", Level: scenarios.Must, Spec: basicFlow,
		Quote:  finalQuote,
		Title:  "retried with every answer and the requestState, it completes: non-empty content, no isError",
		Faults: []*fault.Fault{server.MRTRCompleteEmpty}}
)

var multipleScenario = &scenarios.Scenario{
	ID: "input-required-result-multiple-input-requests", Title: "several input requests of different kinds in one round",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRMultipleInputs, "asks user_name, greeting and client_roots at once")},
	Purpose: "The fake client declares elicitation, sampling and roots, answers every request of the round and retries.",
	Checks:  []*scenarios.Check{asksAll, multipleCompletes},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation", "sampling", "roots"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRMultipleInputs))
		first := x.first()
		judgeAsks(t, asksAll, first, protocol.MethodElicitationCreate, protocol.MethodSamplingCreateMessage, protocol.MethodRootsList)
		judgeCompletes(t, multipleCompletes, x, first, "content")
	}),
}

var multiRoundConverges = &scenarios.Check{ID: "input-required-result-multi-round/converges", Level: scenarios.Must, Spec: basicFlow,
	Quote: "Note that the requests in each step are completely independent: the server processing the retry does not need any " +
		"information beyond what is directly present in the retry request.",
	Title: "test_input_required_result_multi_round asks again after its first round is answered (a second input_required), and " +
		"completes once every round is answered, each retry carrying only that round's answers and requestState",
	Faults: []*fault.Fault{server.MRTRMultiRoundLoops}}

var multiRoundScenario = &scenarios.Scenario{
	ID: "input-required-result-multi-round", Title: "a request that takes several rounds of input converges",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRMultiRound, "step1 asks a name, step2 a colour")},
	Purpose: "The fake client declares elicitation and answers each round with that round's answers and requestState only, " +
		fmt.Sprintf("for up to %d rounds.", maxRounds),
	Checks: []*scenarios.Check{multiRoundConverges},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRMultiRound))
		first := x.first()
		if !first.inputRequired() {
			t.Fail(multiRoundConverges, "an input_required first round", first.String())
			return
		}
		last, rounds := x.converge(first)
		t.Judge(multiRoundConverges, last.complete() && rounds >= 2,
			fmt.Sprintf("at least two input_required rounds, then a complete result (within %d rounds)", maxRounds),
			fmt.Sprintf("%d input_required rounds, then %s", rounds, last))
	}),
}

var nonToolCompletes = &scenarios.Check{ID: "input-required-result-non-tool-request/completes", Level: scenarios.Must, Spec: basicFlow,
	Quote: "In this example we use `tools/call` as the client request, but the same pattern applies to any of the supported requests listed above.",
	Title: "prompts/get of test_input_required_result_prompt (and resources/read of " + fixtures.MRTRResource + " where the server " +
		"lists it) asks for input, then completes with non-empty messages (contents) once answered",
	Faults: []*fault.Fault{server.MRTRCompleteEmpty}}

var nonToolScenario = &scenarios.Scenario{
	ID: "input-required-result-non-tool-request", Title: "prompts/get and resources/read ask for input too",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.MRTRPrompt, "asks user_context; where the prompts capability is declared"),
		scenarios.NeedsFixture(fixtures.MRTRResource, "where resources are declared; mcpconform's own")},
	Purpose: "The fake client declares elicitation, gets the prompt (reads the resource), answers what it is asked and retries.",
	Checks:  []*scenarios.Check{nonToolCompletes},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		type target struct{ capability, list, key, field, name, method, member string }
		targets := []target{
			{"prompts", protocol.MethodPromptsList, "prompts", "name", fixtures.MRTRPrompt, protocol.MethodPromptsGet, "messages"},
			{"resources", protocol.MethodResourcesList, "resources", "uri", fixtures.MRTRResource, protocol.MethodResourcesRead, "contents"},
		}
		var why []string
		judged := 0
		for _, tg := range targets {
			if !s.HasCapability(tg.capability) {
				why = append(why, "the server does not declare "+tg.capability)
				continue
			}
			t.Step("%s to find %s", tg.list, tg.name)
			names, problem, ok := listNames(t, s, tg.list, tg.key, tg.field)
			if !ok || !names[tg.name] {
				if problem == "" {
					problem = "it is not listed"
				}
				why = append(why, fmt.Sprintf("%s %s: %s", tg.capability, tg.name, problem))
				continue
			}
			base := map[string]any{tg.field: tg.name}
			x := newExchange(t, s, tg.method, base, tg.method+" "+tg.name)
			first := x.first()
			if !first.inputRequired() {
				t.Fail(nonToolCompletes, tg.method+" "+tg.name+" answered input_required first", first.String())
				return
			}
			judged++
			judgeCompletes(t, nonToolCompletes, x, first, tg.member)
		}
		if judged == 0 {
			t.SkipRest("nothing to judge: " + strings.Join(why, "; "))
		}
	}),
}
