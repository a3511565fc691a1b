package suites_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// Before KillsOn the self-test asked a fault to fail every check naming it
// at every version it shows at, so the auth family's common checks, which
// run at 2025-03-26 in some scenarios and from 2025-11-25 in others, could
// never all fail in one run.
var _ = Describe("the checks a fault must fail in one run", func() {
	It("are those of the scenarios that run at the run's transport and version", func() {
		march := suites.KillsOn(client.AuthSkipsPKCE, transport.HTTP, protocol.V20250326)
		november := suites.KillsOn(client.AuthSkipsPKCE, transport.HTTP, protocol.V20251125)
		Expect(march).To(ContainElement("client-auth-2025-03-26-oauth-endpoint-fallback/pkce-challenge"))
		Expect(march).NotTo(ContainElement("client-auth-metadata-default/pkce-challenge"))
		Expect(november).To(ContainElement("client-auth-metadata-default/pkce-challenge"))
		Expect(november).NotTo(ContainElement("client-auth-2025-03-26-oauth-endpoint-fallback/pkce-challenge"))
		Expect(suites.KillsOn(client.AuthSkipsPKCE, transport.Stdio, protocol.V20251125)).To(BeEmpty(), "authorization runs over HTTP only")
	})
})
