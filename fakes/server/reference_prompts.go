package server

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The reference server's prompts and completion (scenarios.md S4). Prompt
// names follow the official suite's fixtures (test_simple_prompt,
// test_prompt_with_arguments, test_prompt_with_embedded_resource,
// test_prompt_with_image); test_prompt_error, a handler that fails, is
// mcpconform's own.

// promptsFamily serves prompts and completion; it has no state.
type promptsFamily struct{ familyBase }

func newPromptsFamily(r *reference) family { return &promptsFamily{familyBase{r}} }

func (r *promptsFamily) handlers() map[string]Handler {
	return map[string]Handler{
		protocol.MethodPromptsList: r.promptsList,
		protocol.MethodPromptsGet:  r.promptsGet,
		"completion/complete":      r.complete,
	}
}

func (r *promptsFamily) capabilities(_ string, caps map[string]any) {
	caps["prompts"] = map[string]any{"listChanged": false}
	if !r.is(CompletionUndeclaredServed) {
		caps["completions"] = map[string]any{}
	}
}

func (*promptsFamily) faults() fault.Set    { return promptFaults }
func (*promptsFamily) liberties() fault.Set { return promptLiberties }

type refPrompt struct {
	name, description string
	args              []refPromptArg
	render            func(r *reference, args map[string]string) ([]any, *jsonrpc.Error)
}

type refPromptArg struct {
	name, description string
	required          bool
}

// A 1×1 PNG.
const refPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func textMessage(role, text string) map[string]any {
	return map[string]any{"role": role, "content": map[string]any{"type": "text", "text": text}}
}

var referencePrompts = []refPrompt{
	{name: fixtures.SimplePrompt, description: "A simple prompt without arguments.",
		render: func(r *reference, _ map[string]string) ([]any, *jsonrpc.Error) {
			switch {
			case r.is(PromptSimpleEmpty):
				return []any{}, nil
			case r.is(PromptSystemRole):
				return []any{textMessage("system", "This is a simple prompt for testing.")}, nil
			}
			return []any{textMessage("user", "This is a simple prompt for testing.")}, nil
		}},
	{name: fixtures.PromptWithArguments, description: "A prompt quoting its two arguments.",
		args: []refPromptArg{{"arg1", "First test argument", true}, {"arg2", "Second test argument", true}},
		render: func(r *reference, a map[string]string) ([]any, *jsonrpc.Error) {
			if r.is(PromptArgsIgnored) {
				return []any{textMessage("user", "Prompt with arguments.")}, nil
			}
			return []any{textMessage("user", fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))}, nil
		}},
	{name: fixtures.PromptWithEmbeddedResource, description: "A prompt embedding the resource it is given.",
		args: []refPromptArg{{"resourceUri", "URI of the resource to embed", true}},
		render: func(r *reference, a map[string]string) ([]any, *jsonrpc.Error) {
			text := textMessage("user", "Please process the embedded resource above.")
			if r.is(PromptEmbeddedMissing) {
				return []any{text}, nil
			}
			return []any{map[string]any{"role": "user", "content": map[string]any{"type": "resource",
				"resource": map[string]any{"uri": a["resourceUri"], "mimeType": "text/plain", "text": "Embedded resource content for testing."}}}, text}, nil
		}},
	{name: fixtures.PromptWithImage, description: "A prompt with an image.",
		render: func(r *reference, _ map[string]string) ([]any, *jsonrpc.Error) {
			text := textMessage("user", "Please analyze the image above.")
			if r.is(PromptContentUnknownType) {
				text["content"].(map[string]any)["type"] = "txt"
			}
			if r.is(PromptImageMissing) {
				return []any{text}, nil
			}
			data := refPNG
			if r.is(PromptImageNotBase64) {
				data = "PNG raw bytes!"
			}
			return []any{map[string]any{"role": "user", "content": map[string]any{"type": "image", "data": data, "mimeType": "image/png"}}, text}, nil
		}},
	{name: fixtures.PromptError, description: "A prompt whose handler always fails.",
		render: func(r *reference, _ map[string]string) ([]any, *jsonrpc.Error) {
			switch {
			case r.is(PromptErrorEmptyMessages):
				return []any{}, nil
			case r.is(PromptErrorCodeZero):
				return nil, rpcError(0, "the prompt handler failed", nil)
			case r.is(PromptErrorServerCode):
				return nil, rpcError(-32004, "the prompt handler failed", nil)
			}
			return nil, rpcError(codes.InternalError, "the prompt handler failed", nil)
		}},
}

// promptPage is how many prompts one prompts/list page holds, so that a
// client sees more than one page.
const promptPage = 2

func (r *promptsFamily) promptsList(ctx context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.PageParams
	_ = json.Unmarshal(req.Params, &params)
	size := promptPage
	if r.is(PromptsOnePage) {
		size = len(referencePrompts)
	}
	start := 0
	if params.Cursor != nil {
		if _, err := fmt.Sscanf(*params.Cursor, "prompts-from-%d", &start); err != nil || start <= 0 || start >= len(referencePrompts) {
			if !r.is(PromptsInvalidCursorAccepted) {
				return nil, rpcError(codes.InvalidParams, "Invalid cursor", nil)
			}
			start = 0
		}
	}
	end := min(start+size, len(referencePrompts))
	prompts := []any{}
	for _, p := range referencePrompts[start:end] {
		entry := map[string]any{"name": p.name, "description": p.description}
		if len(p.args) > 0 {
			args := []any{}
			for _, a := range p.args {
				args = append(args, map[string]any{"name": a.name, "description": a.description, "required": a.required})
			}
			entry["arguments"] = args
		}
		prompts = append(prompts, entry)
	}
	result := map[string]any{"prompts": prompts}
	switch {
	case end < len(referencePrompts):
		result["nextCursor"] = fmt.Sprintf("prompts-from-%d", end)
	case r.is(PromptsListCursorLoops):
		result["nextCursor"] = fmt.Sprintf("prompts-from-%d", promptPage) // back to an earlier page
	}
	if isModern(ctx) {
		result["ttlMs"] = 0
		result["cacheScope"] = "public"
	}
	return complete(ctx, result), nil
}

// invalidParams is -32602 (prompts.mdx#error-handling), or the fault's -32603.
func (r *promptsFamily) invalidParams(msg string) *jsonrpc.Error {
	if r.is(PromptInvalidParamsInternal) {
		return rpcError(codes.InternalError, msg, nil)
	}
	return rpcError(codes.InvalidParams, msg, nil)
}

func findPrompt(name string) *refPrompt {
	for i := range referencePrompts {
		if referencePrompts[i].name == name {
			return &referencePrompts[i]
		}
	}
	return nil
}

func (r *promptsFamily) promptsGet(ctx context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.NamedArgumentsParams
	_ = json.Unmarshal(req.Params, &params)
	prompt := findPrompt(params.Name)
	if prompt == nil {
		if r.is(PromptUnknownEmpty) {
			return complete(ctx, map[string]any{"messages": []any{}}), nil
		}
		return nil, r.invalidParams("Unknown prompt: " + params.Name)
	}
	args := map[string]string{}
	for k, raw := range params.Arguments {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			if !r.is(PromptWrongTypeAccepted) {
				return nil, r.invalidParams("Argument " + k + " must be a string")
			}
			s = strings.Trim(string(raw), `"`)
		}
		args[k] = s
	}
	for _, a := range prompt.args {
		if _, ok := args[a.name]; a.required && !ok && !r.is(PromptMissingArgumentAccepted) {
			return nil, r.invalidParams("Missing required argument: " + a.name)
		}
	}
	messages, rerr := prompt.render(r.reference, args)
	if rerr != nil {
		return nil, rerr
	}
	return complete(ctx, map[string]any{"description": prompt.description, "messages": messages}), nil
}

// completionWords are the suggestions for every prompt argument.
var completionWords = []string{"test-alpha", "test-beta", "test-gamma", "other-delta"}

// templateIDs are the suggestions for the id of test://template/{id}/data.
var templateIDs = []string{"1", "2", "3", "123"}

func (r *promptsFamily) complete(ctx context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.CompleteParams
	if err := json.Unmarshal(req.Params, &params); err != nil || params.Ref.Type == "" {
		return nil, rpcError(codes.InvalidParams, "completion/complete needs ref and argument", nil)
	}
	if r.is(CompletionError) && params.Ref.Type == "ref/prompt" && params.Ref.Name == fixtures.PromptWithArguments {
		return nil, rpcError(codes.InternalError, "Internal error", nil)
	}
	words := completionWords
	switch {
	case params.Ref.Type == "ref/resource" && params.Ref.URI == fixtures.DataTemplate:
		words = templateIDs // the resources family's template test://template/{id}/data
	case params.Ref.Type == "ref/resource":
		switch {
		case r.is(CompletionUnknownTemplateEmpty):
			return complete(ctx, map[string]any{"completion": map[string]any{"values": []string{}}}), nil
		case r.is(CompletionUnknownTemplateOtherCode):
			return nil, rpcError(codes.ResourceNotFound, "Unknown resource template: "+params.Ref.URI, nil)
		}
		return nil, rpcError(codes.InvalidParams, "Unknown resource template: "+params.Ref.URI, nil)
	case findPrompt(params.Ref.Name) == nil:
		if r.is(CompletionUnknownPromptEmpty) {
			return complete(ctx, map[string]any{"completion": map[string]any{"values": []string{}}}), nil
		}
		return nil, rpcError(codes.InvalidParams, "Unknown prompt: "+params.Ref.Name, nil)
	}
	values := []string{}
	for _, w := range words {
		if strings.HasPrefix(w, params.Argument.Value) {
			values = append(values, w)
		}
	}
	total := len(values)
	switch {
	case r.is(CompletionNoValues):
		values, total = []string{}, 0
	case r.is(CompletionTooManyValues):
		values = nil
		for i := range 101 {
			values = append(values, fmt.Sprintf("test-%03d", i))
		}
		total = len(values)
	case r.is(CompletionTotalInconsistent):
		values, total = completionWords[:3], 1
	}
	return complete(ctx, map[string]any{"completion": map[string]any{"values": values, "total": total, "hasMore": false}}), nil
}
