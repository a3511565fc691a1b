package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The skills extension (io.modelcontextprotocol/skills, SEP-2640,
// ext-skills specification/stable/skills.mdx) in the reference server, at
// 2026-07-28: the extension declared in server/discover with directoryRead,
// two skills (pdf-processing, and refunds under the prefix acme/billing),
// skills/list a skill a page, skills/get, resources/directory/read, and
// the skills' files read through resources/read under skill://. Every
// entry is built from the files the server serves, so each fault bends one
// rule and leaves the rest consistent.

// refSkill is one skill the reference serves.
type refSkill struct {
	path        string // <skill-path>
	frontmatter []fmField
	body        string
	files       []refSkillFile // supporting files, by path relative to the root
}

// fmField is one frontmatter field, in the order SKILL.md writes it.
type fmField struct {
	key   string
	value any // a string, or a map of strings (metadata)
	yaml  string
}

type refSkillFile struct{ path, mimeType, text string }

func (s refSkill) uri() string  { return "skill://" + s.path + "/" + protocol.SkillFile }
func (s refSkill) root() string { return "skill://" + s.path }

// skillFile is SKILL.md as served: the frontmatter, then the body.
func (s refSkill) skillFile() string {
	var b strings.Builder
	b.WriteString("---\n")
	for _, f := range s.frontmatter {
		b.WriteString(f.yaml)
	}
	b.WriteString("---\n\n")
	b.WriteString(s.body)
	return b.String()
}

func (s refSkill) frontmatterObject() map[string]any {
	m := map[string]any{}
	for _, f := range s.frontmatter {
		m[f.key] = f.value
	}
	return m
}

func plainField(key, value string) fmField {
	return fmField{key: key, value: value, yaml: key + ": " + value + "\n"}
}

// referenceSkills are the skills served; faults rename or move pdf-processing.
func (r *skillsFamily) referenceSkills() []refSkill {
	name, path := "pdf-processing", "pdf-processing"
	switch {
	case r.is(SkillsPathNotName):
		path = "pdf-tools"
	case r.is(SkillsNameInvalid):
		name, path = "pdf--processing", "pdf--processing"
	}
	metadata := fmField{key: "metadata", value: map[string]any{"version": "2.1.0"}, yaml: "metadata:\n  version: \"2.1.0\"\n"}
	if r.is(SkillsMetadataReserved) {
		metadata = fmField{key: "metadata", value: map[string]any{"version": "2.1.0", "io.modelcontextprotocol/version": "2.1.0"},
			yaml: "metadata:\n  version: \"2.1.0\"\n  \"io.modelcontextprotocol/version\": \"2.1.0\"\n"}
	}
	second, secondName := "acme/billing/refunds", "refunds"
	switch {
	case r.is(SkillsNamesCollide):
		second, secondName = "acme/billing/pdf-processing", "pdf-processing"
	case r.is(SkillsAuthorityInvalid):
		second = "acme^corp/billing/refunds"
	}
	return []refSkill{
		{path: path,
			frontmatter: []fmField{plainField("name", name), plainField("description", "Extract, fill, and assemble PDF documents"), metadata},
			body:        "# PDF processing\n\nFill forms as references/FORMS.md says; pick a template from templates/.\n",
			files: []refSkillFile{
				{path: "references/FORMS.md", mimeType: "text/markdown", text: "# Forms\n\nFill each field in order.\n"},
				{path: "templates/invoice.md", mimeType: "text/markdown", text: "# Invoice\n"},
				{path: "templates/regional/eu-invoice.md", mimeType: "text/markdown", text: "# EU invoice\n"},
			}},
		{path: second,
			frontmatter: []fmField{plainField("name", secondName), plainField("description", "Process customer refund requests per company policy"),
				plainField("license", "Apache-2.0")},
			body:  "# Refunds\n\nAnswer as examples/email.md shows.\n",
			files: []refSkillFile{{path: "examples/email.md", mimeType: "text/markdown", text: "Dear customer,\n"}}},
	}
}

// served is the SKILL.md text the server serves for s (the fault's
// without frontmatter).
func (r *skillsFamily) served(s refSkill, first bool) string {
	if first && r.is(SkillsNoFrontmatter) {
		return s.body
	}
	return s.skillFile()
}

// entry is s's Skill entry; first is pdf-processing, the skill the
// faults bend.
func (r *skillsFamily) entry(s refSkill, first bool) map[string]any {
	fm := s.frontmatterObject()
	if first && r.is(SkillsFrontmatterDiffers) {
		fm["license"] = "MIT"
	}
	e := map[string]any{"uri": s.uri(), "frontmatter": fm}
	switch {
	case first && r.is(SkillsEntryNoResources):
		return e
	case first && r.is(SkillsDynamic):
		e["resources"] = protocol.SkillResourcesDynamic
		return e
	}
	skillText := r.served(s, first)
	if first && r.is(SkillsDigestStale) {
		skillText = strings.Replace(skillText, "# PDF processing", "# PDF processing (v1)", 1)
	}
	var files []any
	add := func(uri, text string) {
		digest := protocol.SkillDigest([]byte(text))
		if first && r.is(SkillsDigestUppercase) {
			digest = "sha256:" + strings.ToUpper(strings.TrimPrefix(digest, "sha256:"))
		}
		f := map[string]any{"uri": uri, "digest": digest, "size": len(text)}
		if first && r.is(SkillsSizeMissing) {
			delete(f, "size")
		}
		files = append(files, f)
	}
	if !first || !r.is(SkillsManifestNoSkillFile) {
		add(s.uri(), skillText)
	}
	for _, f := range s.files {
		add(s.root()+"/"+f.path, f.text)
	}
	if first && r.is(SkillsTooManyFiles) {
		// Listed only: the limit is judged from the entry alone.
		for i := len(files); i <= 512; i++ {
			files = append(files, map[string]any{"uri": fmt.Sprintf("%s/generated/part-%03d.md", s.root(), i),
				"digest": protocol.SkillDigest(nil), "size": 0})
		}
	}
	if first && r.is(SkillsTooLarge) {
		files = append(files, map[string]any{"uri": s.root() + "/assets/archive.bin", "digest": protocol.SkillDigest([]byte("archive")),
			"size": 16<<20 + 1})
	}
	if first && r.is(SkillsManifestOutsideSkill) {
		add("skill://shared/LICENSE.md", "MIT\n")
	}
	e["resources"] = files
	return e
}

// skillsFamily serves the extension; it keeps no state (every answer is
// built from the skills it serves).
type skillsFamily struct{ familyBase }

func newSkillsFamily(r *reference) family { return &skillsFamily{familyBase{r}} }

func (*skillsFamily) faults() fault.Set    { return skillsFaults }
func (*skillsFamily) liberties() fault.Set { return skillsLiberties }

func (r *skillsFamily) modern() map[string]Handler {
	return map[string]Handler{
		protocol.MethodSkillsList:             r.list,
		protocol.MethodSkillsGet:              r.get,
		protocol.MethodResourcesDirectoryRead: r.directoryRead,
	}
}

func (r *skillsFamily) capabilities(version string, caps map[string]any) {
	if !protocol.IsStateless(version) {
		return
	}
	ext, _ := caps["extensions"].(map[string]any)
	if ext == nil {
		ext = map[string]any{}
	}
	settings := map[string]any{"directoryRead": true}
	if r.is(SkillsNoDirectoryRead) {
		settings = map[string]any{}
	}
	ext[protocol.ExtensionSkills] = settings
	caps["extensions"] = ext
	// Skill files are read through resources/read: the resources
	// capability goes with the extension (the stateless family declares it).
	if _, ok := caps["resources"]; !ok {
		caps["resources"] = map[string]any{}
	}
}

// wrap serves skill:// reads in front of the resources families, and
// bends server/discover for the fault, for a request declaring the
// extension only.
func (r *skillsFamily) wrap(method string, next Handler) Handler {
	switch method {
	case protocol.MethodResourcesRead:
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if uri := uriParam(req); isModern(ctx) && strings.HasPrefix(uri, "skill://") {
				if res, ok := r.read(ctx, uri); ok {
					return res, nil
				}
			}
			return next(ctx, p, req)
		}
	case protocol.MethodServerDiscover:
		if !r.is(SkillsResourcesUndeclared) && !r.is(SkillsSettingsNotObject) {
			return next
		}
		return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			res, rerr := next(ctx, p, req)
			m, ok := res.(map[string]any)
			caps, _ := m["capabilities"].(map[string]any)
			if !ok || caps == nil || !declaresSkills(req) {
				return res, rerr
			}
			// A copy: the capabilities may be shared with other answers.
			c := map[string]any{}
			for k, v := range caps {
				c[k] = v
			}
			if r.is(SkillsResourcesUndeclared) {
				delete(c, "resources")
			} else {
				ext := map[string]any{}
				for k, v := range c["extensions"].(map[string]any) {
					ext[k] = v
				}
				ext[protocol.ExtensionSkills] = true
				c["extensions"] = ext
			}
			m["capabilities"] = c
			return res, rerr
		}
	}
	return next
}

// declaresSkills reports a request whose client capabilities declare the
// extension: what only the skills scenarios send.
func declaresSkills(req *jsonrpc.Message) bool {
	meta, _ := requestMeta(req)
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(meta[protocol.MetaClientCapabilities], &caps)
	_, ok := caps.Extensions[protocol.ExtensionSkills]
	return ok
}

// cacheable gives an extension result its caching hints (ListSkillsResult
// and GetSkillResult extend CacheableResult).
func cacheable(m map[string]any) map[string]any {
	m["ttlMs"], m["cacheScope"] = 60000, "public"
	return m
}

func (r *skillsFamily) list(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(SkillsListUnimplemented) {
		return r.notFound(ctx, p, req)
	}
	var entries []map[string]any
	if !r.is(SkillsListEmpty) {
		for i, s := range r.referenceSkills() {
			entries = append(entries, r.entry(s, i == 0))
		}
	}
	var params protocol.PageParams
	_ = json.Unmarshal(req.Params, &params)
	start := 0
	if params.Cursor != nil {
		n, ok := decodeCursor(*params.Cursor)
		if !ok || n <= 0 || n >= len(entries) {
			return nil, rpcError(codes.InvalidParams, "Invalid cursor", nil)
		}
		start = n
	}
	// A skill a page, so that a client pages.
	page := []any{}
	if start < len(entries) {
		if start > 0 && r.is(SkillsListEntryRepeated) {
			page = append(page, entries[0])
		}
		page = append(page, entries[start])
	}
	result := map[string]any{"skills": page}
	if start+1 < len(entries) {
		result["nextCursor"] = encodeCursor(start + 1)
	}
	if !r.is(SkillsListNoCacheHints) {
		cacheable(result)
	}
	return complete(ctx, result), nil
}

func (r *skillsFamily) get(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(SkillsGetUnimplemented) {
		return r.notFound(ctx, p, req)
	}
	uri := uriParam(req)
	skills := r.referenceSkills()
	for i, s := range skills {
		if s.uri() != uri {
			continue
		}
		if r.is(SkillsGetOtherSkill) {
			i = (i + 1) % len(skills)
		}
		result := map[string]any{"skill": r.entry(skills[i], i == 0)}
		if r.is(SkillsGetCursor) {
			result["nextCursor"] = encodeCursor(1)
		}
		if !r.is(SkillsGetNoCacheHints) {
			cacheable(result)
		}
		return complete(ctx, result), nil
	}
	if r.is(SkillsGetUnknownServed) {
		return nil, rpcError(codes.InternalError, "Internal error", nil)
	}
	return nil, rpcError(codes.InvalidParams, "No skill is served at "+uri, nil)
}

// read answers resources/read of a skill's file.
func (r *skillsFamily) read(ctx context.Context, uri string) (map[string]any, bool) {
	for i, s := range r.referenceSkills() {
		first := i == 0
		if uri == s.uri() {
			if first && r.is(SkillsSkillFileUnreadable) {
				return nil, false // the resources family answers: not found
			}
			item := map[string]any{"uri": uri, "mimeType": "text/markdown", "text": r.served(s, first)}
			if r.is(SkillsSkillFileMimeType) {
				item["mimeType"] = "text/plain"
			}
			if r.is(SkillsMetaUnprefixed) {
				item["_meta"] = map[string]any{"version": "2.1.0"}
			}
			return complete(ctx, map[string]any{"contents": []any{item}}), true
		}
		for _, f := range s.files {
			if uri == s.root()+"/"+f.path {
				item := map[string]any{"uri": uri, "mimeType": f.mimeType, "text": f.text}
				return complete(ctx, map[string]any{"contents": []any{item}}), true
			}
		}
	}
	return nil, false
}

// directoryRead lists a directory of a skill: its direct children, files
// with their Resource metadata and subdirectories as directory resources.
func (r *skillsFamily) directoryRead(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(SkillsNoDirectoryRead) || r.is(SkillsDirectoryUnimplemented) {
		return r.notFound(ctx, p, req)
	}
	uri := uriParam(req)
	for _, s := range r.referenceSkills() {
		if uri != s.root() && !strings.HasPrefix(uri, s.root()+"/") {
			continue
		}
		paths := []string{protocol.SkillFile}
		mime := map[string]string{protocol.SkillFile: "text/markdown"}
		for _, f := range s.files {
			paths = append(paths, f.path)
			mime[f.path] = f.mimeType
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(uri, s.root()), "/")
		if _, isFile := mime[rel]; isFile && r.is(SkillsDirectoryReadsFile) {
			return complete(ctx, map[string]any{"resources": []any{}}), nil
		}
		children, ok := directChildren(paths, rel, r.is(SkillsDirectoryRecursive))
		if !ok {
			break
		}
		out := []any{}
		for _, c := range children {
			name := c[strings.LastIndex(c, "/")+1:]
			m, isFile := mime[c]
			if !isFile {
				m = protocol.MimeDirectory
				if r.is(SkillsDirectoryNoMimeType) {
					m = "text/plain"
				}
			}
			out = append(out, map[string]any{"uri": s.root() + "/" + c, "name": name, "mimeType": m})
		}
		return complete(ctx, map[string]any{"resources": out}), nil
	}
	return nil, rpcError(codes.InvalidParams, uri+" is not a directory resource", nil)
}

// directChildren are the paths of dir's direct children among files (the
// subdirectories on the way included), or with deep every descendant; ok
// is false when dir is no directory of them.
func directChildren(files []string, dir string, deep bool) ([]string, bool) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	var out []string
	found := false
	for _, f := range files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok || rest == "" {
			continue
		}
		found = true
		segs := strings.Split(rest, "/")
		for i := range segs {
			if i > 0 && !deep {
				break
			}
			if c := prefix + strings.Join(segs[:i+1], "/"); !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out, found
}
