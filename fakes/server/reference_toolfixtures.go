package server

import (
	"context"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The tools family's fixture tools, under the official suite's names
// (fixtures.md 1a–1d), so that servers prepared for it run unchanged.

const (
	// onePixelPNG is a 1×1 transparent PNG.
	onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
	// onePixelJPEG is a 1×1 JPEG (the image-jpeg liberty).
	onePixelJPEG = "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA="
	// silentWAV is a WAV header with no samples.
	silentWAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
)

// toolFixturesFamily serves the fixture tools; it has no state.
type toolFixturesFamily struct{ familyBase }

func newToolFixturesFamily(r *reference) family { return &toolFixturesFamily{familyBase{r}} }

func (r *toolFixturesFamily) tools() []refTool {
	return []refTool{
		{name: fixtures.ImageContent, description: "Returns a PNG image.", call: r.callImage},
		{name: fixtures.AudioContent, description: "Returns a WAV audio clip.", call: r.callAudio},
		{name: fixtures.EmbeddedResource, description: "Returns an embedded text resource.", call: r.callEmbedded},
		{name: fixtures.MultipleContentTypes, description: "Returns text, an image and an embedded resource.", call: r.callMixed},
		{name: fixtures.ErrorHandling, description: "Always fails with a tool error.", call: r.callError},
		{name: fixtures.ToolWithProgress, description: "Reports progress 0, 50, 100 of 100, then answers.", call: r.callProgress},
		{name: fixtures.ToolWithLogging, description: "Logs three info messages, then answers.", call: r.callLogging},
		{name: fixtures.Sampling, description: "Asks the client's model to answer the prompt.",
			properties: map[string]any{"prompt": map[string]any{"type": "string"}}, required: []string{"prompt"}, call: r.callSampling},
		{name: fixtures.ElicitationDefaults, description: "Asks the user through a form whose fields have defaults.", call: r.callDefaults},
		{name: fixtures.ElicitationEnums, description: "Asks the user through a form with every enum shape.", call: r.callEnums},
		{name: fixtures.StructuredContent, description: "Returns the weather as structured content.", listed: listedStructured,
			call: r.callStructured},
		{name: fixtures.JSONSchema202012Tool, description: "Takes a contact described by a JSON Schema 2020-12 input schema.",
			schema: schema2020(), call: r.callSchema2020, listed: r.listedSchema2020},
	}
}

func (*toolFixturesFamily) faults() fault.Set    { return toolFixtureFaults }
func (*toolFixturesFamily) liberties() fault.Set { return toolFixtureLiberties }

// wrap lets the family's faults answer a call of a tool nobody lists, in
// front of the core's tools/call.
func (r *toolFixturesFamily) wrap(method string, next Handler) Handler {
	if method != protocol.MethodToolsCall {
		return next
	}
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		if name := nameOf(req); r.findTool(name) == nil {
			if res, rpcErr, ok := r.unknownTool(ctx, name); ok {
				return res, rpcErr
			}
		}
		return next(ctx, p, req)
	}
}

func contentResult(ctx context.Context, isError bool, items ...any) map[string]any {
	res := map[string]any{"content": items}
	if isError {
		res["isError"] = true
	}
	return complete(ctx, res)
}

func imageItem(r *toolFixturesFamily) map[string]any {
	if r.is(ImageJPEG) {
		return map[string]any{"type": "image", "data": onePixelJPEG, "mimeType": "image/jpeg"}
	}
	data := onePixelPNG
	if r.is(ImageBadBase64) {
		data = "not base64: a PNG, honestly!"
	}
	return map[string]any{"type": "image", "data": data, "mimeType": "image/png"}
}

func (r *toolFixturesFamily) callImage(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	return contentResult(ctx, r.is(ImageIsError), imageItem(r)), nil
}

func (r *toolFixturesFamily) callAudio(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	mime := "audio/wav"
	if r.is(AudioWrongMime) {
		mime = "image/png"
	}
	return contentResult(ctx, false, map[string]any{"type": "audio", "data": silentWAV, "mimeType": mime}), nil
}

func (r *toolFixturesFamily) callEmbedded(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	if r.is(EmbeddedAsLink) {
		return contentResult(ctx, false, map[string]any{"type": "resource_link", "uri": "test://embedded-resource",
			"name": "embedded-resource", "mimeType": "text/plain"}), nil
	}
	return contentResult(ctx, false, map[string]any{"type": "resource", "resource": map[string]any{
		"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}), nil
}

func (r *toolFixturesFamily) callMixed(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	items := []any{map[string]any{"type": "text", "text": "Multiple content types test:"}}
	if !r.is(MixedNoImage) {
		items = append(items, imageItem(r))
	}
	items = append(items, map[string]any{"type": "resource", "resource": map[string]any{
		"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": `{"test":"data","value":123}`}})
	return contentResult(ctx, false, items...), nil
}

func (r *toolFixturesFamily) callError(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	if r.is(ErrorAsProtocolError) {
		return nil, rpcError(codes.InternalError, "This tool intentionally returns an error for testing", nil)
	}
	return textResult(ctx, "This tool intentionally returns an error for testing", true), nil
}

// callProgress reports three steps under the request's progressToken, each
// on the request's own stream (over HTTP) before the answer.
func (r *toolFixturesFamily) callProgress(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	token, ok := progressToken(req)
	if ok {
		steps := []any{0, 50, 100}
		switch {
		case r.is(ProgressBackwards):
			steps = []any{0, 50, 40}
		case r.is(ProgressFloats):
			steps = []any{0.5, 1.25, 2.75}
		}
		nctx := transport.WithRelatedRequest(ctx, req.ID)
		for i, step := range steps {
			params := map[string]any{"progressToken": token, "progress": step, "message": "step"}
			if !r.is(ProgressFloats) {
				params["total"] = 100
			}
			if i == len(steps)-1 && r.is(ProgressForeignToken) {
				params["progressToken"] = "mcpconform-someone-else"
			}
			_ = p.Notify(nctx, protocol.NotificationProgress, params)
		}
		if r.is(ProgressAfterCompletion) {
			// Well after the answer (on the second request after it), so
			// over HTTP on the session's own stream.
			armAfterRequests(p, 2, func() {
				_ = p.Notify(p.Context(), protocol.NotificationProgress,
					map[string]any{"progressToken": token, "progress": 150, "total": 100, "message": "late"})
			})
		}
	}
	return textResult(ctx, "Progress test completed.", false), nil
}

func (r *toolFixturesFamily) callLogging(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	// The logging family (reference_utilities.go) declares the logging
	// capability and keeps the level set; info is sent unless it is below it.
	lv, _ := p.Get("logLevel").(string)
	send := true
	if isModern(ctx) { // 2026-07-28: the level comes with the request, and none asks for no log
		lv, send = modernLogLevel(r.reference, req)
	}
	if send && !r.is(LoggingSilent) && (lv == "" || slices.Index(logLevels, lv) <= slices.Index(logLevels, "info")) {
		nctx := transport.WithRelatedRequest(ctx, req.ID)
		for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			_ = p.Notify(nctx, protocol.NotificationMessage, map[string]any{"level": "info", "logger": fixtures.ToolWithLogging, "data": msg})
		}
	}
	return textResult(ctx, "Logging test completed.", false), nil
}

func (r *toolFixturesFamily) callSampling(ctx context.Context, p *Peer, req *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		Prompt string `json:"prompt"`
	}
	_ = json.Unmarshal(args, &a)
	if !declared(ctx, p, "sampling") {
		return textResult(ctx, "This tool needs the client's sampling capability.", true), nil
	}
	if r.is(SamplingSkipped) {
		return textResult(ctx, "LLM response: (not asked)", false), nil
	}
	resp, err := p.Request(transport.WithRelatedRequest(ctx, req.ID), protocol.MethodSamplingCreateMessage, map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": a.Prompt}}},
		"maxTokens": 100,
	})
	if err != nil || resp.Error != nil {
		return textResult(ctx, "Sampling failed.", true), nil
	}
	var answer protocol.SampledText
	_ = json.Unmarshal(resp.Result, &answer)
	return textResult(ctx, "LLM response: "+answer.Content.Text, r.is(SamplingIsError)), nil
}

func (r *toolFixturesFamily) callDefaults(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	score := 95.5
	if r.is(DefaultsWrong) {
		score = 90
	}
	return askForm(ctx, p, req, "Please review and update the form fields with defaults", map[string]any{
		"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
		"score":    map[string]any{"type": "number", "description": "User score", "default": score},
		"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
	})
}

func (r *toolFixturesFamily) callEnums(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	names := []string{"Option One", "Option Two", "Option Three"}
	if r.is(EnumTitlesUneven) {
		names = names[:2]
	}
	titled := []any{
		map[string]any{"const": "value1", "title": "First Option"},
		map[string]any{"const": "value2", "title": "Second Option"},
		map[string]any{"const": "value3", "title": "Third Option"},
	}
	return askForm(ctx, p, req, "Please select options from the enum fields", map[string]any{
		"untitledSingle": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}},
		"titledSingle":   map[string]any{"type": "string", "oneOf": titled},
		"legacyEnum":     map[string]any{"type": "string", "enum": []string{"opt1", "opt2", "opt3"}, "enumNames": names},
		"untitledMulti":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
		"titledMulti":    map[string]any{"type": "array", "items": map[string]any{"anyOf": titled}},
	})
}

// askForm sends a form elicitation and echoes the user's action and content.
func askForm(ctx context.Context, p *Peer, req *jsonrpc.Message, message string, props map[string]any) (any, *jsonrpc.Error) {
	if !declared(ctx, p, "elicitation") {
		return textResult(ctx, "This tool needs the client's elicitation capability.", true), nil
	}
	resp, err := p.Request(transport.WithRelatedRequest(ctx, req.ID), protocol.MethodElicitationCreate, map[string]any{
		"mode": "form", "message": message,
		"requestedSchema": map[string]any{"type": "object", "properties": props},
	})
	if err != nil || resp.Error != nil {
		return textResult(ctx, "Elicitation failed.", true), nil
	}
	return textResult(ctx, "Elicitation completed: "+answerText(resp), false), nil
}

func schema2020() map[string]any {
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"$defs": map[string]any{"address": map[string]any{
			"$anchor": "address", "type": "object",
			"properties": map[string]any{"street": map[string]any{"type": "string"}, "city": map[string]any{"type": "string"}},
		}},
		"properties": map[string]any{
			"name":          map[string]any{"type": "string"},
			"address":       map[string]any{"$ref": "#/$defs/address"},
			"contactMethod": map[string]any{"type": "string", "enum": []string{"phone", "email"}},
			"phone":         map[string]any{"type": "string"},
			"email":         map[string]any{"type": "string"},
		},
		"additionalProperties": false,
		"allOf":                []any{map[string]any{"anyOf": []any{map[string]any{"required": []string{"phone"}}, map[string]any{"required": []string{"email"}}}}},
		"if":                   map[string]any{"properties": map[string]any{"contactMethod": map[string]any{"const": "phone"}}},
		"then":                 map[string]any{"required": []string{"phone"}},
		"else":                 map[string]any{"required": []string{"email"}},
	}
}

// callSchema2020 validates its arguments the way the schema says (the
// parts the tools family judges): no property beyond those declared, name
// a string. A failure is a tool execution error the model can correct
// (2025-11-25/server/tools.mdx#error-handling, SEP-1303).
func (r *toolFixturesFamily) callSchema2020(ctx context.Context, _ *Peer, _ *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
	var got map[string]json.RawMessage
	_ = json.Unmarshal(args, &got)
	props := schema2020()["properties"].(map[string]any)
	problem := ""
	for k := range got {
		if _, ok := props[k]; !ok {
			problem = "unexpected property " + k
		}
	}
	if name, ok := got["name"]; ok && !strings.HasPrefix(strings.TrimSpace(string(name)), `"`) {
		problem = "name must be a string"
	}
	if problem != "" && !r.is(ValidationSkipped) {
		if r.is(ValidationAsProtocolError) {
			return nil, rpcError(codes.InvalidParams, "Invalid arguments: "+problem, nil)
		}
		return textResult(ctx, "Invalid arguments: "+problem+". Send only name, address, contactMethod, phone and email.", true), nil
	}
	return textResult(ctx, "Received: "+string(args), false), nil
}

// unknownTool is how the family's faults answer a call of a tool nobody
// lists; ok false leaves it to the core.
func (r *toolFixturesFamily) unknownTool(ctx context.Context, name string) (any, *jsonrpc.Error, bool) {
	switch {
	case r.is(UnknownToolAsResult):
		return textResult(ctx, "Unknown tool: "+name, true), nil, true
	case r.is(UnknownToolInternalError):
		return nil, rpcError(codes.InternalError, "Unknown tool: "+name, nil), true
	}
	return nil, nil, false
}

// listedSchema2020 applies the faults that lose 2020-12 keywords on the
// way to tools/list (on a copy: the tool table is shared).
func (r *toolFixturesFamily) listedSchema2020(tool map[string]any) {
	if !r.is(Schema2020Flattened) && !r.is(Schema2020NoConditionals) {
		return
	}
	schema := map[string]any{}
	for k, v := range schema2020() {
		schema[k] = v
	}
	if r.is(Schema2020Flattened) {
		delete(schema, "$schema")
	} else {
		delete(schema, "if")
		delete(schema, "then")
		delete(schema, "else")
	}
	tool["inputSchema"] = schema
}

// test_structured_content (mcpconform's own fixture): an outputSchema from
// 2025-06-18 on, where tools.mdx#output-schema has it.
var weatherSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"temperature": map[string]any{"type": "number"},
		"conditions":  map[string]any{"type": "string", "enum": []string{"Sunny", "Cloudy", "Rain"}},
	},
	"required":             []string{"temperature", "conditions"},
	"additionalProperties": false,
}

func listedStructured(tool map[string]any) {
	tool["outputSchema"] = weatherSchema
}

func (r *toolFixturesFamily) callStructured(ctx context.Context, _ *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	weather := map[string]any{"temperature": 22.5, "conditions": "Sunny"}
	if r.is(StructuredOffSchema) {
		weather["temperature"] = "22.5"
	}
	text, _ := json.Marshal(weather)
	if r.is(StructuredNoText) {
		text = []byte("The weather is sunny.")
	}
	res := textResult(ctx, string(text), false)
	res["structuredContent"] = weather
	return res, nil
}
