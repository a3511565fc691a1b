package auth_test

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/auth"
)

func scenario(id string) *scenarios.Scenario {
	GinkgoHelper()
	for _, s := range auth.Scenarios() {
		if s.ID == id {
			return s
		}
	}
	Fail("no scenario " + id)
	return nil
}

func verdict(r *scenarios.Result, name string) scenarios.Verdict {
	GinkgoHelper()
	for _, v := range r.Verdicts {
		if strings.HasSuffix(v.Check.ID, "/"+name) {
			return v
		}
	}
	Fail("no check " + name + " in " + r.Scenario.ID)
	return scenarios.Verdict{}
}

var _ = Describe("the client identity scenarios' liberties", func() {
	// Every liberty of the family passes every check of the scenarios
	// whose checks name it, at each of their versions.
	for _, s := range auth.Scenarios() {
		var named []*fault.Fault
		for _, c := range s.Checks {
			for _, l := range c.Liberties {
				if !slices.Contains(named, l) {
					named = append(named, l)
				}
			}
		}
		for _, l := range named {
			for _, version := range s.Versions {
				It(fmt.Sprintf("passes %s with liberty %s at %s", s.ID, l.Name, version), func() {
					r := run(s, version, l.Name)
					for _, v := range r.Verdicts {
						Expect(bad(v)).To(BeFalse(), "%s: %s\n%s", v.Check.ID, v.Message, r.Transcript)
						Expect(v.Outcome).NotTo(Equal(scenarios.Fail), "%s (a warning): %s", v.Check.ID, v.Message)
					}
				})
			}
		}
	}

	It("lets a client register for client_secret_post where basic is offered too, and judges the method it registered", func() {
		s := scenario("client-auth-token-endpoint-auth-either")
		ref := verdict(run(s, s.Versions[1], ""), "token-endpoint-auth")
		Expect(ref.Outcome).To(Equal(scenarios.Pass))
		Expect(ref.Message).To(ContainSubstring("client_secret_basic"))
		post := verdict(run(s, s.Versions[1], client.AuthPrefersPost.Name), "token-endpoint-auth")
		Expect(post.Outcome).To(Equal(scenarios.Pass))
		Expect(post.Message).To(ContainSubstring("client_secret_post"))
	})

	It("judges the refresh of an early refresher, and skips the refresh rules for a client that wants no refresh token", func() {
		s := scenario("client-auth-offline-access-scope")
		early := run(s, s.Versions[0], client.AuthRefreshesEarly.Name)
		for _, name := range []string{"refresh-grant-type", "refresh-token-confidential", "refresh-resource", "authorized"} {
			Expect(verdict(early, name).Outcome).To(Equal(scenarios.Pass), name)
		}
		none := run(s, s.Versions[0], client.AuthNoRefreshTokens.Name)
		Expect(verdict(none, "authorized").Outcome).To(Equal(scenarios.Pass), "it authorizes again when its token expires")
		for _, name := range []string{"refresh-grant-type", "refresh-token-confidential", "refresh-resource"} {
			Expect(verdict(none, name).Outcome).To(Equal(scenarios.Skip), name)
		}
	})

	It("passes the official metadata document URL without a note, and fails an http one", func() {
		s := scenario("client-auth-basic-cimd")
		ref := verdict(run(s, s.Versions[0], ""), "cimd-url")
		Expect(ref.Outcome).To(Equal(scenarios.Pass))
		Expect(ref.Message).To(ContainSubstring(client.ReferenceCIMDURL))
		Expect(ref.Message).NotTo(ContainSubstring("warns"))
		Expect(verdict(run(s, s.Versions[0], client.AuthCIMDHTTPURL.Name), "cimd-url").Outcome).To(Equal(scenarios.Fail))
	})

	It("leaves no client secret or refresh token in a transcript, message or output once redacted", func() {
		for _, c := range []struct{ id, version string }{
			{"client-auth-pre-registration", "2025-11-25"},
			{"client-auth-token-endpoint-auth-post", "2025-11-25"},
			{"client-auth-offline-access-scope", "2026-07-28"},
		} {
			r := run(scenario(c.id), c.version, "")
			text := r.Transcript + r.Stderr
			for _, v := range r.Verdicts {
				text += v.Message
			}
			for _, leak := range []string{"pre-registered-secret", "mcpc-secret-", "mcpc-rt-", "mcpc-at-"} {
				Expect(secret.Redact(text)).NotTo(ContainSubstring(leak), "%s: %s survives redaction", c.id, leak)
			}
		}
		Expect(secret.Redact("secret=pre-registered-secret")).NotTo(ContainSubstring("pre-registered-secret"),
			"the pre-registration scenario registers the secret it hands the client")
	})

	It("skips application_type below 2026-07-28 and judges it there", func() {
		s := scenario("client-auth-token-endpoint-auth-basic")
		Expect(verdict(run(s, "2025-11-25", ""), "application-type").Outcome).To(Equal(scenarios.Skip))
		Expect(verdict(run(s, "2026-07-28", ""), "application-type").Outcome).To(Equal(scenarios.Pass))
	})
})
