package suites_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "suites")
}

var (
	exe        string
	references = map[transport.Kind]*suites.Reference{}
	versions   = []string{"2025-11-25", "2026-07-28"}
	transports = transport.Kinds()
)

var _ = BeforeSuite(func() {
	var err error
	exe, err = gexec.Build("github.com/mcpconform/mcpconform/cmd/mcpconform")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(gexec.CleanupBuildArtifacts)
	for _, tr := range transports {
		ref, err := suites.StartReference(context.Background(), tr, server.ReferenceOptions{}, exe)
		Expect(err).NotTo(HaveOccurred())
		references[tr] = ref
		DeferCleanup(ref.Stop)
	}
})

// The catalogue itself, as specs, against the conformant reference on every
// transport and version: every check must pass.
var _ = Describe("the catalogue against the reference server", func() {
	var configs []suites.Config
	for _, tr := range transports {
		for _, v := range versions {
			configs = append(configs, suites.Config{
				Name:     string(tr) + " " + v,
				Env:      scenarios.Env{Version: v, Transport: tr, Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second}},
				Resolve:  func(env *scenarios.Env) { env.Target = references[tr].Target },
				Parallel: 4, // across configs: scenarios mostly wait on the target
			})
		}
	}
	suites.Define(configs, suites.NewCollector())
})

// The client-side catalogue against the reference client, launched per
// scenario as a real process, over every transport.
var _ = Describe("the catalogue against the reference client", func() {
	var configs []suites.Config
	for _, tr := range transports {
		for _, v := range versions {
			configs = append(configs, suites.Config{
				Name: "client " + string(tr) + " " + v,
				Side: scenarios.ClientSide,
				Env:  scenarios.Env{Version: v, Transport: tr, Timing: scenarios.Timing{ScenarioTimeout: 30 * time.Second}},
				Resolve: func(env *scenarios.Env) {
					env.Target = clientside.Target{Argv: []string{exe, "fake-client"}, RelayExe: exe}
				},
				Parallel: 4,
			})
		}
	}
	suites.Define(configs, suites.NewCollector())
})

// The same tasks family against the variant that delivers a task's
// question only on a pending tasks/result: the fake client must call
// tasks/result on input_required to be able to judge anything.
var _ = Describe("the tasks family against a server that holds task requests for tasks/result", func() {
	for _, tr := range transports {
		It("passes over "+string(tr), func(ctx SpecContext) {
			ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{HoldTaskRequests: true}, exe)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ref.Stop)
			cfg := suites.Config{Env: scenarios.Env{Target: ref.Target, Version: "2025-11-25", Transport: tr, Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second}},
				Select: func(s *scenarios.Scenario) bool { return s.Family == "tasks" }}
			judged := 0
			for _, s := range cfg.Applicable() {
				res := scenarios.Execute(ctx, s, cfg.Env)
				for _, v := range res.Verdicts {
					Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s\n%s", v.Check.ID, v.Message, res.Transcript)
					if v.Outcome == scenarios.Pass {
						judged++
					}
				}
			}
			Expect(judged).To(BeNumerically(">=", 35))
		}, SpecTimeout(2*time.Minute))
	}
})
