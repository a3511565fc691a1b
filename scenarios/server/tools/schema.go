package tools

import (
	"encoding/json"

	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// A JSON Schema 2020-12 input schema reaches the client as the tool's
// author wrote it: an SDK that rebuilds schemas must not drop keywords.

const (
	schema2020URI = "https://json-schema.org/draft/2020-12/schema"
	dialectSpec   = "2025-11-25/basic/index.mdx#schema-dialect"
	dialectQuote  = "Implementations MUST support at least 2020-12 and SHOULD document which additional dialects they support"
)

// schema2020Versions: the 2020-12 default dialect came with 2025-11-25 and
// stays at 2026-07-28 (basic/index.mdx "Schema Dialect" on both pages).
var schema2020Versions = []string{protocol.V20251125, protocol.V20260728}

var (
	schema2020Core = &scenarios.Check{ID: "json-schema-2020-12/core-kept", Level: scenarios.Must, Spec: dialectSpec,
		Quote:  dialectQuote,
		Title:  "json_schema_2020_12_tool is listed with its $schema (2020-12), $defs.address and additionalProperties: false",
		Faults: []*fault.Fault{server.Schema2020Flattened}}
	schema2020Keywords = &scenarios.Check{ID: "json-schema-2020-12/keywords-kept", Level: scenarios.Should, Spec: dialectSpec,
		Quote: dialectQuote,
		Title: "json_schema_2020_12_tool keeps allOf/anyOf, if/then/else and $defs.address.$anchor (the official suite fails " +
			"their loss only at 2026-07-28; a warning here)",
		Faults: []*fault.Fault{server.Schema2020NoConditionals}}
)

var schema2020Scenario = &scenarios.Scenario{
	ID: "json-schema-2020-12", Title: "a JSON Schema 2020-12 input schema is listed intact", Family: "tools", Side: scenarios.ServerSide,
	Versions: schema2020Versions, Needs: []scenarios.Need{scenarios.NeedsFixture(fixtures.JSONSchema202012Tool, "listed only; its inputSchema uses 2020-12 keywords")},
	Purpose: "Reads the fixture's inputSchema from tools/list (it is not called) and looks for the 2020-12 keywords the " +
		"official fixture uses.",
	Checks: []*scenarios.Check{schema2020Core, schema2020Keywords},
	Run:    serverside.Body(runSchema2020),
}

func runSchema2020(t *serverside.T) {
	s := open(t, nil)
	fx := t.Fixture(fixtures.JSONSchema202012Tool, nil)
	t.Step("list tools to read the inputSchema of %s", fx.Tool)
	tool, found := listedTool(t, s, fx.Tool)
	var schema map[string]json.RawMessage
	_ = json.Unmarshal(tool.InputSchema, &schema)
	if !found {
		t.SkipRest(fmt.Sprintf("the target lists no tool %q for the fixture %s (map one with --fixture or the config file)", fx.Tool, fixtures.JSONSchema202012Tool))
	}
	var missing []string
	var uri string
	_ = json.Unmarshal(schema["$schema"], &uri)
	if uri != schema2020URI && uri != schema2020URI+"#" {
		missing = append(missing, fmt.Sprintf("$schema is %q", uri))
	}
	var defs map[string]map[string]json.RawMessage
	_ = json.Unmarshal(schema["$defs"], &defs)
	if _, ok := defs["address"]; !ok {
		missing = append(missing, "no $defs.address")
	}
	if strings.TrimSpace(string(schema["additionalProperties"])) != "false" {
		missing = append(missing, "additionalProperties is not false")
	}
	t.Judge(schema2020Core, len(missing) == 0, "$schema 2020-12, $defs.address, additionalProperties: false", strings.Join(missing, "; "))

	missing = nil
	for _, k := range []string{"allOf", "if", "then", "else"} {
		if _, ok := schema[k]; !ok {
			missing = append(missing, k)
		}
	}
	if _, ok := defs["address"]["$anchor"]; !ok {
		missing = append(missing, "$defs.address.$anchor")
	}
	t.Judge(schema2020Keywords, len(missing) == 0, "allOf, if, then, else and $defs.address.$anchor", "missing: "+strings.Join(missing, ", "))
}

// listedTool reads a tool's entry from tools/list (every page).
func listedTool(t *serverside.T, s *client.Session, name string) (protocol.Tool, bool) {
	cursor := ""
	for range 50 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := t.Request(s, protocol.MethodToolsList, params)
		if err != nil || resp.Error != nil {
			t.Blocked("tools/list failed: %s", judge.Describe(resp, err))
		}
		var page protocol.ToolsPage
		_ = json.Unmarshal(resp.Result, &page)
		for _, tl := range page.Tools {
			if tl.Name == name {
				return tl, true
			}
		}
		if page.NextCursor == nil || *page.NextCursor == "" {
			break
		}
		cursor = *page.NextCursor
	}
	return protocol.Tool{}, false
}
