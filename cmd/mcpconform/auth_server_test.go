package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

// A protected server judged end to end, as a user runs it: mcpconform's
// authorization server alone (its key kept in a state file), a protected
// reference variant started against it, then a judging run that mints its
// tokens with the state file's key.
var _ = Describe("auth-server and a protected target", func() {
	issuerURL := regexp.MustCompile(`"issuer": "(http://127\.0\.0\.1:\d+)"`)
	servingAt := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)

	startIssuer := func(state string) string {
		s := start(exec.Command(exe, "auth-server", "--listen", "127.0.0.1:0", "--state", state))
		Eventually(s.Out).WithTimeout(exitWithin).Should(gbytes.Say(`"jwks_uri"`))
		m := issuerURL.FindSubmatch(s.Out.Contents())
		Expect(m).NotTo(BeNil(), "the issuer is printed: %s", s.Out.Contents())
		return string(m[1])
	}
	startTarget := func(variant ...string) string {
		args := append([]string{"fake-server", "--http", "127.0.0.1:0"}, variant...)
		s := start(exec.Command(exe, args...))
		Eventually(s.Err).WithTimeout(exitWithin).Should(gbytes.Say(`\(Ctrl-C to stop\)`))
		m := servingAt.FindSubmatch(s.Err.Contents())
		Expect(m).NotTo(BeNil(), "%s", s.Err.Contents())
		return string(m[1])
	}
	verdicts := func(out string) map[string]string {
		b, err := os.ReadFile(filepath.Join(out, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		var doc struct {
			Scenarios []struct {
				Checks []struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"checks"`
			} `json:"scenarios"`
		}
		Expect(json.Unmarshal(b, &doc)).To(Succeed())
		got := map[string]string{}
		for _, sc := range doc.Scenarios {
			for _, c := range sc.Checks {
				got[c.ID] = c.Status
			}
		}
		return got
	}
	noToken := func(out string, s interface{ Contents() []byte }) {
		for _, f := range []string{"junit.xml", "results.json", "summary.md", "report.html", "results.sarif"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring("eyJ"), "a minted JWT in %s", f)
		}
		Expect(string(s.Contents())).NotTo(ContainSubstring("eyJ"))
	}

	It("judges a protected server that trusts it: every authorization check passes, and no token reaches a report", func() {
		work := GinkgoT().TempDir()
		state := filepath.Join(work, "issuer.json")
		iss := startIssuer(state)
		st, err := os.Stat(state)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o600)), "the state holds a private key")
		url := startTarget("--liberty", "protected", "--trust-issuer", iss)
		out := filepath.Join(work, "out")
		s := run(0, "server", "--url", url, "--auth-state", state, "--spec-version", "2025-11-25", "--label-filter", "family: containsAny auth", "-o", out)
		v := verdicts(out)
		for _, id := range []string{"auth-unauthenticated/status-401", "auth-unauthenticated/prm-resource", "auth-token-validation/audience-401",
			"auth-token-validation/alg-none-401", "auth-token-validation/every-request", "auth-insufficient-scope/status-403"} {
			Expect(v).To(HaveKeyWithValue(id, "passed"))
		}
		noToken(out, s.Err)
	})

	It("fails the check of a target that does not validate the audience", func() {
		work := GinkgoT().TempDir()
		state := filepath.Join(work, "issuer.json")
		iss := startIssuer(state)
		url := startTarget("--fault", "audience-unchecked", "--trust-issuer", iss)
		out := filepath.Join(work, "out")
		s := run(1, "server", "--url", url, "--auth-state", state, "--spec-version", "2025-11-25", "--scenario", "auth-token-validation", "-o", out)
		Expect(verdicts(out)).To(HaveKeyWithValue("auth-token-validation/audience-401", "failed"))
		noToken(out, s.Err)
	})

	It("serves only on loopback, and a protected variant needs the issuer it trusts", func() {
		s := run(2, "auth-server", "--listen", "0.0.0.0:0")
		Expect(string(s.Err.Contents())).To(ContainSubstring("only on loopback"))
		s = run(2, "fake-server", "--http", "127.0.0.1:0", "--liberty", "protected")
		Expect(string(s.Err.Contents())).To(ContainSubstring("--trust-issuer"))
		s = run(2, "server", "--reference", "--auth-listen", "127.0.0.1:0")
		Expect(strings.ToLower(string(s.Err.Contents()))).To(ContainSubstring("runs an issuer of its own"))
	})
})

// An authorization server judged from its issuer: the reference passes,
// a fault fails its check, and no code, token or secret it hands out
// reaches a report.
var _ = Describe("authserver", func() {
	It("passes the reference and fails a server that exchanges a code twice, keeping its credentials out of the reports", func() {
		work := GinkgoT().TempDir()
		ok, bad := filepath.Join(work, "ok"), filepath.Join(work, "bad")
		run(0, "authserver", "--reference", "--spec-version", "2025-11-25,2026-07-28", "-o", ok)
		s := run(1, "authserver", "--reference", "--fault", "as-code-reusable", "-o", bad)
		Expect(string(s.Out.Contents()) + string(s.Err.Contents())).To(ContainSubstring("authserver-code-single-use"))
		b, err := os.ReadFile(filepath.Join(bad, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"id": "authserver-code-single-use/second-refused"`))
		credential := regexp.MustCompile(`(code|access|refresh|secret|client)-[0-9a-f]{32}`)
		for _, dir := range []string{ok, bad} {
			for _, f := range []string{"junit.xml", "results.json", "summary.md", "report.html", "results.sarif"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				Expect(err).NotTo(HaveOccurred())
				Expect(credential.Find(b)).To(BeNil(), "a credential in %s/%s", dir, f)
			}
		}
	})

	It("gets past a login form with the fields it is given, and keeps them out of the reports", func() {
		work := GinkgoT().TempDir()
		cfg := filepath.Join(work, "mcpconform.yaml")
		Expect(os.WriteFile(cfg, []byte("approval:\n  fields: {username: mcpconform-user, password: mcpconform-password-1234}\n"), 0o600)).To(Succeed())
		out := filepath.Join(work, "out")
		s := run(0, "authserver", "--reference", "--liberty", "as-login-form", "--config", cfg, "-o", out)
		for _, f := range []string{"junit.xml", "results.json", "summary.md", "report.html", "results.sarif"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring("mcpconform-password-1234"), f)
		}
		Expect(string(s.Err.Contents()) + string(s.Out.Contents())).NotTo(ContainSubstring("mcpconform-password-1234"))
		s = run(3, "authserver", "--reference", "--liberty", "as-login-form", "--approve-field", "password=not-the-password-99",
			"--scenario", "authserver-code-single-use", "-o", filepath.Join(work, "wrong"))
		Expect(string(s.Err.Contents()) + string(s.Out.Contents())).NotTo(ContainSubstring("not-the-password-99"))
	})

	It("needs exactly one target, and an http(s) issuer", func() {
		run(2, "authserver")
		s := run(2, "authserver", "--url", "ftp://example")
		Expect(string(s.Err.Contents())).To(ContainSubstring("want the issuer"))
	})
})
