package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/internal/ahead"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// lifecycleRun is one run of a lifecycle scenario, made ahead of the spec
// that judges it.
type lifecycleRun struct {
	scenario string
	err      error
	found    bool
	verdicts map[string]scenarios.Verdict
}

// runLifecycle runs one scenario of the lifecycle family against the
// reference server or one of its variants (without assertions: it may run
// ahead of its spec) and keeps its verdicts by check id.
func runLifecycle(ctx context.Context, variant *fault.Fault, kind transport.Kind, version, scenario string, profiles ...string) lifecycleRun {
	run := lifecycleRun{scenario: scenario}
	ref, err := suites.StartReference(ctx, kind, server.ReferenceOptions{Variant: variant}, exe)
	if err != nil {
		run.err = err
		return run
	}
	defer ref.Stop()
	s, ok := catalogue.All().Find(scenario)
	if !ok {
		return run
	}
	run.found = true
	res := scenarios.Execute(ctx, s, scenarios.Env{Target: ref.Target, Version: version, Transport: kind, Profiles: profiles,
		Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second}})
	run.verdicts = map[string]scenarios.Verdict{}
	for _, v := range res.Verdicts {
		run.verdicts[v.Check.ID] = v
	}
	return run
}

// judged asserts that the run could be made and returns its verdicts by
// check id.
func (r lifecycleRun) judged() map[string]scenarios.Verdict {
	GinkgoHelper()
	Expect(r.err).NotTo(HaveOccurred())
	Expect(r.found).To(BeTrue(), r.scenario)
	return r.verdicts
}

// lifecycleVerdicts runs one scenario of the lifecycle family against the
// reference server or one of its variants, in the spec, and returns its
// verdicts by check id.
func lifecycleVerdicts(ctx context.Context, variant *fault.Fault, kind transport.Kind, version, scenario string, profiles ...string) map[string]scenarios.Verdict {
	GinkgoHelper()
	return runLifecycle(ctx, variant, kind, version, scenario, profiles...).judged()
}

// Each corrected check of the lifecycle family, against the variant that
// exposed its old verdict. The comment on each entry names that verdict.
const lifecycleVariants = "the lifecycle family against conformant variants"

var _ = Describe(lifecycleVariants, func() {
	// Every check of the scenario that names the liberty passes; nothing in
	// it fails or warns.
	passesLiberty := func(ctx SpecContext, l *fault.Fault, scenario string, kind transport.Kind, version string) {
		Expect(l.Liberty).To(BeTrue())
		Expect(l.ObservableOn(kind, version)).To(BeTrue(), "%s shows over %s at %s", l.Name, kind, version)
		verdicts := lifecycleVerdicts(ctx, l, kind, version, scenario)
		exercised := 0
		for _, c := range catalogue.All().Exercisers()[l] {
			if v, ok := verdicts[c.ID]; ok {
				Expect(v.Outcome).To(Equal(scenarios.Pass), "%s: %s", c.ID, v.Message)
				exercised++
			}
		}
		Expect(exercised).To(BeNumerically(">", 0), "the scenario judges a check that names %s", l.Name)
		for id, v := range verdicts {
			Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s", id, v.Message)
		}
	}

	DescribeTable("passes each liberty its checks name", passesLiberty,
		// Before: WARN lifecycle-before-initialize/request-rejected (a SHOULD
		// judged by default). Now that check is opt-in (strict-lifecycle) and
		// lifecycle-before-initialize/answered passes.
		Entry("serves-without-initialize over stdio", server.ServesWithoutInitialize, "lifecycle-before-initialize", transport.Stdio, "2025-11-25"),
		Entry("serves-without-initialize over ws", server.ServesWithoutInitialize, "lifecycle-before-initialize", transport.WS, "2025-06-18"),
		// Before: PASS, and so did negotiation-wrong-error (any error passed).
		Entry("negotiation-error-supported over stdio", server.NegotiationErrorSupported, "lifecycle-version-negotiation", transport.Stdio, "2025-11-25"),
		Entry("negotiation-error-supported over http", server.NegotiationErrorSupported, "lifecycle-version-negotiation", transport.HTTP, "2025-03-26"),
		// Before: FAIL lifecycle-unsupported-version/error-32022 (the probe was
		// server/discover, answered with a DiscoverResult).
		Entry("discover-any-version over stdio", server.DiscoverAnyVersion, "lifecycle-unsupported-version", transport.Stdio, "2026-07-28"),
		Entry("discover-any-version over ws", server.DiscoverAnyVersion, "lifecycle-unsupported-version", transport.WS, "2026-07-28"),
		// Before: FAIL lifecycle-notification-silent/no-response (the 400's
		// error body counted as a response).
		Entry("refuses-unknown-notifications over http with sessions", server.RefusesUnknownNotifications, "lifecycle-notification-silent", transport.HTTP, "2025-11-25"),
		Entry("refuses-unknown-notifications over stateless http", server.RefusesUnknownNotifications, "lifecycle-notification-silent", transport.HTTP, "2026-07-28"),
		// Before: FAIL lifecycle-id-echo/ids-exact (ids compared byte for byte).
		Entry("escapes-non-ascii-ids over stdio", server.EscapesNonASCIIIds, "lifecycle-id-echo", transport.Stdio, "2025-11-25"),
		Entry("escapes-non-ascii-ids over http with sessions", server.EscapesNonASCIIIds, "lifecycle-id-echo", transport.HTTP, "2025-11-25"),
		Entry("escapes-non-ascii-ids over stateless http", server.EscapesNonASCIIIds, "lifecycle-id-echo", transport.HTTP, "2026-07-28"),
		Entry("escapes-non-ascii-ids over ws", server.EscapesNonASCIIIds, "lifecycle-id-echo", transport.WS, "2026-07-28"),
		// Targets without 2026-07-28, judged at a version they implement.
		Entry("initialize-era-http over http", server.InitializeEraHTTP, "lifecycle-initialize", transport.HTTP, "2025-11-25"),
		Entry("discover-lists-older-versions over stdio", server.DiscoverListsOlderVersions, "lifecycle-initialize", transport.Stdio, "2025-06-18"),
	)

	// A target that does not implement 2026-07-28 says so in its answer to
	// server/discover; the version is then not judged, in one line. Before,
	// initialize-era-http (the TypeScript SDK's 400 with -32000 and id null)
	// failed lifecycle-discover/result-schema, and every later scenario
	// failed its first check ("the handshake failed"); and
	// discover-lists-older-versions (go-sdk's stateful server: a
	// DiscoverResult without 2026-07-28) passed the handshake, after which
	// lifecycle-unknown-method/method-not-found failed on -32022.
	DescribeTable("does not judge 2026-07-28 at a target whose server/discover says it lacks the version",
		func(ctx SpecContext, l *fault.Fault, kind transport.Kind, evidence string) {
			Expect(l.ObservableOn(kind, "2026-07-28")).To(BeTrue())
			ref, err := suites.StartReference(ctx, kind, server.ReferenceOptions{Variant: l}, exe)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ref.Stop)
			gate := &scenarios.Gate{}
			for _, id := range []string{"lifecycle-discover", "lifecycle-unknown-method", "lifecycle-id-echo"} {
				s, ok := catalogue.All().Find(id)
				Expect(ok).To(BeTrue(), id)
				res := scenarios.Execute(ctx, s, scenarios.Env{Target: ref.Target, Version: "2026-07-28", Transport: kind, Gate: gate,
					Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second}})
				for _, v := range res.Verdicts {
					Expect(v.Outcome).To(Equal(scenarios.Skip), "%s: %s", v.Check.ID, v.Message)
					Expect(v.Message).To(And(ContainSubstring("does not implement 2026-07-28"), ContainSubstring(evidence)), v.Check.ID)
				}
			}
			Expect(gate.Unsupported()).To(BeTrue())
		},
		Entry("initialize-era-http over http", server.InitializeEraHTTP, transport.HTTP, `HTTP 400: {"jsonrpc":"2.0","error":{"code":-32000`),
		Entry("discover-lists-older-versions over stdio", server.DiscoverListsOlderVersions, transport.Stdio, "without 2026-07-28"),
		Entry("discover-lists-older-versions over http", server.DiscoverListsOlderVersions, transport.HTTP, "without 2026-07-28"),
		Entry("discover-lists-older-versions over ws", server.DiscoverListsOlderVersions, transport.WS, "without 2026-07-28"),
	)

	const onceFaults = "fails each fault that once passed, and keeps the old kills"
	// Each entry's run is made ahead of it.
	onceFault := func(text string, f *fault.Fault, scenario string, kind transport.Kind, version string, check string, profiles []string) TableEntry {
		work := runAhead(lifecycleVariants+" "+onceFaults+" "+text, 0, func(ctx context.Context) lifecycleRun {
			return runLifecycle(ctx, f, kind, version, scenario, profiles...)
		})
		return Entry(text, f, check, work)
	}
	DescribeTable(onceFaults,
		func(ctx SpecContext, f *fault.Fault, check string, work ahead.Work[lifecycleRun]) {
			Expect(f.Liberty).To(BeFalse())
			verdicts := work.Get().judged()
			Expect(verdicts).To(HaveKey(check))
			Expect(verdicts[check].Outcome).To(Equal(scenarios.Fail), "%s: %s", check, verdicts[check].Message)
			for id, v := range verdicts {
				if id != check {
					Expect(v.Outcome).To(BeElementOf(scenarios.Pass, scenarios.Skip), "%s: %s", id, v.Message)
				}
			}
		},
		// Before: PASS over HTTP (any 4xx passed, whatever code its body carried).
		onceFault("parse-error-wrong-code over http with sessions", server.ParseErrorWrongCode, "lifecycle-malformed-json", transport.HTTP, "2025-11-25",
			"lifecycle-malformed-json/parse-error", nil),
		onceFault("parse-error-wrong-code over stateless http", server.ParseErrorWrongCode, "lifecycle-malformed-json", transport.HTTP, "2026-07-28",
			"lifecycle-malformed-json/parse-error", nil),
		onceFault("invalid-request-invalid-params over http with sessions", server.InvalidRequestInvalidParams, "lifecycle-invalid-request", transport.HTTP, "2025-11-25",
			"lifecycle-invalid-request/invalid-request-error", nil),
		onceFault("invalid-request-invalid-params over stateless http", server.InvalidRequestInvalidParams, "lifecycle-invalid-request", transport.HTTP, "2026-07-28",
			"lifecycle-invalid-request/invalid-request-error", nil),
		onceFault("invalid-request-wrong-code over http with sessions", server.InvalidRequestWrongCode, "lifecycle-invalid-request", transport.HTTP, "2025-06-18",
			"lifecycle-invalid-request/invalid-request-error", nil),
		// Before: PASS (any error passed).
		onceFault("negotiation-wrong-error over stdio", server.NegotiationWrongError, "lifecycle-version-negotiation", transport.Stdio, "2025-11-25",
			"lifecycle-version-negotiation/unsupported-version-handled", nil),
		onceFault("negotiation-wrong-error over http", server.NegotiationWrongError, "lifecycle-version-negotiation", transport.HTTP, "2025-11-25",
			"lifecycle-version-negotiation/unsupported-version-handled", nil),
		// Before: WARN lifecycle-before-initialize/request-rejected and nothing
		// more (a silent server passed the rest).
		onceFault("silent-before-initialize over stdio", server.SilentBeforeInitialize, "lifecycle-before-initialize", transport.Stdio, "2025-11-25",
			"lifecycle-before-initialize/answered", []string{"strict-lifecycle"}),
		// Kept: the opt-in check still kills serves-before-initialize under its profile.
		onceFault("serves-before-initialize over ws, strict-lifecycle", server.ServesBeforeInitialize, "lifecycle-before-initialize", transport.WS, "2025-11-25",
			"lifecycle-before-initialize/request-rejected", []string{"strict-lifecycle"}),
		// Kept: a numeric string id echoed as a number is still not the same id.
		onceFault("id-numeric-string-unquoted over stdio", server.IdNumericStringUnquoted, "lifecycle-id-echo", transport.Stdio, "2025-11-25",
			"lifecycle-id-echo/ids-exact", nil),
		onceFault("id-numeric-string-unquoted over stateless http", server.IdNumericStringUnquoted, "lifecycle-id-echo", transport.HTTP, "2026-07-28",
			"lifecycle-id-echo/ids-exact", nil),
		onceFault("unsupported-version-wrong-code over stdio", server.UnsupportedVersionWrongCode, "lifecycle-unsupported-version", transport.Stdio, "2026-07-28",
			"lifecycle-unsupported-version/error-32022", nil),
		onceFault("answers-notifications over ws", server.AnswersNotifications, "lifecycle-notification-silent", transport.WS, "2025-11-25",
			"lifecycle-notification-silent/no-response", nil),
	)

	It("skips lifecycle-before-initialize/request-rejected unless strict-lifecycle is enabled", func(ctx SpecContext) {
		// Before: WARN by default against serves-before-initialize, which
		// behaves as the liberty does.
		v := lifecycleVerdicts(ctx, server.ServesBeforeInitialize, transport.Stdio, "2025-11-25", "lifecycle-before-initialize")
		Expect(v["lifecycle-before-initialize/request-rejected"].Outcome).To(Equal(scenarios.Skip))
		Expect(v["lifecycle-before-initialize/request-rejected"].Message).To(ContainSubstring("strict-lifecycle"))
		Expect(v["lifecycle-before-initialize/answered"].Outcome).To(Equal(scenarios.Pass))
		// The reference refuses, so it passes under the profile too.
		v = lifecycleVerdicts(ctx, nil, transport.Stdio, "2025-11-25", "lifecycle-before-initialize", "strict-lifecycle")
		Expect(v["lifecycle-before-initialize/request-rejected"].Outcome).To(Equal(scenarios.Pass))
	}, SpecTimeout(time.Minute))

	// A target that does not implement 2026-07-28 (go-sdk's stateful server
	// answers -32022 "2026-07-28 is not supported"; the stateful-only
	// variant does the same). Before: FAIL lifecycle-missing-meta/invalid-params
	// ("Expected: error -32602, Actual: error -32022") and FAIL
	// lifecycle-header-mismatch/error-32020 when these scenarios ran without
	// the handshake's verdict. Now: skipped, saying why.
	DescribeTable("does not judge what 2026-07-28 asks of a target that refuses 2026-07-28 itself",
		func(ctx SpecContext, scenario string, kind transport.Kind) {
			verdicts := lifecycleVerdicts(ctx, server.StatefulOnly, kind, "2026-07-28", scenario)
			Expect(verdicts).NotTo(BeEmpty())
			for id, v := range verdicts {
				Expect(v.Outcome).To(Equal(scenarios.Skip), "%s: %s", id, v.Message)
				Expect(v.Message).To(And(ContainSubstring("refuses 2026-07-28 itself"), ContainSubstring("-32022")), id)
			}
		},
		Entry("missing-meta over stdio", "lifecycle-missing-meta", transport.Stdio),
		Entry("missing-meta over http", "lifecycle-missing-meta", transport.HTTP),
		Entry("missing-meta over ws", "lifecycle-missing-meta", transport.WS),
		Entry("header-mismatch over http", "lifecycle-header-mismatch", transport.HTTP),
	)

	It("does not judge -32022 for a bogus version at a target that refuses 2026-07-28 itself", func(ctx SpecContext) {
		// Its server/discover is refused as well, so nothing of the
		// version is judged (go-sdk's stateful server answers discover and
		// refuses the rest: then the list request at 2026-07-28 says so).
		verdicts := lifecycleVerdicts(ctx, server.StatefulOnly, transport.Stdio, "2026-07-28", "lifecycle-unsupported-version")
		v := verdicts["lifecycle-unsupported-version/error-32022"]
		Expect(v.Outcome).To(Equal(scenarios.Skip), v.Message)
		Expect(v.Message).To(ContainSubstring("-32022"))
	}, SpecTimeout(time.Minute))
})
