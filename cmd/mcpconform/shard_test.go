package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// verdict is one check's result as a run reports it.
type verdict struct{ Scenario, Transport, Version, Check, Status string }

// resultsOf reads DIR/results.json: its verdicts in report order, the run's
// transports and versions.
func resultsOf(dir string) (verdicts []verdict, transports, versions string) {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	Expect(err).NotTo(HaveOccurred())
	var run struct {
		Transport, SpecVersion string
		Scenarios              []struct {
			ID, Transport, SpecVersion string
			Checks                     []struct{ ID, Status string }
		}
	}
	Expect(json.Unmarshal(b, &run)).To(Succeed())
	for _, s := range run.Scenarios {
		for _, c := range s.Checks {
			verdicts = append(verdicts, verdict{s.ID, s.Transport, s.SpecVersion, c.ID, c.Status})
		}
	}
	return verdicts, run.Transport, run.SpecVersion
}

// failedIn reports whether a run's verdicts hold a failure.
func failedIn(vs []verdict) bool {
	for _, v := range vs {
		if v.Status == "failed" {
			return true
		}
	}
	return false
}

var _ = Describe("shards and report merge", func() {
	// A small selection over stdio: five scenario runs to share, and the
	// handshake's and two ledger judges, which every shard runs.
	selection := []string{"server", "--reference", "--transport", "stdio", "--spec-version", "2025-11-25", "--progress", "plain",
		"--scenario", "lifecycle-initialize,lifecycle-ping,tools-list,tools-call-simple-text,tools-call-image,tasks-cancel-during-elicitation,wire-schema,wire-rules"}
	with := func(extra ...string) []string { return append(append([]string(nil), selection...), extra...) }

	// shardAndMerge runs the selection whole and as three shards, merges
	// the shards, and checks the merged verdicts against the whole run's.
	// Every run must exit with code.
	shardAndMerge := func(code int, extra ...string) (shards [3][]verdict) {
		GinkgoHelper()
		root := GinkgoT().TempDir()
		whole := filepath.Join(root, "whole")
		run(code, with(append(extra, "-o", whole)...)...)
		var dirs []string
		for k := 1; k <= 3; k++ {
			dir := filepath.Join(root, fmt.Sprintf("shard-%d", k))
			dirs = append(dirs, dir)
			s := start(exec.Command(exe, with(append(extra, "--shard", fmt.Sprintf("%d/3", k), "-o", dir)...)...))
			Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
			shards[k-1], _, _ = resultsOf(dir)
			Expect(shards[k-1]).NotTo(BeEmpty(), "shard %d/3 runs something", k)
			want := 0
			if failedIn(shards[k-1]) {
				want = 1
			}
			Expect(s.ExitCode()).To(Equal(want), "shard %d/3 exits as a run with its verdicts does\n%s", k, s.Out.Contents())
		}
		merged := filepath.Join(root, "merged")
		out := string(run(code, append([]string{"report", "merge", "-o", merged}, dirs...)...).Out.Contents())
		Expect(out).To(ContainSubstring("merged 3 reports"))
		for _, f := range []string{"junit.xml", "summary.md", "report.html"} {
			Expect(filepath.Join(merged, f)).To(BeARegularFile())
		}
		// Two of the three are part of a run; with the whole run they are
		// two runs: refused, before any report is written.
		partial := filepath.Join(root, "partial")
		s := run(2, "report", "merge", "-o", partial, dirs[0], dirs[2])
		Expect(string(s.Err.Contents())).To(ContainSubstring("shard 2/3 missing"))
		s = run(2, append([]string{"report", "merge", "-o", partial, whole}, dirs...)...)
		Expect(string(s.Err.Contents())).To(ContainSubstring("a whole run"))
		Expect(partial).NotTo(BeADirectory())
		got, gotTr, gotV := resultsOf(merged)
		want, wantTr, wantV := resultsOf(whole)
		Expect(got).To(Equal(want), "the merged shards report what the whole run reports, in its order")
		Expect([]string{gotTr, gotV}).To(Equal([]string{wantTr, wantV}))
		return shards
	}

	It("runs disjoint shards of a run whose merge reports what the whole run reports", func() {
		shards := shardAndMerge(0)
		seen := map[string]int{}
		for k, vs := range shards {
			Expect(vs).To(ContainElement(HaveField("Scenario", "lifecycle-initialize")), "shard %d runs the handshake first", k+1)
			Expect(vs[0].Scenario).To(Equal("lifecycle-initialize"))
			Expect(vs[len(vs)-1].Scenario).To(HavePrefix("wire-"), "shard %d judges its traffic last", k+1)
			for _, v := range vs {
				seen[v.Scenario+" "+v.Check]++
			}
		}
		for check, n := range seen {
			if strings.HasPrefix(check, "lifecycle-initialize ") || strings.HasPrefix(check, "wire-") {
				Expect(n).To(Equal(3), check)
			} else {
				Expect(n).To(Equal(1), "%s runs in one shard only", check)
			}
		}
	})

	It("fails the merge when one shard's ledger judge saw a breach, as the whole run fails", func() {
		// The fault leaves ttl out of the status notification of a
		// cancelled task: only tasks-cancel-during-elicitation's traffic
		// shows it, so wire-schema fails in its shard and passes in the
		// others; the merge keeps the failure.
		shards := shardAndMerge(1, "--fault", "status-notification-no-ttl")
		failing := 0
		for _, vs := range shards {
			if failedIn(vs) {
				failing++
				Expect(vs).To(ContainElement(verdict{"wire-schema", "stdio", "2025-11-25", "wire-schema/messages-valid", "failed"}))
			} else {
				Expect(vs).To(ContainElement(verdict{"wire-schema", "stdio", "2025-11-25", "wire-schema/messages-valid", "passed"}))
			}
		}
		Expect(failing).To(Equal(1))
	})

	It("does not find a ledger judge's expected failure stale in a shard whose own traffic it passes", func() {
		// Each shard's wire-schema judges only that shard's traffic: the
		// failure is in one shard, and the merge judges the entry.
		root := GinkgoT().TempDir()
		baseline := filepath.Join(root, "expected.yaml")
		Expect(os.WriteFile(baseline, []byte("server:\n  - wire-schema/messages-valid\n"), 0o644)).To(Succeed())
		var dirs []string
		for k := 1; k <= 3; k++ {
			dir := filepath.Join(root, fmt.Sprintf("shard-%d", k))
			dirs = append(dirs, dir)
			s := run(0, with("--fault", "status-notification-no-ttl", "--expected-failures", baseline, "--shard", fmt.Sprintf("%d/3", k), "-o", dir)...)
			Expect(string(s.Err.Contents())).NotTo(ContainSubstring("stale"), "shard %d/3", k)
		}
		run(0, append([]string{"report", "merge", "--expected-failures", baseline, "-o", filepath.Join(root, "merged")}, dirs...)...)
	})

	Describe("bad input", func() {
		var root, shard string
		BeforeEach(func() {
			root = GinkgoT().TempDir()
			shard = filepath.Join(root, "shard")
			Expect(os.MkdirAll(shard, 0o755)).To(Succeed())
		})

		oneLine := func(code int, want string, args ...string) {
			GinkgoHelper()
			s := run(code, args...)
			stderr := strings.TrimSpace(string(s.Err.Contents()))
			Expect(strings.Split(stderr, "\n")).To(HaveLen(1), "one line: %q", stderr)
			Expect(stderr).To(HavePrefix("mcpconform: "))
			Expect(stderr).To(ContainSubstring(want))
		}

		It("refuses a malformed --shard before anything runs", func() {
			for _, bad := range []string{"0/3", "4/3", "a/b", "3"} {
				out := filepath.Join(root, "never")
				oneLine(2, `"--shard"`, with("--shard", bad, "-o", out)...)
				Expect(out).NotTo(BeADirectory(), "--shard %s: nothing ran", bad)
			}
			oneLine(2, "at most 5", with("--shard", "6/6", "-o", filepath.Join(root, "x"))...)
		})

		It("refuses a merge of nothing, of a missing directory, of unreadable JSON and of another format version", func() {
			oneLine(2, "name the shards' report directories", "report", "merge")
			oneLine(2, "no results.json", "report", "merge", "-o", filepath.Join(root, "out"), filepath.Join(root, "missing"))
			Expect(os.WriteFile(filepath.Join(shard, "results.json"), []byte("{not json"), 0o644)).To(Succeed())
			oneLine(2, "decoding JSON", "report", "merge", "-o", filepath.Join(root, "out"), shard)
			Expect(os.WriteFile(filepath.Join(shard, "results.json"), []byte(`{"formatVersion": 99}`), 0o644)).To(Succeed())
			oneLine(2, "formatVersion 99", "report", "merge", "-o", filepath.Join(root, "out"), shard)
		})

		It("refuses runs of two sides, and a scenario two inputs judged differently", func() {
			server1, server2, client := filepath.Join(root, "s1"), filepath.Join(root, "s2"), filepath.Join(root, "c")
			run(0, with("-o", server1)...)
			run(0, with("-o", server2)...)
			run(0, "client", "--reference", "--transport", "stdio", "--spec-version", "2025-11-25", "--progress", "plain",
				"--scenario", "client-initialize", "-o", client)
			oneLine(2, "one side", "report", "merge", "-o", filepath.Join(root, "out"), server1, client)
			// Two whole runs: the same scenarios, judged twice (their
			// timings differ).
			oneLine(2, "with different results", "report", "merge", "-o", filepath.Join(root, "out"), server1, server2)
			// One report given twice is the same run.
			run(0, "report", "merge", "-o", filepath.Join(root, "out"), server1, server1)
		})
	})
})
