package suites_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/internal/ahead"
	"github.com/mcpconform/mcpconform/internal/testprogress"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	// This suite runs for minutes: under go test -json (the README's test
	// command) it says how far it is while it runs (testprogress).
	pool.RunSpecs(t, "suites", testprogress.Register)
}

// The specs run one after another, and the slow ones mostly wait (on a
// self-test's runs, a target's answer timeout, a task's pollInterval): pool
// makes their runs ahead of their specs, aheadWidth units of weight at once
// (internal/ahead).
//
// A self-test with Parallel 32 keeps both cores busy: it weighs
// selfTestWeight, so that at most two run at once, with room for four
// waiting runs beside them (the tasks family's liberties mostly wait on
// polls). More load than that made some faults go unseen (with four
// self-tests at once: result-returns-early and result-error-while-working,
// since tasks-result's task then worked 300 ms, and the client's
// answers-after-cancel, seen only within a quiet window).
const (
	aheadWidth      = 16
	selfTestWeight  = 6
	catalogueWeight = 4 // its Parallel
)

var pool = ahead.New(aheadWidth)

// runAhead registers work of weight 1 for the spec whose full text is key;
// timeout, the spec's own SpecTimeout (zero: none), bounds the work.
func runAhead[T any](key string, timeout time.Duration, run func(ctx context.Context) T) ahead.Work[T] {
	return ahead.Add(pool, key, 1, func(ctx context.Context) T {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return run(ctx)
	})
}

var (
	exe        string
	references = map[transport.Kind]*suites.Reference{}
	versions   = []string{"2025-11-25", "2026-07-28"}
	// The reference catalogues run at every judged version: with the guard
	// of fakes/peer on, a message of our own that the schema of any version
	// refuses turns a check into a harness error, and fails these specs.
	catalogueVersions = protocol.Judged()
	transports        = transport.Kinds()
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
	// Every message the in-process references sent in all of the suite's
	// runs validated against its schema (fakes/peer's guard); the stdio
	// reference processes report theirs on stderr, which turns the
	// scenario's verdicts into harness errors.
	DeferCleanup(func() {
		for _, tr := range transports {
			Expect(references[tr].OwnInvalid()).To(BeEmpty(), "the reference server over %s sent invalid messages of its own", tr)
		}
	})
	// Cleanups run last first: the pool's work ends before the references
	// and the binary go.
	DeferCleanup(pool.End)
	pool.Begin()
})

// The catalogue itself, as specs, against the conformant reference on every
// transport and version: every check must pass.
const (
	referenceServerCatalogue = "the catalogue against the reference server"
	referenceClientCatalogue = "the catalogue against the reference client"
)

var _ = Describe(referenceServerCatalogue, func() {
	var configs []suites.Config
	for _, tr := range transports {
		for _, v := range catalogueVersions {
			configs = append(configs, suites.Config{
				Name:    string(tr) + " " + v,
				Env:     scenarios.Env{Version: v, Transport: tr, Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second, ScenarioTimeout: 30 * time.Second}},
				Resolve: func(env *scenarios.Env) { env.Target = references[tr].Target },
			})
		}
	}
	serverCatalogue = suites.Plan(configs, suites.NewCollector(), catalogueLimits)
	serverCatalogue.Define()
	catalogueAhead(referenceServerCatalogue, &serverCatalogue)
})

// The client-side catalogue against the reference client, launched per
// scenario as a real process, over every transport.
var _ = Describe(referenceClientCatalogue, func() {
	var configs []suites.Config
	for _, tr := range transports {
		for _, v := range catalogueVersions {
			configs = append(configs, suites.Config{
				Name: "client " + string(tr) + " " + v,
				Side: scenarios.ClientSide,
				Env:  scenarios.Env{Version: v, Transport: tr, Timing: scenarios.Timing{ScenarioTimeout: 30 * time.Second}},
				Resolve: func(env *scenarios.Env) {
					env.Target = clientside.Target{Argv: []string{exe, "fake-client"}, RelayExe: exe}
				},
			})
		}
	}
	clientCatalogue = suites.Plan(configs, suites.NewCollector(), catalogueLimits)
	clientCatalogue.Define()
	catalogueAhead(referenceClientCatalogue, &clientCatalogue)
})

// The catalogues' scenario runs start ahead of their specs, beside the
// pool's other work (internal/ahead), at most catalogueLimits at a time;
// the specs read the runs. Ginkgo builds the tree twice (a preview, then
// the run), and only the last build's specs run: the work runs the
// execution that build planned.
var serverCatalogue, clientCatalogue *suites.Execution

// catalogueLimits leave room for the suite's other work ahead.
var catalogueLimits = suites.Limits(8)

func catalogueAhead(container string, planned **suites.Execution) {
	ahead.Add(pool, container+" "+(*planned).FirstSpec(), catalogueWeight, func(ctx context.Context) struct{} {
		(*planned).Begin()
		(*planned).Wait(ctx)
		if ctx.Err() != nil {
			(*planned).Stop()
		}
		return struct{}{}
	})
}

// The same tasks family against the variant that delivers a task's
// question only on a pending tasks/result: the fake client must call
// tasks/result on input_required to be able to judge anything.
const holdTasksDescribe = "the tasks family against a server that holds task requests for tasks/result"

// heldTasksRun is the run of the tasks family against the holding variant
// over one transport, made ahead of its spec.
type heldTasksRun struct {
	err     error
	results []*scenarios.Result
}

var _ = Describe(holdTasksDescribe, func() {
	for _, tr := range transports {
		work := runAhead(holdTasksDescribe+" passes over "+string(tr), 2*time.Minute, func(ctx context.Context) heldTasksRun {
			ref, err := suites.StartReference(ctx, tr, server.ReferenceOptions{HoldTaskRequests: true}, exe)
			if err != nil {
				return heldTasksRun{err: err}
			}
			defer ref.Stop()
			cfg := suites.Config{Env: scenarios.Env{Target: ref.Target, Version: "2025-11-25", Transport: tr, Timing: scenarios.Timing{ResponseTimeout: 5 * time.Second}},
				Select: func(s *scenarios.Scenario) bool { return s.Family == "tasks" }}
			var r heldTasksRun
			for _, s := range cfg.Applicable() {
				r.results = append(r.results, scenarios.Execute(ctx, s, cfg.Env))
			}
			return r
		})
		It("passes over "+string(tr), func(ctx SpecContext) {
			r := work.Get()
			Expect(r.err).NotTo(HaveOccurred())
			judged := 0
			for _, res := range r.results {
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
