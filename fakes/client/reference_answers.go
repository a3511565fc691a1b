package client

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// What the reference client answers when a server asks it for input, the
// same whether the question comes as a server-to-client request (2025-11-25
// and earlier) or inside an InputRequiredResult (2026-07-28): a user who
// accepts every form with its defaults, a model that always says the same,
// one root. These are the answers the official suite's client expects
// (fixtures.md, "MRTR retries").

// Sampling and roots answers.
var (
	SamplingAnswer = map[string]any{
		"role":       "assistant",
		"content":    map[string]any{"type": "text", "text": "This is a test response from the reference client."},
		"model":      "test-model",
		"stopReason": "endTurn",
	}
	RootsAnswer = map[string]any{"roots": []any{map[string]any{"uri": "file:///test/root", "name": "Test Root"}}}
)

// referenceCapabilities are what the reference client declares at version:
// what it answers (roots, sampling, elicitation in the modes the version
// has), less what a variant leaves out.
func (rc *referenceRun) referenceCapabilities() map[string]any {
	v := rc.opts.Version
	caps := map[string]any{
		"roots":    map[string]any{"listChanged": true},
		"sampling": map[string]any{},
	}
	switch {
	case v == protocol.V20250326:
		// Elicitation came with 2025-06-18.
	case v == protocol.V20250618:
		caps["elicitation"] = map[string]any{}
	default:
		caps["elicitation"] = map[string]any{"form": map[string]any{}, "url": map[string]any{}}
	}
	if rc.is(MRTRUndeclaredInput) || rc.is(MRTRNoSampling) {
		delete(caps, "sampling")
	}
	if protocol.Features(v).TasksV1 && !rc.is(NoClientTasks) {
		// Client-hosted tasks exist at 2025-11-25 only (reference_tasks.go).
		rc.tasks = newTaskReceiver(rc)
		caps["tasks"] = rc.tasks.capability()
	}
	rc.surfaceCapabilities(caps)
	rc.skillsCapabilities(caps)
	if rc.extendCapabilities != nil {
		rc.extendCapabilities(caps)
	}
	return caps
}

// declares reports whether the client declared the capability an input
// request of method needs.
func (rc *referenceRun) declares(method string) bool {
	name := capabilityOf[method]
	if name == "" {
		return false
	}
	_, ok := rc.capabilities[name]
	return ok
}

// answer produces the client's result for one question (an input request or
// a server-to-client request), or an error when it has no answer for it.
func (rc *referenceRun) answer(method string, params json.RawMessage) (map[string]any, *jsonrpc.Error) {
	if result, rpcErr, ok := rc.surfaceAnswer(method, params); ok {
		return result, rpcErr
	}
	switch method {
	case protocol.MethodElicitationCreate:
		return elicitationAnswer(params), nil
	case protocol.MethodSamplingCreateMessage:
		return clone(SamplingAnswer), nil
	case protocol.MethodRootsList:
		return clone(RootsAnswer), nil
	}
	return nil, &jsonrpc.Error{Code: codes.MethodNotFound, Message: "the reference client has no answer for " + method}
}

// serverRequestHandlers answer server-to-client requests (stateful
// versions) for the capabilities the client declared.
func (rc *referenceRun) serverRequestHandlers() map[string]RequestHandler {
	h := map[string]RequestHandler{}
	for _, m := range []string{protocol.MethodElicitationCreate, protocol.MethodSamplingCreateMessage, protocol.MethodRootsList} {
		if !rc.declares(m) && !rc.answersUndeclared() {
			continue
		}
		h[m] = func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if created, rpcErr, ok := rc.asTask(ctx, req); ok {
				return created, rpcErr
			}
			rc.logf("the server asks %s", req.Method)
			return rc.answer(req.Method, req.Params)
		}
	}
	// A ping is answered at once (basic/utilities/ping.mdx; 2026-07-28 has
	// none); one that releases a held question waits until its answer is
	// applied.
	if !protocol.IsStateless(rc.opts.Version) {
		h[protocol.MethodPing] = func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if rc.tasks != nil {
				rc.tasks.release(ctx, req.Params)
			}
			return map[string]any{}, nil
		}
	}
	if rc.tasks != nil {
		for m, handler := range rc.tasks.handlers() {
			h[m] = handler
		}
	}
	return h
}

// asTask creates a task for a task-augmented request of a type the client
// declared under tasks.requests; any other request, and a request without
// the task param, is processed normally (tasks.mdx, "Task Support and
// Handling").
func (rc *referenceRun) asTask(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error, bool) {
	augmented, ttl := taskParam(req.Params)
	if rc.tasks == nil || !augmented || rc.is(TaskSyncAnswer) {
		return nil, nil, false
	}
	if _, declared := clientTaskMethods[req.Method]; !declared && !rc.is(TaskForUndeclared) {
		return nil, nil, false
	}
	if (rc.is(TaskCapacityHangs) || rc.is(TaskCapacityRefuses)) && rc.tasks.full() {
		if rc.is(TaskCapacityHangs) {
			rc.logf("at capacity: %s left unanswered (fault %s)", req.Method, TaskCapacityHangs.Name)
			return peer.NoAnswer, nil, true
		}
		return nil, &jsonrpc.Error{Code: codes.InternalError, Message: fmt.Sprintf("task capacity reached: %d live tasks", capacityLimit)}, true
	}
	return rc.tasks.create(ctx, req, ttl), nil, true
}

// elicitationAnswer accepts a form with every default the schema gives and
// a placeholder of the right type for each required property without one
// (client/elicitation.mdx: the content must validate against the
// requestedSchema); a URL-mode request is accepted without content.
func elicitationAnswer(params json.RawMessage) map[string]any {
	var p protocol.ElicitParams
	_ = json.Unmarshal(params, &p)
	if p.Mode == "url" {
		return map[string]any{"action": "accept"}
	}
	content := map[string]any{}
	names := make([]string, 0, len(p.RequestedSchema.Properties))
	for name := range p.RequestedSchema.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := p.RequestedSchema.Properties[name]
		if d, ok := prop["default"]; ok {
			content[name] = ContentValue(d)
			continue
		}
		for _, r := range p.RequestedSchema.Required {
			if r == name {
				content[name] = placeholder(prop)
			}
		}
	}
	return ElicitationAnswer("accept", content)
}

// ContentValue is v as an accepted form's content may carry it: ElicitResult
// takes strings, integers, booleans and string lists only (the schema's
// content), so a fractional number (a number field's default 95.5) is
// answered with the nearest integer, still a number of the field.
func ContentValue(v any) any {
	if f, ok := v.(float64); ok && f != math.Trunc(f) {
		return math.Round(f)
	}
	return v
}

// placeholder is a value of the property's type: the first enum value, a
// number, true, or a string.
func placeholder(prop map[string]any) any {
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if one, ok := prop["oneOf"].([]any); ok && len(one) > 0 {
		if o, ok := one[0].(map[string]any); ok {
			if c, ok := o["const"]; ok {
				return c
			}
		}
	}
	switch prop["type"] {
	case "number", "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	}
	return "test"
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
