package httprules_test

import (
	"context"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/httprules"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// Issue 21: the fake server of client-request-metadata refused the client's
// first request with -32022 whatever version it asked for, so a client that
// asked for 2026-07-28 was told 2026-07-28 is unsupported while the refusal
// listed it as supported. A -32022 is only for a version the fake does not
// implement (2026-07-28/basic/versioning.mdx#protocol-version-negotiation).
var _ = Describe("client-request-metadata", func() {
	scenario := func() *scenarios.Scenario {
		GinkgoHelper()
		for _, s := range httprules.Scenarios() {
			if s.ID == "client-request-metadata" {
				return s
			}
		}
		Fail("no scenario client-request-metadata")
		return nil
	}
	// run judges the reference client (the test binary run again) in the
	// environment given.
	run := func(kind transport.Kind, env ...string) (map[string]scenarios.Verdict, string) {
		GinkgoHelper()
		exe, err := os.Executable()
		Expect(err).NotTo(HaveOccurred())
		r := scenarios.Execute(context.Background(), scenario(), scenarios.Env{Version: protocol.V20260728, Transport: kind,
			Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second, QuietWindow: 50 * time.Millisecond},
			Target: clientside.Target{Argv: []string{exe}, Env: append([]string{referenceEnv + "=1"}, env...), RelayExe: exe}})
		verdicts := map[string]scenarios.Verdict{}
		for _, v := range r.Verdicts {
			verdicts[strings.TrimPrefix(v.Check.ID, "client-request-metadata/")] = v
		}
		return verdicts, r.Transcript
	}
	const refusal = `"code":-32022`

	for _, kind := range transport.Kinds() {
		It("never refuses a client that opens at the version judged, and skips the retry, saying why (over "+string(kind)+")", func() {
			verdicts, transcript := run(kind, ignoreContextEnv+"=1")
			Expect(transcript).NotTo(ContainSubstring(refusal), "a -32022 to a client that asked for %s", protocol.V20260728)
			Expect(transcript).To(ContainSubstring(`"supportedVersions":["2026-07-28"]`), "server/discover served")
			retry := verdicts["retry-supported-version"]
			Expect(retry.Outcome).To(Equal(scenarios.Skip), retry.Message)
			Expect(retry.Message).To(ContainSubstring("asked for 2026-07-28, which the fake server implements"))
			Expect(retry.Message).To(ContainSubstring("no UnsupportedProtocolVersionError to retry from"))
			for id, v := range verdicts {
				Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s", id, v.Message)
			}
		})

		It("refuses the reference client's opening at the context's firstProtocolVersion once, naming it, and judges the retry (over "+string(kind)+")", func() {
			verdicts, transcript := run(kind)
			Expect(strings.Count(transcript, refusal)).To(Equal(1), transcript)
			Expect(transcript).To(ContainSubstring(`"requested":"2099-01-01"`))
			Expect(transcript).To(ContainSubstring(`"supported":["2026-07-28"]`))
			Expect(transcript).NotTo(ContainSubstring(`"requested":"2026-07-28"`))
			retry := verdicts["retry-supported-version"]
			Expect(retry.Outcome).To(Equal(scenarios.Pass), retry.Message)
			for id, v := range verdicts {
				Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s", id, v.Message)
			}
		})
	}

	It("fails the retry of a client that gives up (no-version-retry)", func() {
		verdicts, _ := run(transport.HTTP, variantEnv+"=no-version-retry")
		Expect(verdicts["retry-supported-version"].Outcome).To(Equal(scenarios.Fail), verdicts["retry-supported-version"].Message)
	})

	It("fails the retry of a client that falls back to initialize, which it refuses naming 2025-11-25 (falls-back-to-initialize)", func() {
		verdicts, transcript := run(transport.HTTP, variantEnv+"=falls-back-to-initialize")
		Expect(verdicts["retry-supported-version"].Outcome).To(Equal(scenarios.Fail), verdicts["retry-supported-version"].Message)
		Expect(transcript).To(ContainSubstring(`"requested":"2025-11-25"`))
	})

	It("passes the retry of a client that skips server/discover (skips-discover), its tools/list refused and retried", func() {
		verdicts, transcript := run(transport.HTTP, variantEnv+"=skips-discover")
		Expect(verdicts["retry-supported-version"].Outcome).To(Equal(scenarios.Pass), verdicts["retry-supported-version"].Message)
		Expect(transcript).NotTo(ContainSubstring(`"method":"server/discover"`))
		Expect(strings.Count(transcript, refusal)).To(Equal(1))
	})
})
