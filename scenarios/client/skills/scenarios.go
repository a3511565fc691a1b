package skills

import (
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

var (
	noPrefetch = &scenarios.Check{ID: "client-skills-no-prefetch/no-read-on-listing", Level: scenarios.Must,
		Spec:      extSpec + "#lazy-retrieval",
		Quote:     "Hosts MUST NOT retrieve a skill's files ahead of need, whether on connection, on listing, or at approval.",
		Title:     "a client that listed the skills, and loaded none, reads none of their files",
		Faults:    []*fault.Fault{client.SkillsPrefetch},
		Liberties: []*fault.Fault{client.SkillsGetOnListing}}
	verifyDigest = &scenarios.Check{ID: "client-skills-verify-digest/unverified-unused", Level: scenarios.Must,
		Spec:      extSpec + "#verification-on-read",
		Quote:     "When a host retrieves a file listed in a skill's resources, it MUST verify the content against that entry's digest and size.",
		Title:     "a SKILL.md whose digest differs from the entry's (same size) is not used: the client reads no supporting file after it",
		Faults:    []*fault.Fault{client.SkillsDigestUnchecked},
		Liberties: []*fault.Fault{client.SkillsRefreshOnMismatch}}
	verifySize = &scenarios.Check{ID: "client-skills-verify-size/longer-unused", Level: scenarios.Must,
		Spec: extSpec + "#resources",
		Quote: "A read whose byte length differs from the entry's size is a verification failure equivalent to a digest mismatch " +
			"(Integrity and Verification), whether or not the host goes on to compute the digest.",
		Title:     "a SKILL.md longer than the entry's size is not used: the client reads no supporting file after it",
		Faults:    []*fault.Fault{client.SkillsSizeTruncated},
		Liberties: []*fault.Fault{client.SkillsRefreshOnMismatch}}
	verifyFrontmatter = &scenarios.Check{ID: "client-skills-verify-frontmatter/differing-unloaded", Level: scenarios.Must,
		Spec:      extSpec + "#frontmatter-verification",
		Quote:     "Any discrepancy MUST be treated as a verification failure equivalent to a digest mismatch, and the skill MUST NOT be loaded.",
		Title:     "a SKILL.md whose bytes match the entry but whose frontmatter does not is not loaded: the client reads no supporting file after it",
		Faults:    []*fault.Fault{client.SkillsFrontmatterUnchecked},
		Liberties: []*fault.Fault{client.SkillsRefreshOnMismatch}}
)

var noPrefetchScenario = &scenarios.Scenario{
	ID:       "client-skills-no-prefetch",
	Official: "sep-2640-client-no-prefetch",
	Title:    "the client fetches no skill file on listing",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Purpose: "The fake server declares the skills extension and lists one skill with a SKILL.md and a supporting file; the " +
		"client is told the official scenario's name, in which it lists the skills and loads none. Any read of the skill's " +
		"files fails.",
	Checks: []*scenarios.Check{noPrefetch},
	Run: clientside.Body(func(t *clientside.T) {
		t.Serve(script(honest))
		t.Step("wait for the client to list the skills and finish")
		requireListing(t)
		var early []string
		for _, uri := range reads(t) {
			if (uri == skillURI || uri == formsURI) && !slices.Contains(early, uri) {
				early = append(early, uri)
			}
		}
		t.Judge(noPrefetch, len(early) == 0, "no resources/read of the listed skill's files", "read "+strings.Join(early, ", "))
	}),
}

var verifyDigestScenario = &scenarios.Scenario{
	ID:       "client-skills-verify-digest",
	Official: "sep-2640-client-verify-digest",
	Title:    "the client uses no SKILL.md whose digest differs from its entry's",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Purpose: "The fake server serves a SKILL.md whose body was changed without changing its length, so only the digest " +
		"tells; a client that loads the skill must not go on to its supporting file.",
	Checks: []*scenarios.Check{verifyDigest},
	Run:    clientside.Body(verifyBody(sameSizeBody, func() *scenarios.Check { return verifyDigest })),
}

var verifySizeScenario = &scenarios.Scenario{
	ID:       "client-skills-verify-size",
	Official: "sep-2640-client-verify-size",
	Title:    "the client uses no SKILL.md longer than its entry's size",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Purpose: "The fake server serves the SKILL.md with bytes appended, the entry describing the file without them; a client " +
		"that loads the skill must not go on to its supporting file.",
	Checks: []*scenarios.Check{verifySize},
	Run:    clientside.Body(verifyBody(longer, func() *scenarios.Check { return verifySize })),
}

var verifyFrontmatterScenario = &scenarios.Scenario{
	ID:       "client-skills-verify-frontmatter",
	Official: "sep-2640-client-verify-frontmatter",
	Title:    "the client loads no skill whose SKILL.md frontmatter differs from its entry's",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Purpose: "The fake server's entry gives the digest and size of the SKILL.md it serves, but a frontmatter whose description " +
		"the file does not have; a client that loads the skill must not go on to its supporting file.",
	Checks: []*scenarios.Check{verifyFrontmatter},
	Run:    clientside.Body(verifyBody(otherFrontmatter, func() *scenarios.Check { return verifyFrontmatter })),
}
