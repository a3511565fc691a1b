package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Content types of a tool result (tools.mdx#tool-result), through the
// official suite's fixtures. Each fixture must succeed: an isError answer or
// an unknown tool fails, not only a malformed item.

var imageOK = &scenarios.Check{ID: "tools-call-image/image", Level: scenarios.Must, Spec: schemaSpec + "#imagecontent",
	Quote:     "The base64-encoded image data.",
	Title:     "test_image_content succeeds with an image item whose data is base64 and whose mimeType is an image/* type",
	Faults:    []*fault.Fault{server.ImageBadBase64, server.ImageIsError},
	Liberties: []*fault.Fault{server.ImageJPEG}}

var imageScenario = &scenarios.Scenario{
	ID: "tools-call-image", Title: "a tool answers image content", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ImageContent, "no arguments; returns one image")},
	Purpose: "Calls the image fixture and judges its result: no isError, an image item, base64 data, an image MIME type " +
		"(any: the schema says providers support different image types).",
	Checks: []*scenarios.Check{imageOK},
	Run: serverside.Body(func(t *serverside.T) {
		mediaBody(t, imageOK, fixtures.ImageContent, "image")
	}),
}

var audioOK = &scenarios.Check{ID: "tools-call-audio/audio", Level: scenarios.Must, Spec: schemaSpec + "#audiocontent",
	Quote:  "The base64-encoded audio data.",
	Title:  "test_audio_content succeeds with an audio item whose data is base64 and whose mimeType is an audio/* type",
	Faults: []*fault.Fault{server.AudioWrongMime}}

var audioScenario = &scenarios.Scenario{
	ID: "tools-call-audio", Title: "a tool answers audio content", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.AudioContent, "no arguments; returns one audio clip")},
	Purpose: "Calls the audio fixture and judges its result: no isError, an audio item, base64 data, an audio MIME type " +
		"(the official suite wants exactly audio/wav; the spec allows any audio type).",
	Checks: []*scenarios.Check{audioOK},
	Run: serverside.Body(func(t *serverside.T) {
		mediaBody(t, audioOK, fixtures.AudioContent, "audio")
	}),
}

// mediaBody judges a fixture that answers one image or audio item.
func mediaBody(t *serverside.T, c *scenarios.Check, fixture, kind string) {
	s := open(t, nil)
	fx, resp, err := call(t, s, fixture, nil, nil)
	r, ok := succeeded(t, c, fx, resp, err)
	if !ok {
		return
	}
	expected := fmt.Sprintf("a %s item with base64 data and a %s/* mimeType", kind, kind)
	for _, it := range r.Content {
		if it.Type != kind {
			continue
		}
		problem := mediaProblem(it, kind)
		t.Judge(c, problem == "", expected, problem)
		return
	}
	t.Fail(c, expected, types(r))
}

var embeddedOK = &scenarios.Check{ID: "tools-call-embedded-resource/resource", Level: scenarios.Must, Spec: toolsSpec + "#embedded-resources",
	Quote:  "Resources **MAY** be embedded to provide additional context or data using a suitable URI scheme.",
	Title:  "test_embedded_resource succeeds with an embedded resource item (type resource) with a uri and text or base64 blob",
	Faults: []*fault.Fault{server.EmbeddedAsLink}}

var embeddedScenario = &scenarios.Scenario{
	ID: "tools-call-embedded-resource", Title: "a tool answers an embedded resource", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.EmbeddedResource, "no arguments; returns one embedded resource")},
	Purpose: "Calls the embedded-resource fixture: its result must embed the resource (a resource_link is another content type).",
	Checks:  []*scenarios.Check{embeddedOK},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		fx, resp, err := call(t, s, fixtures.EmbeddedResource, nil, nil)
		r, ok := succeeded(t, embeddedOK, fx, resp, err)
		if !ok {
			return
		}
		expected := "a resource item with resource.uri and text or base64 blob"
		for _, it := range r.Content {
			if it.Type == "resource" {
				problem := resourceProblem(it)
				t.Judge(embeddedOK, problem == "", expected, problem)
				return
			}
		}
		t.Fail(embeddedOK, expected, types(r))
	}),
}

var mixedOK = &scenarios.Check{ID: "tools-call-mixed-content/items", Level: scenarios.Must, Spec: toolsSpec + "#tool-result",
	Quote:     "**Unstructured** content is returned in the `content` field of a result, and can contain multiple content items of different types:",
	Title:     "test_multiple_content_types succeeds with a text, an image and an embedded resource item, each valid",
	Faults:    []*fault.Fault{server.MixedNoImage, server.ImageBadBase64},
	Liberties: []*fault.Fault{server.ImageJPEG}}

var mixedScenario = &scenarios.Scenario{
	ID: "tools-call-mixed-content", Title: "a tool answers several content types at once", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.MultipleContentTypes, "no arguments; returns text, image and resource")},
	Purpose: "Calls the mixed-content fixture: one result carries a text, an image and an embedded resource, each judged as alone.",
	Checks:  []*scenarios.Check{mixedOK},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		fx, resp, err := call(t, s, fixtures.MultipleContentTypes, nil, nil)
		r, ok := succeeded(t, mixedOK, fx, resp, err)
		if !ok {
			return
		}
		seen := map[string]bool{}
		var problems []string
		for _, it := range r.Content {
			seen[it.Type] = true
			var p string
			switch it.Type {
			case "text":
				if it.Text == "" {
					p = "an empty text item"
				}
			case "image":
				p = mediaProblem(it, "image")
			case "resource":
				p = resourceProblem(it)
			}
			if p != "" {
				problems = append(problems, it.Type+": "+p)
			}
		}
		for _, want := range []string{"text", "image", "resource"} {
			if !seen[want] {
				problems = append(problems, "no "+want+" item")
			}
		}
		t.Judge(mixedOK, len(problems) == 0, "a valid text, image and resource item",
			strings.Join(problems, "; ")+" ("+types(r)+")")
	}),
}

var errorIsError = &scenarios.Check{ID: "tools-call-error/is-error", Level: scenarios.Must, Spec: toolsSpec + "#error-handling",
	Quote:  "**Tool Execution Errors**: Reported in tool results with `isError: true`:",
	Title:  "test_error_handling reports its failure as a tool result with isError: true and an explanatory text, not as a JSON-RPC error",
	Faults: []*fault.Fault{server.ErrorAsProtocolError}}

var errorScenario = &scenarios.Scenario{
	ID: "tools-call-error", Title: "a failing tool answers isError, not a protocol error", Family: "tools", Side: scenarios.ServerSide,
	Versions: allVersions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.ErrorHandling, "no arguments; always fails")},
	Purpose: "A tool's own failure is a tool execution error the model can read: a result with isError true, not a JSON-RPC error.",
	Checks:  []*scenarios.Check{errorIsError},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		_, resp, err := call(t, s, fixtures.ErrorHandling, map[string]any{}, nil)
		expected := "a CallToolResult with isError: true and a non-empty text item"
		if err != nil || resp == nil || resp.Error != nil {
			t.Fail(errorIsError, expected, judge.Describe(resp, err))
			return
		}
		var r protocol.ToolResult
		_ = json.Unmarshal(resp.Result, &r)
		text := len(r.Content) > 0 && r.Content[0].Type == "text" && r.Content[0].Text != ""
		t.Judge(errorIsError, r.IsError && text, expected, judge.Describe(resp, nil))
	}),
}
