package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The credentials of an authorization flow (the access token, the code,
// the PKCE verifier) are minted or received by mcpconform's own fake
// authorization server. A client under test that shouts them — on its
// output and in the arguments of its tools/call — must not get them into
// any report or onto the console: the fakes register each as a secret.
var _ = Describe("the credentials of an authorization flow", func() {
	It("reach no report and no console line, wherever the client echoes them", func() {
		bin, err := hostileClientBinary()
		Expect(err).NotTo(HaveOccurred())
		work := GinkgoT().TempDir()
		out, echo := filepath.Join(work, "out"), filepath.Join(work, "echo.json")
		s := run(0, "client", "-o", out, "--transport", "http", "--spec-version", "2025-11-25", "--scenario", "client-auth-metadata-default",
			"-v", "--", bin, "--mode", "oauth-echo", "--echo-file", echo, "--tag", clientTag(work))
		raw, err := os.ReadFile(echo)
		Expect(err).NotTo(HaveOccurred(), "the client ran the flow and wrote what it echoes")
		var shouted map[string]string
		Expect(json.Unmarshal(raw, &shouted)).To(Succeed())
		Expect(shouted["access_token"]).NotTo(BeEmpty())
		Expect(shouted["code"]).NotTo(BeEmpty())
		Expect(shouted["code_verifier"]).NotTo(BeEmpty())
		texts := map[string]string{"stdout": string(s.Out.Contents()), "stderr": string(s.Err.Contents())}
		for _, f := range []string{"junit.xml", "results.json", "summary.md", "report.html", "results.sarif"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			Expect(err).NotTo(HaveOccurred())
			texts[f] = string(b)
		}
		Expect(texts["results.json"]).To(ContainSubstring("called test-tool with every credential"), "the client's output is kept")
		Expect(texts["results.json"]).To(ContainSubstring("[redacted]"), "where the credentials stood")
		for kind, value := range shouted {
			if value == "" {
				continue
			}
			for name, text := range texts {
				Expect(strings.Contains(text, value)).To(BeFalse(), "the %s is in %s", kind, name)
			}
		}
	})
})

var _ = Describe("--auth-token", func() {
	It("takes one token (every session's) or two, and refuses three before anything runs", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "out")
		s := run(2, "server", "-o", dir, "--url", "http://127.0.0.1:9/mcp", "--auth-token", "token-one-1234", "--auth-token", "token-two-1234",
			"--auth-token", "token-three-1234")
		Expect(string(s.Err.Contents())).To(ContainSubstring("give one bearer token (every session's) or two"))
		Expect(string(s.Err.Contents())).NotTo(ContainSubstring("token-three-1234"), "no token on the console")
		Expect(filepath.Join(dir, "results.json")).NotTo(BeAnExistingFile())
	})

	It("refuses a token given both as --auth-token and as an Authorization --header", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "out")
		s := run(2, "server", "-o", dir, "--url", "http://127.0.0.1:9/mcp", "--auth-token", "token-one-1234",
			"--header", "Authorization: Bearer token-one-1234")
		Expect(string(s.Err.Contents())).To(ContainSubstring("give it once"))
	})
})
