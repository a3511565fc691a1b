package skills

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// The SKILL.md a listed entry describes, read through resources/read
// (ext-skills skills.mdx#skill-format, #frontmatter, #resource-metadata).

var (
	manifestReadable = &scenarios.Check{ID: "skills-manifest/skill-file-readable", Level: scenarios.Must,
		Spec:   extSpec + "#skill-format",
		Quote:  "Every skill MUST contain a SKILL.md file at its root.",
		Title:  "resources/read of the first listed skill's uri answers with a text item",
		Faults: []*fault.Fault{server.SkillsSkillFileUnreadable}}
	manifestFrontmatter = &scenarios.Check{ID: "skills-manifest/skill-file-frontmatter", Level: scenarios.Must,
		Spec:   extSpec + "#skill-format",
		Quote:  "SKILL.md MUST begin with YAML frontmatter containing at minimum the name and description fields as defined by the Agent Skills specification.",
		Title:  "that SKILL.md opens with a --- YAML frontmatter block holding a name and a description",
		Faults: []*fault.Fault{server.SkillsNoFrontmatter}}
	manifestIdentical = &scenarios.Check{ID: "skills-manifest/frontmatter-identical", Level: scenarios.Must,
		Spec:   extSpec + "#frontmatter",
		Quote:  "The frontmatter object MUST be identical in content to the frontmatter of the SKILL.md it describes.",
		Title:  "the entry's frontmatter is the file's, field for field",
		Faults: []*fault.Fault{server.SkillsFrontmatterDiffers}}
	manifestDigest = &scenarios.Check{ID: "skills-manifest/digest-matches", Level: scenarios.Must,
		Spec:   extSpec + "#integrity-and-verification",
		Quote:  "Each SkillResource in a skill's resources carries the digest of the file at its uri.",
		Title:  "the SKILL.md read has the digest and the size in bytes its resources item gives",
		Faults: []*fault.Fault{server.SkillsDigestStale}}
	manifestMimeType = &scenarios.Check{ID: "skills-manifest/mimetype", Level: scenarios.Should,
		Spec:   extSpec + "#resource-metadata",
		Quote:  "mimeType SHOULD be text/markdown.",
		Title:  "SKILL.md is read with mimeType text/markdown",
		Faults: []*fault.Fault{server.SkillsSkillFileMimeType}}
	manifestMetaPrefix = &scenarios.Check{ID: "skills-manifest/meta-prefix", Level: scenarios.Should,
		Spec:   extSpec + "#resource-metadata",
		Quote:  "When _meta keys are used for skill resources, implementations SHOULD use the io.modelcontextprotocol.skills/ reverse-domain prefix.",
		Title:  "every _meta key of the SKILL.md read has a reverse-domain prefix (io.modelcontextprotocol.skills/, or an intermediary's own)",
		Faults: []*fault.Fault{server.SkillsMetaUnprefixed}}
)

var manifestScenario = &scenarios.Scenario{
	ID:       "skills-manifest",
	Official: "sep-2640-skills-manifest",
	Title:    "the SKILL.md of a listed skill is readable and is what its entry says",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{needsExtension},
	Purpose: "A client declaring the extension lists the skills and reads the first entry's SKILL.md with resources/read: its " +
		"frontmatter, its digest and size against the entry, and the resource's metadata.",
	Checks: []*scenarios.Check{manifestReadable, manifestFrontmatter, manifestIdentical, manifestDigest, manifestMimeType, manifestMetaPrefix},
	Run: serverside.Body(func(t *serverside.T) {
		s, _ := open(t)
		entry := firstSkill(t, s)
		item, resp, err := readText(t, s, entry.URI)
		t.Judge(manifestReadable, item.Text != nil, "contents with a text item", judge.Describe(resp, err))
		if item.Text == nil {
			t.NotJudgedRest(entry.URI + " was not read")
		}
		text := *item.Text

		fm, ok := protocol.ParseFrontmatter(text)
		name, _ := fm["name"].(string)
		description, _ := fm["description"].(string)
		t.Judge(manifestFrontmatter, ok && name != "" && description != "", "a frontmatter block with name and description",
			"SKILL.md begins "+judge.Abbreviate(fmt.Sprintf("%q", text), 120))

		entryFM, isObject := entry.FrontmatterObject()
		switch {
		case !ok:
			t.NotJudged(manifestIdentical, "the file has no frontmatter to compare")
		case !isObject:
			t.NotJudged(manifestIdentical, "the entry has no frontmatter object to compare")
		default:
			t.Judge(manifestIdentical, reflect.DeepEqual(fm, entryFM), "the file's frontmatter", fieldsDiffer(fm, entryFM))
		}

		judgeDigest(t, entry, text)

		mime := "absent"
		if item.MimeType != nil {
			mime = *item.MimeType
		}
		t.Judge(manifestMimeType, mime == "text/markdown", "text/markdown", mime)

		var unprefixed []string
		for k := range item.Meta {
			if !reverseDomain.MatchString(k) {
				unprefixed = append(unprefixed, k)
			}
		}
		slices.Sort(unprefixed)
		t.Judge(manifestMetaPrefix, len(unprefixed) == 0, "prefixed _meta keys", "_meta keys without a prefix: "+strings.Join(unprefixed, ", "))
	}),
}

// reverseDomain is a _meta key under a reverse-domain prefix.
var reverseDomain = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/`)

// judgeDigest compares the SKILL.md read with its item in the entry's
// manifest, when the manifest has one in the extension's form (the
// enumeration scenario judges the form).
func judgeDigest(t *serverside.T, entry protocol.Skill, text string) {
	files, dynamic, ok := entry.Manifest()
	if !ok || dynamic {
		t.NotJudged(manifestDigest, "the entry has no file manifest (its resources are \"dynamic\" or invalid)")
		return
	}
	i := slices.IndexFunc(files, func(f protocol.SkillResource) bool { return f.URI == entry.URI })
	if i < 0 {
		t.NotJudged(manifestDigest, "the manifest lists no item for the SKILL.md")
		return
	}
	digest, isText := files[i].DigestText()
	size, hasSize := files[i].SizeBytes()
	if !isText || !protocol.IsSkillDigest(digest) || !hasSize {
		t.NotJudged(manifestDigest, "the SKILL.md's item has no digest in the extension's form or no size")
		return
	}
	got := protocol.SkillDigest([]byte(text))
	t.Judge(manifestDigest, got == digest && int64(len(text)) == size, fmt.Sprintf("digest %s, %d bytes", digest, size),
		fmt.Sprintf("digest %s, %d bytes", got, len(text)))
}

// fieldsDiffer names the fields in which two frontmatters differ.
func fieldsDiffer(file, entry map[string]any) string {
	keys := map[string]bool{}
	for k := range file {
		keys[k] = true
	}
	for k := range entry {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		if !reflect.DeepEqual(file[k], entry[k]) {
			f, _ := json.Marshal(file[k])
			e, _ := json.Marshal(entry[k])
			out = append(out, fmt.Sprintf("%s: file %s, entry %s", k, f, e))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
