package auth_test

import (
	"context"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/auth"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// extension finds one of the family's scenarios by its official name.
func extension(official string) *scenarios.Scenario {
	GinkgoHelper()
	for _, s := range auth.Scenarios() {
		if s.Official == official {
			return s
		}
	}
	Fail("no scenario " + official)
	return nil
}

var extensions = []string{"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/wif-jwt-bearer",
	"auth/dpop", "auth/dpop-nonce", "auth/enterprise-managed-authorization"}

var _ = Describe("the authorization extensions", func() {
	It("are opt-in: every check carries its extension's profile, and a run without it skips them all with the reason and launches nothing", func() {
		exe, err := os.Executable()
		Expect(err).NotTo(HaveOccurred())
		for _, name := range extensions {
			s := extension(name)
			for _, c := range s.Checks {
				Expect(c.Profile).To(HavePrefix("ext-"), "%s", c.ID)
			}
			r := scenarios.Execute(context.Background(), s, scenarios.Env{Version: protocol.V20251125, Transport: transport.HTTP,
				Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 60 * time.Second, QuietWindow: 50 * time.Millisecond},
				Target: clientside.Target{Argv: []string{exe}, Env: []string{referenceEnv + "=1"}, RelayExe: exe}})
			Expect(r.Verdicts).To(HaveLen(len(s.Checks)))
			for _, v := range r.Verdicts {
				Expect(v.Outcome).To(Equal(scenarios.Skip), "%s: %s", v.Check.ID, v.Message)
				Expect(v.Message).To(ContainSubstring("--profile " + v.Check.Profile))
			}
			Expect(r.Transcript).NotTo(ContainSubstring("HTTP POST"), "%s launched the client", name)
		}
	})

	It("passes the liberty of a client assertion whose aud is the token endpoint", func() {
		Expect(client.Liberties()).To(ContainElement(client.AuthCCAudTokenEndpoint))
		s := extension("auth/client-credentials-jwt")
		for _, version := range s.Versions {
			r := run(s, version, client.AuthCCAudTokenEndpoint.Name)
			for _, v := range r.Verdicts {
				Expect(v.Outcome).To(Equal(scenarios.Pass), "%s at %s: %s\n%s", v.Check.ID, version, v.Message, r.Transcript)
			}
		}
	})

	It("judges the nonce retries on requests that were really refused for their nonce", func() {
		r := run(extension("auth/dpop-nonce"), protocol.V20251125, "")
		Expect(r.Transcript).To(ContainSubstring("→ 400"), "the token endpoint refused the first proof")
		Expect(r.Transcript).To(MatchRegexp(`POST /mcp → 401 \(Authorization: DPoP`), "the MCP server refused a DPoP request without its nonce")
		for _, v := range r.Verdicts {
			Expect(v.Outcome).To(Equal(scenarios.Pass), "%s: %s", v.Check.ID, v.Message)
		}
	})

	It("leaves no key, assertion, ID token, ID-JAG or proof of a run in its transcript, messages or output once redacted", func() {
		for _, name := range []string{"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/dpop-nonce", "auth/enterprise-managed-authorization", "auth/wif-jwt-bearer"} {
			s := extension(name)
			r := run(s, s.Versions[0], "")
			text := r.Transcript + r.Stderr
			for _, v := range r.Verdicts {
				text += v.Message
			}
			text = secret.Redact(text)
			Expect(text).NotTo(ContainSubstring("PRIVATE KEY"), "%s", name)
			Expect(text).NotTo(ContainSubstring("eyJ"), "%s: a JWT survives redaction", name)
			Expect(strings.Contains(text, "conformance-test-secret") || strings.Contains(text, "conformance-test-xaa-secret")).To(BeFalse(), "%s: a client secret survives", name)
		}
	})
})
