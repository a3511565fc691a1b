package server_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The skills extension on the wire: what the skills family drives.
var _ = Describe("the reference server's skills extension", func() {
	reference := func(f *fault.Fault) *wire {
		GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{Variant: f})
		Expect(err).NotTo(HaveOccurred())
		return overPipes(e)
	}
	withExt := map[string]any{"extensions": map[string]any{protocol.ExtensionSkills: map[string]any{}}}
	params := func(p map[string]any) map[string]any {
		p["_meta"] = map[string]any{
			protocol.MetaProtocolVersion:    protocol.V20260728,
			protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: withExt,
		}
		return p
	}
	skills := func(w *wire) []protocol.Skill {
		GinkgoHelper()
		var all []protocol.Skill
		w.send(request("1", "skills/list", params(map[string]any{})))
		for i := 2; ; i++ {
			var page protocol.SkillsPage
			m := w.next()
			Expect(m.Error).To(BeNil())
			Expect(json.Unmarshal(m.Result, &page)).To(Succeed())
			all = append(all, page.Skills...)
			if page.NextCursor == nil {
				return all
			}
			raw, _ := json.Marshal(i)
			w.send(request(string(raw), "skills/list", params(map[string]any{"cursor": *page.NextCursor})))
		}
	}

	It("declares the extension with directoryRead and serves entries that describe the files it reads", func() {
		w := reference(nil)
		w.send(request("0", "server/discover", params(map[string]any{})))
		caps := result(w.next())["capabilities"].(map[string]any)
		Expect(caps).To(HaveKeyWithValue("extensions", HaveKeyWithValue(protocol.ExtensionSkills, map[string]any{"directoryRead": true})))
		Expect(caps).To(HaveKey("resources"))

		listed := skills(w)
		Expect(listed).To(HaveLen(2))
		files, _, ok := listed[0].Manifest()
		Expect(ok).To(BeTrue())
		for i, f := range files {
			raw, _ := json.Marshal(100 + i)
			w.send(request(string(raw), "resources/read", params(map[string]any{"uri": f.URI})))
			contents := result(w.next())["contents"].([]any)
			text := contents[0].(map[string]any)["text"].(string)
			digest, _ := f.DigestText()
			size, _ := f.SizeBytes()
			Expect(protocol.SkillDigest([]byte(text))).To(Equal(digest), f.URI)
			Expect(int64(len(text))).To(Equal(size), f.URI)
		}
	})

	It("lists a skill directory's direct children and refuses a file", func() {
		w := reference(nil)
		w.send(request("1", "resources/directory/read", params(map[string]any{"uri": "skill://pdf-processing"})))
		var page protocol.DirectoryPage
		Expect(json.Unmarshal(w.next().Result, &page)).To(Succeed())
		Expect(page.Resources).To(ConsistOf(
			protocol.DirectoryChild{URI: "skill://pdf-processing/SKILL.md", MimeType: "text/markdown"},
			protocol.DirectoryChild{URI: "skill://pdf-processing/references", MimeType: protocol.MimeDirectory},
			protocol.DirectoryChild{URI: "skill://pdf-processing/templates", MimeType: protocol.MimeDirectory}))
		w.send(request("2", "resources/directory/read", params(map[string]any{"uri": "skill://pdf-processing/SKILL.md"})))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))
	})

	It("answers skills/get of an unknown skill with -32602", func() {
		w := reference(nil)
		w.send(request("1", "skills/get", params(map[string]any{"uri": "skill://nothing/SKILL.md"})))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))
	})
})
