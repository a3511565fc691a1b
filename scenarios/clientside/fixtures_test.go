package clientside

import (
	"context"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
)

// A script and its scenario's needs agree on the fixtures of the contract
// the fake server offers: Serve makes each disagreement a harness error.
var _ = g.Describe("FixtureProblems", func() {
	scenario := func(needs ...scenarios.Need) *scenarios.Scenario {
		return &scenarios.Scenario{ID: "client-x", Side: scenarios.ClientSide, Needs: needs}
	}

	g.It("finds none when the script offers exactly the fixtures the needs name, beside names of no fixture", func() {
		sc := scenario(scenarios.NeedsFixture(fixtures.ClientHeaders, "called"),
			scenarios.NeedsFixture(fixtures.ClientHeadersPrompt, "got"), scenarios.NeedsOther("the client lists tools"))
		s := Script{
			Tools:   []Tool{{Name: fixtures.ClientHeaders}, {Name: "my-hyphenated-tool"}},
			Prompts: []Prompt{{Name: fixtures.ClientHeadersPrompt}},
		}
		Expect(FixtureProblems(sc, s)).To(BeEmpty())
	})

	g.It("finds a fixture the script offers that the needs do not name", func() {
		s := Script{Tools: []Tool{{Name: fixtures.ClientTasksList}}}
		Expect(FixtureProblems(scenario(scenarios.NeedsOther("the client calls it")), s)).To(ConsistOf(
			ContainSubstring("offers the fixture " + fixtures.ClientTasksList + ", which scenario client-x does not name")))
	})

	g.It("finds a fixture the needs name that the script does not offer, or offers as another kind", func() {
		sc := scenario(scenarios.NeedsFixture(fixtures.ClientMRTREndless), scenarios.NeedsFixture(fixtures.ClientMRTRPrompt))
		s := Script{Tools: []Tool{{Name: fixtures.ClientMRTRPrompt}}}
		Expect(FixtureProblems(sc, s)).To(ConsistOf(
			ContainSubstring("offers the fixture "+fixtures.ClientMRTRPrompt+" as a tool"),
			ContainSubstring("needs the fixture "+fixtures.ClientMRTREndless+", which its fake server does not offer as a tool"),
			ContainSubstring("needs the fixture "+fixtures.ClientMRTRPrompt+", which its fake server does not offer as a prompt")))
	})

	g.It("leaves out the server's fixtures, whose names a client scenario may reuse for tools of its own", func() {
		s := Script{Tools: []Tool{{Name: fixtures.Reconnection}, {Name: fixtures.JSONSchema202012Tool}}}
		Expect(FixtureProblems(scenario(scenarios.NeedsOther("the client calls "+fixtures.Reconnection)), s)).To(BeEmpty())
	})

	g.It("does not look for a tool fixture when the script's own handler lists the tools", func() {
		list := func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			return map[string]any{"tools": []any{map[string]any{"name": fixtures.ClientRegionMoved}}}, nil
		}
		s := Script{Handlers: map[string]server.Handler{protocol.MethodToolsList: list}}
		Expect(FixtureProblems(scenario(scenarios.NeedsFixture(fixtures.ClientRegionMoved)), s)).To(BeEmpty())
		Expect(FixtureProblems(scenario(scenarios.NeedsFixture(fixtures.ClientMRTRPrompt)), s)).To(HaveLen(1), "prompts are still read from the script")
	})
})
