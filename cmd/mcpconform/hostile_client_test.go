package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// Hostile clients: internal/hostileclient is a client under test that
// misbehaves in one way per mode. Each entry judges it with `mcpconform
// client` and states the verdict: the exit code, the check that fails and
// the words of its message, the client's own output kept in the report, and
// no process of it left alive afterwards.

var (
	hostileClientBin   string
	hostileClientBuild sync.Once
	hostileClientErr   error
)

type hostileClientCase struct {
	transport string
	mode      string
	args      []string // more mcpconform flags
	exit      int
	fails     string // a check that must be failed
	words     string // in that failure's message
	report    string // text that must appear somewhere in results.json (the client's output)
}

var _ = Describe("hostile clients", func() {
	DescribeTable("get a clear verdict, keep the client's output and leave no process",
		func(c hostileClientCase) {
			hostileClientBuild.Do(func() {
				hostileClientBin, hostileClientErr = gexec.Build("github.com/mcpconform/mcpconform/internal/hostileclient")
			})
			Expect(hostileClientErr).NotTo(HaveOccurred())
			dir := filepath.Join(GinkgoT().TempDir(), "out")
			tag := newTag()
			args := append([]string{"client", "-o", dir, "--transport", c.transport, "--parallel", "1", "--response-timeout", "1s"}, c.args...)
			args = append(args, "--", hostileClientBin, "--mode", c.mode, "--tag", tag)
			s := start(exec.Command(exe, args...))
			Eventually(s).WithTimeout(hostileDeadline).Should(gexec.Exit(), "mcpconform did not end")
			Expect(s.ExitCode()).To(Equal(c.exit), "stdout:\n%s\nstderr:\n%s", s.Out.Contents(), s.Err.Contents())

			r := readResults(dir)
			if c.fails != "" {
				msg, ok := r.failed(c.fails)
				Expect(ok).To(BeTrue(), "%s is failed; failures: %v", c.fails, r.messages("failed", "error"))
				Expect(msg).To(MatchRegexp(c.words))
			}
			raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(raw)).To(ContainSubstring(c.report), "the client's output is in the report")
			for _, f := range []string{"junit.xml", "summary.md", "report.html"} {
				Expect(filepath.Join(dir, f)).To(BeARegularFile())
			}
			Eventually(func() []int { return tagged(tag, 0) }).WithTimeout(leftWithin).Should(BeEmpty(), "no hostile client process is left")
		},
		Entry("a client that crashes before connecting (stdio)", hostileClientCase{transport: "stdio", mode: "crash",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `exited with code 3`, report: "boom, crashing before connecting"}),
		Entry("a client that crashes before connecting, at 2026-07-28 (http)", hostileClientCase{transport: "http", mode: "crash",
			args: []string{"--spec-version", "2026-07-28"}, exit: 1,
			fails: "client-mrtr-request-state/new-id", words: `exited with code 3`, report: "boom, crashing before connecting"}),
		Entry("a client that hangs without connecting (http)", hostileClientCase{transport: "http", mode: "hang",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `sent nothing more for 1s`, report: "hanging without connecting"}),
		Entry("a client that initializes and then hangs (stdio)", hostileClientCase{transport: "stdio", mode: "hang-after-init",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 0,
			report: "initialized; now hanging"}),
		Entry("a client that writes garbage (stdio)", hostileClientCase{transport: "stdio", mode: "garbage",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `exited with code 0`, report: "wrote garbage, exiting 0"}),
		Entry("a client whose MRTR loop has no bound (http)", hostileClientCase{transport: "http", mode: "mrtr-endless",
			args: []string{"--spec-version", "2026-07-28", "--scenario", "client-mrtr-max-rounds"}, exit: 1,
			fails: "client-mrtr-max-rounds/stops", words: `still retrying after 100 retries, 10 times the limit`, report: "looping on input_required without a bound"}),
		Entry("a client whose child leaves its session (ws)", hostileClientCase{transport: "ws", mode: "setsid",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `sent nothing more`, report: "in a new session"}),
	)

	It("refuses an unknown transport in a --transport list, before anything runs", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "out")
		s := run(2, "client", "-o", dir, "--transport", "stdio,carrier-pigeon", "--reference")
		Expect(string(s.Err.Contents())).To(ContainSubstring("--transport"))
		Expect(filepath.Join(dir, "results.json")).NotTo(BeAnExistingFile())
	})

	It("refuses a client command that does not exist, before anything runs", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "out")
		s := run(2, "client", "-o", dir, "--", "/nonexistent/client-binary")
		Expect(strings.ToLower(string(s.Err.Contents()))).To(ContainSubstring("not found"))
		Expect(filepath.Join(dir, "results.json")).NotTo(BeAnExistingFile())
	})
})
