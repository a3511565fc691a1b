package protocol_test

import (
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
)

var _ = Describe("PageFor", func() {
	It("cites the same page of the judged version", func() {
		Expect(protocol.PageFor("2025-11-25/basic/lifecycle.mdx#version-negotiation", "2025-06-18")).
			To(Equal("2025-06-18/basic/lifecycle.mdx#version-negotiation"))
		Expect(protocol.PageFor("2025-11-25/basic/lifecycle.mdx", "2025-11-25")).To(Equal("2025-11-25/basic/lifecycle.mdx"))
	})

	It("follows a section to the page it went to where a version split its page", func() {
		Expect(protocol.PageFor("2025-11-25/basic/authorization.mdx#token-handling", "2026-07-28")).
			To(Equal("2026-07-28/basic/authorization/index.mdx#token-handling"))
		Expect(protocol.PageFor("2025-11-25/basic/authorization.mdx#protected-resource-metadata-discovery-requirements", "2026-07-28")).
			To(Equal("2026-07-28/basic/authorization/authorization-server-discovery.mdx#protected-resource-metadata-discovery-requirements"))
		Expect(protocol.PageFor("2025-11-25/basic/authorization.mdx#open-redirection", "2026-07-28")).
			To(Equal("2026-07-28/basic/authorization/security-considerations.mdx#open-redirection"))
		Expect(protocol.PageFor("2025-11-25/basic/authorization.mdx#token-handling", "2025-06-18")).
			To(Equal("2025-06-18/basic/authorization.mdx#token-handling"))
	})

	It("keeps the reference where the judged version has no such page", func() {
		Expect(protocol.PageFor("2025-11-25/basic/utilities/tasks.mdx#task-status", "2025-06-18")).
			To(Equal("2025-11-25/basic/utilities/tasks.mdx#task-status"))
		Expect(protocol.PageFor("seps/1686-tasks.md", "2025-06-18")).To(Equal("seps/1686-tasks.md"))
		Expect(protocol.PageFor("jsonrpc-2.0/spec#error_object", "2025-06-18")).To(Equal("jsonrpc-2.0/spec#error_object"))
	})

	It("is generated from the spec docs as they are", func() {
		docs := filepath.Join("..", "..", "shared", "mcp-spec", "docs")
		if _, err := os.Stat(docs); err != nil {
			Skip("the spec docs are not beside the repository: " + err.Error())
		}
		out := filepath.Join(GinkgoT().TempDir(), "pages_gen.go")
		cmd := exec.Command("go", "run", "./internal/genpages", "-docs", docs, "-out", out)
		b, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(b))
		want, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		got, err := os.ReadFile("pages_gen.go")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)), "run go generate ./protocol/...")
	})
})
