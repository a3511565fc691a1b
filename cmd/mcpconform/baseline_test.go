package main_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("expected failures (baselines)", func() {
	// pingRun judges lifecycle-ping over stdio and HTTP at 2025-11-25; the
	// fault ping-error fails its one check on both.
	pingArgs := func(out string, extra ...string) []string {
		return append([]string{"server", "--reference", "--transport", "stdio,http", "--spec-version", "2025-11-25",
			"--scenario", "lifecycle-ping", "-o", out}, extra...)
	}
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	write := func(name, text string) string {
		GinkgoHelper()
		path := filepath.Join(dir, name)
		Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
		return path
	}
	read := func(path string) string {
		GinkgoHelper()
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		return string(b)
	}

	It("round trip: a failing run, its baseline, the same failure expected (exit 0 in every report), then fixed (exit 1, stale)", func() {
		failing := filepath.Join(dir, "failing")
		run(1, pingArgs(failing, "--fault", "ping-error")...)

		baseline := filepath.Join(dir, "expected.yaml")
		s := run(0, "baseline", "-o", baseline, failing)
		Expect(string(s.Out.Contents())).To(ContainSubstring("1 entries from 1 runs written to " + baseline))
		text := read(baseline)
		Expect(text).To(HavePrefix("# Expected failures for mcpconform --expected-failures, written by 'mcpconform baseline'"))
		Expect(text).To(ContainSubstring(filepath.Join(failing, "results.json")))
		Expect(text).To(HaveSuffix("server:\n  - lifecycle-ping/empty-result\n"), "failed on both transports: no limit")
		line := strings.Count(text[:strings.Index(text, "  - lifecycle-ping")], "\n") + 1

		expected := filepath.Join(dir, "expected")
		s = run(0, pingArgs(expected, "--fault", "ping-error", "--expected-failures", baseline)...)
		Expect(string(s.Out.Contents())).To(ContainSubstring("2 failed checks are expected failures (listed in " + baseline + ")"))
		Expect(string(s.Out.Contents())).To(ContainSubstring("2 checks: 0 passed, 0 failed (+2 expected), 0 warnings"))
		// The progress lines, printed before the baseline is applied to the
		// run, already say expected.
		Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^XFAIL server \S+ \S+ +lifecycle-ping `))
		Expect(string(s.Out.Contents())).NotTo(MatchRegexp(`(?m)^FAIL `))

		var results struct {
			Outcome string
			Counts  map[string]int
			// Only what is asserted.
			Scenarios []struct {
				Transport string
				Checks    []struct {
					ID, Status, ExpectedBy string
					Expected               bool
				}
			}
		}
		Expect(json.Unmarshal([]byte(read(filepath.Join(expected, "results.json"))), &results)).To(Succeed())
		Expect(results.Outcome).To(Equal("expected"))
		Expect(results.Counts).To(HaveKeyWithValue("failed", 0))
		Expect(results.Counts).To(HaveKeyWithValue("expected", 2))
		Expect(results.Scenarios).To(HaveLen(2))
		for _, sc := range results.Scenarios {
			Expect(sc.Checks).To(HaveLen(1))
			Expect(sc.Checks[0].Status).To(Equal("failed"))
			Expect(sc.Checks[0].Expected).To(BeTrue())
			Expect(sc.Checks[0].ExpectedBy).To(Equal("lifecycle-ping/empty-result (" + baseline + " line " + strconv.Itoa(line) + ")"))
		}

		var junit junitDoc
		Expect(xml.Unmarshal([]byte(read(filepath.Join(expected, "junit.xml"))), &junit)).To(Succeed())
		Expect(junit.Failures).To(Equal(0))
		Expect(junit.Skipped).To(Equal(2))
		Expect(read(filepath.Join(expected, "junit.xml"))).To(ContainSubstring(`<skipped message="expected failure (baseline): Expected: result {}"></skipped>`))
		Expect(read(filepath.Join(expected, "summary.md"))).To(ContainSubstring("## Expected failures"))
		Expect(read(filepath.Join(expected, "summary.md"))).To(ContainSubstring("| XFAIL | MUST | `lifecycle-ping/empty-result` |"))
		Expect(read(filepath.Join(expected, "report.html"))).To(ContainSubstring(`<td class="st-expected">XFAIL</td>`))

		// The failure is gone: the entry is stale and says what to remove from where.
		s = run(1, pingArgs(filepath.Join(dir, "fixed"), "--expected-failures", baseline)...)
		Expect(string(s.Err.Contents())).To(ContainSubstring("mcpconform: stale expected failure lifecycle-ping/empty-result (" +
			baseline + " line " + strconv.Itoa(line) + "): its checks ran and none failed; remove it from " + baseline + "\n"))
		Expect(string(s.Err.Contents())).To(ContainSubstring("mcpconform: the baseline is stale (1 entry): remove what passes now from " + baseline))
	})

	It("still fails a failure no entry lists: the entry's transport limit leaves stdio out", func() {
		baseline := write("b.yaml", "server:\n  - id: lifecycle-ping/empty-result\n    transport: http\n")
		s := run(1, pingArgs(filepath.Join(dir, "out"), "--fault", "ping-error", "--expected-failures", baseline)...)
		Expect(string(s.Out.Contents())).To(ContainSubstring("1 failed check is an expected failure (listed in " + baseline + ")"))
		Expect(string(s.Out.Contents())).To(ContainSubstring("2 checks: 0 passed, 1 failed (+1 expected)"))
		var junit junitDoc
		Expect(xml.Unmarshal([]byte(read(filepath.Join(dir, "out", "junit.xml"))), &junit)).To(Succeed())
		Expect(junit.Failures).To(Equal(1))
		Expect(junit.Skipped).To(Equal(1))
	})

	It("does not find entries stale whose checks this run did not judge (another scenario, another version)", func() {
		baseline := write("b.yaml", "server:\n  - tools-list\n  - id: lifecycle-ping/empty-result\n    specVersion: 2025-06-18\nclient:\n  - client-initialize\n")
		s := run(0, pingArgs(filepath.Join(dir, "out"), "--expected-failures", baseline)...)
		Expect(string(s.Err.Contents())).NotTo(ContainSubstring("stale"))
	})

	It("leaves staleness to the merge when the entry also covers another shard's runs", func() {
		// Each shard judges lifecycle-ping on one transport; the entry covers both.
		baseline := write("b.yaml", "server:\n  - lifecycle-ping/empty-result\n")
		var shards []string
		for _, sh := range []string{"1/2", "2/2"} {
			out := filepath.Join(dir, "shard"+sh[:1])
			s := run(0, pingArgs(out, "--shard", sh, "--expected-failures", baseline)...)
			Expect(string(s.Err.Contents())).NotTo(ContainSubstring("stale"))
			shards = append(shards, out)
		}
		s := run(1, append([]string{"report", "merge", "--expected-failures", baseline, "-o", filepath.Join(dir, "merged")}, shards...)...)
		Expect(string(s.Err.Contents())).To(ContainSubstring("mcpconform: stale expected failure lifecycle-ping/empty-result (" + baseline + " line 2)"))
		// Unsharded, the same run finds it stale at once.
		run(1, pingArgs(filepath.Join(dir, "whole"), "--expected-failures", baseline)...)
	})

	DescribeTable("refuses a bad baseline with one line and exit 2, before anything runs",
		func(text string, want string) {
			baseline := filepath.Join(dir, "missing.yaml")
			if text != "" {
				baseline = write("b.yaml", text)
			}
			out := filepath.Join(dir, "out")
			s := run(2, pingArgs(out, "--expected-failures", baseline)...)
			stderr := strings.ReplaceAll(string(s.Err.Contents()), baseline, "FILE")
			Expect(stderr).To(HavePrefix("mcpconform: --expected-failures: "))
			Expect(strings.Count(stderr, "\n")).To(Equal(1), stderr)
			Expect(stderr).To(ContainSubstring(want))
			Expect(s.Out.Contents()).To(BeEmpty(), "nothing ran")
			Expect(out).NotTo(BeADirectory())
		},
		Entry("unreadable", "", "no such file or directory"),
		Entry("malformed YAML", "server: [lifecycle-ping\n", "FILE: not valid YAML"),
		Entry("malformed YAML on a later line", "server:\n  - lifecycle-ping\n  - tools-list\n  -: [\n", "FILE: not valid YAML: line 4: "),
		Entry("an unknown scenario", "server:\n  - lifecycle-ping\n  - lifecycle-pong\n", `unknown scenario or check id "lifecycle-pong" (did you mean "lifecycle-ping"?) (see 'mcpconform list') in FILE line 3`),
		Entry("an unknown check", "server:\n  - lifecycle-ping/empty\n", `unknown scenario or check id "lifecycle-ping/empty" (see 'mcpconform list') in FILE line 2`),
		Entry("a scenario of the other side", "client:\n  - lifecycle-ping\n", `"lifecycle-ping" judges a server but is listed under client: in FILE line 2`),
		Entry("an unknown transport", "server:\n  - {id: lifecycle-ping, transport: tcp}\n", `"lifecycle-ping": transport: `),
		Entry("a version the scenario never runs at", "server:\n  - {id: lifecycle-ping, specVersion: 2026-07-28}\n", `"lifecycle-ping" never runs at 2026-07-28`),
		Entry("a misspelt key", "server:\n  - id: lifecycle-ping\n    transports: stdio\n", `FILE line 2: unknown key "transports"`),
	)

	It("names the line of a syntax error in --config, before anything runs", func() {
		cfg := write("mcpconform.yaml", "fixtures:\n  test_simple_text:\n    tool: echo\n\t  arguments: {}\n")
		s := run(2, pingArgs(filepath.Join(dir, "out"), "--config", cfg)...)
		Expect(string(s.Err.Contents())).To(Equal("mcpconform: --config " + cfg + ": not valid YAML: line 4: found a tab character that violates indentation\n"))
	})

	It("reads a scenario by the official suite's name as the mcpconform scenario that covers it", func() {
		baseline := write("b.yaml", "client:\n  - initialize\n")
		s := run(1, "client", "--reference", "--transport", "stdio", "--spec-version", "2025-11-25", "--scenario", "client-initialize",
			"--expected-failures", baseline, "-o", filepath.Join(dir, "out"))
		Expect(string(s.Err.Contents())).To(ContainSubstring("mcpconform: stale expected failure client-initialize (" + baseline + " line 2)"))
		s = run(2, "client", "--reference", "--expected-failures", write("c.yaml", "client:\n  - initialize:some-check\n"), "-o", filepath.Join(dir, "out2"))
		Expect(string(s.Err.Contents())).To(ContainSubstring("initialize is the official suite's name of client-initialize, whose check ids differ"))
	})

	It("refuses a bad baseline on the client side too", func() {
		baseline := write("b.yaml", "client:\n  - client-nonexistent\n")
		s := run(2, "client", "--reference", "--expected-failures", baseline, "-o", filepath.Join(dir, "out"))
		Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown scenario or check id "client-nonexistent"`))
	})

	Describe("mcpconform baseline", func() {
		It("writes to stdout, and an empty list for a side judged without failures", func() {
			passing := filepath.Join(dir, "passing")
			run(0, pingArgs(passing)...)
			s := run(0, "baseline", filepath.Join(passing, "results.json"))
			Expect(string(s.Out.Contents())).To(HaveSuffix("\nserver: []\n"))
		})

		DescribeTable("refuses bad input with exit 2",
			func(args func() []string, want string) {
				s := run(2, append([]string{"baseline"}, args()...)...)
				Expect(string(s.Err.Contents())).To(HavePrefix("mcpconform: baseline: "))
				Expect(string(s.Err.Contents())).To(ContainSubstring(want))
			},
			Entry("no input", func() []string { return nil }, "name at least one results.json"),
			Entry("a missing file", func() []string { return []string{filepath.Join(dir, "nope.json")} }, "no such file"),
			Entry("a directory without results", func() []string { return []string{dir} }, "no results.json under"),
			Entry("not a results.json", func() []string { return []string{write("x.json", "{}")} }, "unsupported formatVersion"),
		)
	})
})
