package lifecycle

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Every message judged against the JSON schema of the wire version, as the
// official suite's wire-schema-valid check does.

var (
	wireSchemaMessagesValid = &scenarios.Check{ID: "wire-schema/messages-valid", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#schema",
		Title:  "every result and every server notification or request after the handshake validates against the schema (reported with its JSON path)",
		Faults: []*fault.Fault{server.ToolMissingInputSchema}}
)

var wireSchemaScenario = &scenarios.Scenario{
	ID:       "wire-schema",
	Title:    "what the server sends validates against the schema of the wire version",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Purpose: "The fake client lists what the server offers (tools, prompts, resources, templates, as declared) and " +
		"validates every result and every notification or request it receives by strictly decoding it into the types " +
		"generated from the official schema.",
	Checks: []*scenarios.Check{wireSchemaMessagesValid},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}})
		// The handshake's own result is judged by lifecycle-initialize and
		// lifecycle-discover; this check starts after it.
		handshake := len(s.SchemaViolations())
		lists := []struct{ capability, method string }{
			{"tools", protocol.MethodToolsList},
			{"prompts", protocol.MethodPromptsList},
			{"resources", protocol.MethodResourcesList},
			{"resources", protocol.MethodResourcesTemplatesList},
		}
		for _, l := range lists {
			if !s.HasCapability(l.capability) {
				continue
			}
			t.Step("%s (every page)", l.method)
			cursor := ""
			for range 20 {
				params := map[string]any{}
				if cursor != "" {
					params["cursor"] = cursor
				}
				resp, err := t.Request(s, l.method, params)
				if err != nil || resp.Error != nil {
					break // judged by the families that own these methods
				}
				var page struct {
					NextCursor string `json:"nextCursor"`
				}
				_ = json.Unmarshal(resp.Result, &page)
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
		}
		if !s.Stateless() {
			// ping; the stateless barrier would be server/discover, whose
			// result lifecycle-discover judges.
			t.Barrier(s)
		}
		if v := s.SchemaViolations()[handshake:]; len(v) > 0 {
			t.Fail(wireSchemaMessagesValid, "messages valid against the schema",
				fmt.Sprintf("%d invalid; first, the %s: %v", len(v), v[0].What, v[0].Err))
			return
		}
		t.Pass(wireSchemaMessagesValid)
	}),
}
