package scenarios

import (
	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
)

// useCatalogue replaces the package catalogue for one spec and restores the
// real one afterwards.
func useCatalogue(s ...*Scenario) {
	saved := catalogue
	catalogue = s
	g.DeferCleanup(func() { catalogue = saved })
}

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
		s.Checks = append(s.Checks, Check{
			ID:    id + "/" + c,
			Title: "the " + c + " requirement",
			Level: Must,
			Spec:  "2025-11-25/basic/lifecycle.mdx#initialization",
		})
	}
	return s
}

// killersFor names a fault for every check of the scenarios.
func killersFor(s ...*Scenario) map[string][]string {
	out := map[string][]string{}
	for _, sc := range s {
		for _, c := range sc.Checks {
			out[c.ID] = []string{"fault-" + c.ID}
		}
	}
	return out
}

var _ = g.Describe("Validate", func() {
	g.Context("the real catalogue", func() {
		g.It("is consistent and every check has a killing fault in the reference server", func() {
			Expect(All()).NotTo(BeEmpty())
			Expect(Validate(server.Killers())).To(Succeed())
		})

		g.It("is consistent without killers too", func() {
			Expect(Validate(nil)).To(Succeed())
		})

		g.It("names no fault that kills a check outside the catalogue", func() {
			known := map[string]bool{}
			for _, c := range AllChecks() {
				known[c.ID] = true
			}
			for id, faults := range server.Killers() {
				Expect(known).To(HaveKey(id), "faults %v kill %q, which no scenario declares", faults, id)
			}
		})

		g.It("lists the scenarios sorted by id and finds each of them", func() {
			all := All()
			for i := 1; i < len(all); i++ {
				Expect(all[i-1].ID < all[i].ID).To(BeTrue(), "%s before %s", all[i-1].ID, all[i].ID)
			}
			for _, s := range all {
				found, ok := Find(s.ID)
				Expect(ok).To(BeTrue())
				Expect(found).To(BeIdenticalTo(s))
				for _, c := range s.Checks {
					got, ok := s.Check(c.ID)
					Expect(ok).To(BeTrue())
					Expect(got).To(Equal(c))
				}
			}
			_, ok := Find("no-such-scenario")
			Expect(ok).To(BeFalse())
		})
	})

	g.Context("a synthetic catalogue", func() {
		g.It("accepts a well-formed one", func() {
			a, b := validScenario("alpha", "one", "two-words"), validScenario("beta-2", "x")
			useCatalogue(b, a)
			Expect(Validate(killersFor(a, b))).To(Succeed())
			Expect(Validate(nil)).To(Succeed())
			Expect(All()).To(HaveExactElements(a, b))
			Expect(AllChecks()).To(HaveLen(3))
		})

		g.It("restores the real catalogue after each synthetic case", func() {
			_, ok := Find("alpha")
			Expect(ok).To(BeFalse())
			Expect(Validate(server.Killers())).To(Succeed())
		})

		g.It("refuses a duplicate scenario id", func() {
			a, b := validScenario("alpha", "one"), validScenario("alpha", "two")
			useCatalogue(a, b)
			Expect(Validate(killersFor(a, b))).To(MatchError(ContainSubstring(`duplicate scenario id "alpha"`)))
		})

		g.It("refuses a duplicate check id within a scenario", func() {
			a := validScenario("alpha", "one", "one")
			useCatalogue(a)
			Expect(Validate(killersFor(a))).To(MatchError(ContainSubstring(`duplicate check id "alpha/one"`)))
		})

		g.DescribeTable("refuses a check id that is not <scenario id>/<kebab-case name>",
			func(checkID string) {
				a := validScenario("alpha", "one")
				a.Checks[0].ID = checkID
				useCatalogue(a)
				Expect(Validate(map[string][]string{checkID: {"f"}})).To(MatchError(ContainSubstring("must be alpha/<kebab-case name>")))
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
				useCatalogue(a)
				Expect(Validate(killersFor(a))).To(MatchError(ContainSubstring("is not kebab-case")))
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
				useCatalogue(a)
				Expect(Validate(killersFor(a))).To(MatchError("check alpha/one has no level"))
			},
			g.Entry("empty", Level("")),
			g.Entry("lower case", Level("must")),
			g.Entry("not an RFC 2119 keyword", Level("OPTIONAL-ISH")),
		)

		g.DescribeTable("accepts each RFC 2119 level",
			func(level Level) {
				a := validScenario("alpha", "one")
				a.Checks[0].Level = level
				useCatalogue(a)
				Expect(Validate(killersFor(a))).To(Succeed())
			},
			g.Entry(nil, Must), g.Entry(nil, Should), g.Entry(nil, May),
		)

		g.DescribeTable("spec references",
			func(ref string, valid bool) {
				a := validScenario("alpha", "one")
				a.Checks[0].Spec = ref
				useCatalogue(a)
				if valid {
					Expect(Validate(killersFor(a))).To(Succeed())
				} else {
					Expect(Validate(killersFor(a))).To(MatchError(ContainSubstring("has no valid spec reference")))
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
			useCatalogue(a)
			Expect(Validate(killersFor(a))).To(MatchError("check alpha/one has no title"))
		})

		g.DescribeTable("refuses a scenario without a body, versions, family or title",
			func(spoil func(*Scenario)) {
				a := validScenario("alpha", "one")
				spoil(a)
				useCatalogue(a)
				Expect(Validate(killersFor(a))).To(MatchError("scenario alpha lacks a body, versions, family or title"))
			},
			g.Entry("no body", func(s *Scenario) { s.Run = nil }),
			g.Entry("no versions", func(s *Scenario) { s.Versions = nil }),
			g.Entry("no family", func(s *Scenario) { s.Family = "" }),
			g.Entry("no title", func(s *Scenario) { s.Title = "" }),
		)

		g.It("refuses a check that no fault kills", func() {
			a := validScenario("alpha", "one", "two")
			useCatalogue(a)
			killers := killersFor(a)
			delete(killers, "alpha/two")
			Expect(Validate(killers)).To(MatchError("check alpha/two has no fault in the reference server that makes it fail"))

			killers["alpha/two"] = []string{}
			Expect(Validate(killers)).To(MatchError(ContainSubstring("alpha/two has no fault")))

			Expect(Validate(map[string][]string{})).To(MatchError(ContainSubstring("alpha/one has no fault")))
			Expect(Validate(nil)).To(Succeed(), "a nil killer map skips the killer check")
		})

		g.It("refuses a real check once its faults are taken away", func() {
			killers := server.Killers()
			victim := AllChecks()[0].ID
			delete(killers, victim)
			Expect(Validate(killers)).To(MatchError(ContainSubstring(victim + " has no fault")))
		})
	})
})
