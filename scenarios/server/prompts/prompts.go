// Package prompts is the server prompts family (scenarios.md S4): prompts/list, prompts/get with its role, content and argument errors, and completion/complete.
package prompts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{listScenario, everyScenario, unknownScenario, errorScenario,
		simpleScenario, withArgsScenario, embeddedScenario, imageScenario, completeScenario, completeUndeclaredScenario}
}

func faults(c *scenarios.Check, f ...*fault.Fault) *scenarios.Check { c.Faults = f; return c }

func liberties(c *scenarios.Check, l ...*fault.Fault) *scenarios.Check { c.Liberties = l; return c }

const invalidParamsQuote = "Servers **SHOULD** return standard JSON-RPC errors for common failure cases:"

var (
	listEnds = liberties(faults(check("prompts-list/pages-end", "following nextCursor, prompts/list reaches a page without one (no cursor repeats, at most 50 pages)",
		scenarios.Must, paginationPage+"#response-format", "An optional nextCursor field if more results exist"), server.PromptsListCursorLoops), server.PromptsOnePage)
	listInvalidCursor = liberties(faults(check("prompts-list/invalid-cursor", "prompts/list with a cursor the server never gave is answered with -32602",
		scenarios.Should, paginationPage+"#implementation-guidelines", "Invalid cursors **SHOULD** result in an error with code -32602 (Invalid params)."),
		server.PromptsInvalidCursorAccepted), server.PromptsOnePage)
)

var listScenario = &scenarios.Scenario{
	ID: "prompts-list", Title: "prompts/list pages end and an invalid cursor is refused", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("prompts")},
	Purpose: "prompts/list is followed page by page; then a cursor the server never gave is sent.",
	Checks:  []*scenarios.Check{listEnds, listInvalidCursor},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		_, pages, ended, loop := listPrompts(t, s)
		t.Judge(listEnds, ended, "a last page without nextCursor", loop)
		t.Step("prompts/list with an invalid cursor")
		resp, err := t.Request(s, protocol.MethodPromptsList, map[string]any{"cursor": "mcpconform-not-a-cursor"})
		answered(t, "prompts/list with an invalid cursor", resp, err)
		t.Judge(listInvalidCursor, isCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err)+fmt.Sprintf(" (the listing had %d page(s))", pages))
	}),
}

var (
	everyRoles = faults(check("prompts-get-every/roles", "every message of every prompt the target lists (called with placeholder values) has role user or assistant",
		scenarios.Must, promptsPage+"#promptmessage", `- role: Either "user" or "assistant" to indicate the speaker`), server.PromptSystemRole)
	everyValid = faults(check("prompts-get-every/result-valid", "every prompts/get result (placeholder values) validates against GetPromptResult of the version: valid content blocks (text, image, audio, embedded resource); roles are judged by prompts-get-every/roles",
		scenarios.Must, "2025-11-25/basic/index.mdx#schema", "This is the source of truth for all protocol messages and structures."), server.PromptContentUnknownType)
	everyMissing = faults(check("prompts-get-every/missing-required", "for every listed prompt with a required argument, prompts/get without it is answered with -32602",
		scenarios.Should, promptsPage+"#error-handling", "Missing required arguments: -32602 (Invalid params)"), server.PromptMissingArgumentAccepted, server.PromptInvalidParamsInternal)
	everyWrongType = faults(check("prompts-get-every/wrong-type", "prompts/get with a number for a string argument (arguments are a map of strings) is answered with -32602",
		scenarios.Should, promptsPage+"#implementation-considerations", "Servers **SHOULD** validate prompt arguments before processing"), server.PromptWrongTypeAccepted, server.PromptInvalidParamsInternal)
)

var everyScenario = &scenarios.Scenario{
	ID: "prompts-get-every", Title: "every prompt the target lists: roles, content and argument errors", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("prompts")},
	Purpose: "Prompts are read-only, so every listed prompt is called: with the placeholder \"test\" for each argument (the result judged), " +
		"without each required argument, and once with a number for an argument.",
	Checks: []*scenarios.Check{everyRoles, everyValid, everyMissing, everyWrongType},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		prompts, _, _, _ := listPrompts(t, s)
		if len(prompts) == 0 {
			t.SkipRest("the target lists no prompts")
		}
		var badRole, badSchema, missingBad, wrongType []string
		results, requiredSeen, typedSeen := 0, 0, false
		for i, p := range prompts {
			args := map[string]any{}
			for _, a := range p.Arguments {
				args[a.Name] = "test"
			}
			t.Step("prompts/get %s with placeholder arguments", p.Name)
			resp, err := raw(t, s, fmt.Sprintf("mcpconform-every-%d", i), protocol.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": args})
			answered(t, "prompts/get "+p.Name, resp, err)
			if resp.Error == nil {
				results++
				roleNote, schemaErr := judgeResult(t.Env.Version, resp.Result)
				if roleNote != "" {
					badRole = append(badRole, p.Name+": "+roleNote)
				}
				if schemaErr != nil {
					badSchema = append(badSchema, p.Name+": "+schemaErr.Error())
				}
			}
			for _, a := range p.Arguments {
				if !a.Required {
					continue
				}
				requiredSeen++
				without := map[string]any{}
				for k, v := range args {
					if k != a.Name {
						without[k] = v
					}
				}
				t.Step("prompts/get %s without its required argument %s", p.Name, a.Name)
				resp, err := raw(t, s, fmt.Sprintf("mcpconform-missing-%d-%s", i, a.Name), protocol.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": without})
				answered(t, "prompts/get "+p.Name+" without "+a.Name, resp, err)
				if !isCode(resp, codes.InvalidParams) {
					missingBad = append(missingBad, fmt.Sprintf("%s without %s: %s", p.Name, a.Name, judge.Describe(resp, nil)))
				}
			}
			if !typedSeen && len(p.Arguments) > 0 {
				typedSeen = true
				typed := map[string]any{}
				for k, v := range args {
					typed[k] = v
				}
				typed[p.Arguments[0].Name] = 42
				t.Step("prompts/get %s with the number 42 for %s", p.Name, p.Arguments[0].Name)
				resp, err := rawAs(t, s, fmt.Sprintf("mcpconform-typed-%d", i), protocol.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": typed},
					"a number for a string argument")
				answered(t, "prompts/get "+p.Name+" with a number", resp, err)
				if !isCode(resp, codes.InvalidParams) {
					wrongType = append(wrongType, fmt.Sprintf("%s with %s=42: %s", p.Name, p.Arguments[0].Name, judge.Describe(resp, nil)))
				}
			}
		}
		if results == 0 {
			t.Skip(everyRoles, "no prompt answered its placeholder call with a result")
			t.Skip(everyValid, "no prompt answered its placeholder call with a result")
		} else {
			t.Judge(everyRoles, len(badRole) == 0, "roles user or assistant only", strings.Join(badRole, "; "))
			t.Judge(everyValid, len(badSchema) == 0, "results valid against the "+protocol.SchemaFor(t.Env.Version)+" schema", strings.Join(badSchema, "; "))
		}
		if requiredSeen == 0 {
			t.Skip(everyMissing, "no listed prompt has a required argument")
		} else {
			t.Judge(everyMissing, len(missingBad) == 0, "error -32602 for each missing required argument", strings.Join(missingBad, "; "))
		}
		if !typedSeen {
			t.Skip(everyWrongType, "no listed prompt has an argument")
		} else {
			t.Judge(everyWrongType, len(wrongType) == 0, "error -32602", strings.Join(wrongType, "; "))
		}
	}),
}

// judgeResult names the messages whose role is neither user nor assistant,
// and validates the result with those roles set to user, so that a bad
// role is one check's failure and a bad block the other's.
func judgeResult(version string, result json.RawMessage) (string, error) {
	var obj map[string]any
	if err := json.Unmarshal(result, &obj); err != nil {
		return "", err
	}
	var bad []string
	msgs, _ := obj["messages"].([]any)
	for i, m := range msgs {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if role, _ := mm["role"].(string); role != "user" && role != "assistant" {
			bad = append(bad, fmt.Sprintf("messages[%d].role %v", i, mm["role"]))
			mm["role"] = "user"
		}
	}
	fixed, _ := json.Marshal(obj)
	return strings.Join(bad, ", "), judge.ValidateResult(version, protocol.MethodPromptsGet, fixed)
}

var unknownCheck = faults(check("prompts-get-unknown/invalid-params", "prompts/get for a prompt the target does not list is answered with -32602, never a result",
	scenarios.Should, promptsPage+"#error-handling", "Invalid prompt name: -32602 (Invalid params)"), server.PromptUnknownEmpty, server.PromptInvalidParamsInternal)

var unknownScenario = &scenarios.Scenario{
	ID: "prompts-get-unknown", Title: "prompts/get for an unknown prompt is -32602", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("prompts")}, Checks: []*scenarios.Check{unknownCheck},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("prompts/get mcpconform_no_such_prompt")
		resp, err := raw(t, s, "mcpconform-unknown-1", protocol.MethodPromptsGet, map[string]any{"name": "mcpconform_no_such_prompt", "arguments": map[string]any{}})
		answered(t, "prompts/get for an unknown prompt", resp, err)
		t.Judge(unknownCheck, isCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
	}),
}

var (
	errorNotSuccess = faults(check("prompts-get-error/not-success", "a prompt whose handler fails (fixture test_prompt_error) is answered with a JSON-RPC error, not a result (an empty message list is no error)",
		scenarios.Should, promptsPage+"#error-handling", invalidParamsQuote), server.PromptErrorEmptyMessages)
	errorRealCode = liberties(faults(check("prompts-get-error/standard-code", "the handler failure's error code is -32603 or a JSON-RPC server error (-32000 to -32099), never 0",
		scenarios.Should, promptsPage+"#error-handling", "Internal errors: -32603 (Internal error)"), server.PromptErrorCodeZero), server.PromptErrorServerCode)
)

var errorScenario = &scenarios.Scenario{
	ID: "prompts-get-error", Title: "a failing prompt handler surfaces as a JSON-RPC error with a real code", Family: "prompts", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("prompts"), scenarios.NeedsFixture(fixtures.PromptError, "its handler always fails")},
	Purpose: "The vendor's -32004 (seeds/002) is a server error in the reserved range and passes; code 0 is no JSON-RPC error code the spec names.",
	Checks:  []*scenarios.Check{errorNotSuccess, errorRealCode},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		p := requirePrompt(t, s, fixtures.PromptError)
		t.Step("prompts/get %s", p.Name)
		resp, err := raw(t, s, "mcpconform-error-1", protocol.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": map[string]any{}})
		answered(t, "prompts/get "+p.Name, resp, err)
		if !t.Judge(errorNotSuccess, resp.Error != nil, "a JSON-RPC error", judge.Describe(resp, nil)) {
			t.Skip(errorRealCode, "the failure came as a result, not an error")
			return
		}
		c := resp.Error.Code
		t.Judge(errorRealCode, c == codes.InternalError || c <= -32000 && c >= -32099, "error -32603 (or -32000…-32099)", judge.Describe(resp, nil))
	}),
}

// fixtureScenario is one official prompts-get-* scenario: its fixture
// prompt called with the official arguments and the result judged.
func fixtureScenario(id, title, fixture, note string, args map[string]any, c *scenarios.Check, ok func(msgs []protocol.PromptMessage) string) *scenarios.Scenario {
	return &scenarios.Scenario{
		ID: id, Title: title, Family: "prompts", Side: scenarios.ServerSide, Versions: versions,
		Needs: []scenarios.Need{scenarios.NeedsCapability("prompts"), scenarios.NeedsFixture(fixture, note)}, Checks: []*scenarios.Check{c},
		Run: serverside.Body(func(t *serverside.T) {
			s := t.Open("A", client.Options{})
			p := requirePrompt(t, s, fixture)
			t.Step("prompts/get %s", p.Name)
			resp, err := raw(t, s, "mcpconform-fixture-1", protocol.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": args})
			answered(t, "prompts/get "+p.Name, resp, err)
			if resp.Error != nil {
				t.Fail(c, "a GetPromptResult", judge.Describe(resp, nil))
				return
			}
			var res protocol.PromptResult
			_ = json.Unmarshal(resp.Result, &res)
			problem := ok(res.Messages)
			t.Judge(c, problem == "", title, problem+": "+judge.Describe(resp, nil))
		}),
	}
}

const exampleResource = "test://example-resource"

var (
	simpleCheck = faults(check("prompts-get-simple/messages", "test_simple_prompt answers at least one message",
		scenarios.Must, promptsPage+"#getting-a-prompt", "To retrieve a specific prompt, clients send a prompts/get request."), server.PromptSimpleEmpty)
	withArgsCheck = faults(check("prompts-get-with-args/values-used", "test_prompt_with_arguments (arg1 testValue1, arg2 testValue2) answers text containing both values",
		scenarios.Must, promptsPage+"#getting-a-prompt", "To retrieve a specific prompt, clients send a prompts/get request."), server.PromptArgsIgnored)
	embeddedCheck = faults(check("prompts-get-embedded-resource/resource", "test_prompt_with_embedded_resource answers a message embedding the resource at the URI given, with text or blob",
		scenarios.Must, promptsPage+"#embedded-resources", "Resources can contain either text or binary (blob) data and **MUST** include:"), server.PromptEmbeddedMissing)
	imageCheck = faults(check("prompts-get-with-image/image", "test_prompt_with_image answers an image message whose data is base64 and whose mimeType is an image type",
		scenarios.Must, promptsPage+"#image-content", "The image data **MUST** be base64-encoded and include a valid MIME type."), server.PromptImageMissing, server.PromptImageNotBase64)
)

var (
	simpleScenario = fixtureScenario("prompts-get-simple", "a prompt without arguments answers messages", fixtures.SimplePrompt,
		"no arguments; answers at least one message", map[string]any{}, simpleCheck,
		func(msgs []protocol.PromptMessage) string {
			if len(msgs) == 0 {
				return "no messages"
			}
			return ""
		})
	withArgsScenario = fixtureScenario("prompts-get-with-args", "a prompt uses the argument values it is given", fixtures.PromptWithArguments,
		"arguments arg1 and arg2; answers text quoting both",
		map[string]any{"arg1": "testValue1", "arg2": "testValue2"}, withArgsCheck,
		func(msgs []protocol.PromptMessage) string {
			var all strings.Builder
			for _, m := range msgs {
				all.WriteString(m.Content.Text)
			}
			if !strings.Contains(all.String(), "testValue1") || !strings.Contains(all.String(), "testValue2") {
				return "the text lacks testValue1 or testValue2"
			}
			return ""
		})
	embeddedScenario = fixtureScenario("prompts-get-embedded-resource", "a prompt embeds a resource", fixtures.PromptWithEmbeddedResource,
		"argument resourceUri; answers a message embedding that resource",
		map[string]any{"resourceUri": exampleResource}, embeddedCheck,
		func(msgs []protocol.PromptMessage) string {
			for _, m := range msgs {
				r := m.Content.Resource
				if m.Content.Type == "resource" && r != nil && r.URI == exampleResource && (r.Text != nil || r.Blob != nil) {
					return ""
				}
			}
			return "no resource block with uri " + exampleResource + " and text or blob"
		})
	imageScenario = fixtureScenario("prompts-get-with-image", "a prompt carries an image", fixtures.PromptWithImage,
		"no arguments; answers an image message", map[string]any{}, imageCheck,
		func(msgs []protocol.PromptMessage) string {
			for _, m := range msgs {
				if m.Content.Type != "image" {
					continue
				}
				if _, err := base64.StdEncoding.DecodeString(m.Content.Data); err != nil || m.Content.Data == "" {
					return "image data that is not base64"
				}
				if !strings.HasPrefix(m.Content.MimeType, "image/") {
					return fmt.Sprintf("image mimeType %q", m.Content.MimeType)
				}
				return ""
			}
			return "no image block"
		})
)
