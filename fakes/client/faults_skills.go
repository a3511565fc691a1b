package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// Faults of the reference client as a host of the skills extension
// (reference_skills.go), at 2026-07-28. Each skips one verification of
// ext-skills skills.mdx#integrity-and-verification, or fetches ahead of
// need; they act in the sep-2640 client scenarios only.
var skillsVersions = protocol.JudgedStateless()

var (
	// SkillsPrefetch breaks "Hosts MUST NOT retrieve a skill's files ahead
	// of need": it reads each listed skill's SKILL.md on listing (and then
	// loads as the reference does, so the verifications still hold).
	SkillsPrefetch = &fault.Fault{Name: "skills-prefetch", Versions: skillsVersions,
		Description: "reads every listed skill's SKILL.md as soon as skills/list answers, before any skill is loaded"}
	// SkillsDigestUnchecked breaks "it MUST verify the content against that
	// entry's digest and size": the size is compared, the digest not.
	SkillsDigestUnchecked = &fault.Fault{Name: "skills-digest-unchecked", Versions: skillsVersions,
		Description: "loads a skill file whose size matches its entry without comparing its digest"}
	// SkillsSizeTruncated reads no more bytes than the entry's size and
	// verifies the digest of those: content longer than the entry says
	// passes, cut to size.
	SkillsSizeTruncated = &fault.Fault{Name: "skills-size-truncated", Versions: skillsVersions,
		Description: "cuts a skill file read to the entry's size, verifies the digest of what is left, and loads it"}
	// SkillsFrontmatterUnchecked breaks "hosts MUST parse its YAML
	// frontmatter and compare it field-by-field against the entry's
	// frontmatter".
	SkillsFrontmatterUnchecked = &fault.Fault{Name: "skills-frontmatter-unchecked", Versions: skillsVersions,
		Description: "loads a verified SKILL.md without comparing its frontmatter with the entry's"}

	skillsFaults = fault.Set{SkillsPrefetch, SkillsDigestUnchecked, SkillsSizeTruncated, SkillsFrontmatterUnchecked}
)

var (
	// SkillsRefreshOnMismatch recovers as the page describes for a stale
	// entry: on a verification failure it calls skills/get and reads the
	// file again against the fresh entry, giving up when that fails too.
	SkillsRefreshOnMismatch = &fault.Fault{Name: "skills-refresh-on-mismatch", Liberty: true, Versions: skillsVersions,
		Description: "on a verification failure calls skills/get, reads the SKILL.md again against the refreshed entry, and gives up when it still fails",
		Freedom: "To recover from staleness, the host calls skills/get for that skill (or skills/list to refresh the catalog) and " +
			"proceeds from the current resources set."}
	// SkillsGetOnListing confirms each listed skill with skills/get, which
	// fetches metadata, no file.
	SkillsGetOnListing = &fault.Fault{Name: "skills-get-on-listing", Liberty: true, Versions: skillsVersions,
		Description: "calls skills/get for every listed skill right after listing (metadata only, no file)",
		Freedom:     "A host re-calls the method to refresh one skill's digests without re-enumerating the catalog."}

	skillsLiberties = fault.Set{SkillsRefreshOnMismatch, SkillsGetOnListing}
)
