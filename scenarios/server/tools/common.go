package tools

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

const (
	toolsSpec       = "2025-11-25/server/tools.mdx"
	schemaSpec      = "2025-11-25/schema.mdx"
	progressSpec    = "2025-11-25/basic/utilities/progress.mdx"
	loggingSpec     = "2025-11-25/server/utilities/logging.mdx"
	samplingSpec    = "2025-11-25/client/sampling.mdx"
	elicitationSpec = "2025-11-25/client/elicitation.mdx"
)

var (
	// allVersions: a content result is judged the same way at every
	// version, statelessly too (one tools/call).
	allVersions = protocol.Judged()
	// stateful: what a call sends besides its answer (notifications, server
	// requests) rides a session; 2026-07-28 replaces it (MRTR, _meta log
	// levels), which another family judges.
	stateful = protocol.JudgedStateful()
	// only1125: SEP-1034 defaults, SEP-1330 enum schemas and the 2020-12
	// default dialect are 2025-11-25 rules.
	only1125 = []string{protocol.V20251125}
)

// open opens a session declaring caps.
func open(t *serverside.T, caps map[string]any) *client.Session {
	if caps == nil {
		caps = map[string]any{}
	}
	return t.Open("A", client.Options{Capabilities: caps})
}

// call looks the fixture up (skipping the scenario when it is not listed)
// and calls it with meta merged into _meta.
func call(t *serverside.T, s *client.Session, fixture string, defaults, meta map[string]any) (scenarios.Fixture, *jsonrpc.Message, error) {
	fx := t.RequireTool(s, fixture, defaults)
	t.Step("call %s", fx.Tool)
	resp, err := t.Do(s, client.Call{Method: protocol.MethodToolsCall,
		Params: map[string]any{"name": fx.Tool, "arguments": fx.Arguments}, Meta: meta})
	return fx, resp, err
}

// succeeded judges that a fixture answered a CallToolResult without isError:
// a fixture that fails where it must succeed fails the check, whatever the
// shape of its answer. On failure the check is failed and ok is false.
func succeeded(t *serverside.T, c *scenarios.Check, fx scenarios.Fixture, resp *jsonrpc.Message, err error) (protocol.ToolResult, bool) {
	var r protocol.ToolResult
	expected := "a CallToolResult of " + fx.Tool + " without isError (the fixture succeeds)"
	if err != nil || resp == nil || resp.Error != nil {
		t.Fail(c, expected, judge.Describe(resp, err))
		return r, false
	}
	if json.Unmarshal(resp.Result, &r) != nil {
		t.Fail(c, expected, "a result that is no CallToolResult: "+judge.Describe(resp, nil))
		return r, false
	}
	if r.IsError {
		t.Fail(c, expected, "isError: true ("+judge.Describe(resp, nil)+")")
		return r, false
	}
	return r, true
}

// base64OK reports data that decodes as standard base64 (padding optional).
func base64OK(data string) bool {
	if data == "" {
		return false
	}
	if _, err := base64.StdEncoding.DecodeString(data); err == nil {
		return true
	}
	_, err := base64.RawStdEncoding.DecodeString(data)
	return err == nil
}

// mediaProblem says what is wrong with an image or audio item, "" if nothing.
func mediaProblem(it protocol.Content, kind string) string {
	var problems []string
	if !strings.HasPrefix(it.MimeType, kind+"/") {
		problems = append(problems, fmt.Sprintf("mimeType %q is no %s/* type", it.MimeType, kind))
	}
	if !base64OK(it.Data) {
		problems = append(problems, fmt.Sprintf("data %q is not base64", judge.Abbreviate(it.Data, 40)))
	}
	return strings.Join(problems, "; ")
}

// resourceProblem says what is wrong with an embedded resource item.
func resourceProblem(it protocol.Content) string {
	switch {
	case it.Resource == nil:
		return "no resource object"
	case it.Resource.URI == "":
		return "resource.uri is empty"
	case it.Resource.Text == nil && it.Resource.Blob == nil:
		return "resource has neither text nor blob"
	case it.Resource.Blob != nil && !base64OK(*it.Resource.Blob):
		return "resource.blob is not base64"
	}
	return ""
}

// types lists the content types of a result, for failure messages.
func types(r protocol.ToolResult) string {
	var out []string
	for _, it := range r.Content {
		out = append(out, it.Type)
	}
	if len(out) == 0 {
		return "no content items"
	}
	return "content types [" + strings.Join(out, ", ") + "]"
}
