package lifecycle_test

import (
	"context"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/lifecycle"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

func contextBackground() context.Context { return context.Background() }

var _ = Describe("client-initialize", func() {
	scenario := func() *scenarios.Scenario {
		for _, s := range lifecycle.Scenarios() {
			if s.ID == "client-initialize" {
				return s
			}
		}
		Fail("no scenario client-initialize")
		return nil
	}

	// Issue 21: requests were logged in their handlers' goroutines and
	// notifications in the read loop, so notifications/initialized written
	// right behind initialize was logged first (8 runs of 8).
	for _, kind := range []transport.Kind{transport.Stdio, transport.WS} {
		It("logs initialize first when the client writes notifications/initialized right behind it, every time (over "+string(kind)+")", func() {
			exe, err := os.Executable()
			Expect(err).NotTo(HaveOccurred())
			env := scenarios.Env{Version: protocol.V20251125, Transport: kind,
				Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 20 * time.Second, QuietWindow: 50 * time.Millisecond},
				Target: clientside.Target{Argv: []string{exe}, Env: []string{backToBackEnv + "=1"}, RelayExe: exe}}
			for run := range 25 {
				r := scenarios.Execute(context.Background(), scenario(), env)
				outcomes := map[string]string{}
				for _, v := range r.Verdicts {
					outcomes[v.Check.ID] = string(v.Outcome) + " " + v.Message
				}
				Expect(outcomes).To(HaveKeyWithValue("client-initialize/initialize-first", "pass "), "run %d", run+1)
				Expect(outcomes).To(HaveKeyWithValue("client-initialize/initialized-sent", "pass "), "run %d", run+1)
			}
		})
	}
})
