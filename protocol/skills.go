package protocol

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The skills extension (io.modelcontextprotocol/skills, SEP-2640; its page
// is ext-skills specification/stable/skills.mdx). It publishes no JSON
// schema, only TypeScript interfaces in the page, so its wire types are
// lenient views, as views.go's are: every field optional, for the checks
// that judge each rule on its own.

// ExtensionSkills identifies the skills extension in capabilities.extensions.
const ExtensionSkills = "io.modelcontextprotocol/skills"

// The extension's methods.
const (
	MethodSkillsList             = "skills/list"
	MethodSkillsGet              = "skills/get"
	MethodResourcesDirectoryRead = "resources/directory/read"
)

// Names the extension fixes.
const (
	// SkillFile is the manifest every skill holds at its root.
	SkillFile = "SKILL.md"
	// MimeDirectory marks a directory resource.
	MimeDirectory = "inode/directory"
	// SkillResourcesDynamic is the resources of a skill whose content is
	// generated, so that no digests can be published.
	SkillResourcesDynamic = "dynamic"
	// MetaSkillsPrefix is the _meta key prefix reserved for the extension
	// on skill resources.
	MetaSkillsPrefix = "io.modelcontextprotocol.skills/"
)

// SkillsSettings is the extension's settings object in capabilities.
type SkillsSettings struct {
	DirectoryRead bool `json:"directoryRead,omitempty"`
}

// SkillResource is one file of a skill's manifest.
type SkillResource struct {
	URI    string          `json:"uri"`
	Digest json.RawMessage `json:"digest,omitempty"`
	Size   json.RawMessage `json:"size,omitempty"`
}

// DigestText is the digest when it is a string.
func (r SkillResource) DigestText() (string, bool) {
	var s string
	return s, json.Unmarshal(r.Digest, &s) == nil
}

// SizeBytes is the size when it is a non-negative integer.
func (r SkillResource) SizeBytes() (int64, bool) {
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(r.Size))
	dec.UseNumber()
	if len(r.Size) == 0 || dec.Decode(&n) != nil {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil && v >= 0
}

// Skill is one skill entry of skills/list or skills/get.
type Skill struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter,omitempty"`
	// Resources is an array of SkillResource or the string "dynamic".
	Resources json.RawMessage `json:"resources,omitempty"`
}

// Manifest is the entry's resources when they are an array; dynamic says
// they are the string "dynamic".
func (s Skill) Manifest() (files []SkillResource, dynamic bool, ok bool) {
	var word string
	if json.Unmarshal(s.Resources, &word) == nil {
		return nil, word == SkillResourcesDynamic, word == SkillResourcesDynamic
	}
	if json.Unmarshal(s.Resources, &files) != nil || files == nil {
		return nil, false, false
	}
	return files, false, true
}

// FrontmatterObject is the entry's frontmatter when it is an object.
func (s Skill) FrontmatterObject() (map[string]any, bool) {
	var m map[string]any
	if json.Unmarshal(s.Frontmatter, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// SkillsPage is a ListSkillsResult.
type SkillsPage struct {
	Skills     []Skill `json:"skills"`
	NextCursor *string `json:"nextCursor,omitempty"`
}

// SkillResult is a GetSkillResult.
type SkillResult struct {
	Skill      *Skill          `json:"skill,omitempty"`
	NextCursor json.RawMessage `json:"nextCursor,omitempty"`
}

// DirectoryPage is a ReadResourceDirectoryResult.
type DirectoryPage struct {
	Resources  []DirectoryChild `json:"resources"`
	NextCursor *string          `json:"nextCursor,omitempty"`
}

// DirectoryChild is one child of a directory read.
type DirectoryChild struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
}

// SkillDigest is the digest of content as the extension formats it
// (Integrity and Verification: "sha256:{hex}", 64 lowercase hex digits).
func SkillDigest(content []byte) string {
	sum := sha256.Sum256(content)
	return "sha256:" + hex.EncodeToString(sum[:])
}

var skillDigestForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// IsSkillDigest reports a digest in the extension's form.
func IsSkillDigest(s string) bool { return skillDigestForm.MatchString(s) }

// skillNameRule is the Agent Skills naming rule: 1-64 characters,
// lowercase alphanumerics and hyphens, no hyphen at either end or twice in
// a row.
var skillNameRule = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// IsSkillName reports a name the Agent Skills naming rules allow.
func IsSkillName(s string) bool { return skillNameRule.MatchString(s) && !strings.Contains(s, "--") }

// SkillNameOf is the final <skill-path> segment of a SKILL.md URI, the
// skill's name, and false for a URI that does not end in /SKILL.md under
// at least one segment.
func SkillNameOf(uri string) (string, bool) {
	i := strings.Index(uri, "://")
	if i < 0 {
		return "", false
	}
	var segs []string
	for _, s := range strings.Split(uri[i+3:], "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) < 2 || segs[len(segs)-1] != SkillFile {
		return "", false
	}
	return segs[len(segs)-2], true
}

// SkillRoot is the skill's root directory: the SKILL.md URI without
// /SKILL.md.
func SkillRoot(uri string) (string, bool) {
	root, ok := strings.CutSuffix(uri, "/"+SkillFile)
	return root, ok && !strings.HasSuffix(root, "://")
}

// ParseFrontmatter reads the YAML frontmatter that opens a SKILL.md: the
// block between a first line "---" and the next line "---", as a JSON-like
// value (maps with string keys). ok is false when there is no such block
// or it is no YAML mapping.
func ParseFrontmatter(text string) (map[string]any, bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, false
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, false
	}
	if tail := rest[end+4:]; tail != "" && !strings.HasPrefix(strings.TrimLeft(tail, " \t"), "\n") && strings.TrimLeft(tail, " \t") != "" {
		return nil, false
	}
	var v any
	if yaml.Unmarshal([]byte(rest[:end]), &v) != nil {
		return nil, false
	}
	// Through JSON, so that it compares with an entry's frontmatter as
	// JSON decodes it (numbers float64, maps map[string]any).
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}
