package client

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference client's moves in the client-surface scenarios: the
// official sse-retry and json-schema-2020-12-preservation, the surface
// faults of tools_call, and mcpconform's client-elicitation-cancelled,
// whose user takes a while to answer.

// ElicitationCancelledScenario is the id of the scenario in which the
// reference client's user is slow (scenarios/client/surface).
const ElicitationCancelledScenario = "client-elicitation-cancelled"

func init() {
	toolsCall := scenarioPlans["tools_call"]
	scenarioPlans["tools_call"] = func(ctx context.Context, rc *referenceRun) error {
		switch {
		case rc.is(ToolCallArgumentsText):
			return rc.listAndCall(ctx, fixtures.ClientAddNumbers, map[string]any{"a": "5", "b": "3"})
		case rc.is(ToolCallArgumentsNotObject):
			if err := rc.listTools(ctx); err != nil {
				return err
			}
			_, err := rc.request(ctx, protocol.MethodToolsCall, map[string]any{"name": fixtures.ClientAddNumbers, "arguments": `{"a":5,"b":3}`})
			return err
		}
		return toolsCall(ctx, rc)
	}
	scenarioPlans["sse-retry"] = func(ctx context.Context, rc *referenceRun) error {
		rc.resumeVariant()
		return rc.listAndCall(ctx, "test_reconnection", nil)
	}
	scenarioPlans["json-schema-2020-12-preservation"] = func(ctx context.Context, rc *referenceRun) error {
		schemas, err := rc.toolSchemas(ctx)
		if err != nil {
			return err
		}
		schema, ok := schemas["json_schema_2020_12_tool"]
		if !ok {
			return fmt.Errorf("the server does not list json_schema_2020_12_tool")
		}
		_, err = rc.callTool(ctx, fixtures.ClientJSONSchemaEcho, map[string]any{"schema": schema})
		return err
	}
	scenarioPlans[ElicitationCancelledScenario] = func(ctx context.Context, rc *referenceRun) error {
		rc.slowUser()
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		var sc scenarioContext
		if rc.opts.Context == "" {
			return nil
		}
		if err := json.Unmarshal([]byte(rc.opts.Context), &sc); err != nil {
			return fmt.Errorf("$%s is not the JSON object expected: %w", EnvContext, err)
		}
		for _, c := range sc.ToolCalls {
			if _, err := rc.callTool(ctx, c.Name, c.Arguments); err != nil {
				return err
			}
		}
		return nil
	}
}

// CancelRacesScenario is the id of the scenario whose server cancels
// requests that are no longer in flight (scenarios/client/surface).
const CancelRacesScenario = "client-cancel-races"

func init() {
	scenarioPlans[CancelRacesScenario] = func(ctx context.Context, rc *referenceRun) error {
		if err := rc.listTools(ctx); err != nil {
			return err
		}
		var sc scenarioContext
		if rc.opts.Context == "" {
			return nil
		}
		if err := json.Unmarshal([]byte(rc.opts.Context), &sc); err != nil {
			return fmt.Errorf("$%s is not the JSON object expected: %w", EnvContext, err)
		}
		for _, c := range sc.ToolCalls {
			if _, err := rc.callTool(ctx, c.Name, c.Arguments); err != nil {
				return err
			}
			if err := rc.strayCancellations(); err != nil {
				return err
			}
		}
		return nil
	}
}

// strayCancellations looks at the cancellations the server sent for
// requests no longer in flight: the reference ignores them
// (basic/utilities/cancellation.mdx, "Error Handling"); a fault gives up.
func (rc *referenceRun) strayCancellations() error {
	asked := map[string]bool{}
	var cancelled []string
	for _, m := range rc.session.Inbox().Messages() {
		switch {
		case m.IsRequest():
			asked[m.ID.Key()] = true
		case m.Method == protocol.NotificationCancelled:
			var p protocol.CancelledParams
			_ = json.Unmarshal(m.Params, &p)
			cancelled = append(cancelled, jsonrpc.ID(p.RequestID).Key())
		}
	}
	for _, id := range cancelled {
		switch {
		case asked[id] && rc.is(ExitsOnLateCancel):
			return fmt.Errorf("the server cancelled request %s, which this client had already answered; giving up (fault %s)", id, ExitsOnLateCancel.Name)
		case !asked[id] && rc.is(ExitsOnUnknownCancel):
			return fmt.Errorf("the server cancelled request %s, which it never sent; giving up (fault %s)", id, ExitsOnUnknownCancel.Name)
		}
	}
	return nil
}

func (rc *referenceRun) listAndCall(ctx context.Context, name string, args map[string]any) error {
	if err := rc.listTools(ctx); err != nil {
		return err
	}
	_, err := rc.callTool(ctx, name, args)
	return err
}

// resumeVariant sets how the HTTP transport resumes a stream the server
// ended (2025-11-25 transports.mdx, "Sending Messages to the Server"): the
// reference waits the retry and sends Last-Event-ID.
func (rc *referenceRun) resumeVariant() {
	hc, ok := transport.As[*transport.HTTPClientConn](rc.session.Conn())
	if !ok {
		return
	}
	var v transport.ResumeVariant
	switch {
	case rc.is(ResumeIgnoresRetry):
		v.Delay = func(time.Duration) time.Duration { return 0 }
	case rc.is(NeverResumes):
		v.Delay = func(time.Duration) time.Duration { return -1 }
	case rc.is(ResumesLate):
		v.Delay = func(retry time.Duration) time.Duration { return 2 * retry }
	case rc.is(ResumeWithoutLastEventID):
		v.NoLastEventID = true
	}
	hc.SetResumeVariant(v)
}

// toolSchemas lists the tools and keeps each inputSchema as the client
// would: exactly as received, less what a fault strips.
func (rc *referenceRun) toolSchemas(ctx context.Context) (map[string]map[string]any, error) {
	resp, err := rc.request(ctx, protocol.MethodToolsList, map[string]any{})
	if err != nil {
		return nil, err
	}
	var result protocol.ListedTools
	if err := json.Unmarshal(resp.Result, &result); err != nil {
		return nil, fmt.Errorf("the tools/list result is not an object: %w", err)
	}
	out := map[string]map[string]any{}
	for _, t := range result.Tools {
		var s map[string]any
		if len(t.InputSchema) > 0 {
			if err := json.Unmarshal(t.InputSchema, &s); err != nil {
				return nil, fmt.Errorf("the tools/list result is not an object: %w", err)
			}
		}
		switch {
		case rc.is(StripsSchemaDialect):
			delete(s, "$schema")
			delete(s, "additionalProperties")
		case rc.is(StripsSchemaComposition):
			for _, k := range []string{"allOf", "anyOf", "if", "then", "else"} {
				delete(s, k)
			}
		}
		out[t.Name] = s
	}
	return out, nil
}

// slowUser makes the user take a while to answer an elicitation (up to the
// response timeout), so that a server can cancel it while it is pending.
// Cancelled, the question is dropped unanswered
// (basic/utilities/cancellation.mdx: "Not send a response for the cancelled
// request"), unless the fault answers it anyway.
func (rc *referenceRun) slowUser() {
	if !rc.declares(protocol.MethodElicitationCreate) {
		return
	}
	rc.session.Handle(protocol.MethodElicitationCreate, func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		rc.logf("the server asks %s; the user takes a while", req.Method)
		wait := time.NewTimer(rc.opts.ResponseTimeout)
		defer wait.Stop()
		select {
		case <-wait.C:
		case <-ctx.Done():
			if !rc.is(AnswersAfterCancel) {
				rc.logf("the server cancelled %s; no answer", req.Method)
				return peer.NoAnswer, nil
			}
		}
		return rc.answer(req.Method, req.Params)
	})
}
