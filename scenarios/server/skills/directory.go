package skills

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// resources/directory/read on a listed skill's root directory
// (ext-skills skills.mdx#reading-directories), for a server that declares
// directoryRead.

var (
	directoryImplemented = &scenarios.Check{ID: "skills-directory/implemented", Level: scenarios.Must,
		Spec:   extSpec + "#capability-negotiation",
		Quote:  "A server that additionally declares directoryRead: true MUST implement resources/directory/read.",
		Title:  "resources/directory/read of the first listed skill's root directory answers with a resources array",
		Faults: []*fault.Fault{server.SkillsDirectoryUnimplemented}}
	directoryChildren = &scenarios.Check{ID: "skills-directory/direct-children", Level: scenarios.Must,
		Spec:   extSpec + "#reading-directories",
		Quote:  "The result contains every direct child of the directory.",
		Title:  "the children are the root's direct children only, the SKILL.md among them",
		Faults: []*fault.Fault{server.SkillsDirectoryRecursive}}
	directorySubdirectories = &scenarios.Check{ID: "skills-directory/subdirectory-mimetype", Level: scenarios.Must,
		Spec: extSpec + "#reading-directories",
		Quote: "Files carry their ordinary Resource metadata and subdirectories are listed as directory resources " +
			"(mimeType: \"inode/directory\").",
		Title:  "a child that the skill's manifest shows to be a directory has mimeType inode/directory",
		Faults: []*fault.Fault{server.SkillsDirectoryNoMimeType}}
	directoryNotDirectory = &scenarios.Check{ID: "skills-directory/not-directory", Level: scenarios.Must,
		Spec:   extSpec + "#reading-directories",
		Quote:  "If the URI does not exist, or exists but is not a directory resource, the server MUST return error -32602 (Invalid params).",
		Title:  "resources/directory/read of the SKILL.md's own URI is refused with -32602",
		Faults: []*fault.Fault{server.SkillsDirectoryReadsFile, server.SkillsDirectoryUnimplemented}}
)

var directoryScenario = &scenarios.Scenario{
	ID:       "skills-directory",
	Official: "sep-2640-skills-directory",
	Title:    "resources/directory/read lists a skill directory's direct children",
	Family:   family,
	Side:     scenarios.ServerSide,
	Versions: versions,
	Needs:    []scenarios.Need{needsExtension, scenarios.NeedsOther("directoryRead: true in the extension's settings (else the scenario is skipped)")},
	Purpose: "For a server whose extension settings declare directoryRead, a client lists the skills, reads the first skill's root " +
		"directory and compares the children with the entry's file manifest, then reads the SKILL.md's URI as a directory.",
	Checks: []*scenarios.Check{directoryImplemented, directoryChildren, directorySubdirectories, directoryNotDirectory},
	Run: serverside.Body(func(t *serverside.T) {
		s, settings := open(t)
		if settings["directoryRead"] != true {
			t.SkipRest("the server's extension settings do not declare directoryRead: true, so resources/directory/read is optional (" +
				extSpec + "#capability-negotiation)")
		}
		entry := firstSkill(t, s)
		root, ok := protocol.SkillRoot(entry.URI)
		if !ok {
			t.NotJudgedRest("the first listed entry's uri " + entry.URI + " does not end in /SKILL.md, so it has no root directory")
		}
		t.Step("resources/directory/read %s", root)
		resp, err := t.Request(s, protocol.MethodResourcesDirectoryRead, map[string]any{"uri": root})
		var page protocol.DirectoryPage
		ok = err == nil && resp != nil && resp.Error == nil && json.Unmarshal(resp.Result, &page) == nil && page.Resources != nil
		t.Judge(directoryImplemented, ok, "a result with a resources array", judge.Describe(resp, err))
		if !ok {
			t.Skip(directoryChildren, "the directory was not read")
			t.Skip(directorySubdirectories, "the directory was not read")
		} else {
			judgeChildren(t, entry, root, page)
		}

		t.Step("resources/directory/read %s, a file", entry.URI)
		resp, err = t.Request(s, protocol.MethodResourcesDirectoryRead, map[string]any{"uri": entry.URI})
		t.Judge(directoryNotDirectory, err == nil && judge.IsErrorCode(resp, codes.InvalidParams), "error -32602", judge.Describe(resp, err))
	}),
}

// judgeChildren holds the children to the root's direct children and,
// where the manifest lists files below a child, to inode/directory.
func judgeChildren(t *serverside.T, entry protocol.Skill, root string, page protocol.DirectoryPage) {
	var bad []string
	hasSkillFile := false
	for _, c := range page.Resources {
		rest, under := strings.CutPrefix(c.URI, root+"/")
		if !under || rest == "" || strings.Contains(rest, "/") {
			bad = append(bad, c.URI+" is no direct child")
		}
		hasSkillFile = hasSkillFile || c.URI == entry.URI
	}
	if !hasSkillFile {
		bad = append(bad, entry.URI+" is missing")
	}
	t.Judge(directoryChildren, len(bad) == 0, "the direct children of "+root, strings.Join(bad, "; "))

	files, dynamic, ok := entry.Manifest()
	if !ok || dynamic {
		t.NotJudged(directorySubdirectories, "the entry has no file manifest to tell directories by")
		return
	}
	var wrong []string
	dirs := 0
	for _, c := range page.Resources {
		isDir := false
		for _, f := range files {
			isDir = isDir || strings.HasPrefix(f.URI, c.URI+"/")
		}
		if !isDir {
			continue
		}
		dirs++
		if c.MimeType != protocol.MimeDirectory {
			wrong = append(wrong, fmt.Sprintf("%s has mimeType %q", c.URI, c.MimeType))
		}
	}
	if dirs == 0 {
		t.NotJudged(directorySubdirectories, "no child of "+root+" is a directory by the manifest")
		return
	}
	t.Judge(directorySubdirectories, len(wrong) == 0, "mimeType "+protocol.MimeDirectory, strings.Join(wrong, "; "))
}
