// Package surface is the rest of the client surface at 2025-11-25 and
// earlier (scenarios.md C3), with the official client scenarios tools_call,
// elicitation-sep1034-client-defaults, sse-retry and
// json-schema-2020-12-preservation: the tool call itself, elicitation
// defaults, resuming an SSE stream after the retry, JSON Schema 2020-12
// kept intact, valid sampling, roots and elicitation answers, refusing what
// the client did not declare, and no answer to a cancelled elicitation.
package surface

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

const family = "surface"

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{toolsCallScenario, defaultsScenario, sseRetryScenario, schemaScenario, answersScenario,
		undeclaredScenario, cancelledScenario, cancelRacesScenario}
}

var (
	stateful = protocol.JudgedStateful()
	// withElicitation are the versions that have elicitation/create.
	withElicitation = protocol.StatefulWith(protocol.MethodElicitationCreate)
	// withModes have elicitation modes, SSE polling and the JSON Schema
	// usage section.
	withModes = protocol.Where(func(v protocol.Version) bool { return v.Judged && v.Era == protocol.Stateful && v.ElicitationModes })
)

func textResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

// toolCalls is a context that asks the client to call each tool once.
func toolCalls(names ...string) map[string]any {
	calls := make([]any, 0, len(names))
	for _, n := range names {
		calls = append(calls, map[string]any{"name": n, "arguments": map[string]any{}})
	}
	return map[string]any{"toolCalls": calls}
}

// declared is the client capabilities of the client's initialize request
// (the first one logged).
func declared(t *clientside.T) map[string]json.RawMessage {
	for _, r := range t.Log().Requests(protocol.MethodInitialize) {
		var p protocol.InitializeParams
		var caps map[string]json.RawMessage
		_ = json.Unmarshal(r.Msg.Params, &p)
		if json.Unmarshal(p.Capabilities, &caps) != nil || caps == nil {
			return map[string]json.RawMessage{}
		}
		return caps
	}
	return map[string]json.RawMessage{}
}

// declaresURLMode reports whether the elicitation capability names url
// (client/elicitation.mdx#capabilities: an empty object means form only).
func declaresURLMode(caps map[string]json.RawMessage) bool {
	var e map[string]json.RawMessage
	if json.Unmarshal(caps["elicitation"], &e) != nil {
		return false
	}
	_, ok := e["url"]
	return ok
}

// exchange is one server-to-client request a tool made and what came back.
type exchange struct {
	method string
	params map[string]any
	resp   *jsonrpc.Message
	err    error
}

// asker sends server-to-client requests from inside a tool call, on the
// call's stream, each bounded by the response timeout, and keeps what came
// back for the body.
type asker struct {
	t    *clientside.T
	mu   sync.Mutex
	got  map[string]*exchange
	done chan struct{}
	once sync.Once
}

func newAsker(t *clientside.T) *asker {
	return &asker{t: t, got: map[string]*exchange{}, done: make(chan struct{})}
}

func (a *asker) ask(ctx context.Context, p *server.Peer, call *jsonrpc.Message, key, method string, params map[string]any) *exchange {
	rctx, cancel := context.WithTimeout(transport.WithRelatedRequest(ctx, call.ID), a.t.Env.Timing.ResponseTimeout)
	defer cancel()
	resp, err := p.Request(rctx, method, params)
	x := &exchange{method: method, params: params, resp: resp, err: err}
	a.mu.Lock()
	a.got[key] = x
	a.mu.Unlock()
	return x
}

func (a *asker) get(key string) *exchange {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got[key]
}

// finish says the tool has asked everything.
func (a *asker) finish() { a.once.Do(func() { close(a.done) }) }

// wait waits for the tool to finish, at most the response timeout more
// than each of its questions took; it reports whether it did.
func (a *asker) wait() bool {
	ctx, cancel := a.t.Wait()
	defer cancel()
	select {
	case <-a.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// describe says what an exchange brought, for a failure message.
func (x *exchange) describe() string {
	switch {
	case x == nil:
		return "the request was never sent"
	case x.err != nil:
		return "no answer: " + x.err.Error()
	case x.resp.Error != nil:
		return "error " + jsonText(x.resp.Error)
	}
	return "result " + abbreviate(string(x.resp.Result))
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return abbreviate(string(b))
}

func abbreviate(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
