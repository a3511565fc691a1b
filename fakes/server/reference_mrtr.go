package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// Multi round-trip requests (2026-07-28/basic/patterns/mrtr.mdx): fixtures
// that answer tools/call, prompts/get and resources/read with
// resultType "input_required" and complete once retried with the answers
// (inputResponses) and the requestState they were given. Names follow the
// official suite's fixtures (fixtures.md 1g); the resource is mcpconform's
// own. Every request is served from what it carries: the state travels in
// requestState, integrity-protected with an HMAC, bound to the method and
// the tool, prompt or resource, and short-lived. A fixture never asks for
// an input type the request's clientCapabilities do not declare.

const (
	mrtrStateTTL = 10 * time.Minute
)

// mrtrFamily serves the MRTR fixtures. Its state is the key that signs
// requestState: one per reference, which is every instance a client can
// reach in a run (a stdio target's process serves one reference).
type mrtrFamily struct {
	familyBase
	key []byte
}

func newMRTRFamily(r *reference) family {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return &mrtrFamily{familyBase: familyBase{r}, key: key}
}

func (r *mrtrFamily) tools() []refTool {
	return []refTool{
		{name: fixtures.MRTRElicitation, description: "Asks the user's name (elicitation, key user_name), then greets them.", call: r.mrtrTool},
		{name: fixtures.MRTRSampling, description: "Asks the client's model the capital of France (sampling, key capital_question).", call: r.mrtrTool},
		{name: fixtures.MRTRListRoots, description: "Asks for the client's roots (key client_roots), then lists them.", call: r.mrtrTool},
		{name: fixtures.MRTRRequestState, description: "Asks for a confirmation (key confirm) and carries its progress in requestState.", call: r.mrtrTool},
		{name: fixtures.MRTRMultipleInputs, description: "Asks for a name, a sampled greeting and the roots at once.", call: r.mrtrTool},
		{name: fixtures.MRTRMultiRound, description: "Asks for a name, then a colour, one round each.", call: r.mrtrTool},
		{name: fixtures.MRTRTamperedState, description: "Asks for a confirmation; refuses a requestState that fails verification.", call: r.mrtrTool},
		{name: fixtures.MRTRCapabilities, description: "Asks for input only of a kind the client declares.", call: r.mrtrTool},
	}
}

func (*mrtrFamily) capabilities(version string, caps map[string]any) {
	// The prompt that asks for input is served at 2026-07-28, so
	// prompts are declared there too.
	if protocol.Features(version).MRTR {
		if _, ok := caps["prompts"]; !ok {
			caps["prompts"] = map[string]any{"listChanged": false}
		}
	}
}

func (*mrtrFamily) faults() fault.Set    { return mrtrFaults }
func (*mrtrFamily) liberties() fault.Set { return mrtrLiberties }

// wrap serves the MRTR prompt and resource in front of their families'
// handlers, lists the prompt, and carries the fault that asks for input on
// tools/list.
func (r *mrtrFamily) wrap(method string, next Handler) Handler {
	switch method {
	case protocol.MethodPromptsGet:
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if isModern(ctx) && nameOf(req) == fixtures.MRTRPrompt {
				return r.serveMRTR(ctx, p, req, fixtures.MRTRPrompt, r.mrtrPrompt)
			}
			return next(ctx, p, req)
		}
	case protocol.MethodResourcesRead:
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if isModern(ctx) && nameOf(req) == fixtures.MRTRResource {
				return r.serveMRTR(ctx, p, req, fixtures.MRTRResource, r.mrtrResource)
			}
			return next(ctx, p, req)
		}
	case protocol.MethodPromptsList:
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			res, rerr := next(ctx, p, req)
			appendOnLastPage(ctx, res, "prompts", map[string]any{"name": fixtures.MRTRPrompt,
				"description": "Asks for the user's context (elicitation, key user_context) before it is rendered."})
			return res, rerr
		}
	case protocol.MethodResourcesList:
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			res, rerr := next(ctx, p, req)
			appendOnLastPage(ctx, res, "resources", map[string]any{"uri": fixtures.MRTRResource, "name": "input-required-result-resource",
				"mimeType": "text/plain", "description": "Asks for the user's context before it is read."})
			return res, rerr
		}
	case protocol.MethodToolsList:
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if r.is(MRTROnToolsList) && isModern(ctx) {
				if _, roots := requestCaps(req)["roots"]; roots {
					return inputRequired([]mrtrQuestion{rootsQuestion("client_roots")},
						sealState(r.key, mrtrState{Method: method, Step: 1}, mrtrStateTTL)), nil
				}
			}
			return next(ctx, p, req)
		}
	}
	return next
}

// appendOnLastPage adds an entry to a 2026-07-28 list result's last page.
func appendOnLastPage(ctx context.Context, res any, key string, entry map[string]any) {
	m, ok := res.(map[string]any)
	if !ok || !isModern(ctx) {
		return
	}
	if _, more := m["nextCursor"]; more {
		return
	}
	if items, ok := m[key].([]any); ok {
		m[key] = append(items, entry)
	}
}

// mrtrState is the payload of a requestState: the request it belongs to,
// how far the exchange has come, what was answered so far, and its expiry.
type mrtrState struct {
	Method string            `json:"m"`
	Target string            `json:"t"`
	Step   int               `json:"s"`
	Data   map[string]string `json:"d,omitempty"`
	Exp    int64             `json:"e"`
}

// sealState encodes the state with its HMAC under key (mrtr.mdx: "servers
// MUST protect its integrity (e.g. HMAC or AEAD)").
func sealState(key []byte, st mrtrState, ttl time.Duration) string {
	st.Exp = time.Now().Add(ttl).Unix()
	payload, _ := json.Marshal(st)
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// openState verifies a requestState and returns its payload; ok is false
// for state that fails verification, has expired, or belongs to another
// request.
func (r *mrtrFamily) openState(s, method, target string) (*mrtrState, bool) {
	enc, sig, _ := strings.Cut(s, ".")
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil, false
	}
	if !r.is(MRTRTamperedAccepted) {
		mac := hmac.New(sha256.New, r.key)
		mac.Write(payload)
		got, err := base64.RawURLEncoding.DecodeString(sig)
		if err != nil || !hmac.Equal(got, mac.Sum(nil)) {
			return nil, false
		}
	}
	var st mrtrState
	if json.Unmarshal(payload, &st) != nil || time.Now().Unix() > st.Exp {
		return nil, false
	}
	if (st.Method != method || st.Target != target) && !r.is(MRTRStateUnbound) {
		return nil, false
	}
	if r.is(MRTRStateUnbound) {
		st.Method, st.Target = method, target
	}
	return &st, true
}

// mrtrIn is what one attempt of an MRTR request carries.
type mrtrIn struct {
	ctx       context.Context
	peer      *Peer
	req       *jsonrpc.Message
	method    string
	target    string
	caps      map[string]json.RawMessage
	responses map[string]json.RawMessage
	state     *mrtrState
	key       []byte // the family's, to seal the next state with
}

// sendRequest sends q to the client as a JSON-RPC request of its own, the
// pattern 2026-07-28 replaced with MRTR (a fault), on the stream of the
// request being served, without waiting for an answer.
func (in *mrtrIn) sendRequest(q mrtrQuestion) {
	msg, err := jsonrpc.NewRequest(jsonrpc.StringID("srv-mrtr-"+q.key), q.method, q.params)
	if err != nil {
		return
	}
	if frame, err := msg.Encode(); err == nil {
		_ = in.peer.SendRaw(transport.WithRelatedRequest(in.ctx, in.req.ID), frame)
	}
}

// retry reports whether the request is a retry: it carries answers or state.
func (in *mrtrIn) retry() bool { return in.responses != nil || in.state != nil }

func requestCaps(req *jsonrpc.Message) map[string]json.RawMessage {
	meta, _ := requestMeta(req)
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(meta[protocol.MetaClientCapabilities], &caps)
	return caps
}

// serveMRTR reads and verifies what an attempt carries, then lets the
// fixture answer it.
func (r *mrtrFamily) serveMRTR(ctx context.Context, p *Peer, req *jsonrpc.Message, target string,
	fixture func(in *mrtrIn) (any, *jsonrpc.Error)) (any, *jsonrpc.Error) {
	var params map[string]json.RawMessage
	_ = json.Unmarshal(req.Params, &params)
	in := &mrtrIn{ctx: ctx, peer: p, req: req, method: req.Method, target: target, caps: requestCaps(req), key: r.key}
	if raw, ok := params["inputResponses"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &in.responses) != nil {
			// mrtr.mdx, Error Handling: an invalid InputResponses object is
			// a protocol error.
			if r.is(MRTRMalformedToolError) {
				return textResult(ctx, "inputResponses must be an object of responses.", true), nil
			}
			return nil, rpcError(codes.InvalidParams, "inputResponses must be an object", nil)
		}
		if in.responses == nil {
			in.responses = map[string]json.RawMessage{}
		}
	}
	if raw, ok := params["requestState"]; ok && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, rpcError(codes.InvalidParams, "requestState must be a string", nil)
		}
		st, ok := r.openState(s, req.Method, target)
		switch {
		case !ok && r.is(MRTRTamperedRestarts):
			// The state is dropped with the answers given for it: the
			// exchange starts again from its first round.
			return fixture(&mrtrIn{ctx: ctx, peer: p, req: req, method: req.Method, target: target, caps: in.caps, key: r.key})
		case !ok:
			if r.is(MRTRTamperedOtherCode) {
				return nil, rpcError(-32001, "requestState failed verification", nil)
			}
			return nil, rpcError(codes.InvalidParams, "requestState failed verification", nil)
		}
		in.state = st
	}
	return fixture(in)
}

// mrtrTool dispatches a fixture tool; before 2026-07-28 there is no MRTR.
func (r *mrtrFamily) mrtrTool(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	name := nameOf(req)
	if !isModern(ctx) {
		return textResult(ctx, name+" answers with input_required, which exists from 2026-07-28 on.", true), nil
	}
	fixtures := map[string]func(in *mrtrIn) (any, *jsonrpc.Error){
		fixtures.MRTRElicitation:    r.mrtrElicitation,
		fixtures.MRTRSampling:       r.mrtrSampling,
		fixtures.MRTRListRoots:      r.mrtrRoots,
		fixtures.MRTRRequestState:   r.mrtrRequestState,
		fixtures.MRTRMultipleInputs: r.mrtrMultiple,
		fixtures.MRTRMultiRound:     r.mrtrMultiRound,
		fixtures.MRTRTamperedState:  r.mrtrTampered,
		fixtures.MRTRCapabilities:   r.mrtrCapabilities,
	}
	return r.serveMRTR(ctx, p, req, name, fixtures[name])
}

// mrtrQuestion is one input request and the capability it needs.
type mrtrQuestion struct {
	key, method, capability string
	params                  map[string]any
	// field is the form field an elicitation asks for, with its type.
	field, fieldType string
}

func elicitQuestion(key, message, field, fieldType string) mrtrQuestion {
	return mrtrQuestion{key: key, method: protocol.MethodElicitationCreate, capability: "elicitation", field: field, fieldType: fieldType,
		params: map[string]any{
			"mode":    "form",
			"message": message,
			"requestedSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{field: map[string]any{"type": fieldType}},
				"required":   []string{field},
			},
		}}
}

func samplingQuestion(key, text string, maxTokens int) mrtrQuestion {
	return mrtrQuestion{key: key, method: protocol.MethodSamplingCreateMessage, capability: "sampling", params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}}
}

func rootsQuestion(key string) mrtrQuestion {
	return mrtrQuestion{key: key, method: protocol.MethodRootsList, capability: "roots", params: map[string]any{}}
}

// inputRequired is an InputRequiredResult asking qs, with state when not "".
func inputRequired(qs []mrtrQuestion, state string) map[string]any {
	res := map[string]any{"resultType": "input_required"}
	if len(qs) > 0 {
		reqs := map[string]any{}
		for _, q := range qs {
			reqs[q.key] = map[string]any{"method": q.method, "params": q.params}
		}
		res["inputRequests"] = reqs
	}
	if state != "" {
		res["requestState"] = state
	}
	return res
}

// needs refuses a request whose client did not declare what the questions
// need (2026-07-28/basic/index.mdx#meta, -32021): the server never asks for
// an input the client cannot give.
func (in *mrtrIn) needs(qs ...mrtrQuestion) *jsonrpc.Error {
	missing := map[string]any{}
	for _, q := range qs {
		if _, ok := in.caps[q.capability]; !ok {
			missing[q.capability] = map[string]any{}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return rpcError(codes.MissingRequiredClientCapability, "This request needs client capabilities the client did not declare",
		map[string]any{"requiredCapabilities": missing})
}

// answer reads the response to q as text, or says why it cannot.
func answer(q mrtrQuestion, raw json.RawMessage) (string, error) {
	switch q.method {
	case protocol.MethodElicitationCreate:
		var res protocol.ElicitAnswer
		if json.Unmarshal(raw, &res) != nil || res.Action == "" {
			return "", fmt.Errorf("inputResponses.%s is not an ElicitResult", q.key)
		}
		if res.Action != "accept" {
			return "(" + res.Action + ")", nil
		}
		v, ok := res.Content[q.field]
		if !ok {
			return "", fmt.Errorf("inputResponses.%s has no %s", q.key, q.field)
		}
		var s string
		switch q.fieldType {
		case "string":
			if json.Unmarshal(v, &s) != nil {
				return "", fmt.Errorf("inputResponses.%s: %s must be a string", q.key, q.field)
			}
		case "boolean":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return "", fmt.Errorf("inputResponses.%s: %s must be a boolean", q.key, q.field)
			}
			s = fmt.Sprint(b)
		}
		return s, nil
	case protocol.MethodSamplingCreateMessage:
		var res protocol.SampledMessage
		if json.Unmarshal(raw, &res) != nil || res.Role == "" || len(res.Content) == 0 {
			return "", fmt.Errorf("inputResponses.%s is not a CreateMessageResult", q.key)
		}
		var one protocol.ContentText
		var many []protocol.ContentText
		if json.Unmarshal(res.Content, &one) == nil {
			return one.Text, nil
		}
		if json.Unmarshal(res.Content, &many) == nil && len(many) > 0 {
			return many[0].Text, nil
		}
		return "", fmt.Errorf("inputResponses.%s has no content", q.key)
	case protocol.MethodRootsList:
		var res protocol.ListedRoots
		if json.Unmarshal(raw, &res) != nil || res.Roots == nil {
			return "", fmt.Errorf("inputResponses.%s is not a ListRootsResult", q.key)
		}
		uris := make([]string, 0, len(res.Roots))
		for _, root := range res.Roots {
			uris = append(uris, root.URI)
		}
		return strings.Join(uris, ", "), nil
	}
	return "", fmt.Errorf("inputResponses.%s answers nothing asked", q.key)
}

// collect gathers the answers to qs from the attempt, on top of data (what
// earlier rounds answered, from the state). It returns the questions still
// unanswered, or an error for a response it cannot read or, under a fault,
// for one it never asked.
func (r *mrtrFamily) collect(in *mrtrIn, qs []mrtrQuestion, data map[string]string) (map[string]string, []mrtrQuestion, *jsonrpc.Error) {
	got := map[string]string{}
	for k, v := range data {
		got[k] = v
	}
	if r.is(MRTRExtraResponseRefused) {
		for key := range in.responses {
			if _, asked := got[key]; !asked && !slicesHasKey(qs, key) {
				return nil, nil, rpcError(codes.InvalidParams, "inputResponses."+key+" answers nothing that was asked", nil)
			}
		}
	}
	var missing []mrtrQuestion
	for _, q := range qs {
		if _, done := got[q.key]; done {
			continue
		}
		raw, ok := in.responses[q.key]
		if !ok {
			missing = append(missing, q)
			continue
		}
		v, err := answer(q, raw)
		if err != nil {
			switch {
			case r.is(MRTRMalformedAccepted):
				v = strings.TrimSpace(string(raw))
			case r.is(MRTRMalformedAsksAgain):
				missing = append(missing, q)
				continue
			default:
				return nil, nil, rpcError(codes.InvalidParams, err.Error(), nil)
			}
		}
		got[q.key] = v
	}
	if len(missing) > 0 && in.responses != nil && r.is(MRTRMissingAsError) {
		return nil, nil, rpcError(codes.InvalidParams, "Missing input response "+missing[0].key, nil)
	}
	return got, missing, nil
}

func slicesHasKey(qs []mrtrQuestion, key string) bool {
	for _, q := range qs {
		if q.key == key {
			return true
		}
	}
	return false
}

// done is a fixture's final tool result.
func (r *mrtrFamily) done(ctx context.Context, text string) map[string]any {
	res := textResult(ctx, text, false)
	if r.is(MRTRCompleteEmpty) {
		res["content"] = []any{}
	}
	return res
}

func (in *mrtrIn) seal(step int, data map[string]string) string {
	return sealState(in.key, mrtrState{Method: in.method, Target: in.target, Step: step, Data: data}, mrtrStateTTL)
}

func askName(key string) mrtrQuestion {
	return elicitQuestion(key, "Please provide your name", "name", "string")
}

// test_input_required_result_elicitation: no state; the name is asked until given.
func (r *mrtrFamily) mrtrElicitation(in *mrtrIn) (any, *jsonrpc.Error) {
	q := askName("user_name")
	if r.is(MRTRElicitationInvalid) {
		delete(q.params, "message") // required of a form elicitation
	}
	confirm := elicitQuestion("confirm", "Greet you now?", "ok", "boolean")
	if in.state != nil && in.state.Step == 2 { // the reprompts liberty's second question
		_, missing, rerr := r.collect(in, []mrtrQuestion{confirm}, nil)
		if rerr != nil {
			return nil, rerr
		}
		if len(missing) > 0 {
			return inputRequired(missing, in.seal(2, in.state.Data)), nil
		}
		return r.done(in.ctx, "Hello, "+in.state.Data["user_name"]+"!"), nil
	}
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		if in.retry() && r.is(MRTRMissingCompletes) {
			return r.done(in.ctx, "Hello, guest!"), nil
		}
		res := inputRequired(missing, "")
		if r.is(MRTRResultTypeMissing) && !in.retry() {
			delete(res, "resultType")
		}
		if r.is(MRTRAlsoRequested) && !in.retry() {
			in.sendRequest(q)
		}
		return res, nil
	}
	if r.is(MRTRReprompts) {
		return inputRequired([]mrtrQuestion{confirm}, in.seal(2, got)), nil
	}
	return r.done(in.ctx, "Hello, "+got["user_name"]+"!"), nil
}

// test_input_required_result_sampling.
func (r *mrtrFamily) mrtrSampling(in *mrtrIn) (any, *jsonrpc.Error) {
	q := samplingQuestion("capital_question", "What is the capital of France?", 100)
	if r.is(MRTRSamplingInvalid) {
		delete(q.params, "maxTokens")
	}
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, ""), nil
	}
	return r.done(in.ctx, "The model says the capital of France is: "+got["capital_question"]), nil
}

// test_input_required_result_list_roots.
func (r *mrtrFamily) mrtrRoots(in *mrtrIn) (any, *jsonrpc.Error) {
	q := rootsQuestion("client_roots")
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	if r.is(MRTRRootsWrongMethod) {
		q.method = "roots/get"
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, ""), nil
	}
	return r.done(in.ctx, "The client's roots: "+got["client_roots"]), nil
}

// test_input_required_result_request_state: the confirmation is only taken
// with the state that asked for it.
func (r *mrtrFamily) mrtrRequestState(in *mrtrIn) (any, *jsonrpc.Error) {
	q := elicitQuestion("confirm", "Please confirm to continue", "ok", "boolean")
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	switch {
	case in.state == nil && r.is(MRTRInputRequiredEmpty):
		return map[string]any{"resultType": "input_required"}, nil
	case in.state == nil && r.is(MRTRStateExpired):
		return inputRequired([]mrtrQuestion{q}, sealState(r.key, mrtrState{Method: in.method, Target: in.target, Step: 1}, -time.Minute)), nil
	case in.state == nil && r.is(MRTRStateOnlyFirst):
		return inputRequired(nil, in.seal(0, nil)), nil
	case in.state == nil || in.state.Step == 0:
		return inputRequired([]mrtrQuestion{q}, in.seal(1, nil)), nil
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, in.seal(1, nil)), nil
	}
	return r.done(in.ctx, "state-ok: confirmed "+got["confirm"]), nil
}

// test_input_required_result_multiple_inputs: three questions at once;
// what is answered is kept in the state and only the rest asked again.
func (r *mrtrFamily) mrtrMultiple(in *mrtrIn) (any, *jsonrpc.Error) {
	qs := []mrtrQuestion{askName("user_name"), samplingQuestion("greeting", "Write a one-line greeting.", 50), rootsQuestion("client_roots")}
	if r.is(MRTRMultipleAsksOne) {
		qs = qs[:1]
	}
	if rerr := in.needs(qs...); rerr != nil {
		return nil, rerr
	}
	var data map[string]string
	if in.state != nil {
		data = in.state.Data
	}
	got, missing, rerr := r.collect(in, qs, data)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, in.seal(1, got)), nil
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+got[k])
	}
	return r.done(in.ctx, "All inputs received: "+strings.Join(parts, "; ")), nil
}

// test_input_required_result_multi_round: step1 asks the name, step2 the
// colour; the state says which round this is and carries the name.
func (r *mrtrFamily) mrtrMultiRound(in *mrtrIn) (any, *jsonrpc.Error) {
	step1 := askName("step1")
	step2 := elicitQuestion("step2", "What is your favourite colour?", "color", "string")
	if rerr := in.needs(step1); rerr != nil {
		return nil, rerr
	}
	if in.state == nil || r.is(MRTRMultiRoundLoops) {
		return inputRequired([]mrtrQuestion{step1}, in.seal(1, nil)), nil
	}
	switch in.state.Step {
	case 1:
		got, missing, rerr := r.collect(in, []mrtrQuestion{step1}, nil)
		if rerr != nil {
			return nil, rerr
		}
		if len(missing) > 0 {
			return inputRequired(missing, in.seal(1, nil)), nil
		}
		return inputRequired([]mrtrQuestion{step2}, in.seal(2, map[string]string{"name": got["step1"]})), nil
	default:
		got, missing, rerr := r.collect(in, []mrtrQuestion{step2}, nil)
		if rerr != nil {
			return nil, rerr
		}
		if len(missing) > 0 {
			return inputRequired(missing, in.seal(2, in.state.Data)), nil
		}
		return r.done(in.ctx, in.state.Data["name"]+" likes "+got["step2"]+"."), nil
	}
}

// test_input_required_result_tampered_state: the state decides what the
// confirmation authorizes (business logic), so serveMRTR refuses it unless
// it verifies.
func (r *mrtrFamily) mrtrTampered(in *mrtrIn) (any, *jsonrpc.Error) {
	q := elicitQuestion("confirm", "Confirm the deletion of report.txt", "ok", "boolean")
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	if in.state == nil {
		return inputRequired([]mrtrQuestion{q}, in.seal(1, map[string]string{"file": "report.txt"})), nil
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, in.seal(1, in.state.Data)), nil
	}
	return r.done(in.ctx, "Deletion of "+in.state.Data["file"]+" confirmed: "+got["confirm"]), nil
}

// test_input_required_result_capabilities asks through whichever input
// kind the client declares: elicitation, else sampling, else roots.
func (r *mrtrFamily) mrtrCapabilities(in *mrtrIn) (any, *jsonrpc.Error) {
	var q mrtrQuestion
	_, elicitation := in.caps["elicitation"]
	_, sampling := in.caps["sampling"]
	_, roots := in.caps["roots"]
	switch {
	case elicitation || r.is(MRTRUndeclaredElicitation):
		q = askName("user_name")
	case sampling:
		q = samplingQuestion("capital_question", "What is the capital of France?", 100)
	case roots:
		q = rootsQuestion("client_roots")
	default:
		return nil, in.needs(askName("user_name"))
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, ""), nil
	}
	return r.done(in.ctx, "Answered through "+q.method+": "+got[q.key]), nil
}

func askContext() mrtrQuestion {
	return elicitQuestion("user_context", "What should this be about?", "context", "string")
}

// test_input_required_result_prompt.
func (r *mrtrFamily) mrtrPrompt(in *mrtrIn) (any, *jsonrpc.Error) {
	q := askContext()
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, ""), nil
	}
	messages := []any{textMessage("user", "Write about: "+got["user_context"])}
	if r.is(MRTRCompleteEmpty) {
		messages = []any{}
	}
	return complete(in.ctx, map[string]any{"description": "A prompt rendered from the user's context.", "messages": messages}), nil
}

// test://input-required-result-resource.
func (r *mrtrFamily) mrtrResource(in *mrtrIn) (any, *jsonrpc.Error) {
	q := askContext()
	if rerr := in.needs(q); rerr != nil {
		return nil, rerr
	}
	got, missing, rerr := r.collect(in, []mrtrQuestion{q}, nil)
	if rerr != nil {
		return nil, rerr
	}
	if len(missing) > 0 {
		return inputRequired(missing, ""), nil
	}
	contents := []any{map[string]any{"uri": fixtures.MRTRResource, "mimeType": "text/plain", "text": "Read for: " + got["user_context"]}}
	if r.is(MRTRCompleteEmpty) {
		contents = []any{}
	}
	// Per-user content: cacheable only within the same authorization context.
	return complete(in.ctx, map[string]any{"contents": contents, "ttlMs": 0, "cacheScope": "private"}), nil
}
