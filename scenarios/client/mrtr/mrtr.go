// Package mrtr is the client-side MRTR family (scenarios.md C1): a fake
// server at 2026-07-28 answers the client's calls with input_required and
// judges how the client's loop retries — new ids, requestState echoed
// exactly and never invented, every input answered, nothing carried over to
// another request, a result without resultType taken as complete — and that
// the loop ends when a server never stops asking.
package mrtr

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	mrtrSpec      = "2026-07-28/basic/patterns/mrtr.mdx#client-requirements-basic-workflow"
	resultTypeDoc = "2026-07-28/basic/index.mdx#resulttype"
	family        = "mrtr"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{requestStateScenario, roundsScenario, maxRoundsScenario, undeclaredScenario, otherMethodsScenario}
}

var versions = protocol.From(protocol.V20260728)

// question is one input request of an InputRequiredResult.
type question struct {
	key    string
	method string
	params map[string]any
}

func elicit(key, message, field, typ string) question {
	return question{key: key, method: protocol.MethodElicitationCreate, params: map[string]any{
		"mode":    "form",
		"message": message,
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{field: map[string]any{"type": typ}},
			"required":   []any{field},
		},
	}}
}

func sample(key, text string) question {
	return question{key: key, method: protocol.MethodSamplingCreateMessage, params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": 50,
	}}
}

func roots(key string) question {
	return question{key: key, method: protocol.MethodRootsList, params: map[string]any{}}
}

// inputRequired builds an InputRequiredResult; state nil sends none.
func inputRequired(state *string, qs ...question) map[string]any {
	r := map[string]any{"resultType": "input_required"}
	if len(qs) > 0 {
		reqs := map[string]any{}
		for _, q := range qs {
			reqs[q.key] = map[string]any{"method": q.method, "params": q.params}
		}
		r["inputRequests"] = reqs
	}
	if state != nil {
		r["requestState"] = *state
	}
	return r
}

func textResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

func ptr(s string) *string { return &s }

// retry is what one request of a loop carried.
type retry struct {
	id        jsonrpc.ID
	state     *string
	hasState  bool
	responses map[string]json.RawMessage
	has       bool // inputResponses present
}

func readRetry(r clientside.Received) retry {
	c := clientside.ReadCall(r.Msg)
	out := retry{id: r.Msg.ID}
	if raw, ok := c.Params["requestState"]; ok {
		out.hasState = true
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out.state = &s
		}
	}
	if raw, ok := c.Params["inputResponses"]; ok {
		out.has = true
		_ = json.Unmarshal(raw, &out.responses)
	}
	return out
}

func describeState(r retry) string {
	switch {
	case !r.hasState:
		return "no requestState"
	case r.state == nil:
		return "a requestState that is not a string"
	}
	return fmt.Sprintf("requestState %s", quoteShort(*r.state))
}

// quoteShort quotes a state for a verdict: long ones by length and ends.
func quoteShort(s string) string {
	if len(s) <= 120 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…%q (%d bytes)", s[:60], s[len(s)-40:], len(s))
}

// firstDifference says where two states part, for a failure message.
func firstDifference(want, got string) string {
	n := min(len(want), len(got))
	for i := 0; i < n; i++ {
		if want[i] != got[i] {
			return fmt.Sprintf("they differ from byte %d on (%d and %d bytes long)", i, len(want), len(got))
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d and %d bytes long)", len(want), len(got))
}

// judgeEcho compares a retry's state with the one sent.
func judgeEcho(sent string, got retry) (bool, string) {
	switch {
	case !got.hasState:
		return false, "a retry without requestState"
	case got.state == nil:
		return false, "a requestState that is not a string"
	case *got.state != sent:
		return false, fmt.Sprintf("%s: %s", describeState(got), firstDifference(sent, *got.state))
	}
	return true, ""
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func joinKeys(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// declared is the client capabilities a 2026-07-28 request carries in
// _meta (basic/index.mdx#meta), by name.
func declared(req *jsonrpc.Message) map[string]bool {
	var p protocol.Meta
	_ = json.Unmarshal(req.Params, &p)
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(p.Meta[protocol.MetaClientCapabilities], &caps)
	out := map[string]bool{}
	for k := range caps {
		out[k] = true
	}
	return out
}

// capabilityOf is the client capability an input request needs.
var capabilityOf = map[string]string{
	protocol.MethodElicitationCreate:     "elicitation",
	protocol.MethodSamplingCreateMessage: "sampling",
	protocol.MethodRootsList:             "roots",
}

// askable keeps the questions the request's client declared it can answer:
// a conformant server asks nothing else (mrtr.mdx: "Servers MUST NOT send an
// inputRequests that the client has not declared support for").
func askable(req *jsonrpc.Message, qs ...question) []question {
	caps := declared(req)
	var out []question
	for _, q := range qs {
		if caps[capabilityOf[q.method]] {
			out = append(out, q)
		}
	}
	return out
}

// roundsOf scripts a tool whose n-th call gets answer(n, request).
func roundsOf(answer func(n int, req *jsonrpc.Message) map[string]any) server.Handler {
	var mu sync.Mutex
	n := 0
	return func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		return answer(i, req), nil
	}
}
