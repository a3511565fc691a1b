package client

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The reference client as a host of the skills extension (SEP-2640,
// ext-skills skills.mdx) in the official sep-2640 client scenarios: it
// lists the skills and fetches nothing more (sep-2640-client-no-prefetch);
// in the verify scenarios it then loads the first skill: it reads its
// SKILL.md, verifies size, digest and frontmatter against the entry
// (#integrity-and-verification), and only when all hold reads the
// supporting files the manifest lists, as a model acting on the skill
// would, each verified in turn.

// The official sep-2640 client scenarios the reference client acts in.
const (
	SkillsNoPrefetchScenario        = "sep-2640-client-no-prefetch"
	SkillsVerifyDigestScenario      = "sep-2640-client-verify-digest"
	SkillsVerifySizeScenario        = "sep-2640-client-verify-size"
	SkillsVerifyFrontmatterScenario = "sep-2640-client-verify-frontmatter"
)

func isSkillsScenario(name string) bool { return strings.HasPrefix(name, "sep-2640-client-") }

func init() {
	scenarioPlans[SkillsNoPrefetchScenario] = func(ctx context.Context, rc *referenceRun) error {
		_, err := rc.listSkills(ctx)
		return err
	}
	for _, name := range []string{SkillsVerifyDigestScenario, SkillsVerifySizeScenario, SkillsVerifyFrontmatterScenario} {
		scenarioPlans[name] = func(ctx context.Context, rc *referenceRun) error {
			skills, err := rc.listSkills(ctx)
			if err != nil || len(skills) == 0 {
				return err
			}
			return rc.loadSkill(ctx, skills[0])
		}
	}
}

// skillsCapabilities declares the extension in the skills scenarios.
func (rc *referenceRun) skillsCapabilities(caps map[string]any) {
	if isSkillsScenario(rc.opts.Scenario) {
		caps["extensions"] = map[string]any{protocol.ExtensionSkills: map[string]any{}}
	}
}

// listSkills pages through skills/list (the fault then reads ahead).
func (rc *referenceRun) listSkills(ctx context.Context) ([]protocol.Skill, error) {
	var skills []protocol.Skill
	params := map[string]any{}
	for range 50 {
		resp, err := rc.request(ctx, protocol.MethodSkillsList, params)
		if err != nil {
			return nil, err
		}
		var page protocol.SkillsPage
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			return nil, fmt.Errorf("the skills/list result is not an object: %w", err)
		}
		skills = append(skills, page.Skills...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			break
		}
		params = map[string]any{"cursor": *page.NextCursor}
	}
	rc.logf("the server lists %d skills", len(skills))
	if rc.is(SkillsGetOnListing) {
		for _, s := range skills {
			if _, err := rc.request(ctx, protocol.MethodSkillsGet, map[string]any{"uri": s.URI}); err != nil {
				return nil, err
			}
		}
	}
	if rc.is(SkillsPrefetch) {
		for _, s := range skills {
			if _, err := rc.readText(ctx, s.URI); err != nil {
				return nil, err
			}
		}
	}
	return skills, nil
}

// readText reads uri and returns its first text item.
func (rc *referenceRun) readText(ctx context.Context, uri string) (string, error) {
	resp, err := rc.request(ctx, protocol.MethodResourcesRead, map[string]any{"uri": uri})
	if err != nil {
		return "", err
	}
	var r protocol.ReadResult
	_ = json.Unmarshal(resp.Result, &r)
	for _, c := range r.Contents {
		if c.Text != nil {
			return *c.Text, nil
		}
	}
	return "", fmt.Errorf("resources/read of %s answered no text", uri)
}

// loadSkill loads s: its SKILL.md verified against the entry, then its
// supporting files. A verification failure ends the load (the content is
// not used), which is no error of the run.
func (rc *referenceRun) loadSkill(ctx context.Context, s protocol.Skill) error {
	files, _, ok := s.Manifest()
	if !ok {
		rc.logf("%s has no file manifest; not loading it", s.URI)
		return nil
	}
	byURI := map[string]protocol.SkillResource{}
	for _, f := range files {
		byURI[f.URI] = f
	}
	why, err := rc.verifySkillFile(ctx, s, byURI[s.URI])
	if err != nil {
		return err
	}
	if why != "" && rc.is(SkillsRefreshOnMismatch) {
		rc.logf("%s fails verification (%s); refreshing its entry", s.URI, why)
		resp, err := rc.request(ctx, protocol.MethodSkillsGet, map[string]any{"uri": s.URI})
		if err != nil {
			return err
		}
		var fresh protocol.SkillResult
		_ = json.Unmarshal(resp.Result, &fresh)
		if fresh.Skill != nil {
			s = *fresh.Skill
			files, _, _ = s.Manifest()
			byURI = map[string]protocol.SkillResource{}
			for _, f := range files {
				byURI[f.URI] = f
			}
			if why, err = rc.verifySkillFile(ctx, s, byURI[s.URI]); err != nil {
				return err
			}
		}
	}
	if why != "" {
		rc.logf("%s fails verification (%s); not loading it", s.URI, why)
		return nil
	}
	rc.logf("loaded %s", s.URI)
	for _, f := range files {
		if f.URI == s.URI {
			continue
		}
		text, err := rc.readText(ctx, f.URI)
		if err != nil {
			return err
		}
		if why := rc.verify(f, text); why != "" {
			rc.logf("%s fails verification (%s); not using it", f.URI, why)
		}
	}
	return nil
}

// verifySkillFile reads s's SKILL.md and says why it fails verification
// against item and the entry's frontmatter, or "".
func (rc *referenceRun) verifySkillFile(ctx context.Context, s protocol.Skill, item protocol.SkillResource) (string, error) {
	text, err := rc.readText(ctx, s.URI)
	if err != nil {
		return "", err
	}
	if why := rc.verify(item, text); why != "" {
		return why, nil
	}
	if !rc.is(SkillsFrontmatterUnchecked) {
		got, _ := protocol.ParseFrontmatter(rc.used(item, text))
		want, _ := s.FrontmatterObject()
		if !reflect.DeepEqual(got, want) {
			return "its frontmatter differs from the entry's", nil
		}
	}
	return "", nil
}

// used is the content the client goes on with: what was read, or the
// fault's cut to the entry's size.
func (rc *referenceRun) used(f protocol.SkillResource, text string) string {
	if size, ok := f.SizeBytes(); ok && rc.is(SkillsSizeTruncated) && int64(len(text)) > size {
		return text[:size]
	}
	return text
}

// verify compares content with its manifest item: size, then digest; it
// says why they differ, or "".
func (rc *referenceRun) verify(f protocol.SkillResource, text string) string {
	size, hasSize := f.SizeBytes()
	digest, hasDigest := f.DigestText()
	if !hasSize || !hasDigest {
		return "the manifest gives no size or digest"
	}
	text = rc.used(f, text)
	if int64(len(text)) != size {
		return fmt.Sprintf("%d bytes, the entry says %d", len(text), size)
	}
	if !rc.is(SkillsDigestUnchecked) && protocol.SkillDigest([]byte(text)) != digest {
		return "the digest differs from the entry's"
	}
	return ""
}
