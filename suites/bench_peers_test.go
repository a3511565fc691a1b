package suites_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// Benchmarks of the harness itself (README, Performance). Wall time and
// peak memory of whole runs of the binary are bench/run.sh's.
//
//	go test ./suites -run '^$' -bench 'FakeClientRoundTrip|PerCheck' -benchtime 3s

var (
	benchExeOnce sync.Once
	benchExe     string
	benchExeErr  error
)

// benchBinary builds mcpconform once per benchmark process: the stdio
// reference is `mcpconform fake-server --stdio`, a real process.
func benchBinary(b *testing.B) string {
	b.Helper()
	benchExeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpconform-bench")
		if err != nil {
			benchExeErr = err
			return
		}
		benchExe = dir + "/mcpconform"
		if out, err := exec.Command("go", "build", "-o", benchExe, "github.com/mcpconform/mcpconform/cmd/mcpconform").CombinedOutput(); err != nil {
			benchExeErr = err
			b.Logf("%s", out)
		}
	})
	if benchExeErr != nil {
		b.Fatalf("build: %v", benchExeErr)
	}
	return benchExe
}

// BenchmarkFakeClientRoundTrip measures request throughput of the fake
// client against the reference server, one request at a time on one
// open session, per transport: ping (the smallest round trip) and
// tools/list (a result of some 30 tools, validated against the schema as
// every result the fake client receives is).
func BenchmarkFakeClientRoundTrip(b *testing.B) {
	exe := benchBinary(b)
	for _, tr := range transport.Kinds() {
		for _, method := range []string{protocol.MethodPing, protocol.MethodToolsList} {
			b.Run(string(tr)+"/"+method, func(b *testing.B) {
				ctx := context.Background()
				ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{}, exe)
				if err != nil {
					b.Fatal(err)
				}
				defer ref.Stop()
				s, err := client.Connect(ctx, ref.Target, client.Options{Version: protocol.V20251125, Transcript: jsonrpc.NewTranscript(), Label: "A"})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if _, err := s.Open(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for b.Loop() {
					rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					resp, err := s.Request(rctx, method, map[string]any{})
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					if resp.Error != nil {
						b.Fatalf("%s: %s", method, resp.Error.Message)
					}
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
			})
		}
	}
}

// BenchmarkPerCheck runs the whole server catalogue at 2025-11-25 over
// HTTP against the in-process reference, one scenario after another, and
// reports the cost per check judged: the CPU time of the process (the
// harness and the in-process reference; the reference is cheap, so most of
// it is mcpconform's) and the wall time, which includes the waits some
// checks need (quiet windows are cut to 10 ms here, so that they do not
// hide the rest). B/op and allocs/op divided by checks/op are per check.
func BenchmarkPerCheck(b *testing.B) {
	ctx := context.Background()
	ref, err := suites.StartReference(ctx, transport.HTTP, server.ReferenceOptions{}, "")
	if err != nil {
		b.Fatal(err)
	}
	defer ref.Stop()
	timing := scenarios.DefaultTiming()
	timing.QuietWindow = 10 * time.Millisecond
	cfg := suites.Config{Env: scenarios.Env{Target: ref.Target, Version: protocol.V20251125, Transport: transport.HTTP, Timing: timing}}
	all := cfg.Applicable()
	checks := 0
	b.ReportAllocs()
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime()
	for b.Loop() {
		env := cfg.Env
		env.Gate, env.Wire = &scenarios.Gate{}, &scenarios.WireLedger{}
		for _, s := range all {
			sctx, cancel := context.WithTimeout(ctx, time.Minute)
			res := scenarios.Execute(sctx, s, env)
			cancel()
			for _, v := range res.Verdicts {
				if v.Outcome == scenarios.Fail || v.Outcome == scenarios.Errored {
					b.Fatalf("%s: %s: %s", s.ID, v.Check.ID, v.Message)
				}
				checks++
			}
		}
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpuStart
	b.ReportMetric(float64(elapsed.Microseconds())/float64(checks), "wall-µs/check")
	b.ReportMetric(float64(cpu.Microseconds())/float64(checks), "cpu-µs/check")
	b.ReportMetric(float64(checks)/float64(b.N), "checks/op")
	b.ReportMetric(float64(len(all)), "scenarios")
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
