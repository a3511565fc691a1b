package skills

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// skills/list and skills/get (ext-skills skills.mdx#listing-skills,
// #getting-a-skill), and the entries they answer with (#skill-entries).

// unknownSkill is a SKILL.md URI no server serves.
const unknownSkill = "skill://mcpconform-no-such-skill-7d1e/SKILL.md"

var (
	enumRequiresResources = &scenarios.Check{ID: "skills-enumeration/requires-resources", Level: scenarios.Must,
		Spec:      extSpec + "#capability-negotiation",
		Quote:     "A server declaring this extension therefore MUST also declare the resources capability.",
		Title:     "a server declaring the extension in server/discover declares the resources capability too",
		Faults:    []*fault.Fault{server.SkillsResourcesUndeclared},
		Liberties: []*fault.Fault{server.SkillsNoDirectoryRead}}
	enumSettingsObject = &scenarios.Check{ID: "skills-enumeration/settings-object", Level: scenarios.Must,
		Spec:      "2026-07-28/basic/versioning.mdx#extension-negotiation",
		Quote:     "Extensions are advertised in the extensions field of capabilities, which is a map of extension identifiers to per-extension settings objects.",
		Title:     "the extension is declared with a settings object ({} or {\"directoryRead\": true}), its directoryRead a boolean if present",
		Faults:    []*fault.Fault{server.SkillsSettingsNotObject},
		Liberties: []*fault.Fault{server.SkillsNoDirectoryRead}}
	enumListImplemented = &scenarios.Check{ID: "skills-enumeration/list-implemented", Level: scenarios.Must,
		Spec:      extSpec + "#listing-skills",
		Quote:     "A server declaring this extension MUST implement the skills/list method, which returns entries for the skills it serves.",
		Title:     "skills/list answers, every page with a skills array, and its nextCursor leads to a last page",
		Faults:    []*fault.Fault{server.SkillsListUnimplemented},
		Liberties: []*fault.Fault{server.SkillsListEmpty}}
	enumListCacheHints = &scenarios.Check{ID: "skills-enumeration/list-cache-hints", Level: scenarios.Must,
		Spec:   extSpec + "#listing-skills",
		Quote:  "ListSkillsResult extends CacheableResult, so ttlMs and cacheScope are REQUIRED, as they are on tools/list and resources/list, and carry the same semantics.",
		Title:  "every skills/list page carries ttlMs and cacheScope",
		Faults: []*fault.Fault{server.SkillsListNoCacheHints}}
	enumEntryAtomic = &scenarios.Check{ID: "skills-enumeration/entry-atomic", Level: scenarios.Must,
		Spec:   extSpec + "#listing-skills",
		Quote:  "An entry is atomic, and a skill's resources set is never split across pages.",
		Title:  "no skill's entry appears on two pages of skills/list (or twice in the listing)",
		Faults: []*fault.Fault{server.SkillsListEntryRepeated}}
	enumEntryFields = &scenarios.Check{ID: "skills-enumeration/entry-fields", Level: scenarios.Must,
		Spec: extSpec + "#resources",
		Quote: "resources is REQUIRED on every skill entry and takes one of two forms: an array of SkillResource objects enumerating " +
			"the skill's files (SKILL.md and every supporting file), or the string \"dynamic\".",
		Title:     "every entry has a uri, a frontmatter object with name and description, and resources that are an array or \"dynamic\"",
		Faults:    []*fault.Fault{server.SkillsEntryNoResources},
		Liberties: []*fault.Fault{server.SkillsDynamic}}
	enumNameMatchesURI = &scenarios.Check{ID: "skills-enumeration/name-matches-uri", Level: scenarios.Must,
		Spec:   extSpec + "#frontmatter",
		Quote:  "The final <skill-path> segment of the entry's uri MUST equal frontmatter.name, per Resource Mapping.",
		Title:  "every entry's uri ends in <name>/SKILL.md, name being frontmatter.name",
		Faults: []*fault.Fault{server.SkillsPathNotName}}
	enumNameRules = &scenarios.Check{ID: "skills-enumeration/name-rules", Level: scenarios.Must,
		Spec:   extSpec + "#resource-mapping",
		Quote:  "The final segment, being the skill name, MUST satisfy the Agent Skills specification's naming rules.",
		Title:  "every skill name is 1-64 lowercase letters, digits and hyphens, with no hyphen at either end or twice in a row",
		Faults: []*fault.Fault{server.SkillsNameInvalid}}
	enumManifestComplete = &scenarios.Check{ID: "skills-enumeration/manifest-complete", Level: scenarios.Must,
		Spec: extSpec + "#resources",
		Quote: "When resources is an array, it MUST be complete. It lists every file of the skill, each exactly once, including an entry " +
			"whose uri equals the skill's top-level uri.",
		Title:     "every array of resources lists the entry's own SKILL.md, and no file twice",
		Faults:    []*fault.Fault{server.SkillsManifestNoSkillFile},
		Liberties: []*fault.Fault{server.SkillsDynamic}}
	enumManifestWithinSkill = &scenarios.Check{ID: "skills-enumeration/manifest-within-skill", Level: scenarios.Must,
		Spec:   extSpec + "#resources",
		Quote:  "Each uri MUST be the skill's SKILL.md or a file within the skill's directory.",
		Title:  "every file a manifest lists is the SKILL.md or under the skill's root directory",
		Faults: []*fault.Fault{server.SkillsManifestOutsideSkill}}
	enumDigestForm = &scenarios.Check{ID: "skills-enumeration/digest-form", Level: scenarios.Must,
		Spec:   extSpec + "#integrity-and-verification",
		Quote:  "Digests are SHA-256 hashes of a file's raw bytes, formatted as sha256:{hex} where {hex} is 64 lowercase hexadecimal characters.",
		Title:  "every manifest digest is sha256: and 64 lowercase hexadecimal digits",
		Faults: []*fault.Fault{server.SkillsDigestUppercase}}
	enumSizePresent = &scenarios.Check{ID: "skills-enumeration/size-present", Level: scenarios.Must,
		Spec:   extSpec + "#resources",
		Quote:  "Each entry MUST carry size, the length in bytes of the file's raw content (the same bytes the digest covers).",
		Title:  "every file of a manifest carries size, a non-negative integer",
		Faults: []*fault.Fault{server.SkillsSizeMissing}}
	enumLimitFiles = &scenarios.Check{ID: "skills-enumeration/limit-files", Level: scenarios.Should,
		Spec:   extSpec + "#limits",
		Quote:  "Servers SHOULD NOT serve a skill that exceeds either limit.",
		Title:  "no manifest lists more than 512 files",
		Faults: []*fault.Fault{server.SkillsTooManyFiles}}
	enumLimitSize = &scenarios.Check{ID: "skills-enumeration/limit-size", Level: scenarios.Should,
		Spec:   extSpec + "#limits",
		Quote:  "Servers SHOULD NOT serve a skill that exceeds either limit.",
		Title:  "no manifest's sizes sum to more than 16 MiB (16,777,216 bytes)",
		Faults: []*fault.Fault{server.SkillsTooLarge}}
	enumNamesUnique = &scenarios.Check{ID: "skills-enumeration/names-unique", Level: scenarios.Should,
		Spec:   extSpec + "#names",
		Quote:  "Within a server's listing, names SHOULD be unique, but they are not guaranteed to be.",
		Title:  "no two listed skills share a name",
		Faults: []*fault.Fault{server.SkillsNamesCollide}}
	enumMetadataReserved = &scenarios.Check{ID: "skills-enumeration/metadata-reserved", Level: scenarios.Should,
		Spec: extSpec + "#frontmatter",
		Quote: "Within the frontmatter metadata object, keys prefixed with io.modelcontextprotocol/ are reserved for metadata defined " +
			"by MCP extensions. This extension currently defines no such keys.",
		Title:  "no frontmatter metadata key is under the reserved io.modelcontextprotocol/ prefix",
		Faults: []*fault.Fault{server.SkillsMetadataReserved}}
	enumAuthority = &scenarios.Check{ID: "skills-enumeration/authority-reg-name", Level: scenarios.Should,
		Spec:   extSpec + "#resource-mapping",
		Quote:  "The first segment occupies the URI authority component and SHOULD be a valid reg-name per RFC 3986.",
		Title:  "every skill URI's first segment is an RFC 3986 reg-name (unreserved, sub-delims and percent-encodings)",
		Faults: []*fault.Fault{server.SkillsAuthorityInvalid}}
	enumGetImplemented = &scenarios.Check{ID: "skills-enumeration/get-implemented", Level: scenarios.Must,
		Spec: extSpec + "#getting-a-skill",
		Quote: "A server declaring this extension MUST implement the skills/get method, which returns the entry for a single skill " +
			"named by the URI of its SKILL.md.",
		Title:  "skills/get of the first listed skill's uri answers with a result carrying a skill object",
		Faults: []*fault.Fault{server.SkillsGetUnimplemented}}
	enumGetEntry = &scenarios.Check{ID: "skills-enumeration/get-entry", Level: scenarios.Must,
		Spec:   extSpec + "#getting-a-skill",
		Quote:  "The skill object is a Skill entry, identical in shape and meaning to an entry of skills/list, under the same rules.",
		Title:  "that skill is the listed entry: the same uri, frontmatter and resources",
		Faults: []*fault.Fault{server.SkillsGetOtherSkill}}
	enumGetNoCursor = &scenarios.Check{ID: "skills-enumeration/get-no-cursor", Level: scenarios.Must,
		Spec:   extSpec + "#getting-a-skill",
		Quote:  "The result carries no pagination cursor.",
		Title:  "the skills/get result has no nextCursor",
		Faults: []*fault.Fault{server.SkillsGetCursor}}
	enumGetCacheHints = &scenarios.Check{ID: "skills-enumeration/get-cache-hints", Level: scenarios.Must,
		Spec:   extSpec + "#getting-a-skill",
		Quote:  "GetSkillResult extends CacheableResult, so ttlMs and cacheScope are REQUIRED, as they are on resources/read, and carry the same semantics.",
		Title:  "the skills/get result carries ttlMs and cacheScope",
		Faults: []*fault.Fault{server.SkillsGetNoCacheHints}}
	enumGetUnknown = &scenarios.Check{ID: "skills-enumeration/get-unknown", Level: scenarios.Must,
		Spec: extSpec + "#getting-a-skill",
		Quote: "If the URI does not identify a skill the server serves, the server MUST return error -32602 (Invalid params), the same " +
			"code resources/read uses for unknown resources.",
		Title:     "skills/get of " + unknownSkill + " is refused with -32602",
		Faults:    []*fault.Fault{server.SkillsGetUnknownServed, server.SkillsGetUnimplemented},
		Liberties: []*fault.Fault{server.SkillsListEmpty}}
)

var enumerationScenario = &scenarios.Scenario{
	ID:       "skills-enumeration",
	Official: "sep-2640-skills-enumeration",
	Title:    "skills/list and skills/get answer complete, consistent skill entries",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{needsExtension},
	Purpose: "A client declaring the extension pages through skills/list and judges each entry (uri, frontmatter, the file " +
		"manifest with digests and sizes, names), then asks skills/get for the first listed skill and for a skill no server serves.",
	Checks: []*scenarios.Check{enumRequiresResources, enumSettingsObject, enumListImplemented, enumListCacheHints, enumEntryAtomic, enumEntryFields,
		enumNameMatchesURI, enumNameRules, enumManifestComplete, enumManifestWithinSkill, enumDigestForm, enumSizePresent,
		enumLimitFiles, enumLimitSize, enumNamesUnique, enumMetadataReserved, enumAuthority, enumGetImplemented, enumGetEntry, enumGetNoCursor, enumGetCacheHints, enumGetUnknown},
	Run: serverside.Body(runEnumeration),
}

func runEnumeration(t *serverside.T) {
	s, settings := open(t)
	_, declared := s.ServerCapabilities["resources"]
	t.Judge(enumRequiresResources, declared, "capabilities.resources beside the extension", "no resources capability")
	ext, _ := s.ServerCapabilities["extensions"].(map[string]any)
	dr, hasDR := settings["directoryRead"]
	_, isBool := dr.(bool)
	t.Judge(enumSettingsObject, settings != nil && (!hasDR || isBool), "a settings object",
		fmt.Sprintf("extensions[%q] = %s", protocol.ExtensionSkills, jsonText(ext[protocol.ExtensionSkills])))

	l := listSkills(t, s)
	switch {
	case l.paging.Refused != "":
		t.Judge(enumListImplemented, false, "skills/list pages", l.paging.Refused)
	case l.paging.Endless != "":
		t.Judge(enumListImplemented, false, "a last page without nextCursor", l.paging.Endless)
	default:
		var bad []string
		for i, raw := range l.paging.Results {
			if v, ok := judge.Field(raw, "skills"); !ok || !strings.HasPrefix(strings.TrimSpace(string(v)), "[") {
				bad = append(bad, fmt.Sprintf("page %d has no skills array: %s", i+1, abbreviate(raw)))
			}
		}
		t.Judge(enumListImplemented, len(bad) == 0, "a skills array on every page", strings.Join(bad, "; "))
	}
	if l.paging.Refused != "" || len(l.paging.Results) == 0 {
		t.Blocked("skills/list failed: %s", l.paging.Refused)
	}
	var noHints []string
	for i, raw := range l.paging.Results {
		if ok, why := hasCacheHints(raw); !ok {
			noHints = append(noHints, fmt.Sprintf("page %d: %s", i+1, why))
		}
	}
	t.Judge(enumListCacheHints, len(noHints) == 0, "ttlMs and cacheScope on every page", strings.Join(noHints, "; "))

	pagesOf := map[string][]int{}
	for p, page := range l.pages {
		for _, e := range page {
			if e.URI != "" {
				pagesOf[e.URI] = append(pagesOf[e.URI], p+1)
			}
		}
	}
	var repeated []string
	for uri, pages := range pagesOf {
		if len(pages) > 1 {
			repeated = append(repeated, fmt.Sprintf("%s on pages %v", uri, pages))
		}
	}
	slices.Sort(repeated)
	t.Judge(enumEntryAtomic, len(repeated) == 0, "each entry once, on one page", strings.Join(repeated, "; "))

	if len(l.entries) == 0 {
		why := "skills/list lists no skill (a server MAY return an empty listing)"
		for _, c := range []*scenarios.Check{enumEntryFields, enumNameMatchesURI, enumNameRules, enumManifestComplete, enumManifestWithinSkill,
			enumDigestForm, enumSizePresent, enumLimitFiles, enumLimitSize, enumNamesUnique, enumMetadataReserved, enumAuthority, enumGetImplemented, enumGetEntry, enumGetNoCursor, enumGetCacheHints} {
			t.NotJudged(c, why)
		}
	} else {
		judgeEntries(t, l.entries)
		judgeGet(t, s, l.entries[0])
	}

	resp, err := getSkill(t, s, unknownSkill)
	t.Judge(enumGetUnknown, err == nil && judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
}

// judgeEntries judges the listed entries' fields, names and manifests.
func judgeEntries(t *serverside.T, entries []protocol.Skill) {
	var fields, mismatched, badNames, incomplete, outside, badDigests, noSizes, tooMany, tooLarge, reserved, badAuthority []string
	manifests := 0
	byName := map[string][]string{}
	for i, e := range entries {
		at := label(e, i)
		fm, isObject := e.FrontmatterObject()
		name, _ := fm["name"].(string)
		description, _ := fm["description"].(string)
		if meta, ok := fm["metadata"].(map[string]any); ok {
			for k := range meta {
				if strings.HasPrefix(k, "io.modelcontextprotocol/") {
					reserved = append(reserved, at+": metadata "+k)
				}
			}
		}
		if _, rest, ok := strings.Cut(e.URI, "://"); ok {
			if authority, _, _ := strings.Cut(rest, "/"); !regName.MatchString(authority) {
				badAuthority = append(badAuthority, fmt.Sprintf("%s: authority %q", at, authority))
			}
		}
		files, dynamic, ok := e.Manifest()
		switch {
		case e.URI == "":
			fields = append(fields, at+": no uri")
		case !isObject:
			fields = append(fields, at+": frontmatter is no object")
		case name == "" || description == "":
			fields = append(fields, at+": frontmatter lacks name or description")
		case !ok:
			fields = append(fields, fmt.Sprintf("%s: resources %s, neither an array nor \"dynamic\"", at, describeRaw(e.Resources)))
		}
		if segment, ok := protocol.SkillNameOf(e.URI); !ok {
			mismatched = append(mismatched, at+": the uri does not end in <skill-path>/SKILL.md")
		} else {
			if name != "" && segment != name {
				mismatched = append(mismatched, fmt.Sprintf("%s: final segment %q, frontmatter.name %q", at, segment, name))
			}
			if !protocol.IsSkillName(segment) {
				badNames = append(badNames, fmt.Sprintf("%s: name %q", at, segment))
			}
			// The same entry twice is entry-atomic's to judge: one skill.
			if !slices.Contains(byName[segment], e.URI) {
				byName[segment] = append(byName[segment], e.URI)
			}
		}
		if !ok || dynamic {
			continue
		}
		manifests++
		if len(files) > maxFiles {
			tooMany = append(tooMany, fmt.Sprintf("%s: %d files", at, len(files)))
		}
		var total int64
		root, _ := protocol.SkillRoot(e.URI)
		seen := map[string]bool{}
		for _, f := range files {
			size, _ := f.SizeBytes()
			total += size
			if seen[f.URI] {
				incomplete = append(incomplete, fmt.Sprintf("%s: %s listed twice", at, f.URI))
			}
			seen[f.URI] = true
			if f.URI != e.URI && (root == "" || !strings.HasPrefix(f.URI, root+"/")) {
				outside = append(outside, fmt.Sprintf("%s: %s", at, f.URI))
			}
			if d, isText := f.DigestText(); !isText || !protocol.IsSkillDigest(d) {
				badDigests = append(badDigests, fmt.Sprintf("%s: %s digest %s", at, f.URI, describeRaw(f.Digest)))
			}
			if _, ok := f.SizeBytes(); !ok {
				noSizes = append(noSizes, fmt.Sprintf("%s: %s size %s", at, f.URI, describeRaw(f.Size)))
			}
		}
		if !seen[e.URI] {
			incomplete = append(incomplete, at+": no resources item for the SKILL.md itself")
		}
		if total > maxBytes {
			tooLarge = append(tooLarge, fmt.Sprintf("%s: %d bytes", at, total))
		}
	}
	var collisions []string
	for name, uris := range byName {
		if len(uris) > 1 {
			collisions = append(collisions, fmt.Sprintf("%q at %s", name, strings.Join(uris, " and ")))
		}
	}
	slices.Sort(collisions)
	t.Judge(enumNamesUnique, len(collisions) == 0, "each name once", strings.Join(collisions, "; "))
	t.Judge(enumMetadataReserved, len(reserved) == 0, "no reserved metadata key", strings.Join(reserved, "; "))
	t.Judge(enumAuthority, len(badAuthority) == 0, "reg-name authorities", strings.Join(badAuthority, "; "))
	t.Judge(enumEntryFields, len(fields) == 0, "uri, frontmatter with name and description, resources", strings.Join(fields, "; "))
	t.Judge(enumNameMatchesURI, len(mismatched) == 0, "uri ending in <frontmatter.name>/SKILL.md", strings.Join(mismatched, "; "))
	t.Judge(enumNameRules, len(badNames) == 0, "names by the Agent Skills naming rules", strings.Join(badNames, "; "))
	if manifests == 0 {
		why := "every listed entry's resources are \"dynamic\" (or invalid): there is no file manifest to judge"
		for _, c := range []*scenarios.Check{enumManifestComplete, enumManifestWithinSkill, enumDigestForm, enumSizePresent, enumLimitFiles, enumLimitSize} {
			t.NotJudged(c, why)
		}
		return
	}
	t.Judge(enumManifestComplete, len(incomplete) == 0, "the SKILL.md listed, no file twice", strings.Join(incomplete, "; "))
	t.Judge(enumManifestWithinSkill, len(outside) == 0, "files under the skill's root", strings.Join(outside, "; "))
	t.Judge(enumDigestForm, len(badDigests) == 0, "sha256:<64 lowercase hex digits>", strings.Join(badDigests, "; "))
	t.Judge(enumSizePresent, len(noSizes) == 0, "a size in bytes on every file", strings.Join(noSizes, "; "))
	t.Judge(enumLimitFiles, len(tooMany) == 0, fmt.Sprintf("at most %d files a skill", maxFiles), strings.Join(tooMany, "; "))
	t.Judge(enumLimitSize, len(tooLarge) == 0, fmt.Sprintf("at most %d bytes a skill", maxBytes), strings.Join(tooLarge, "; "))
}

// The per-skill limits (#limits) and RFC 3986's reg-name.
const (
	maxFiles = 512
	maxBytes = 16 << 20
)

var regName = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$`)

// judgeGet asks skills/get for a listed skill and compares the answer
// with the listing's entry.
func judgeGet(t *serverside.T, s *client.Session, listed protocol.Skill) {
	if listed.URI == "" {
		for _, c := range []*scenarios.Check{enumGetImplemented, enumGetEntry, enumGetNoCursor, enumGetCacheHints} {
			t.NotJudged(c, "the first listed entry has no uri to ask skills/get for")
		}
		return
	}
	resp, err := getSkill(t, s, listed.URI)
	var got protocol.SkillResult
	if err == nil && resp != nil && resp.Error == nil {
		_ = json.Unmarshal(resp.Result, &got)
	}
	ok := got.Skill != nil
	t.Judge(enumGetImplemented, ok, "a result with a skill object", judge.Describe(resp, err))
	if !ok {
		for _, c := range []*scenarios.Check{enumGetEntry, enumGetNoCursor, enumGetCacheHints} {
			t.NotJudged(c, "skills/get answered no skill")
		}
		return
	}
	same := got.Skill.URI == listed.URI && sameJSON(got.Skill.Frontmatter, listed.Frontmatter) && sameJSON(got.Skill.Resources, listed.Resources)
	t.Judge(enumGetEntry, same, "the listed entry of "+listed.URI,
		fmt.Sprintf("uri %q, frontmatter %s, resources %s", got.Skill.URI, describeRaw(got.Skill.Frontmatter), describeRaw(got.Skill.Resources)))
	t.Judge(enumGetNoCursor, len(got.NextCursor) == 0, "no nextCursor", "nextCursor "+string(got.NextCursor))
	hints, why := hasCacheHints(resp.Result)
	t.Judge(enumGetCacheHints, hints, "ttlMs and cacheScope", why)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return abbreviate(b)
}

func describeRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "absent"
	}
	return abbreviate(raw)
}

// sameJSON compares two JSON values as values (absent equals absent).
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
