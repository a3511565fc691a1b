package mrtr

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The fake client's side of an MRTR exchange (mrtr.mdx, "Client
// Requirements"): every attempt is a new request with a new JSON-RPC id,
// carrying the answers in inputResponses and the requestState exactly as
// received. Requests go out as raw frames, so their answers are judged by
// this family's checks alone and not also by the session's schema ledger
// (wire-schema): a server that breaks an MRTR rule fails the check that
// states it, once.

// Answers the fake client gives (as the official referee does, fixtures.md).
const (
	answeredName  = "Alice"
	sampledAnswer = "Paris"
	rootURI       = "file:///test/root"
)

var attempts atomic.Int64

// exchange is one MRTR request and its retries.
type exchange struct {
	t      *serverside.T
	s      *client.Session
	method string
	base   map[string]any // the request's own params: name and arguments, or uri
	what   string         // "tools/call test_…", for messages
	mark   int            // the session's inbox when the exchange began
	// invalid names the retry being sent invalid on purpose ("" for none).
	invalid string
}

func newExchange(t *serverside.T, s *client.Session, method string, base map[string]any, what string) *exchange {
	return &exchange{t: t, s: s, method: method, base: base, what: what, mark: s.Inbox().Mark()}
}

// serverRequests lists the JSON-RPC requests the server sent since the
// exchange began.
func (x *exchange) serverRequests() []string {
	var out []string
	for _, m := range x.s.Inbox().Matching(x.mark, func(m *jsonrpc.Message) bool { return m.IsRequest() }) {
		out = append(out, "request "+m.Method+" (id "+m.ID.String()+")")
	}
	return out
}

// reply is one answer of the exchange.
type reply struct {
	msg *jsonrpc.Message
	err error
	id  jsonrpc.ID
	// Members of the result, when it is one.
	resultType    string
	hasResultType bool
	requests      map[string]json.RawMessage
	hasRequests   bool
	state         json.RawMessage // as received; nil when absent
}

// isResult reports an answer that is a JSON-RPC result.
func (r reply) isResult() bool { return r.err == nil && r.msg != nil && r.msg.Error == nil }

// inputRequired reports an input_required result. One without resultType
// that carries inputRequests or requestState is read as one too: whether
// resultType is there is the result-type scenario's verdict, not every
// scenario's.
func (r reply) inputRequired() bool {
	if !r.isResult() {
		return false
	}
	if r.hasResultType {
		return r.resultType == "input_required"
	}
	return r.hasRequests || r.state != nil
}

// complete reports a result that is not input_required.
func (r reply) complete() bool { return r.isResult() && !r.inputRequired() }

// isError reports a JSON-RPC error answer.
func (r reply) isError() bool { return r.err == nil && r.msg != nil && r.msg.Error != nil }

// refused reports a JSON-RPC error answer or, over Streamable HTTP, a
// refusal by HTTP status alone (a 4xx or 5xx without a JSON-RPC body).
func (r reply) refused() bool {
	if r.isError() {
		return true
	}
	status, ok := judge.HTTPRejection(r.err)
	return ok && status >= 400
}

func (r reply) String() string { return judge.Abbreviate(judge.Describe(r.msg, r.err), 600) }

// send makes one attempt with extra params (inputResponses, requestState…).
func (x *exchange) send(extra map[string]any) reply {
	params := maps.Clone(x.base)
	maps.Copy(params, extra)
	params["_meta"] = x.s.RequestMeta()
	id := jsonrpc.StringID(fmt.Sprintf("mcpconform-mrtr-%d", attempts.Add(1)))
	msg, err := rawRequestAs(x.t, x.s, id, x.method, params, x.invalid)
	out := parseReply(msg, err)
	out.id = id
	return out
}

// parseReply reads the members of an answer that the exchange acts on.
func parseReply(msg *jsonrpc.Message, err error) reply {
	out := reply{msg: msg, err: err}
	if !out.isResult() {
		return out
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &members)
	if raw, ok := members["resultType"]; ok {
		out.hasResultType = true
		if json.Unmarshal(raw, &out.resultType) != nil {
			out.resultType = string(raw)
		}
	}
	if raw, ok := members["inputRequests"]; ok && string(raw) != "null" {
		out.hasRequests = true
		_ = json.Unmarshal(raw, &out.requests)
	}
	if raw, ok := members["requestState"]; ok {
		out.state = raw
	}
	return out
}

// first makes the first attempt; a target that refuses the version itself
// (-32022) is not judged here, and one that does not answer stops the body.
func (x *exchange) first() reply {
	x.t.Step("%s", x.what)
	r := x.send(nil)
	x.settle(r)
	return r
}

// settle stops the body on an attempt with no answer, or on a refusal of
// the version (the lifecycle family judges that).
func (x *exchange) settle(r reply) {
	if r.err != nil && serverside.Unanswered(x.s, r.err) {
		x.t.Lost("an answer to "+x.what, r.err.Error())
	}
	if r.isError() && r.msg.Error.Code == codes.UnsupportedProtocolVersion {
		x.t.NotJudgedRest(fmt.Sprintf("the target refuses %s itself (%s)", x.t.Env.Version, r))
	}
}

// retry answers what r asks and sends the next attempt: the answers to
// every input request (none when none were asked), the requestState when
// one came, and the overrides given (a nil value leaves a member out).
func (x *exchange) retry(r reply, override map[string]any) reply {
	extra := map[string]any{}
	if r.hasRequests {
		extra["inputResponses"] = answerAll(r.requests)
	}
	if r.state != nil {
		extra["requestState"] = r.state
	}
	for k, v := range override {
		if v == nil {
			delete(extra, k)
		} else {
			extra[k] = v
		}
	}
	x.t.Step("retry %s with %s", x.what, describeExtra(extra))
	next := x.send(extra)
	x.settle(next)
	return next
}

// retryInvalid is retry with answers a server cannot read, sent invalid on
// purpose (what names them).
func (x *exchange) retryInvalid(r reply, override map[string]any, what string) reply {
	x.invalid = what
	defer func() { x.invalid = "" }()
	return x.retry(r, override)
}

// maxRounds bounds the exchange: a server may ask again and again
// (mrtr.mdx), a suite must end.
const maxRounds = 6

// converge answers and retries until the answer is no longer input_required
// or maxRounds attempts have been made; it returns the last answer and how
// many input_required answers came.
func (x *exchange) converge(r reply) (reply, int) {
	rounds := 0
	for r.inputRequired() && rounds < maxRounds {
		if _, unanswerable := answers(r.requests); len(unanswerable) > 0 {
			return r, rounds + 1
		}
		rounds++
		r = x.retry(r, nil)
	}
	if r.inputRequired() {
		rounds++
	}
	return r, rounds
}

func describeExtra(extra map[string]any) string {
	if len(extra) == 0 {
		return "nothing more"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		b, _ := json.Marshal(extra[k])
		parts = append(parts, k+" "+judge.Abbreviate(string(b), 200))
	}
	return strings.Join(parts, ", ")
}

// answerAll answers every input request it can.
func answerAll(requests map[string]json.RawMessage) map[string]any {
	out, _ := answers(requests)
	return out
}

// answers builds the client's result for each input request, and names
// those it cannot answer (a method that is no input request).
func answers(requests map[string]json.RawMessage) (map[string]any, []string) {
	out := map[string]any{}
	var unanswerable []string
	for key, raw := range requests {
		var req protocol.InputRequest
		_ = json.Unmarshal(raw, &req)
		switch req.Method {
		case protocol.MethodElicitationCreate:
			out[key] = client.ElicitationAnswer("accept", formContent(req.Params))
		case protocol.MethodSamplingCreateMessage:
			out[key] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": sampledAnswer},
				"model": "test-model", "stopReason": "endTurn"}
		case protocol.MethodRootsList:
			out[key] = map[string]any{"roots": []any{map[string]any{"uri": rootURI, "name": "Test Root"}}}
		default:
			unanswerable = append(unanswerable, key)
		}
	}
	sort.Strings(unanswerable)
	return out, unanswerable
}

// formContent fills a form: a value of each property's type.
func formContent(params json.RawMessage) map[string]any {
	var p protocol.ElicitParams
	_ = json.Unmarshal(params, &p)
	content := map[string]any{}
	for name, prop := range p.RequestedSchema.Properties {
		if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
			content[name] = enum[0]
			continue
		}
		switch prop["type"] {
		case "boolean":
			content[name] = true
		case "number", "integer":
			content[name] = 1
		default:
			content[name] = answeredName
		}
	}
	return content
}

// rawRequest sends a request frame as built here and waits for the response
// with its id. Its answer is not correlated by the session, so the session
// does not hold it to its version's schema: this family's checks judge it.
func rawRequest(t *serverside.T, s *client.Session, id jsonrpc.ID, method string, params any) (*jsonrpc.Message, error) {
	return rawRequestAs(t, s, id, method, params, "")
}

// rawRequestAs is rawRequest for a request invalid on purpose when
// invalid names why ("" for a valid one).
func rawRequestAs(t *serverside.T, s *client.Session, id jsonrpc.ID, method string, params any, invalid string) (*jsonrpc.Message, error) {
	req, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		t.Abort("%v", err)
	}
	frame, err := req.Encode()
	if err != nil {
		t.Abort("%v", err)
	}
	mark := s.Inbox().Mark()
	ctx, cancel := t.Wait()
	defer cancel()
	send := ctx
	if invalid != "" {
		send = t.Deliberately(ctx, invalid)
	}
	if err := s.SendRaw(send, frame); err != nil {
		return nil, err
	}
	return s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
		return m.Method == "" && (m.Error != nil || m.Result != nil) && m.ID.Equal(id)
	})
}

// listNames pages through a list method (raw, as above) and returns the
// names (or URIs) listed; ok is false when the listing failed.
func listNames(t *serverside.T, s *client.Session, method, key, field string) (map[string]bool, string, bool) {
	out := map[string]bool{}
	cursor := ""
	for range 50 {
		params := map[string]any{"_meta": s.RequestMeta()}
		if cursor != "" {
			params["cursor"] = cursor
		}
		id := jsonrpc.StringID(fmt.Sprintf("mcpconform-mrtr-%d", attempts.Add(1)))
		resp, err := rawRequest(t, s, id, method, params)
		if err != nil || resp.Error != nil {
			if err != nil && serverside.Unanswered(s, err) {
				t.Lost("an answer to "+method, err.Error())
			}
			return nil, judge.Describe(resp, err), false
		}
		var page map[string]json.RawMessage
		_ = json.Unmarshal(resp.Result, &page)
		var items []map[string]any
		if json.Unmarshal(page[key], &items) != nil {
			return nil, "a " + method + " result without " + key + ": " + judge.Abbreviate(string(resp.Result), 300), false
		}
		for _, it := range items {
			if name, ok := it[field].(string); ok {
				out[name] = true
			}
		}
		var next string
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" {
			break
		}
		cursor = next
	}
	return out, "", true
}

// requireTool resolves a fixture to the target's tool and skips the rest
// of the scenario when the target does not list it. A scenario that calls
// it needs the tools capability (scenarios.NeedsCapability("tools")): the
// driver skips it when the first session does not declare it.
func requireTool(t *serverside.T, s *client.Session, fixture string) scenarios.Fixture {
	fx := t.Fixture(fixture, nil)
	tool := fx.Tool
	t.Step("list tools to find the fixture %s", fixture)
	names, why, ok := listNames(t, s, protocol.MethodToolsList, "tools", "name")
	if !ok {
		t.SkipRest(fmt.Sprintf("the fixture %s could not be looked up: tools/list answered %s", fixture, why))
	}
	if !names[tool] {
		t.SkipRest(fmt.Sprintf("the target lists no tool %q for the fixture %s (map one with --fixture or the config file)", tool, fixture))
	}
	return fx
}

// callTool starts an exchange calling a fixture tool with its arguments.
func callTool(t *serverside.T, s *client.Session, fx scenarios.Fixture) *exchange {
	return newExchange(t, s, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments}, "tools/call "+fx.Tool)
}

// open starts a session at the judged version declaring caps.
func open(t *serverside.T, caps map[string]any) *client.Session {
	return t.Open("A", client.Options{Capabilities: caps})
}

func declare(names ...string) map[string]any {
	caps := map[string]any{}
	for _, n := range names {
		caps[n] = map[string]any{}
	}
	return caps
}

// inputMethods lists the methods of an input_required result's requests,
// keyed by their keys, sorted.
func inputMethods(requests map[string]json.RawMessage) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(requests)) {
		var req protocol.InputRequest
		_ = json.Unmarshal(requests[key], &req)
		out = append(out, key+": "+req.Method)
	}
	return out
}

// validInputRequest decodes one input request strictly as the request type
// its method names (mrtr.mdx: ElicitRequest, CreateMessageRequest or
// ListRootsRequest); it returns the method, or why the value is none.
func validInputRequest(version string, raw json.RawMessage) (string, error) {
	var req protocol.InputRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return "", fmt.Errorf("not an object: %v", err)
	}
	switch req.Method {
	case protocol.MethodElicitationCreate, protocol.MethodSamplingCreateMessage, protocol.MethodRootsList:
	default:
		return req.Method, fmt.Errorf("method %q is none of elicitation/create, sampling/createMessage, roots/list", req.Method)
	}
	return req.Method, protocol.ValidateParams(version, req.Method, req.Params)
}
