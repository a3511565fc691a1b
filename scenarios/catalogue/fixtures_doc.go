package catalogue

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/scenarios"
)

// WriteFixturesDoc writes docs/fixtures.md: the fixtures contract, each
// fixture of the table with the scenarios that use it (their needs), so a
// target's author sees what to offer and why.
func WriteFixturesDoc(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# Fixtures

A fixture is a tool, prompt, resource or resource template a target offers under a name the scenarios know.
Most names are the official conformance suite's, so a server prepared for it (go-sdk's
` + "`conformance/everything-server`" + `, for example) runs unchanged. A server that offers a fixture under another name, or
needs other arguments, maps it with ` + "`--fixture NAME=TOOL`" + ` or the config file ([server.md](server.md)). A scenario
whose fixture or capability the target lacks is skipped with the reason, never failed.

This page is generated from the fixtures table (package ` + "`fixtures`" + `) and the scenarios' needs; a test holds it to them
(` + "`MCPCONFORM_UPDATE_GOLDEN=1 go test ./scenarios/catalogue`" + ` rewrites it).

`)
	for _, part := range []struct {
		side         fixtures.Side
		title, intro string
	}{
		{fixtures.ByServer, "Offered by a server under test", "The reference server offers every one of them."},
		{fixtures.ToClient, "Offered to a client under test",
			"mcpconform's fake server offers these to a client under test, which calls them when the scenario tells it to " +
				"(`MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_CONTEXT`; [client.md](client.md))."},
	} {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n| fixture | kind | official | what it does | scenarios |\n|---|---|---|---|---|\n", part.title, part.intro)
		for _, f := range fixtures.Table {
			if f.Side != part.side {
				continue
			}
			official := ""
			if f.Official {
				official = "yes"
			}
			var ids []string
			for _, s := range Needing(f.Name) {
				ids = append(ids, s.ID)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Name, f.Kind, official, escapeCell(f.Does), strings.Join(ids, ", "))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Needing lists the scenarios that name fixture among their needs.
func Needing(fixture string) []*scenarios.Scenario {
	var out []*scenarios.Scenario
	for _, s := range all {
		if s.NeedsFixtureNamed(fixture) {
			out = append(out, s)
		}
	}
	return out
}
