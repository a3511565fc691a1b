package auth_test

import (
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/auth"
)

// The liberties of the scope and retry-limit checks: conformant variants
// that each check naming them must pass, at every version they apply to.
var _ = Describe("the auth family's liberties", func() {
	for _, l := range []*fault.Fault{client.AuthRetriesToLimit, client.AuthStepUpChallengeOnly} {
		tried := false
		for _, s := range auth.Scenarios() {
			names := false
			for _, c := range s.Checks {
				names = names || slices.Contains(c.Liberties, l)
			}
			if !names {
				continue
			}
			for _, version := range s.Versions {
				if !applies(l, version) {
					continue
				}
				tried = true
				It(fmt.Sprintf("passes %s with liberty %s at %s", s.ID, l.Name, version), func() {
					r := run(s, version, l.Name)
					for _, v := range r.Verdicts {
						Expect(bad(v)).To(BeFalse(), "%s: %s\n%s", v.Check.ID, v.Message, r.Transcript)
						if first := auth.Since(v.Check.ID); first == "" || version >= first {
							Expect(v.Outcome).NotTo(Equal(scenarios.Skip), "%s skipped for %s: %s", v.Check.ID, l.Name, v.Message)
						}
					}
				})
			}
		}
		It(fmt.Sprintf("has a scenario whose checks name liberty %s", l.Name), func() {
			Expect(tried).To(BeTrue())
		})
	}
})
