package clientside

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
)

// FixtureProblems are the ways a script and its scenario's needs disagree
// on the fixtures of the contract (package fixtures): a tool or prompt of
// the fixtures table the script offers that the needs do not name, and a
// fixture the needs name that the script does not offer as a tool or
// prompt of that kind. A script whose Handlers replace tools/list (or
// prompts/list) offers what the handler lists, which cannot be read here:
// the fixtures of that kind are not looked for (nor those of another kind
// than tool and prompt, which a script offers through its Handlers). Serve makes each problem a
// harness error, so the needs `list` shows are what the fake server offers.
func FixtureProblems(sc *scenarios.Scenario, s Script) []string {
	offered := map[fixtures.Kind][]string{}
	for _, tool := range s.Tools {
		offered[fixtures.Tool] = append(offered[fixtures.Tool], tool.Name)
	}
	for _, pr := range s.Prompts {
		offered[fixtures.Prompt] = append(offered[fixtures.Prompt], pr.Name)
	}
	listedBy := map[fixtures.Kind]string{fixtures.Tool: protocol.MethodToolsList, fixtures.Prompt: protocol.MethodPromptsList}

	var problems []string
	for _, kind := range []fixtures.Kind{fixtures.Tool, fixtures.Prompt} {
		for _, name := range offered[kind] {
			f, ok := fixtures.Find(name)
			if !ok || f.Side != fixtures.ToClient {
				continue
			}
			if f.Kind != kind {
				problems = append(problems, fmt.Sprintf("the fake server offers the fixture %s as a %s, but the fixtures table makes it a %s", name, kind, f.Kind))
			}
			if !sc.NeedsFixtureNamed(name) {
				problems = append(problems, fmt.Sprintf("the fake server offers the fixture %s, which scenario %s does not name in its needs", name, sc.ID))
			}
		}
	}
	for _, n := range sc.Needs {
		if n.Fixture == "" {
			continue
		}
		f, ok := fixtures.Find(n.Fixture)
		if !ok {
			continue // Validate refuses it
		}
		method, readable := listedBy[f.Kind]
		if _, replaced := s.Handlers[method]; !readable || replaced {
			continue
		}
		if !slices.Contains(offered[f.Kind], n.Fixture) {
			problems = append(problems, fmt.Sprintf("scenario %s needs the fixture %s, which its fake server does not offer as a %s", sc.ID, n.Fixture, f.Kind))
		}
	}
	return problems
}
