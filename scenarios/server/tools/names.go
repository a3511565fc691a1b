package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The tool-name rules came with 2025-11-25 (SEP-986); every one is a SHOULD.

var (
	namesFormat = &scenarios.Check{ID: "tools-names/format", Level: scenarios.Should, Spec: toolsSpec + "#tool-names",
		Quote:  "The following **SHOULD** be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits",
		Title:  "every tool name has 1 to 128 characters, each an ASCII letter, a digit, '_', '-' or '.'",
		Faults: []*fault.Fault{server.ToolNameMalformed}, Liberties: []*fault.Fault{server.ToolNameDotted}}
	namesUnique = &scenarios.Check{ID: "tools-names/unique", Level: scenarios.Should, Spec: toolsSpec + "#tool-names",
		Quote:  "Tool names **SHOULD** be unique within a server.",
		Title:  "no tool name is listed twice, across every page of tools/list",
		Faults: []*fault.Fault{server.ToolNameDuplicate}}
)

// toolNamePattern is tools.mdx's allowed characters and length.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

var namesScenario = &scenarios.Scenario{
	ID: "tools-names", Title: "tool names keep to the allowed characters and are unique", Family: "tools", Side: scenarios.ServerSide,
	Versions: protocol.From(protocol.V20251125), Needs: []scenarios.Need{scenarios.NeedsCapability("tools")},
	Purpose: "Reads every page of tools/list and judges each name against the tool-name rules of 2025-11-25 " +
		"(length, characters, uniqueness); earlier revisions had no such rules.",
	Checks: []*scenarios.Check{namesFormat, namesUnique},
	Run: serverside.Body(func(t *serverside.T) {
		s := open(t, nil)
		var names []string
		cursor := ""
		for page := 0; ; page++ {
			if page == 50 {
				t.Blocked("tools/list gave more than 50 pages; tools-list-pagination/pages-end judges endless paging")
			}
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			resp, err := t.Request(s, protocol.MethodToolsList, params)
			if err != nil || resp.Error != nil {
				t.Blocked("tools/list: %s", judge.Describe(resp, err))
			}
			var r protocol.ToolsPage
			_ = json.Unmarshal(resp.Result, &r)
			for _, tl := range r.Tools {
				names = append(names, tl.Name)
			}
			if r.NextCursor == nil || *r.NextCursor == "" {
				break
			}
			cursor = *r.NextCursor
		}
		var malformed, twice []string
		seen := map[string]bool{}
		for _, name := range names {
			if !toolNamePattern.MatchString(name) {
				malformed = append(malformed, fmt.Sprintf("%q", name))
			}
			if seen[name] {
				twice = append(twice, fmt.Sprintf("%q", name))
			}
			seen[name] = true
		}
		t.Judge(namesFormat, len(malformed) == 0, fmt.Sprintf("each of the %d names matching %s", len(names), toolNamePattern),
			strings.Join(malformed, ", "))
		t.Judge(namesUnique, len(twice) == 0, fmt.Sprintf("%d distinct names", len(names)), "listed again: "+strings.Join(twice, ", "))
	}),
}
