package client

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The client surface's variants of what the reference client declares and
// answers (faults_surface.go); reference_answers.go calls these hooks.

// surfaceCapabilities leaves out what a surface variant does not declare.
func (rc *referenceRun) surfaceCapabilities(caps map[string]any) {
	switch {
	case rc.is(AnswersUndeclaredSampling):
		delete(caps, "sampling")
	case rc.is(AnswersUndeclaredRoots):
		delete(caps, "roots")
	case rc.is(AnswersUndeclaredElicitation):
		delete(caps, "elicitation")
	}
	if rc.is(DeclaresNoClientFeatures) {
		delete(caps, "roots")
		delete(caps, "sampling")
		delete(caps, "elicitation")
		// Tasks for those requests would declare them again.
		delete(caps, "tasks")
	}
	if rc.is(AcceptsUndeclaredURLMode) || rc.is(ElicitationFormOnly) {
		if _, ok := caps["elicitation"]; ok {
			caps["elicitation"] = map[string]any{"form": map[string]any{}}
		}
	}
}

// answersUndeclared reports whether the client answers server requests
// whose capability it did not declare (a fault).
func (rc *referenceRun) answersUndeclared() bool {
	return rc.is(AnswersUndeclaredSampling) || rc.is(AnswersUndeclaredRoots) || rc.is(AnswersUndeclaredElicitation)
}

// declaresURLMode reports whether the client declared URL-mode elicitation
// (client/elicitation.mdx#capabilities: an empty object is form mode only).
func (rc *referenceRun) declaresURLMode() bool {
	e, ok := rc.capabilities["elicitation"].(map[string]any)
	if !ok {
		return false
	}
	_, url := e["url"]
	return url
}

// surfaceAnswer is the surface variants' answer to a server request; ok is
// false when the reference answer stands. A URL-mode elicitation the client
// did not declare gets -32602, as client/elicitation.mdx#error-handling
// asks, from every variant but the one that breaks that rule.
func (rc *referenceRun) surfaceAnswer(method string, params json.RawMessage) (result map[string]any, rpcErr *jsonrpc.Error, ok bool) {
	switch method {
	case protocol.MethodSamplingCreateMessage:
		var p protocol.CreateMessageParams
		_ = json.Unmarshal(params, &p)
		if rc.is(SamplingToolUseUndeclared) && len(p.Tools) > 0 {
			return map[string]any{
				"role":       "assistant",
				"content":    map[string]any{"type": "tool_use", "id": "call-1", "name": p.Tools[0].Name, "input": map[string]any{}},
				"model":      "test-model",
				"stopReason": "toolUse",
			}, nil, true
		}
		if rc.is(SamplingInvalidResult) {
			r := clone(SamplingAnswer)
			delete(r, "model")
			return r, nil, true
		}
	case protocol.MethodRootsList:
		switch {
		case rc.is(RootsInvalidResult):
			return map[string]any{"roots": []any{map[string]any{"name": "Test Root"}}}, nil, true
		case rc.is(RootsNotFileURI):
			return map[string]any{"roots": []any{map[string]any{"uri": "https://example.com/project", "name": "Project"}}}, nil, true
		}
	case protocol.MethodElicitationCreate:
		var p protocol.ElicitParams
		_ = json.Unmarshal(params, &p)
		if p.Mode == "" && rc.is(ModelessElicitationAsURL) {
			return map[string]any{"action": "accept"}, nil, true
		}
		if p.Mode == "url" {
			if !rc.declaresURLMode() && !rc.is(AcceptsUndeclaredURLMode) {
				return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "this client did not declare URL-mode elicitation"}, true
			}
			return nil, nil, false
		}
		switch {
		case rc.is(IgnoresElicitationDefaults):
			content := map[string]any{}
			for _, name := range p.RequestedSchema.Required {
				content[name] = placeholder(p.RequestedSchema.Properties[name])
			}
			return ElicitationAnswer("accept", content), nil, true
		case rc.is(ElicitationOffSchema):
			r := elicitationAnswer(params)
			content, _ := r["content"].(map[string]any)
			content = maps.Clone(content)
			for name, prop := range p.RequestedSchema.Properties {
				if v, ok := content[name]; ok && (prop["type"] == "number" || prop["type"] == "integer") {
					content[name] = fmt.Sprint(v)
				}
			}
			r["content"] = content
			return r, nil, true
		}
	}
	return nil, nil, false
}
