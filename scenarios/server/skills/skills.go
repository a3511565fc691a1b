// Package skills is the server side of the skills extension
// (io.modelcontextprotocol/skills, SEP-2640; its page is ext-skills
// specification/stable/skills.mdx), at 2026-07-28, with the official
// scenarios sep-2640-skills-enumeration, sep-2640-skills-manifest and
// sep-2640-skills-directory: skills/list and skills/get, the SKILL.md each
// entry describes, and resources/directory/read.
package skills

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{enumerationScenario, manifestScenario, directoryScenario}
}

const (
	// extSpec is the extension's page; its sentences are kept word for word
	// in docs/skills-requirements.md, since the page is not beside the spec.
	extSpec = "ext-skills/skills.mdx"
	family  = "skills"
)

var versions = protocol.JudgedStateless()

var needsExtension = scenarios.NeedsOther("the " + protocol.ExtensionSkills + " extension declared in server/discover, " +
	"and at least one skill listed by skills/list")

// open opens a session whose requests declare the extension (both parties
// declare what they support: 2026-07-28/basic/versioning.mdx#extension-negotiation),
// and skips the scenario when the server does not declare it. It returns
// the server's settings for the extension.
func open(t *serverside.T) (*client.Session, map[string]any) {
	caps := map[string]any{"extensions": map[string]any{protocol.ExtensionSkills: map[string]any{}}}
	s := t.Open("A", client.Options{Capabilities: caps})
	ext, _ := s.ServerCapabilities["extensions"].(map[string]any)
	raw, ok := ext[protocol.ExtensionSkills]
	if !ok {
		t.SkipRest("the server does not declare " + protocol.ExtensionSkills + " in capabilities.extensions of server/discover (" +
			extSpec + "#capability-negotiation)")
	}
	settings, _ := raw.(map[string]any)
	return s, settings
}

// listing is what paging through skills/list showed.
type listing struct {
	paging  serverside.Paging
	pages   [][]protocol.Skill
	entries []protocol.Skill
}

// listSkills pages through skills/list.
func listSkills(t *serverside.T, s *client.Session) listing {
	var l listing
	l.paging = t.PageThrough(s, protocol.MethodSkillsList)
	for _, raw := range l.paging.Results {
		var page protocol.SkillsPage
		_ = json.Unmarshal(raw, &page)
		l.pages = append(l.pages, page.Skills)
		l.entries = append(l.entries, page.Skills...)
	}
	return l
}

// firstSkill lists the skills and returns the first entry with a uri;
// without one, the scenario's checks are not judged.
func firstSkill(t *serverside.T, s *client.Session) protocol.Skill {
	l := listSkills(t, s)
	if l.paging.Refused != "" {
		t.Blocked("skills/list failed: %s", l.paging.Refused)
	}
	for _, e := range l.entries {
		if e.URI != "" {
			return e
		}
	}
	t.NotJudgedRest("skills/list lists no skill (a server MAY return an empty listing), so there is no skill to read")
	return protocol.Skill{}
}

// getSkill sends skills/get for uri.
func getSkill(t *serverside.T, s *client.Session, uri string) (*jsonrpc.Message, error) {
	t.Step("skills/get %s", uri)
	return t.Request(s, protocol.MethodSkillsGet, map[string]any{"uri": uri})
}

// readText reads uri and returns its first text item.
func readText(t *serverside.T, s *client.Session, uri string) (item readItem, resp *jsonrpc.Message, err error) {
	t.Step("resources/read %s", uri)
	resp, err = t.Request(s, protocol.MethodResourcesRead, map[string]any{"uri": uri})
	if err != nil || resp == nil || resp.Error != nil {
		return readItem{}, resp, err
	}
	var r struct {
		Contents []readItem `json:"contents"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	for _, c := range r.Contents {
		if c.Text != nil {
			return c, resp, nil
		}
	}
	return readItem{}, resp, nil
}

// readItem is one text item of resources/read's contents.
type readItem struct {
	URI      string                     `json:"uri"`
	MimeType *string                    `json:"mimeType,omitempty"`
	Text     *string                    `json:"text,omitempty"`
	Meta     map[string]json.RawMessage `json:"_meta,omitempty"`
}

// hasCacheHints reports a result with both ttlMs and cacheScope.
func hasCacheHints(raw json.RawMessage) (bool, string) {
	_, ttl := judge.Field(raw, "ttlMs")
	_, scope := judge.Field(raw, "cacheScope")
	var missing []string
	if !ttl {
		missing = append(missing, "ttlMs")
	}
	if !scope {
		missing = append(missing, "cacheScope")
	}
	return len(missing) == 0, "missing " + strings.Join(missing, " and ")
}

func label(e protocol.Skill, i int) string {
	if e.URI != "" {
		return e.URI
	}
	return fmt.Sprintf("skills[%d]", i)
}

func abbreviate(raw json.RawMessage) string { return judge.Abbreviate(string(raw), 300) }
