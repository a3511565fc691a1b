package protocol_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
)

var _ = Describe("the skills extension's views", func() {
	DescribeTable("the skill name of a URI",
		func(uri, name string, ok bool) {
			got, found := protocol.SkillNameOf(uri)
			Expect(found).To(Equal(ok))
			Expect(got).To(Equal(name))
		},
		Entry("one segment", "skill://git-workflow/SKILL.md", "git-workflow", true),
		Entry("a prefix", "skill://acme/billing/refunds/SKILL.md", "refunds", true),
		Entry("another scheme", "github://owner/repo/skills/refunds/SKILL.md", "refunds", true),
		Entry("no SKILL.md", "skill://pdf-processing/references/FORMS.md", "", false),
		Entry("no skill path", "skill://SKILL.md", "", false),
	)
	DescribeTable("the Agent Skills naming rules",
		func(name string, ok bool) { Expect(protocol.IsSkillName(name)).To(Equal(ok)) },
		Entry("lowercase and hyphens", "pdf-processing", true),
		Entry("digits", "v2", true),
		Entry("consecutive hyphens", "pdf--processing", false),
		Entry("a leading hyphen", "-pdf", false),
		Entry("uppercase", "PDF", false),
		Entry("65 characters", "a123456789012345678901234567890123456789012345678901234567890123z", false),
	)
	It("formats digests as sha256 and 64 lowercase hex digits", func() {
		d := protocol.SkillDigest([]byte("Supporting content.\n"))
		Expect(protocol.IsSkillDigest(d)).To(BeTrue())
		Expect(protocol.IsSkillDigest("sha256:ABC")).To(BeFalse())
	})
	It("parses a SKILL.md's frontmatter as JSON decodes an entry's", func() {
		fm, ok := protocol.ParseFrontmatter("---\nname: pdf\ndescription: Fill forms\nmetadata:\n  version: \"2.1.0\"\n---\n\n# Body\n")
		Expect(ok).To(BeTrue())
		var entry map[string]any
		Expect(json.Unmarshal([]byte(`{"name":"pdf","description":"Fill forms","metadata":{"version":"2.1.0"}}`), &entry)).To(Succeed())
		Expect(fm).To(Equal(entry))
	})
	It("finds no frontmatter where the file opens with its body", func() {
		_, ok := protocol.ParseFrontmatter("# Body\n---\nname: x\n---\n")
		Expect(ok).To(BeFalse())
	})
	It("reads resources as a manifest or \"dynamic\"", func() {
		files, dynamic, ok := protocol.Skill{Resources: json.RawMessage(`[{"uri":"skill://a/SKILL.md","digest":"sha256:x","size":3}]`)}.Manifest()
		Expect(ok).To(BeTrue())
		Expect(dynamic).To(BeFalse())
		size, hasSize := files[0].SizeBytes()
		Expect(hasSize).To(BeTrue())
		Expect(size).To(BeEquivalentTo(3))
		_, dynamic, ok = protocol.Skill{Resources: json.RawMessage(`"dynamic"`)}.Manifest()
		Expect(dynamic && ok).To(BeTrue())
		_, _, ok = protocol.Skill{Resources: json.RawMessage(`"static"`)}.Manifest()
		Expect(ok).To(BeFalse())
	})
})
