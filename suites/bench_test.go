package suites_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// BenchmarkTasksFamily runs every tasks-family scenario once per iteration
// against the reference server, per transport. The figure shows the family
// is paced by events, not by poll intervals.
//
//	go test ./suites -run '^$' -bench TasksFamily -benchtime 3x
func BenchmarkTasksFamily(b *testing.B) {
	exe := b.TempDir() + "/mcpconform"
	if out, err := exec.Command("go", "build", "-o", exe, "github.com/mcpconform/mcpconform/cmd/mcpconform").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	for _, tr := range transport.Kinds() {
		b.Run(string(tr), func(b *testing.B) {
			ref, err := suites.StartReference(context.Background(), tr, server.ReferenceOptions{}, exe)
			if err != nil {
				b.Fatal(err)
			}
			defer ref.Stop()
			cfg := suites.Config{Env: scenarios.Env{Target: ref.Target, Version: "2025-11-25", Transport: tr, Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second}},
				Select: func(s *scenarios.Scenario) bool { return s.Family == "tasks" }}
			family := cfg.Applicable()
			b.ResetTimer()
			for b.Loop() {
				for _, s := range family {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					res := scenarios.Execute(ctx, s, cfg.Env)
					cancel()
					for _, v := range res.Verdicts {
						if v.Outcome == scenarios.Fail || v.Outcome == scenarios.Errored {
							b.Fatalf("%s: %s: %s", s.ID, v.Check.ID, v.Message)
						}
					}
				}
			}
			b.ReportMetric(float64(len(family)), "scenarios")
		})
	}
}
