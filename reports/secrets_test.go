package reports_test

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("the secrets of a run", func() {
	const token = "tok-ABCDEFGH/12345+xyz"
	BeforeEach(func() {
		reports.AddSecrets("Bearer "+token, "tenant-secret-9", "short")
		DeferCleanup(reports.ResetSecrets)
	})

	It("are redacted, whole or in part, however JSON escapes a slash, and short values are none", func() {
		Expect(reports.Redact("refused Bearer " + token)).To(Equal("refused " + reports.Redacted))
		Expect(reports.Redact(`{"error":"bad token ` + `tok-ABCDEFGH\/12345+xyz"}`)).To(Equal(`{"error":"bad token ` + reports.Redacted + `"}`))
		Expect(reports.Redact("for tenant-secret-9.")).To(Equal("for " + reports.Redacted + "."))
		Expect(reports.Redact("a short word")).To(Equal("a short word"), "values under MinSecretLen are no secret")
	})

	It("reach no console line", func() {
		Expect(reports.CleanTerminal("echo: \x1b[31m" + token + "\x1b[0m")).To(Equal("echo: " + reports.Redacted))
	})

	It("reach no report file", func() {
		dir := GinkgoT().TempDir()
		run := &reports.Run{Tool: "mcpconform", Side: "server", Transport: "http", SpecVersion: "2025-11-25",
			Target: "http://127.0.0.1:1/mcp", Started: time.Unix(0, 0), Duration: time.Second,
			Scenarios: []reports.Scenario{{ID: "lifecycle-ping", Title: "ping", Family: "lifecycle",
				Transcript: "recv {\"error\":{\"message\":\"bad token " + token + "\"}}", Stderr: "token=" + token,
				Checks: []reports.Check{{ID: "lifecycle-ping/answered", Title: "t", Level: "MUST", Status: reports.Failed,
					Message: "Expected: a result\nActual: error bad token " + token}}}}}
		_, err := reports.WriteAll(dir, run)
		Expect(err).NotTo(HaveOccurred())
		for _, name := range []string{reports.JUnitFile, reports.JSONFile, reports.MarkdownFile, reports.HTMLFile} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring("ABCDEFGH"), name)
			Expect(string(b)).To(ContainSubstring("redacted"), name)
		}
		Expect(run.Scenarios[0].Stderr).To(ContainSubstring(token), "the caller's run is not changed")
	})
})
