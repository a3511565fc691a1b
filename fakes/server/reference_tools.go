package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// Fixture tools of the reference server. Names shared with the official
// conformance suite keep its names (test_simple_text, test_elicitation,
// test_missing_capability); the tasks fixtures it lacks use test_task_….

// declinedWorkTime is how long the declined-resumes-working liberty works
// on after a refused question: longer than one answer timeout.
const declinedWorkTime = 8 * time.Second

// Task support values (2025-11-25/basic/utilities/tasks.mdx#tool-level-negotiation).
const (
	taskForbidden = "forbidden"
	taskOptional  = "optional"
	taskRequired  = "required"
)

type refTool struct {
	name, description string
	taskSupport       string
	properties        map[string]any
	required          []string
	// schema, when set, is the whole inputSchema (properties and required
	// are then ignored); extra adds fields to the tool's definition
	// (outputSchema, annotations…).
	schema map[string]any
	extra  map[string]any
	// call serves a family's tool (reference_families.go); the core's
	// tools are served by toolsCall's switch.
	call toolCall
	// listed, when set, edits the tool's tools/list entry (a family's
	// fault that changes what is listed).
	listed func(tool map[string]any)
}

var coreTools = []refTool{
	{name: fixtures.SimpleText, description: "Returns a fixed text."},
	{name: fixtures.MissingCapability, description: "Needs the client's sampling capability."},
	{name: fixtures.Elicitation, description: "Asks the user through elicitation/create and echoes the answer.",
		properties: map[string]any{"message": map[string]any{"type": "string"}}, required: []string{"message"}},
	{name: fixtures.TaskWorking, description: "Runs as a task for `ms` milliseconds (default 300), then completes.",
		taskSupport: taskOptional, properties: map[string]any{"ms": map[string]any{"type": "integer"}}},
	{name: fixtures.TaskElicitation, description: "Runs as a task and asks the user for confirmation from inside it.",
		taskSupport: taskOptional, properties: map[string]any{"message": map[string]any{"type": "string"}}},
	{name: fixtures.TaskFailing, description: "Runs as a task and ends with a tool error (isError).",
		taskSupport: taskOptional},
	{name: fixtures.TaskRequired, description: "Must be called as a task.", taskSupport: taskRequired},
	{name: fixtures.TaskForbidden, description: "Must not be called as a task.", taskSupport: taskForbidden},
}

func (r *reference) toolsList(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	r.wireFaultsInToolsList(ctx, p, req)
	tools := make([]any, 0, len(r.tools))
	for _, t := range r.tools {
		props := t.properties
		if props == nil {
			props = map[string]any{}
		}
		schema := map[string]any{"type": "object", "properties": props}
		if len(t.required) > 0 {
			schema["required"] = t.required
		}
		if t.schema != nil {
			schema = t.schema
		}
		tool := map[string]any{"name": t.name, "description": t.description, "inputSchema": schema}
		for k, v := range t.extra {
			tool[k] = v
		}
		if t.listed != nil {
			t.listed(tool)
		}
		if t.name == fixtures.SimpleText && r.is(ToolMissingInputSchema) {
			delete(tool, "inputSchema")
		}
		if t.taskSupport != "" && !isModern(ctx) {
			tool["execution"] = map[string]any{"taskSupport": t.taskSupport}
		}
		tools = append(tools, tool)
	}
	tools = r.toolNameVariants(tools)
	if r.is(ToolsOrderUnstable) && len(tools) > 1 && req.ID.Equal(jsonrpc.StringID(RepeatedToolsListID)) {
		tools = append(tools[1:], tools[0])
	}
	tools, next, rerr := r.toolsPage(req, tools)
	if rerr != nil {
		return nil, rerr
	}
	result := map[string]any{"tools": tools}
	if next != "" {
		result["nextCursor"] = next
	}
	if isModern(ctx) { // 2026-07-28/server/utilities/caching.mdx
		result["ttlMs"] = 0
		result["cacheScope"] = "public"
	}
	return complete(ctx, result), nil
}

// toolsPage is the page of tools a tools/list cursor asks for, and the next
// page's cursor. The reference gives one page and so no cursor: any cursor
// is invalid, -32602 (utilities/pagination.mdx#error-handling). The
// family's paging variants page otherwise.
func (r *reference) toolsPage(req *jsonrpc.Message, tools []any) (page []any, next string, rerr *jsonrpc.Error) {
	var p protocol.PageParams
	_ = json.Unmarshal(req.Params, &p)
	n := 0 // the page asked for, from 1; 0 for the first
	if p.Cursor != nil {
		var ok bool
		switch {
		case r.is(ToolsListNeverEnds):
			_, err := fmt.Sscanf(*p.Cursor, "tools-page-%d", &n)
			ok = err == nil && n > 1 && *p.Cursor == fmt.Sprintf("tools-page-%d", n)
		case r.is(ToolsListCursorRepeats):
			ok = *p.Cursor == "tools-again"
		case r.is(ToolsPagesOfOne):
			_, err := fmt.Sscanf(*p.Cursor, "tools-from-%d", &n)
			ok = err == nil && n > 0 && n < len(tools) && *p.Cursor == fmt.Sprintf("tools-from-%d", n)
		}
		if !ok && !r.is(ToolsInvalidCursorAccepted) {
			return nil, "", rpcError(codes.InvalidParams, "Invalid cursor", nil)
		}
		if !ok {
			n = 0
		}
	}
	switch {
	case r.is(ToolsListNeverEnds):
		return tools, fmt.Sprintf("tools-page-%d", max(n, 1)+1), nil
	case r.is(ToolsListCursorRepeats):
		return tools, "tools-again", nil
	case r.is(ToolsPagesOfOne) && len(tools) > 0:
		if n+1 < len(tools) {
			next = fmt.Sprintf("tools-from-%d", n+1)
		}
		return tools[n : n+1], next, nil
	}
	return tools, "", nil
}

func textResult(ctx context.Context, text string, isError bool) map[string]any {
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	if isError {
		res["isError"] = true
	}
	return complete(ctx, res)
}

// findTool is the reference's tool of that name (the last listed), or nil.
func (r *reference) findTool(name string) *refTool {
	var tool *refTool
	for i := range r.tools {
		if r.tools[i].name == name {
			tool = &r.tools[i]
		}
	}
	return tool
}

func (r *reference) toolsCall(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.CallToolTaskParams
	_ = json.Unmarshal(req.Params, &params)
	tool := r.findTool(params.Name)
	if tool == nil {
		return nil, rpcError(codes.InvalidParams, "Unknown tool: "+params.Name, nil)
	}
	// Tasks exist only in sessions negotiated where the table has tasks v1; elsewhere the
	// task field is ignored (tasks.mdx#task-support-and-handling).
	version, _ := p.Get("version").(string)
	tasksOn := !isModern(ctx) && protocol.Features(version).TasksV1
	asTask := tasksOn && params.Task != nil
	switch {
	case asTask && tool.taskSupport == "" || asTask && tool.taskSupport == taskForbidden:
		if !r.is(ForbiddenRunsAsTask) {
			return nil, rpcError(codes.MethodNotFound, "Tool "+tool.name+" does not support task-augmented calls", nil)
		}
	case tasksOn && !asTask && tool.taskSupport == taskRequired:
		if !r.is(RequiredRunsInline) {
			return nil, rpcError(codes.MethodNotFound, "Tool "+tool.name+" must be called as a task", nil)
		}
	}
	if asTask {
		var ttl *int64
		if params.Task != nil {
			ttl = params.Task.TTL
		}
		return r.tasks.createTask(p, tool.name, ttl, func(t *task) { r.runTaskTool(p, t, tool.name, params.Arguments) }), nil
	}
	if tool.call != nil {
		return tool.call(ctx, p, req, params.Arguments)
	}
	switch tool.name {
	case fixtures.SimpleText:
		return textResult(ctx, "This is a simple text response for testing.", r.is(SimpleTextIsError)), nil
	case fixtures.MissingCapability:
		return r.needsSampling(ctx, p, req)
	case fixtures.Elicitation:
		return r.elicit(ctx, p, params.Arguments)
	case fixtures.TaskFailing:
		return textResult(ctx, "The job failed on purpose.", true), nil
	case fixtures.TaskWorking:
		return r.workPlainly(ctx, p, req, params.Arguments)
	default:
		return textResult(ctx, tool.name+" finished.", false), nil
	}
}

// workPlainly is test_task_working called without a task: it works for `ms`
// milliseconds inside the request, tells a progressToken's owner that it
// started, and stops without a response when the client cancels the call
// (2025-11-25/basic/utilities/cancellation.mdx#behavior-requirements).
func (r *reference) workPlainly(ctx context.Context, p *Peer, req *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
	ms := workMillis(args)
	if token, ok := progressToken(req); ok {
		_ = p.Notify(transport.WithRelatedRequest(ctx, req.ID), protocol.NotificationProgress,
			map[string]any{"progressToken": token, "progress": 0, "total": ms, "message": "started"})
	}
	timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C: // simulated work; the server's own pace, not a test's wait
	case <-ctx.Done():
		return peer.NoAnswer, nil // cancelled (or the connection ended): no response
	}
	return textResult(ctx, r.workingText(fixtures.TaskWorking), false), nil
}

// workMillis reads test_task_working's `ms` argument (default 300).
func workMillis(args json.RawMessage) int {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		MS int `json:"ms"`
	}
	_ = json.Unmarshal(args, &a)
	if a.MS <= 0 {
		a.MS = 300
	}
	return a.MS
}

// progressToken reads params._meta.progressToken.
func progressToken(req *jsonrpc.Message) (json.RawMessage, bool) {
	meta, ok := requestMeta(req)
	if !ok {
		return nil, false
	}
	token, ok := meta["progressToken"]
	return token, ok && len(token) > 0 && string(token) != "null"
}

// workingText is what test_task_working answers: fixed, or with a fresh run
// id under the nondeterministic-output liberty.
func (r *reference) workingText(name string) string {
	if r.is(NondeterministicOutput) {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		return name + " finished (run " + hex.EncodeToString(b) + ")."
	}
	return name + " finished."
}

// elicit is test_elicitation: it blocks on the user's answer, and stops
// without a response when the client cancels the call.
func (r *reference) elicit(ctx context.Context, p *Peer, args json.RawMessage) (any, *jsonrpc.Error) {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		Message string `json:"message"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Message == "" {
		a.Message = "Please provide your details."
	}
	if !declared(ctx, p, "elicitation") {
		// Only use capabilities that were successfully negotiated
		// (2025-11-25/basic/lifecycle.mdx#operation).
		return textResult(ctx, "This tool needs the client's elicitation capability.", true), nil
	}
	if r.is(ElicitationMessageIgnored) {
		a.Message = "Please answer."
	}
	resp, err := p.Request(ctx, protocol.MethodElicitationCreate, elicitationParams(a.Message, nil))
	if err != nil {
		if ctx.Err() != nil && !r.is(RespondsAfterCancel) {
			return peer.NoAnswer, nil
		}
		return textResult(context.Background(), "Elicitation failed: "+err.Error(), true), nil
	}
	return textResult(ctx, "Elicitation answered: "+answerText(resp), r.is(ElicitationResultError)), nil
}

func elicitationParams(message string, meta map[string]any) map[string]any {
	params := map[string]any{
		"mode":    "form",
		"message": message,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Confirm"},
			},
			"required": []string{"confirm"},
		},
	}
	if meta != nil {
		params["_meta"] = meta
	}
	return params
}

func answerAction(resp *jsonrpc.Message) string {
	var result protocol.ElicitAction
	if resp == nil || resp.Error != nil || json.Unmarshal(resp.Result, &result) != nil {
		return ""
	}
	return result.Action
}

func answerText(resp *jsonrpc.Message) string {
	if resp.Error != nil {
		return "error " + resp.Error.Message
	}
	return strings.TrimSpace(string(resp.Result))
}

// runTaskTool is the worker of a task-augmented call.
func (r *reference) runTaskTool(p *Peer, t *task, name string, args json.RawMessage) {
	ctx := context.Background()
	switch name {
	case fixtures.TaskWorking, fixtures.TaskRequired, fixtures.TaskForbidden:
		timer := time.NewTimer(time.Duration(workMillis(args)) * time.Millisecond)
		defer timer.Stop()
		select {
		case <-timer.C: // simulated work; the server's own pace, not a test's wait
		case <-t.stop:
			return
		case <-p.Context().Done():
			return
		}
		r.tasks.finish(t, textResult(ctx, r.workingText(name), false), nil)
	case fixtures.TaskFailing:
		r.tasks.finish(t, textResult(ctx, "The job failed on purpose.", true), nil)
	case fixtures.TaskElicitation:
		r.taskElicitation(p, t, args)
	}
}

// taskElicitation asks the user from inside a task: input_required while
// the question is out, back to working once answered (tasks.mdx#input-required-status).
func (r *reference) taskElicitation(p *Peer, t *task, args json.RawMessage) {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		Message string `json:"message"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Message == "" {
		a.Message = "Confirm to continue the task."
	}
	if !declared(context.Background(), p, "elicitation") {
		r.tasks.finish(t, textResult(context.Background(), "This tool needs the client's elicitation capability.", true), nil)
		return
	}
	if !r.is(SkipInputRequired) {
		r.tasks.setStatus(t, statusInputRequired, "Waiting for the user's confirmation.")
	}
	var meta map[string]any
	if !r.is(ElicitationNoRelatedTask) {
		meta = relatedTask(t.id)
	}
	// A conformant worker stops waiting once the task is cancelled; the
	// resurrecting mutant waits for the stale answer and acts on it.
	reqCtx, cancel := context.WithCancel(p.Context())
	defer cancel()
	if !r.is(ResurrectOnLateAnswer) {
		go func() {
			select {
			case <-t.stop:
				cancel()
			case <-reqCtx.Done():
			}
		}()
	}
	askCtx := reqCtx
	if r.hold {
		// Wait for the requestor's tasks/result and ask on its stream.
		select {
		case id := <-t.resultCalls:
			askCtx = transport.WithRelatedRequest(reqCtx, id)
		case <-reqCtx.Done():
			return
		}
	}
	resp, err := p.Request(askCtx, protocol.MethodElicitationCreate, elicitationParams(a.Message, meta))
	if err != nil {
		return // cancelled or the connection ended: the task keeps its status
	}
	if r.is(CrashOnLateAnswer) && isClosed(t.stop) {
		// The answer came after the cancel but before this worker let go of
		// the question (it does so on its own goroutine): late all the same.
		p.Close()
		return
	}
	action := answerAction(resp)
	stuck := (action == "decline" && r.is(StuckAfterDecline)) || (action == "cancel" && r.is(StuckAfterCancelAction))
	if stuck {
		<-t.stop // stays input_required until someone cancels it
		return
	}
	if (action == "decline" || action == "cancel") && r.is(DeclinedResumesWorking) {
		// Back to working without the answer; the rest of the job is long.
		r.tasks.setStatus(t, statusWorking, "Continuing without the user's confirmation.")
		timer := time.NewTimer(declinedWorkTime)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.stop:
			return
		case <-p.Context().Done():
			return
		}
		r.tasks.finish(t, textResult(context.Background(), "Finished without the user's confirmation ("+action+").", false), nil)
		return
	}
	r.tasks.setStatus(t, statusWorking, "")
	text := "The user answered: " + action
	if action == "accept" {
		text = "Confirmed: " + answerText(resp)
	}
	r.tasks.finish(t, textResult(context.Background(), text, false), nil)
}

// needsSampling refuses when the client did not declare sampling: -32021
// under 2026-07-28 (basic/index.mdx#meta), a tool error before it.
func (r *reference) needsSampling(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if isModern(ctx) {
		var caps map[string]json.RawMessage
		meta, _ := requestMeta(req)
		_ = json.Unmarshal(meta[protocol.MetaClientCapabilities], &caps)
		if _, ok := caps["sampling"]; !ok {
			if r.is(MissingCapabilityWrongCode) {
				return nil, rpcError(codes.InternalError, "sampling unavailable", nil)
			}
			return nil, rpcError(codes.MissingRequiredClientCapability, "This tool requires the sampling capability",
				map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
		}
		return textResult(ctx, "The client declares sampling.", false), nil
	}
	declared, _ := p.Get("clientCapabilities").(map[string]any)
	if _, ok := declared["sampling"]; !ok {
		return textResult(ctx, "This tool requires the client's sampling capability.", true), nil
	}
	return textResult(ctx, "The client declares sampling.", false), nil
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// declared reports whether the client declared a capability in its
// initialize request (sessions) or, in 2026-07-28, in the current request's
// _meta.
func declared(ctx context.Context, p *Peer, capability string) bool {
	if isModern(ctx) {
		return true // judged by the 2026-07-28 rules (-32021) where a tool needs it
	}
	caps, _ := p.Get("clientCapabilities").(map[string]any)
	_, ok := caps[capability]
	return ok
}

// toolNameVariants adds the tools the tool-name variants list.
func (r *reference) toolNameVariants(tools []any) []any {
	extra := func(name string) map[string]any {
		return map[string]any{"name": name, "description": "Lists a name; not to be called.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}
	}
	switch {
	case r.is(ToolNameMalformed):
		tools = append(tools, extra("mcpconform tool, v2"))
	case r.is(ToolNameDotted):
		tools = append(tools, extra("admin.tools.list-v2_X"))
	case r.is(ToolNameDuplicate):
		for _, t := range tools {
			if t.(map[string]any)["name"] == fixtures.SimpleText {
				return append(tools, t)
			}
		}
	}
	return tools
}
