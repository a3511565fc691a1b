package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Requests a tool makes of the client from inside its call: sampling and
// form elicitation. The fake client answers them and records what it got.

// recorder answers a server→client request and keeps its params.
type recorder struct{ got chan json.RawMessage }

func newRecorder() *recorder { return &recorder{got: make(chan json.RawMessage, 8)} }

func (r *recorder) handler(answer func(params json.RawMessage) any) client.RequestHandler {
	return func(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		select {
		case r.got <- req.Params:
		default: // more than the scenario reads: keep answering
		}
		return answer(req.Params), nil
	}
}

// first is the first request recorded; the call's answer has come by then,
// and the tool could only answer after the request was answered.
func (r *recorder) first() (json.RawMessage, bool) {
	select {
	case p := <-r.got:
		return p, true
	default:
		return nil, false
	}
}

const sampledText = "mcpconform sampled answer"

var (
	samplingRequested = &scenarios.Check{ID: "tools-call-sampling/request", Level: scenarios.Must, Spec: samplingSpec + "#creating-messages",
		Quote:  "To request a language model generation, servers send a `sampling/createMessage` request:",
		Title:  "test_sampling sends sampling/createMessage with at least one message while its call is open",
		Faults: []*fault.Fault{server.SamplingSkipped}}
	samplingResult = &scenarios.Check{ID: "tools-call-sampling/result", Level: scenarios.Must, Spec: toolsSpec + "#calling-tools",
		Quote:  "To invoke a tool, clients send a `tools/call` request:",
		Title:  "test_sampling succeeds (no isError) with non-empty content once the client answered",
		Faults: []*fault.Fault{server.SamplingIsError}}
)

var samplingScenario = &scenarios.Scenario{
	ID: "tools-call-sampling", Title: "a tool asks the client's model from inside its call", Family: "tools", Side: scenarios.ServerSide,
	Versions: stateful, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.Sampling, "argument prompt; sends sampling/createMessage, then succeeds")},
	Purpose: "The fake client declares sampling and answers with an assistant text; the fixture must ask during the call " +
		"and then succeed.",
	Checks: []*scenarios.Check{samplingRequested, samplingResult},
	Run: serverside.Body(func(t *serverside.T) {
		rec := newRecorder()
		s := t.Open("A", client.Options{Capabilities: map[string]any{"sampling": map[string]any{}},
			Handlers: map[string]client.RequestHandler{protocol.MethodSamplingCreateMessage: rec.handler(func(json.RawMessage) any {
				return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": sampledText},
					"model": "test-model", "stopReason": "endTurn"}
			})}})
		fx, resp, err := call(t, s, fixtures.Sampling, map[string]any{"prompt": "What is the capital of France?"}, nil)
		if r, ok := succeeded(t, samplingResult, fx, resp, err); ok {
			t.Judge(samplingResult, len(r.Content) > 0, "non-empty content", types(r))
		}
		params, ok := rec.first()
		if !ok {
			t.Fail(samplingRequested, "a sampling/createMessage before the call's answer", "none arrived")
			return
		}
		var p protocol.CreateMessageParams
		_ = json.Unmarshal(params, &p)
		t.Judge(samplingRequested, len(p.Messages) > 0, "a sampling/createMessage with at least one message", "no messages: "+string(params))
	}),
}

// elicitationCaps declares form elicitation (2025-11-25).
func elicitationCaps() map[string]any {
	return map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
}

// acceptDefaults accepts a form with each property's default, or a value
// of its type: what a user who changes nothing sends.
func acceptDefaults(params json.RawMessage) any {
	var p protocol.ElicitParams
	_ = json.Unmarshal(params, &p)
	content := map[string]any{}
	for name, prop := range p.RequestedSchema.Properties {
		if d, ok := prop["default"]; ok {
			content[name] = client.ContentValue(d)
			continue
		}
		switch prop["type"] {
		case "string":
			if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
				content[name] = enum[0]
			} else if one, ok := prop["oneOf"].([]any); ok && len(one) > 0 {
				first, _ := one[0].(map[string]any)
				content[name] = first["const"]
			} else {
				content[name] = "x"
			}
		case "array": // one choice: a multi-select may ask for at least one
			items, _ := prop["items"].(map[string]any)
			if enum, ok := items["enum"].([]any); ok && len(enum) > 0 {
				content[name] = enum[:1]
			} else if titled, ok := items["anyOf"].([]any); ok && len(titled) > 0 {
				first, _ := titled[0].(map[string]any)
				content[name] = []any{first["const"]}
			} else {
				content[name] = []any{}
			}
		case "boolean":
			content[name] = true
		default:
			content[name] = 1
		}
	}
	return client.ElicitationAnswer("accept", content)
}

// askedSchema runs an elicitation fixture, answering with acceptDefaults,
// and returns the requestedSchema's properties and what went wrong with
// the call itself ("" when it succeeded). The schema is judged even when
// the call then failed, so a failure names both. Without an elicitation
// there is nothing to judge: c fails and ok is false.
func askedSchema(t *serverside.T, c *scenarios.Check, fixture string) (props map[string]map[string]any, callProblem string, ok bool) {
	rec := newRecorder()
	s := t.Open("A", client.Options{Capabilities: elicitationCaps(),
		Handlers: map[string]client.RequestHandler{protocol.MethodElicitationCreate: rec.handler(acceptDefaults)}})
	fx, resp, err := call(t, s, fixture, nil, nil)
	params, asked := rec.first()
	var r protocol.ToolResult
	switch {
	case err != nil || resp == nil || resp.Error != nil:
		callProblem = "the call failed: " + judge.Describe(resp, err)
	case json.Unmarshal(resp.Result, &r) != nil || r.IsError:
		callProblem = "the call answered isError (the fixture must succeed once the form is accepted): " + judge.Describe(resp, nil)
	}
	if !asked {
		actual := "none arrived"
		if callProblem != "" {
			actual += "; " + callProblem
		}
		t.Fail(c, "an elicitation/create from "+fx.Tool+" while its call was open", actual)
		return nil, "", false
	}
	var p protocol.ElicitParams
	_ = json.Unmarshal(params, &p)
	return p.RequestedSchema.Properties, callProblem, true
}

var defaultsGiven = &scenarios.Check{ID: "elicitation-sep1034-defaults/defaults", Level: scenarios.Must, Spec: elicitationSpec + "#requested-schema",
	Quote: "All primitive types support optional default values to provide sensible starting points.",
	Title: "test_elicitation_sep1034_defaults asks with defaults of every primitive type (name \"John Doe\", age 30, score 95.5, " +
		"status \"active\" among its enum, verified true) and succeeds once accepted",
	Faults: []*fault.Fault{server.DefaultsWrong}}

var defaultsScenario = &scenarios.Scenario{
	ID: "elicitation-sep1034-defaults", Title: "an elicitation whose fields have defaults (SEP-1034)", Family: "tools", Side: scenarios.ServerSide,
	Versions: only1125, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ElicitationDefaults, "no arguments; asks through a form with defaults")},
	Purpose: "The fixture's form must carry a default of each primitive type, typed as the field; the fake client accepts the defaults.",
	Checks:  []*scenarios.Check{defaultsGiven},
	Run: serverside.Body(func(t *serverside.T) {
		props, callProblem, ok := askedSchema(t, defaultsGiven, fixtures.ElicitationDefaults)
		if !ok {
			return
		}
		want := []struct {
			name, typ string
			def       any
		}{{"name", "string", "John Doe"}, {"age", "integer", 30.0}, {"score", "number", 95.5}, {"status", "string", "active"}, {"verified", "boolean", true}}
		var problems []string
		for _, w := range want {
			prop, ok := props[w.name]
			switch {
			case !ok:
				problems = append(problems, w.name+" missing")
			case prop["type"] != w.typ:
				problems = append(problems, fmt.Sprintf("%s has type %v, not %s", w.name, prop["type"], w.typ))
			case !reflect.DeepEqual(prop["default"], w.def):
				problems = append(problems, fmt.Sprintf("%s has default %v, not %v", w.name, prop["default"], w.def))
			}
		}
		if enum, _ := props["status"]["enum"].([]any); len(problems) == 0 && !contains(enum, "active") {
			problems = append(problems, fmt.Sprintf("status default \"active\" is not among its enum %v", enum))
		}
		if callProblem != "" {
			problems = append(problems, callProblem)
		}
		t.Judge(defaultsGiven, len(problems) == 0, "each field typed as named, with its default, and the call's success",
			strings.Join(problems, "; "))
	}),
}

func contains(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

var enumShapes = &scenarios.Check{ID: "elicitation-sep1330-enums/shapes", Level: scenarios.Must, Spec: elicitationSpec + "#requested-schema",
	Quote: "The schema is restricted to these primitive types:",
	Title: "test_elicitation_sep1330_enums asks with the five enum shapes (untitledSingle, titledSingle, legacyEnum with one " +
		"enumName per value, untitledMulti, titledMulti) and succeeds once accepted",
	Faults: []*fault.Fault{server.EnumTitlesUneven}}

var enumsScenario = &scenarios.Scenario{
	ID: "elicitation-sep1330-enums", Title: "an elicitation with every enum schema shape (SEP-1330)", Family: "tools", Side: scenarios.ServerSide,
	Versions: only1125, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ElicitationEnums, "no arguments; asks through a form with five enum fields")},
	Purpose: "Single and multi select, with and without titles, and the legacy enumNames form, under the property names the " +
		"official suite uses.",
	Checks: []*scenarios.Check{enumShapes},
	Run: serverside.Body(func(t *serverside.T) {
		props, callProblem, ok := askedSchema(t, enumShapes, fixtures.ElicitationEnums)
		if !ok {
			return
		}
		var problems []string
		check := func(name string, ok bool, what string) {
			if !ok {
				problems = append(problems, name+": "+what)
			}
		}
		p := func(name string) map[string]any { return props[name] }
		items := func(name string) map[string]any { m, _ := p(name)["items"].(map[string]any); return m }
		check("untitledSingle", p("untitledSingle")["type"] == "string" && nonEmptyStrings(p("untitledSingle")["enum"]), "a string with an enum")
		check("titledSingle", p("titledSingle")["type"] == "string" && titled(p("titledSingle")["oneOf"]), "a string with oneOf {const, title}")
		enum, _ := p("legacyEnum")["enum"].([]any)
		names, _ := p("legacyEnum")["enumNames"].([]any)
		check("legacyEnum", p("legacyEnum")["type"] == "string" && nonEmptyStrings(enum) && len(names) == len(enum),
			fmt.Sprintf("a string with an enum and as many enumNames (%d values, %d names)", len(enum), len(names)))
		check("untitledMulti", p("untitledMulti")["type"] == "array" && nonEmptyStrings(items("untitledMulti")["enum"]), "an array whose items have an enum")
		check("titledMulti", p("titledMulti")["type"] == "array" && titled(items("titledMulti")["anyOf"]), "an array whose items have anyOf {const, title}")
		if callProblem != "" {
			problems = append(problems, callProblem)
		}
		t.Judge(enumShapes, len(problems) == 0, "the five enum shapes, and the call's success", strings.Join(problems, "; "))
	}),
}

func nonEmptyStrings(v any) bool {
	list, _ := v.([]any)
	for _, x := range list {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return len(list) > 0
}

func titled(v any) bool {
	list, _ := v.([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		_, c := m["const"].(string)
		_, t := m["title"].(string)
		if !c || !t {
			return false
		}
	}
	return len(list) > 0
}
