package lifecycle_test

import (
	"context"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/heapwatch"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/client/lifecycle"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// floodHeapBound is the most the heap may grow while a client floods: the
// log (1 MiB of notifications of a method, 8 MiB in all), the
// inbox (8 MiB), the transcript (4 MiB), frames in flight and the garbage
// between two collections.
const floodHeapBound = 64 << 20

// env runs the test binary as the client under test, in the part mode
// names (an environment variable).
func env(kind transport.Kind, mode string) scenarios.Env {
	GinkgoHelper()
	exe, err := os.Executable()
	Expect(err).NotTo(HaveOccurred())
	return scenarios.Env{Version: protocol.V20251125, Transport: kind,
		Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second, QuietWindow: 50 * time.Millisecond},
		Target: clientside.Target{Argv: []string{exe}, Env: []string{mode + "=1"}, RelayExe: exe}}
}

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

	// Issue 21: a client flooding notifications grew the fake server's log
	// without bound (1.36 GB over stdio, 1.82 GB over WebSocket in 30 s).
	for _, kind := range []transport.Kind{transport.Stdio, transport.WS} {
		It("keeps the fake server's memory bounded while a client floods notifications, and says what it dropped (over "+string(kind)+")", func() {
			w := heapwatch.Start(5 * time.Millisecond)
			DeferCleanup(func() { w.Stop() })
			r := scenarios.Execute(context.Background(), scenario(), env(kind, floodEnv))
			base, peak := w.Stop()
			GinkgoWriter.Printf("heap in use: %d MiB at the start, %d MiB at the peak\n", base>>20, peak>>20)
			Expect(peak-min(base, peak)).To(BeNumerically("<", uint64(floodHeapBound)),
				"the heap grew by %d MiB while %d MiB of notifications arrived", (peak-min(base, peak))>>20, floodBytes>>20)
			outcomes := map[string]string{}
			for _, v := range r.Verdicts {
				outcomes[v.Check.ID] = string(v.Outcome) + " " + v.Message
			}
			// The notification behind the flood is kept: one method floods.
			Expect(outcomes).To(HaveKeyWithValue("client-initialize/initialize-first", "pass "))
			Expect(outcomes).To(HaveKeyWithValue("client-initialize/initialized-sent", "pass "))
			Expect(r.Transcript).To(ContainSubstring("log: more than 1,000 notifications or 1,048,576 bytes of one method"))
		})
	}

	// Issue 21: requests were logged in their handlers' goroutines and
	// notifications in the read loop, so notifications/initialized written
	// right behind initialize was logged first (8 runs of 8).
	for _, kind := range []transport.Kind{transport.Stdio, transport.WS} {
		It("logs initialize first when the client writes notifications/initialized right behind it, every time (over "+string(kind)+")", func() {
			env := env(kind, backToBackEnv)
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
