package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// DefaultMaxRounds is how many input_required results the reference client
// answers for one request before it gives up: the vendor default of the
// MRTR client loop (seeds 001, "MaxRounds … Default 10"). The spec sets no
// bound; a client without one loops for as long as a server asks.
const DefaultMaxRounds = 10

// ErrTooManyRounds is the error of a request the server kept answering
// with input_required past the limit.
type ErrTooManyRounds struct {
	Method string
	Rounds int
}

func (e *ErrTooManyRounds) Error() string {
	return fmt.Sprintf("%s: the server asked for input %d times; the limit is %d rounds", e.Method, e.Rounds, e.Rounds-1)
}

type inputRequiredResult struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  *json.RawMessage           `json:"requestState"`
}

// withInput sends a request and, at 2026-07-28, runs the MRTR loop
// (mrtr.mdx, "Client Requirements"): while the result is input_required it
// answers every input request, then retries with a new id, the answers in
// inputResponses and the requestState exactly as received (none when none
// came). A result without resultType is complete (basic/index.mdx). It
// stops with ErrTooManyRounds past maxRounds, and hands back the
// input_required result when it cannot answer a question.
func (rc *referenceRun) withInput(ctx context.Context, method string, params map[string]any) (*jsonrpc.Message, error) {
	if !rc.session.Stateless() {
		return rc.request(ctx, method, params)
	}
	base := clone(params)
	if rc.is(MRTRLeaksState) && rc.leaked != nil {
		for k, v := range rc.leaked {
			base[k] = v
		}
	}
	first := rc.session.peer.NextID()
	call := Call{ID: first, Method: method, Params: base}
	limit := rc.maxRounds()
	retriedComplete := false
	for round := 0; ; round++ {
		resp, err := rc.do(ctx, call)
		if err != nil {
			return resp, err
		}
		var r inputRequiredResult
		_ = json.Unmarshal(resp.Result, &r)
		if r.ResultType == "" && rc.is(MRTRRetriesComplete) && !retriedComplete {
			retriedComplete = true
			rc.logf("%s: no resultType; retrying (fault %s)", method, MRTRRetriesComplete.Name)
			call = Call{Method: method, Params: base}
			continue
		}
		if r.ResultType != "input_required" {
			return resp, nil
		}
		if limit >= 0 && round >= limit {
			return resp, &ErrTooManyRounds{Method: method, Rounds: round + 1}
		}
		responses, ok := rc.inputResponses(r.InputRequests)
		if !ok {
			rc.logf("%s: a question the client cannot answer; the input_required result goes to the caller", method)
			return resp, nil
		}
		next := clone(params)
		if len(r.InputRequests) > 0 {
			next["inputResponses"] = responses
		}
		switch {
		case rc.is(MRTRDropsState):
		case r.RequestState != nil && rc.is(MRTRTruncatesState):
			next["requestState"] = truncatedState(*r.RequestState, 256)
		case r.RequestState != nil:
			next["requestState"] = *r.RequestState
		case rc.is(MRTRInventsState):
			next["requestState"] = "mcpconform-invented"
		}
		rc.leaked = map[string]any{}
		for _, k := range []string{"inputResponses", "requestState"} {
			if v, ok := next[k]; ok {
				rc.leaked[k] = v
			}
		}
		rc.logf("%s: input_required (round %d): answering %d input requests and retrying", method, round+1, len(responses))
		call = Call{Method: method, Params: next}
		if rc.is(MRTRReusesID) {
			call.ID = first
		}
	}
}

// do sends one request of the loop; a JSON-RPC error answer is an error.
func (rc *referenceRun) do(ctx context.Context, c Call) (*jsonrpc.Message, error) {
	sctx, cancel := rc.step(ctx)
	defer cancel()
	resp, err := rc.session.Do(sctx, c)
	if err != nil {
		return nil, fmt.Errorf("the server at %s did not answer: %w", rc.opts.Server, err)
	}
	if resp.Error != nil {
		return resp, fmt.Errorf("the server answered %s with error %d: %s", c.Method, resp.Error.Code, resp.Error.Message)
	}
	rc.logf("%s: ok", c.Method)
	return resp, nil
}

func (rc *referenceRun) maxRounds() int {
	switch rc.opts.Fault {
	case MRTRNoLimit:
		return -1
	case MRTRHighLimit:
		return 15
	case MRTRLowLimit:
		return 3
	}
	return DefaultMaxRounds
}

// inputResponses answers every input request, keyed as asked; ok is false
// when one asks for what the client did not declare (it then has no
// handler for it).
func (rc *referenceRun) inputResponses(requests map[string]json.RawMessage) (map[string]any, bool) {
	keys := make([]string, 0, len(requests))
	for k := range requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]any{}
	for i, key := range keys {
		if rc.is(MRTRPartialAnswers) && i > 0 {
			break
		}
		var req protocol.InputRequest
		_ = json.Unmarshal(requests[key], &req)
		if !rc.declares(req.Method) && !(rc.is(MRTRUndeclaredInput) && req.Method == protocol.MethodSamplingCreateMessage) {
			return nil, false
		}
		answer, rpcErr := rc.answer(req.Method, req.Params)
		if rpcErr != nil {
			return nil, false
		}
		out[key] = answer
	}
	return out, true
}

// truncatedState cuts a JSON string state to n bytes of its value.
func truncatedState(raw json.RawMessage, n int) any {
	var s string
	if json.Unmarshal(raw, &s) != nil || len(s) <= n {
		return raw
	}
	return s[:n]
}
