package mrtr

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The rules around the exchange: resultType, the requests that may ask,
// requestState, the client's declared capabilities, and retries that are
// missing answers, carry answers never asked for, or cannot be parsed.

// askedFirst stops the body when the fixture's first answer asks nothing:
// the scenario's rule is about what comes after.
func askedFirst(t *serverside.T, r reply, fixture string) {
	if !r.inputRequired() {
		t.Blocked("%s did not answer input_required first (%s); the basic scenarios judge that", fixture, r)
	}
}

// succeeded reports a complete result that is not a tool error.
func succeeded(r reply) bool {
	if !r.complete() {
		return false
	}
	var res protocol.ToolResult
	_ = json.Unmarshal(r.msg.Result, &res)
	return !res.IsError
}

var (
	atLeastOne = &scenarios.Check{ID: "input-required-result-request-state/at-least-one", Level: scenarios.Must, Spec: serverReqs,
		Quote:  "Servers MUST include at least one of inputRequests or requestState in every InputRequiredResult response.",
		Title:  "every input_required result of test_input_required_result_request_state carries inputRequests or requestState",
		Faults: []*fault.Fault{server.MRTRInputRequiredEmpty}, Liberties: []*fault.Fault{server.MRTRStateOnlyFirst},
		Requirements: []string{"sep-2322-request-state-incomplete"}}
	stateCompletes = &scenarios.Check{ID: "input-required-result-request-state/state-completes", Level: scenarios.Must, Spec: basicFlow,
		Quote: "The server encodes any needed context into the `requestState` field, which the client echoes back on retry.",
		Title: "test_input_required_result_request_state gives a requestState, and retried with the answers and that state echoed " +
			"exactly, it completes: non-empty content, no isError",
		Faults:    []*fault.Fault{server.MRTRStateExpired, server.MRTRCompleteEmpty},
		Liberties: []*fault.Fault{server.MRTRStateOnlyFirst}}
)

var requestStateScenario = &scenarios.Scenario{
	ID: "input-required-result-request-state", Title: "requestState carries the exchange and completes it when echoed",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRRequestState, "asks confirm, gives a requestState")},
	Purpose: "The fake client declares elicitation and answers every round, echoing the requestState exactly (retrying at once " +
		"when a round asks nothing, as a client MAY).",
	Checks: []*scenarios.Check{atLeastOne, stateCompletes},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRRequestState))
		r := x.first()
		sawState := false
		var empty []string
		for round := 0; r.inputRequired() && round < maxRounds; round++ {
			if !r.hasRequests && r.state == nil {
				empty = append(empty, fmt.Sprintf("round %d: %s", round+1, r))
				break // nothing to answer nor echo: the exchange cannot go on
			}
			sawState = sawState || r.state != nil
			if _, unanswerable := answers(r.requests); len(unanswerable) > 0 {
				t.Blocked("the server asked for input the client cannot give (%s)", strings.Join(inputMethods(r.requests), ", "))
			}
			r = x.retry(r, nil)
		}
		t.Judge(atLeastOne, len(empty) == 0, "inputRequests or requestState in every input_required result", strings.Join(empty, "; "))
		if len(empty) > 0 {
			t.Blocked("an input_required result gave the client nothing to answer or echo")
		}
		if !sawState {
			t.Fail(stateCompletes, "a requestState in an input_required result of the fixture", "none came; last answer: "+r.String())
			return
		}
		t.Judge(stateCompletes, succeeded(r) && nonEmpty(r, "content"), "a complete result with non-empty content after the state was echoed", r.String())
	}),
}

func nonEmpty(r reply, member string) bool {
	var members map[string]json.RawMessage
	_ = json.Unmarshal(r.msg.Result, &members)
	var items []json.RawMessage
	_ = json.Unmarshal(members[member], &items)
	return len(items) > 0
}

var resultTypePresent = &scenarios.Check{ID: "input-required-result-result-type/present", Level: scenarios.Must, Spec: resultsDoc,
	Quote: "The `result` **MUST** include a `resultType` field to indicate the type of the result.",
	Title: "every result of the test_input_required_result_elicitation exchange names its resultType: \"input_required\" while it " +
		"asks, \"complete\" at the end",
	Faults: []*fault.Fault{server.MRTRResultTypeMissing}, Liberties: []*fault.Fault{server.MRTRReprompts},
	Requirements: []string{"sep-2322-result-type-included"}}

var resultTypeScenario = &scenarios.Scenario{
	ID: "input-required-result-result-type", Title: "input_required and complete results say which they are",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRElicitation)},
	Purpose: "The fake client declares elicitation, runs the exchange to its end and reads resultType on every result.",
	Checks:  []*scenarios.Check{resultTypePresent},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRElicitation))
		r := x.first()
		var bad []string
		check := func(r reply, n int) {
			switch {
			case !r.isResult():
			case !r.hasResultType:
				bad = append(bad, fmt.Sprintf("result %d has no resultType", n))
			case r.resultType != "input_required" && r.resultType != "complete":
				bad = append(bad, fmt.Sprintf("result %d has resultType %q", n, r.resultType))
			}
		}
		check(r, 1)
		n := 1
		for r.inputRequired() && n <= maxRounds {
			if _, unanswerable := answers(r.requests); len(unanswerable) > 0 {
				break
			}
			r = x.retry(r, nil)
			n++
			check(r, n)
		}
		if n == 1 && !r.isResult() {
			t.Blocked("the fixture answered no result at all: %s", r)
		}
		t.Judge(resultTypePresent, len(bad) == 0, "resultType on every result, input_required while asking and complete at the end",
			strings.Join(bad, "; ")+fmt.Sprintf(" (last: %s)", r))
	}),
}

var notOnOtherRequests = &scenarios.Check{ID: "input-required-result-unsupported-methods/not-on-other-requests", Level: scenarios.Must, Spec: supported,
	Quote: "Servers MUST NOT send InputRequiredResult responses on any other client requests.",
	Title: "server/discover, tools/list, prompts/list, resources/list and resources/templates/list (those the server declares), " +
		"sent by a client that declares elicitation, sampling and roots, are never answered input_required",
	Faults:       []*fault.Fault{server.MRTROnToolsList},
	Requirements: []string{"sep-2322-not-on-unsupported-requests"}}

var unsupportedScenario = &scenarios.Scenario{
	ID: "input-required-result-unsupported-methods", Title: "no input_required outside tools/call, prompts/get and resources/read",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Purpose: "The fake client declares every input kind, so that a server inclined to ask has every chance, and sends the list " +
		"requests of what the server declares; a JSON-RPC error is not judged here, only a result that asks for input.",
	Checks: []*scenarios.Check{notOnOtherRequests},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation", "sampling", "roots"))
		probes := []struct{ capability, method string }{
			{"", protocol.MethodServerDiscover},
			{"tools", protocol.MethodToolsList},
			{"prompts", protocol.MethodPromptsList},
			{"resources", protocol.MethodResourcesList},
			{"resources", protocol.MethodResourcesTemplatesList},
		}
		var asked, sent []string
		for _, p := range probes {
			if p.capability != "" && !s.HasCapability(p.capability) {
				continue
			}
			x := newExchange(t, s, p.method, map[string]any{}, p.method)
			r := x.first()
			sent = append(sent, p.method)
			if r.inputRequired() || r.resultType == "input_required" {
				asked = append(asked, p.method+": "+r.String())
			}
		}
		t.Judge(notOnOtherRequests, len(asked) == 0, "no input_required result to "+strings.Join(sent, ", "), strings.Join(asked, "; "))
	}),
}

var tamperedRejected = &scenarios.Check{ID: "input-required-result-tampered-state/rejected", Level: scenarios.Must, Spec: serverReqs,
	Quote: "If `requestState` influences authorization, resource access, or business logic, servers **MUST** protect its integrity " +
		"(e.g. HMAC or AEAD) and **MUST** reject state that fails verification.",
	Title: "test_input_required_result_tampered_state, retried with its answers and its requestState with \"-TAMPERED\" appended, " +
		"is not completed on that state: a JSON-RPC error (any code), an HTTP refusal, a tool error, or the exchange started " +
		"afresh with a new input_required all reject it",
	Faults: []*fault.Fault{server.MRTRTamperedAccepted}, Liberties: []*fault.Fault{server.MRTRTamperedOtherCode, server.MRTRTamperedRestarts},
	Requirements: []string{"sep-2322-reject-tampered-state"}}

// foreignStateRejected judges one part of the SHOULD sep-2322.yaml excludes
// (what requestState binds; no requirement id): its principal and expiry
// parts would need a second authorization context or a wait past the
// server's TTL, and have no check.
var foreignStateRejected = &scenarios.Check{ID: "input-required-result-tampered-state/foreign-state-rejected", Level: scenarios.Should, Spec: serverReqs,
	Quote: "an identifier for the originating request, e.g. the method name and a digest of its salient parameters, rejecting state " +
		"presented on a request that does not match.",
	Title: "the untouched requestState of test_input_required_result_tampered_state, presented with the same answers on a call of " +
		"test_input_required_result_request_state, does not complete that call (replayed on another request, it is rejected)",
	Faults: []*fault.Fault{server.MRTRStateUnbound}, Liberties: []*fault.Fault{server.MRTRTamperedRestarts}}

var tamperedScenario = &scenarios.Scenario{
	ID: "input-required-result-tampered-state", Title: "a requestState that fails verification is rejected",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRTamperedState, "asks confirm, gives an integrity-protected requestState"),
		scenarios.NeedsFixture(fixtures.MRTRRequestState, "optional: the untouched requestState is replayed on a call of it")},
	Purpose: "The fake client declares elicitation, answers the first round and retries with the requestState changed. What the " +
		"state decides is the fixture's business, so the fixture is one whose state must be protected.",
	Checks: []*scenarios.Check{tamperedRejected, foreignStateRejected},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRTamperedState))
		first := x.first()
		askedFirst(t, first, fixtures.MRTRTamperedState)
		var state string
		if first.state == nil || json.Unmarshal(first.state, &state) != nil {
			t.SkipRest(fmt.Sprintf("the fixture gave no requestState string to tamper with (%s)", first))
		}
		tampered, _ := json.Marshal(state + "-TAMPERED")
		r := x.retry(first, map[string]any{"requestState": json.RawMessage(tampered)})
		if !r.refused() && !r.isResult() {
			t.Blocked("the tampered retry got no answer to judge: %s", r)
		}
		t.Judge(tamperedRejected, !succeeded(r), "the tampered state rejected (an error, a tool error or a new input_required)", r.String())

		other := t.Fixture(fixtures.MRTRRequestState, nil)
		t.Step("list tools to find the fixture %s", fixtures.MRTRRequestState)
		if names, _, ok := listNames(t, s, protocol.MethodToolsList, "tools", "name"); !ok || !names[other.Tool] {
			t.Skip(foreignStateRejected, "the target lists no tool "+other.Tool+" to present the state to")
			return
		}
		foreign := callTool(t, s, other)
		foreign.what += " with the requestState of " + fixtures.MRTRTamperedState
		replayed := foreign.retry(first, nil)
		if !replayed.refused() && !replayed.isResult() {
			t.Blocked("the replayed state got no answer to judge: %s", replayed)
		}
		t.Judge(foreignStateRejected, !succeeded(replayed), "the state rejected on a request it was not given for", replayed.String())
	}),
}

var declaredOnly = &scenarios.Check{ID: "input-required-result-capability-check/declared-only", Level: scenarios.Must, Spec: serverReqs,
	Quote: "Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities.",
	Title: "test_input_required_result_capabilities, called by a client whose clientCapabilities declare only sampling, asks " +
		"for no elicitation/create or roots/list (an error or a complete result is not judged)",
	Faults:       []*fault.Fault{server.MRTRUndeclaredElicitation},
	Requirements: []string{"sep-2322-respect-client-capabilities"}}

var capabilityScenario = &scenarios.Scenario{
	ID: "input-required-result-capability-check", Title: "input is asked only of kinds the client declares",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRCapabilities, "asks through a kind the client declares")},
	Purpose: "The fake client declares sampling only, in the request's _meta clientCapabilities, and calls the fixture.",
	Checks:  []*scenarios.Check{declaredOnly},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("sampling"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRCapabilities))
		r := x.first()
		if !r.inputRequired() {
			t.SkipRest(fmt.Sprintf("the fixture asked a sampling-only client for nothing (%s): nothing to judge", r))
		}
		var undeclared []string
		for key, raw := range r.requests {
			var req protocol.InputRequest
			_ = json.Unmarshal(raw, &req)
			if req.Method == protocol.MethodElicitationCreate || req.Method == protocol.MethodRootsList {
				undeclared = append(undeclared, key+": "+req.Method)
			}
		}
		t.Judge(declaredOnly, len(undeclared) == 0, "only sampling/createMessage input requests", strings.Join(undeclared, ", "))
	}),
}

var missingAsksAgain = &scenarios.Check{ID: "input-required-result-missing-input-response/asks-again", Level: scenarios.Should, Spec: errorHandled,
	Quote: "If the client fails to send all the information requested in a previous `InputRequests`, and the missing information " +
		"is necessary for the server to process the request, the server **SHOULD** respond with a new `InputRequiredResult` " +
		"requesting the missing information again, rather than returning an error.",
	Title: "test_input_required_result_elicitation retried with an empty inputResponses, and test_input_required_result_multiple_inputs " +
		"(where listed) retried with only one of its answers and its requestState, each answer a new input_required, or complete " +
		"if they can do without; not a JSON-RPC error or an isError result",
	Faults: []*fault.Fault{server.MRTRMissingAsError}, Liberties: []*fault.Fault{server.MRTRMissingCompletes},
	Requirements: []string{"sep-2322-missing-response-rerequests"}}

var missingScenario = &scenarios.Scenario{
	ID: "input-required-result-missing-input-response", Title: "a retry without the requested answers is asked again",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs: []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRElicitation), scenarios.NeedsFixture(fixtures.MRTRMultipleInputs, "optional")},
	Purpose: "The fake client declares elicitation, sampling and roots, gets the first round of each fixture and retries answering " +
		"none of it, or only part of it.",
	Checks: []*scenarios.Check{missingAsksAgain},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation", "sampling", "roots"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRElicitation))
		first := x.first()
		askedFirst(t, first, fixtures.MRTRElicitation)
		if !first.hasRequests {
			t.SkipRest("the first round asked nothing that could be left unanswered")
		}
		var wrong []string
		r := x.retry(first, map[string]any{"inputResponses": map[string]any{}})
		if !r.inputRequired() && !succeeded(r) {
			wrong = append(wrong, "nothing answered: "+r.String())
		}

		// Part of several questions answered, the rest left out.
		multi := t.Fixture(fixtures.MRTRMultipleInputs, nil)
		if names, _, ok := listNames(t, s, protocol.MethodToolsList, "tools", "name"); ok && names[multi.Tool] {
			y := callTool(t, s, multi)
			first := y.first()
			if first.inputRequired() && len(first.requests) > 1 {
				keys := slices.Sorted(maps.Keys(first.requests))
				some := answerAll(map[string]json.RawMessage{keys[0]: first.requests[keys[0]]})
				r := y.retry(first, map[string]any{"inputResponses": some})
				if !r.inputRequired() && !succeeded(r) {
					wrong = append(wrong, "only "+keys[0]+" answered: "+r.String())
				}
			}
		}
		t.Judge(missingAsksAgain, len(wrong) == 0, "a new input_required result (or a complete one)", strings.Join(wrong, "; "))
	}),
}

var extraIgnored = &scenarios.Check{ID: "input-required-result-ignore-extra-params/ignored", Level: scenarios.Should, Spec: errorHandled,
	Quote: "If additional, unexpected parameters are provided in the `InputResponses` object, the server **SHOULD** ignore any " +
		"information it does not recognize or need.",
	Title: "test_input_required_result_elicitation, retried with its answers plus a response under a key it never asked for, " +
		"completes as it would without it (no error, no isError)",
	Faults: []*fault.Fault{server.MRTRExtraResponseRefused}, Liberties: []*fault.Fault{server.MRTRReprompts},
	Requirements: []string{"sep-2322-ignore-unexpected-params"}}

var extraScenario = &scenarios.Scenario{
	ID: "input-required-result-ignore-extra-params", Title: "answers never asked for are ignored",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRElicitation)},
	Purpose: "The fake client declares elicitation, answers the first round and adds mcpconform_unrequested to inputResponses.",
	Checks:  []*scenarios.Check{extraIgnored},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRElicitation))
		first := x.first()
		askedFirst(t, first, fixtures.MRTRElicitation)
		responses := answerAll(first.requests)
		responses["mcpconform_unrequested"] = map[string]any{"action": "accept", "content": map[string]any{"note": "never asked"}}
		r := x.retry(first, map[string]any{"inputResponses": responses})
		last, _ := x.converge(r)
		t.Judge(extraIgnored, succeeded(last), "a complete result (the unknown response ignored)", last.String())
	}),
}

var (
	malformedNotCompleted = &scenarios.Check{ID: "input-required-result-validate-input/not-completed", Level: scenarios.Should, Spec: errorHandled,
		Quote: "Servers **SHOULD** validate that the data provided by the client is a valid `InputResponses` object and that the " +
			"information inside can be correctly parsed.",
		Title: "test_input_required_result_elicitation, retried with its elicitation answered by 12345 (no ElicitResult), or with " +
			"inputResponses that is no object, does not complete successfully: an error or a new input_required",
		Faults: []*fault.Fault{server.MRTRMalformedAccepted}, Liberties: []*fault.Fault{server.MRTRMalformedAsksAgain},
		Requirements: []string{"sep-2322-validate-input-responses"}}
	malformedError = &scenarios.Check{ID: "input-required-result-validate-input/error-response", Level: scenarios.Should, Spec: errorHandled,
		Quote: "Protocol errors (malformed JSON, invalid schema, internal server errors) **SHOULD** return a JSON-RPC error response " +
			"with an appropriate error code and message.",
		Title:  "the retry whose inputResponses is a string instead of an object (invalid schema) is answered with a JSON-RPC error",
		Faults: []*fault.Fault{server.MRTRMalformedToolError}, Liberties: []*fault.Fault{server.MRTRMalformedAsksAgain},
		Requirements: []string{"sep-2322-error-on-protocol-error"}}
)

var validateScenario = &scenarios.Scenario{
	ID: "input-required-result-validate-input", Title: "answers that cannot be parsed are refused",
	Family: family, Side: scenarios.ServerSide, Versions: versions,
	Needs:   []scenarios.Need{scenarios.NeedsCapability("tools"), scenarios.NeedsFixture(fixtures.MRTRElicitation)},
	Purpose: "The fake client declares elicitation, gets the first round, and retries twice with answers a server cannot read.",
	Checks:  []*scenarios.Check{malformedNotCompleted, malformedError},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, declare("elicitation"))
		x := callTool(t, s, requireTool(t, s, fixtures.MRTRElicitation))
		first := x.first()
		askedFirst(t, first, fixtures.MRTRElicitation)
		key := ""
		for k, raw := range first.requests {
			if m, _ := validInputRequest(t.Env.Version, raw); m == protocol.MethodElicitationCreate && (key == "" || k < key) {
				key = k
			}
		}
		if key == "" {
			t.SkipRest("the first round asked for no elicitation whose answer could be malformed")
		}
		unreadable := x.retryInvalid(first, map[string]any{"inputResponses": map[string]any{key: 12345}}, "an input response that is a number")
		notObject := x.retryInvalid(first, map[string]any{"inputResponses": "mcpconform-not-an-object"}, "inputResponses that is a string")
		var completed []string
		for _, r := range []struct {
			what string
			r    reply
		}{{key + ": 12345", unreadable}, {"inputResponses a string", notObject}} {
			if succeeded(r.r) {
				completed = append(completed, r.what+" → "+r.r.String())
			}
		}
		t.Judge(malformedNotCompleted, len(completed) == 0, "no successful completion", strings.Join(completed, "; "))
		t.Judge(malformedError, notObject.isError(), "a JSON-RPC error", judge.Describe(notObject.msg, notObject.err))
	}),
}
