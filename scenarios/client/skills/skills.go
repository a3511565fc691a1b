// Package skills is the client side of the skills extension
// (io.modelcontextprotocol/skills, SEP-2640; its page is ext-skills
// specification/stable/skills.mdx), at 2026-07-28, with the official
// scenarios sep-2640-client-no-prefetch, -verify-digest, -verify-size and
// -verify-frontmatter: a host fetches no skill file ahead of need, and
// uses no SKILL.md whose bytes or frontmatter differ from its entry.
//
// The fake server declares the extension and lists one skill,
// pdf-processing, whose manifest holds its SKILL.md and
// references/FORMS.md. In the verify scenarios the SKILL.md it serves
// differs from the entry in one way; a client harness is to load the skill
// (as the official scenarios expect), and a client that used the SKILL.md
// goes on to the supporting file, which is what the checks look for.
package skills

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	family  = "client-skills"
	extSpec = "ext-skills/skills.mdx"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{noPrefetchScenario, verifyDigestScenario, verifySizeScenario, verifyFrontmatterScenario}
}

var versions = protocol.JudgedStateless()

// The skill the fake server serves.
const (
	skillURI       = "skill://pdf-processing/SKILL.md"
	formsURI       = "skill://pdf-processing/references/FORMS.md"
	skillName      = "pdf-processing"
	skillDesc      = "Extract, fill, and assemble PDF documents"
	skillBody      = "Skill body.\n"
	formsText      = "Supporting content.\n"
	skillFileFront = "---\nname: " + skillName + "\ndescription: " + skillDesc + "\n---\n\n"
)

var skillText = skillFileFront + skillBody

// tamper is how the served SKILL.md differs from the entry's.
type tamper int

const (
	honest tamper = iota
	sameSizeBody
	longer
	otherFrontmatter
)

// served is the SKILL.md the fake serves.
func (tp tamper) served() string {
	switch tp {
	case sameSizeBody:
		return strings.Replace(skillText, "Skill body.", "Evil body!!", 1)
	case longer:
		return skillText + "extra bytes the entry did not account for\n"
	case otherFrontmatter:
		return strings.Replace(skillText, "description: "+skillDesc, "description: Exfiltrate credentials", 1)
	}
	return skillText
}

// entry is the skill's entry: its manifest describes the SKILL.md as the
// entry says it is, save in the frontmatter scenario, where the served
// bytes are described and only the frontmatter differs.
func (tp tamper) entry() map[string]any {
	described := skillText
	if tp == otherFrontmatter {
		described = tp.served()
	}
	return map[string]any{
		"uri":         skillURI,
		"frontmatter": map[string]any{"name": skillName, "description": skillDesc},
		"resources": []any{
			map[string]any{"uri": skillURI, "digest": protocol.SkillDigest([]byte(described)), "size": len(described)},
			map[string]any{"uri": formsURI, "digest": protocol.SkillDigest([]byte(formsText)), "size": len(formsText)},
		},
	}
}

// script is the fake server: the extension and resources declared,
// skills/list and skills/get with the one entry, the files read.
func script(tp tamper) clientside.Script {
	hints := func(m map[string]any) map[string]any {
		m["ttlMs"], m["cacheScope"] = 0, "private"
		return m
	}
	return clientside.Script{
		Capabilities: map[string]any{"resources": map[string]any{}, "extensions": map[string]any{protocol.ExtensionSkills: map[string]any{}}},
		Handlers: map[string]server.Handler{
			protocol.MethodSkillsList: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return hints(map[string]any{"skills": []any{tp.entry()}}), nil
			},
			protocol.MethodSkillsGet: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				if uriOf(req) != skillURI {
					return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "No skill is served at " + uriOf(req)}
				}
				return hints(map[string]any{"skill": tp.entry()}), nil
			},
			protocol.MethodResourcesRead: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				text := ""
				switch uriOf(req) {
				case skillURI:
					text = tp.served()
				case formsURI:
					text = formsText
				default:
					return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "Resource not found", Data: json.RawMessage(`{"uri":` + quote(uriOf(req)) + `}`)}
				}
				return map[string]any{"contents": []any{map[string]any{"uri": uriOf(req), "mimeType": "text/markdown", "text": text}}}, nil
			},
		},
	}
}

func uriOf(req *jsonrpc.Message) string {
	var p protocol.ReadResourceParams
	_ = json.Unmarshal(req.Params, &p)
	return p.URI
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// reads are the URIs the client read, in order.
func reads(t *clientside.T) []string {
	var out []string
	for _, r := range t.Log().Requests(protocol.MethodResourcesRead) {
		out = append(out, uriOf(r.Msg))
	}
	return out
}

// requireListing lets the client finish and stops the scenario, not
// judged, when it never listed the skills: it never held an entry.
func requireListing(t *clientside.T) {
	out := t.Settle(nil)
	if len(t.Log().Requests(protocol.MethodSkillsList)) == 0 {
		t.NotJudgedRest("the client never sent skills/list, so it never held a skill entry (" + t.DescribeEnd(out) + ")")
	}
}

// verifyBody judges a verify scenario: the client read the tampered
// SKILL.md and did not go on to the supporting file.
func verifyBody(tp tamper, check func() *scenarios.Check) func(t *clientside.T) {
	return func(t *clientside.T) {
		t.Serve(script(tp))
		t.Step("wait for the client to list the skills and load %s", skillName)
		requireListing(t)
		read := reads(t)
		if !slices.Contains(read, skillURI) {
			t.NotJudgedRest("the client never read " + skillURI + ", so it never loaded the skill whose content fails verification; " +
				"a client harness must load the listed skill to be judged here")
		}
		t.Judge(check(), !slices.Contains(read, formsURI), "no read of "+formsURI+" after the SKILL.md that fails verification",
			"the client went on to read "+formsURI+" (reads: "+strings.Join(read, ", ")+")")
	}
}
