package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/internal/ahead"
)

// Hostile clients: internal/hostileclient is a client under test that
// misbehaves in one way per mode. Each entry judges it with `mcpconform
// client` and states the verdict: the exit code, the check that fails and
// the words of its message, the client's own output kept in the report, and
// no process of it left alive afterwards.

// hostileClientBinary builds the hostile client once (for the first run
// that needs it).
var hostileClientBinary = sync.OnceValues(func() (string, error) {
	return gexec.Build("github.com/mcpconform/mcpconform/internal/hostileclient")
})

type hostileClientCase struct {
	transport string
	mode      string
	args      []string // more mcpconform flags
	exit      int
	fails     string // a check that must be failed
	words     string // in that failure's message
	report    string // text that must appear somewhere in results.json (the client's output)
}

// clientTag is the --tag of the hostile client of a run made in dir.
func clientTag(dir string) string { return "hostile-client-" + filepath.Base(dir) }

var _ = Describe("hostile clients", func() {
	const table = "hostile clients get a clear verdict, keep the client's output and leave no process "
	// Each entry's run is made ahead of its turn: they mostly wait.
	entry := func(name string, c hostileClientCase) TableEntry {
		work := runAhead(table+name, 1,
			func(string) error { _, err := hostileClientBinary(); return err },
			func(d string) []string {
				bin, _ := hostileClientBinary()
				args := append([]string{"client", "-o", filepath.Join(d, "out"), "--transport", c.transport, "--parallel", "1", "--response-timeout", "1s"}, c.args...)
				return append(args, "--", bin, "--mode", c.mode, "--tag", clientTag(d))
			})
		return Entry(name, c, work)
	}
	DescribeTable("get a clear verdict, keep the client's output and leave no process",
		func(c hostileClientCase, work ahead.Work[*ranAhead]) {
			made := ranWith(work, c.exit)
			dir, tag := made.out(), clientTag(made.dir)
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
		entry("a client that crashes before connecting (stdio)", hostileClientCase{transport: "stdio", mode: "crash",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `exited with code 3`, report: "boom, crashing before connecting"}),
		entry("a client that crashes before connecting, at 2026-07-28 (http)", hostileClientCase{transport: "http", mode: "crash",
			args: []string{"--spec-version", "2026-07-28"}, exit: 1,
			fails: "client-mrtr-request-state/new-id", words: `exited with code 3`, report: "boom, crashing before connecting"}),
		entry("a client that hangs without connecting (http)", hostileClientCase{transport: "http", mode: "hang",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `sent nothing more for 1s`, report: "hanging without connecting"}),
		entry("a client that initializes and then hangs (stdio)", hostileClientCase{transport: "stdio", mode: "hang-after-init",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 0,
			report: "initialized; now hanging"}),
		entry("a client that writes garbage (stdio)", hostileClientCase{transport: "stdio", mode: "garbage",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `exited with code 0`, report: "wrote garbage, exiting 0"}),
		// A line over the relay's 4 MiB is skipped, and the line after it
		// read: the handshake that follows is judged.
		entry("a client that sends a line over 4 MiB, then initializes (stdio)", hostileClientCase{transport: "stdio", mode: "long-line",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 0,
			report: "relay: a line of 5242967 bytes the client sent, over the limit of 4194304 bytes of a relayed line; skipped unread"}),
		// The verdict names the skipped line, not only the client's exit.
		entry("a client that sends a line over 4 MiB, then exits (stdio)", hostileClientCase{transport: "stdio", mode: "long-line-exit",
			args: []string{"--spec-version", "2025-11-25", "--scenario", "client-initialize"}, exit: 1,
			fails: "client-initialize/initialize-first", words: `mcpconform skipped a line of 5242967 bytes the client sent, over the limit of 4194304 bytes of a relayed line .*then the client exited with code 0`,
			report: "sent a long line, exiting 0"}),
		entry("a client whose MRTR loop has no bound (http)", hostileClientCase{transport: "http", mode: "mrtr-endless",
			args: []string{"--spec-version", "2026-07-28", "--scenario", "client-mrtr-max-rounds"}, exit: 1,
			fails: "client-mrtr-max-rounds/stops", words: `still retrying after 100 retries, 10 times the limit`, report: "looping on input_required without a bound"}),
		entry("a client whose child leaves its session (ws)", hostileClientCase{transport: "ws", mode: "setsid",
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
