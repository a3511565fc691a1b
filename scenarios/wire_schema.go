package scenarios

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/protocol"
)

// Every message judged against the JSON schema of the wire version, as the
// official suite's wire-schema-valid check does.

func init() { Register(wireSchemaScenario) }

var wireSchemaScenario = &Scenario{
	ID:       "wire-schema",
	Title:    "what the server sends validates against the schema of the wire version",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: allVersions,
	Purpose: "The fake client lists what the server offers (tools, prompts, resources, templates, as declared) and " +
		"validates every result and every notification or request it receives by strictly decoding it into the types " +
		"generated from the official schema.",
	Checks: []Check{
		{ID: "wire-schema/messages-valid", Level: Must, Spec: "2025-11-25/basic/index.mdx#schema",
			Title: "every result and every server notification or request after the handshake validates against the schema (reported with its JSON path)"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{Capabilities: taskClientCaps()})
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
			barrier(t, s)
		}
		if v := s.SchemaViolations()[handshake:]; len(v) > 0 {
			t.Fail("wire-schema/messages-valid", "messages valid against the schema",
				fmt.Sprintf("%d invalid; first, the %s: %v", len(v), v[0].What, v[0].Err))
			return
		}
		t.Pass("wire-schema/messages-valid")
	},
}
