package auth_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/auth"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

func TestAuth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "client authorization")
}

// The test binary plays the reference client when run again with
// referenceEnv set, as the variant variantEnv names.
const (
	referenceEnv = "MCPCONFORM_TEST_REFERENCE_CLIENT"
	variantEnv   = "MCPCONFORM_TEST_VARIANT"
)

func init() {
	if os.Getenv(referenceEnv) == "" {
		return
	}
	opts := client.ReferenceClientOptions{Server: os.Args[len(os.Args)-1], Log: os.Stderr}
	if name := os.Getenv(variantEnv); name != "" {
		f, err := findVariant(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "reference client:", err)
			os.Exit(2)
		}
		opts.Fault = f
	}
	if err := client.RunReference(context.Background(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "reference client:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func findVariant(name string) (*fault.Fault, error) {
	if f, err := client.Faults().Find(name); err == nil {
		return f, nil
	}
	return client.Liberties().Find(name)
}

// run judges the reference client as variant ("" the conformant one) on
// one scenario at one version.
func run(s *scenarios.Scenario, version, variant string) *scenarios.Result {
	GinkgoHelper()
	exe, err := os.Executable()
	Expect(err).NotTo(HaveOccurred())
	env := []string{referenceEnv + "=1"}
	if variant != "" {
		env = append(env, variantEnv+"="+variant)
	}
	// Every opt-in profile of the family (the extensions) is enabled.
	return scenarios.Execute(context.Background(), s, scenarios.Env{Version: version, Transport: transport.HTTP, Profiles: auth.Scenarios().Profiles(),
		Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 60 * time.Second, QuietWindow: 50 * time.Millisecond},
		Target: clientside.Target{Argv: []string{exe}, Env: env, RelayExe: exe}})
}

func bad(v scenarios.Verdict) bool {
	return v.Outcome == scenarios.Fail || v.Outcome == scenarios.Errored
}

func applies(f *fault.Fault, version string) bool {
	return (len(f.Versions) == 0 || slices.Contains(f.Versions, version)) &&
		(len(f.Transports) == 0 || slices.Contains(f.Transports, transport.HTTP))
}

var _ = Describe("the auth family", func() {
	for _, s := range auth.Scenarios() {
		for _, version := range s.Versions {
			It(fmt.Sprintf("passes the reference client on %s at %s", s.ID, version), func() {
				r := run(s, version, "")
				for _, v := range r.Verdicts {
					Expect(bad(v)).To(BeFalse(), "%s: %s\n%s", v.Check.ID, v.Message, r.Transcript)
					if first := auth.Since(v.Check.ID); first != "" && version < first {
						continue // a rule younger than this version: skipped, saying so
					}
					Expect(v.Outcome).NotTo(Equal(scenarios.Skip), "%s skipped for the reference client: %s", v.Check.ID, v.Message)
				}
			})

			// Every fault a check of the scenario names fails that check,
			// and fails no check that does not name it unless it says why.
			var named []*fault.Fault
			for _, c := range s.Checks {
				for _, f := range c.Faults {
					if !slices.Contains(named, f) && applies(f, version) {
						named = append(named, f)
					}
				}
			}
			for _, f := range named {
				It(fmt.Sprintf("fails %s with fault %s at %s, on the checks naming it", s.ID, f.Name, version), func() {
					r := run(s, version, f.Name)
					killed := false
					for _, v := range r.Verdicts {
						names := slices.Contains(v.Check.Faults, f)
						if names && (bad(v) || v.Check.Level != scenarios.Must && v.Outcome == scenarios.Fail) {
							killed = true
						}
						if bad(v) && !names {
							Expect(f.Why).NotTo(BeEmpty(), "%s fails %s, which does not name it: %s", f.Name, v.Check.ID, v.Message)
						}
					}
					Expect(killed).To(BeTrue(), "no check naming %s failed:\n%s", f.Name, r.Transcript)
				})
			}
		}
	}

	It("leaves no credential of a run in its transcript, messages or output once redacted", func() {
		s := auth.Scenarios()[0]
		r := run(s, s.Versions[0], "")
		text := r.Transcript + r.Stderr
		for _, v := range r.Verdicts {
			text += v.Message
		}
		Expect(secret.Any()).To(BeTrue(), "the fakes registered the credentials they minted")
		for _, prefix := range []string{"mcpc-at-", "mcpc-code-", "mcpc-client-"} {
			Expect(secret.Redact(text)).NotTo(ContainSubstring(prefix), "a %s… credential survives redaction", prefix)
		}
	})
})
