package scenarios

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// validScenario is a scenario Validate accepts, with one check per name.
func validScenario(id string, checks ...string) *Scenario {
	s := &Scenario{
		ID:       id,
		Title:    "a synthetic scenario",
		Family:   "synthetic",
		Side:     ServerSide,
		Versions: []string{"2025-11-25"},
		Run:      func(*T) {},
	}
	for _, c := range checks {
		s.Checks = append(s.Checks, &Check{
			ID:     id + "/" + c,
			Title:  "the " + c + " requirement",
			Level:  Must,
			Spec:   "2025-11-25/basic/lifecycle.mdx#initialization",
			Faults: []*fault.Fault{syntheticFault},
		})
	}
	return s
}

// syntheticFault is the one fault of the synthetic reference peers.
var syntheticFault = &fault.Fault{Name: "synthetic-fault"}

var syntheticFaults = map[Side]fault.Set{ServerSide: {syntheticFault}, ClientSide: {syntheticFault}}

var _ = g.Describe("Validate", func() {
	g.Context("a synthetic catalogue", func() {
		g.It("accepts a well-formed one", func() {
			a, b := validScenario("alpha", "one", "two-words"), validScenario("beta-2", "x")
			c := Catalogue{b, a}
			Expect(c.Validate(syntheticFaults)).To(Succeed())
			Expect(c.Sorted()).To(HaveExactElements(a, b))
			Expect(c.Checks()).To(HaveLen(3))
			Expect(c.Killers()[syntheticFault]).To(HaveLen(3))
			found, ok := c.Find("beta-2")
			Expect(ok).To(BeTrue())
			Expect(found).To(BeIdenticalTo(b))
			_, ok = c.Find("gamma")
			Expect(ok).To(BeFalse())
		})

		g.It("refuses a duplicate scenario id", func() {
			a, b := validScenario("alpha", "one"), validScenario("alpha", "two")

			Expect(Catalogue{a, b}.Validate(syntheticFaults)).To(MatchError(ContainSubstring(`duplicate scenario id "alpha"`)))
		})

		g.It("refuses a duplicate check id within a scenario", func() {
			a := validScenario("alpha", "one", "one")

			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring(`duplicate check id "alpha/one"`)))
		})

		g.DescribeTable("refuses a check id that is not <scenario id>/<kebab-case name>",
			func(checkID string) {
				a := validScenario("alpha", "one")
				a.Checks[0].ID = checkID

				Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring("must be alpha/<kebab-case name>")))
			},
			g.Entry("another scenario's prefix", "beta/one"),
			g.Entry("a prefix that only starts like the id", "alphabet/one"),
			g.Entry("no scenario prefix", "one"),
			g.Entry("the prefix with no name", "alpha/"),
			g.Entry("a name in capitals", "alpha/One"),
			g.Entry("a snake_case name", "alpha/one_two"),
			g.Entry("a double hyphen", "alpha/one--two"),
			g.Entry("a trailing hyphen", "alpha/one-"),
			g.Entry("a nested name", "alpha/one/two"),
		)

		g.DescribeTable("refuses a scenario id that is not kebab-case",
			func(id string) {
				a := validScenario(id, "one")

				Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring("is not kebab-case")))
			},
			g.Entry("capitals", "Alpha"),
			g.Entry("an underscore", "alpha_beta"),
			g.Entry("a leading hyphen", "-alpha"),
			g.Entry("a trailing hyphen", "alpha-"),
			g.Entry("a double hyphen", "alpha--beta"),
			g.Entry("a slash", "alpha/beta"),
			g.Entry("a space", "alpha beta"),
			g.Entry("empty", ""),
		)

		g.DescribeTable("refuses a check without a level",
			func(level Level) {
				a := validScenario("alpha", "one")
				a.Checks[0].Level = level

				Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError("check alpha/one has no level"))
			},
			g.Entry("empty", Level("")),
			g.Entry("lower case", Level("must")),
			g.Entry("not an RFC 2119 keyword", Level("OPTIONAL-ISH")),
		)

		g.DescribeTable("accepts each RFC 2119 level",
			func(level Level) {
				a := validScenario("alpha", "one")
				a.Checks[0].Level = level

				Expect(Catalogue{a}.Validate(syntheticFaults)).To(Succeed())
			},
			g.Entry(nil, Must), g.Entry(nil, Should), g.Entry(nil, May),
		)

		g.DescribeTable("spec references",
			func(ref string, valid bool) {
				a := validScenario("alpha", "one")
				a.Checks[0].Spec = ref
				if valid {
					Expect(Catalogue{a}.Validate(syntheticFaults)).To(Succeed())
				} else {
					Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring("has no valid spec reference")))
				}
			},
			g.Entry("a dated page with a section", "2025-11-25/basic/lifecycle.mdx#version-negotiation", true),
			g.Entry("a dated page without a section", "2025-06-18/basic/transports.mdx", true),
			g.Entry("the tasks extension", "ext-tasks/tasks.mdx#cancellation", true),
			g.Entry("JSON-RPC 2.0", "jsonrpc-2.0/spec#section-5", true),
			g.Entry("empty", "", false),
			g.Entry("no version root", "basic/lifecycle.mdx#initialization", false),
			g.Entry("a malformed date", "2025-1-25/basic/lifecycle.mdx", false),
			g.Entry("the root alone", "2025-11-25/", false),
			g.Entry("an empty section", "2025-11-25/basic/lifecycle.mdx#", false),
			g.Entry("a section in capitals", "2025-11-25/basic/lifecycle.mdx#Version-Negotiation", false),
			g.Entry("a section with an underscore", "2025-11-25/basic/lifecycle.mdx#version_negotiation", false),
			g.Entry("two sections", "2025-11-25/basic/lifecycle.mdx#a#b", false),
			g.Entry("white space in the page", "2025-11-25/basic/life cycle.mdx", false),
			g.Entry("an unknown root", "draft/basic/lifecycle.mdx", false),
			g.Entry("the dot of jsonrpc-2.0 is literal", "jsonrpc-2x0/spec", false),
			g.Entry("a URL", "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle", false),
		)

		g.It("refuses a check without a title", func() {
			a := validScenario("alpha", "one")
			a.Checks[0].Title = ""

			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError("check alpha/one has no title"))
		})

		g.DescribeTable("refuses a scenario without a body, versions, family or title",
			func(spoil func(*Scenario)) {
				a := validScenario("alpha", "one")
				spoil(a)

				Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError("scenario alpha lacks a body, versions, family or title"))
			},
			g.Entry("no body", func(s *Scenario) { s.Run = nil }),
			g.Entry("no versions", func(s *Scenario) { s.Versions = nil }),
			g.Entry("no family", func(s *Scenario) { s.Family = "" }),
			g.Entry("no title", func(s *Scenario) { s.Title = "" }),
		)

		g.It("refuses a check that no fault kills", func() {
			a := validScenario("alpha", "one", "two")
			a.Checks[1].Faults = nil
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError("check alpha/two has no fault in the reference server that makes it fail"))
			a.Side = ClientSide
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError("check alpha/two has no fault in the reference client that makes it fail"))
		})

		g.It("refuses a fault of the other side's reference peer", func() {
			a := validScenario("alpha", "one")
			serverOnly := map[Side]fault.Set{ServerSide: {syntheticFault}}
			Expect(Catalogue{a}.Validate(serverOnly)).To(Succeed())
			a.Side = ClientSide
			Expect(Catalogue{a}.Validate(serverOnly)).To(MatchError("check alpha/one names a fault that is not one of the reference client's"))
		})

		g.It("refuses a liberty named as a fault, a fault named as a liberty, and a liberty no check exercises", func() {
			liberty := &fault.Fault{Name: "synthetic-liberty", Liberty: true}
			variants := map[Side]fault.Set{ServerSide: {syntheticFault, liberty}}
			a := validScenario("alpha", "one")
			Expect(Catalogue{a}.Validate(variants)).To(MatchError("liberty synthetic-liberty is exercised by no check"))
			a.Checks[0].Liberties = []*fault.Fault{liberty}
			Expect(Catalogue{a}.Validate(variants)).To(Succeed())
			Expect(Catalogue{a}.Exercisers()[liberty]).To(HaveExactElements(a.Checks[0]))
			a.Checks[0].Liberties = []*fault.Fault{syntheticFault}
			Expect(Catalogue{a}.Validate(variants)).To(MatchError("check alpha/one names a liberty that is not one of the reference server's"))
			a.Checks[0].Liberties = []*fault.Fault{liberty}
			a.Checks[0].Faults = []*fault.Fault{liberty}
			Expect(Catalogue{a}.Validate(variants)).To(MatchError("check alpha/one names a fault that is not one of the reference server's"))
		})

		g.It("refuses a malformed source or profile, and lists the profiles", func() {
			a := validScenario("alpha", "one", "two")
			a.Checks[0].Source = "a blog post"
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring("has no valid source")))
			a.Checks[0].Source = "seps/1686-tasks.md#8-1"
			a.Checks[0].Profile = "Strict Isolation"
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring("is not kebab-case")))
			a.Checks[0].Profile = "strict-isolation"
			a.Checks[1].Profile = "strict-isolation"
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(Succeed())
			Expect(Catalogue{a}.Profiles()).To(Equal([]string{"strict-isolation"}))
		})

		g.DescribeTable("refuses a malformed requirement id",
			func(id string) {
				a := validScenario("alpha", "one")
				a.Checks[0].Requirements = []string{"sep-2575-server-sends-subscription-ack", id}

				Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(
					`check alpha/one names requirement "` + id + `", which is no official requirement id`))
			},
			g.Entry("no sep- prefix", "server-sends-subscription-ack"),
			g.Entry("no number", "sep-server-sends-subscription-ack"),
			g.Entry("a number alone", "sep-2575"),
			g.Entry("capitals", "SEP-2575-server-sends-subscription-ack"),
			g.Entry("a brace shorthand left unexpanded", "sep-2575-client-declares-{roots,sampling}-capability"),
			g.Entry("a double hyphen", "sep-2575--server"),
			g.Entry("a trailing hyphen", "sep-2575-server-"),
			g.Entry("a space", "sep-2575-server sends"),
		)

		g.It("accepts the lists' forms of requirement id and refuses one named twice", func() {
			a := validScenario("alpha", "one")
			a.Checks[0].Requirements = []string{"sep-2575-http-server-method-not-found-404", "wif-grant-type"}
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(Succeed())
			a.Checks[0].Requirements = append(a.Checks[0].Requirements, "wif-grant-type")
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(`check alpha/one names requirement "wif-grant-type" twice`))
		})

		g.It("names as killers at a version only the checks of scenarios that run there", func() {
			a, b := validScenario("alpha", "one"), validScenario("beta", "two", "three")
			b.Versions = []string{"2026-07-28"}
			c := Catalogue{a, b}
			Expect(c.Killers()[syntheticFault]).To(HaveLen(3))
			Expect(c.KillersOn("2025-11-25", transport.HTTP)[syntheticFault]).To(HaveExactElements(a.Checks[0]))
			Expect(c.KillersOn("2026-07-28", transport.HTTP)[syntheticFault]).To(HaveExactElements(b.Checks[0], b.Checks[1]))
			b.Transports = []transport.Kind{transport.Stdio}
			Expect(c.KillersOn("2026-07-28", transport.HTTP)[syntheticFault]).To(BeEmpty())
		})

		g.It("refuses a scenario without a side", func() {
			a := validScenario("alpha", "one")
			a.Side = ""
			Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError("scenario alpha has no side"))
		})

		g.DescribeTable("needs",
			func(side Side, needs []Need, problem string) {
				a := validScenario("alpha", "one")
				a.Side, a.Needs = side, needs
				if problem == "" {
					Expect(Catalogue{a}.Validate(syntheticFaults)).To(Succeed())
					return
				}
				Expect(Catalogue{a}.Validate(syntheticFaults)).To(MatchError(ContainSubstring(problem)))
			},
			g.Entry("a capability path, a server fixture and words", ServerSide,
				[]Need{NeedsCapability("tasks.list"), NeedsFixture("test_simple_text", "answers"), NeedsOther("two sessions")}, ""),
			g.Entry("a client fixture on the client side", ClientSide, []Need{NeedsFixture("test_headers")}, ""),
			g.Entry("a fixture the table lacks", ServerSide, []Need{NeedsFixture("test_nonesuch")}, "which the fixtures table does not list"),
			g.Entry("a client fixture on the server side", ServerSide, []Need{NeedsFixture("test_headers")}, "offered by the client side's peer"),
			g.Entry("a capability that is no path", ServerSide, []Need{NeedsCapability("tools list")}, "which is no dotted path"),
			g.Entry("two kinds at once", ServerSide, []Need{{Capability: "tools", Fixture: "test_simple_text"}}, "not exactly one of"),
			g.Entry("nothing", ServerSide, []Need{{}}, "not exactly one of"),
		)

		g.It("shows each need in words", func() {
			Expect(NeedsCapability("logging").String()).To(Equal("capability logging"))
			Expect(NeedsFixture("test_simple_text", "answers a text").String()).To(Equal("tool test_simple_text (answers a text)"))
			Expect(NeedsFixture("test://static-text").String()).To(Equal("resource test://static-text"))
			Expect(NeedsOther("two sessions").String()).To(Equal("two sessions"))
			s := &Scenario{Needs: []Need{NeedsCapability("tools"), NeedsFixture("test_simple_text"), NeedsCapability("tasks.list")}}
			Expect(s.Capabilities()).To(HaveExactElements("tools", "tasks.list"))
			Expect(s.NeedsFixtureNamed("test_simple_text")).To(BeTrue())
			Expect(s.NeedsFixtureNamed("test_image_content")).To(BeFalse())
		})
	})
})
