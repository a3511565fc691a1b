package main_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// hangingTarget is a stdio server that never answers, ignores SIGINT,
// SIGTERM and the end of its stdin, and starts a child that leaves its
// process group. It writes its own pid, then the child's, to $PIDS.
const hangingTarget = `#!/bin/sh
trap '' INT TERM
echo $$ >> "$PIDS"
setsid sleep 600 & echo $! >> "$PIDS"
exec sleep 600
`

// gone reports whether pid no longer runs (a zombie left to a parent that
// does not reap counts as gone).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// interruptedRun starts mcpconform against hangingTarget, waits until the
// target and its child run, and returns the session, the report directory
// and their pids (killed by pid at the end of the spec, should they live).
func interruptedRun(extra ...string) (*gexec.Session, string, []int) {
	GinkgoHelper()
	tmp := GinkgoT().TempDir()
	script := filepath.Join(tmp, "hang.sh")
	Expect(os.WriteFile(script, []byte(hangingTarget), 0o755)).To(Succeed())
	pidFile := filepath.Join(tmp, "pids")
	dir := filepath.Join(tmp, "reports")
	args := append([]string{"server", "--spec-version", "2025-11-25", "--response-timeout", "60s", "-o", dir}, extra...)
	cmd := exec.Command(exe, append(args, "--stdio", "--", script)...)
	cmd.Env = append(os.Environ(), "PIDS="+pidFile)
	s := start(cmd)
	var pids []int
	Eventually(func() int {
		b, _ := os.ReadFile(pidFile)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		return len(pids)
	}).WithTimeout(exitWithin).Should(Equal(2), "the target and its child are running")
	DeferCleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return s, dir, pids
}

// expectInterruptedReports checks every report says the run was interrupted
// by sig, with the scenario in flight and the unrun ones as not judged.
func expectInterruptedReports(dir, sig string) []string {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	Expect(err).NotTo(HaveOccurred(), "results.json is written")
	var doc struct {
		Interrupted   bool   `json:"interrupted"`
		InterruptedBy string `json:"interruptedBy"`
		Outcome       string `json:"outcome"`
		Scenarios     []struct {
			ID     string `json:"id"`
			Checks []struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"checks"`
		} `json:"scenarios"`
	}
	Expect(json.Unmarshal(b, &doc)).To(Succeed())
	Expect(doc.Interrupted).To(BeTrue())
	Expect(doc.InterruptedBy).To(Equal(sig))
	Expect(doc.Outcome).To(Equal("error"))
	Expect(len(doc.Scenarios)).To(BeNumerically(">", 1), "the unrun scenarios are reported too")
	Expect(doc.Scenarios[0].ID).To(Equal("lifecycle-initialize"), "the scenario in flight")
	for _, sc := range doc.Scenarios {
		Expect(sc.Checks).NotTo(BeEmpty())
		for _, c := range sc.Checks {
			Expect(c.Status).To(Equal("error"), "%s: nothing was judged", sc.ID)
			Expect(c.Message).To(Equal("interrupted by "+sig+" before this check was judged"), sc.ID)
		}
	}

	junit := readJUnit(dir)
	Expect(junit.Errors).To(Equal(junit.Tests), "every check is counted as an error")
	raw, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).To(ContainSubstring(`<property name="interrupted" value="` + sig + `">`))
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	Expect(err).NotTo(HaveOccurred())
	Expect(string(md)).To(ContainSubstring("**INTERRUPTED.** Interrupted by " + sig))
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	Expect(err).NotTo(HaveOccurred())
	Expect(string(html)).To(ContainSubstring(`<p class="interrupted" role="alert"><b>INTERRUPTED.</b> Interrupted by ` + sig))
	var ids []string
	for _, sc := range doc.Scenarios {
		ids = append(ids, sc.ID)
	}
	return ids
}

var _ = Describe("an interrupted run", func() {
	It("still stops the target and writes the report when SIGINT comes twice, and exits 3", func() {
		s, dir, pids := interruptedRun()
		Expect(s.Command.Process.Signal(syscall.SIGINT)).To(Succeed())
		Expect(s.Command.Process.Signal(syscall.SIGINT)).To(Succeed())
		Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
		Expect(s.ExitCode()).To(Equal(3), "stderr:\n%s", s.Err.Contents())
		for _, pid := range pids {
			Eventually(func() bool { return gone(pid) }).WithTimeout(10*time.Second).Should(BeTrue(), "process %d is stopped", pid)
		}
		expectInterruptedReports(dir, "SIGINT")
	})

	It("honours SIGTERM: stops the target, writes the report and exits 3", func() {
		s, dir, pids := interruptedRun("--label-filter", "scenario: containsAny {lifecycle-initialize, lifecycle-ping}")
		sent := time.Now()
		Expect(s.Command.Process.Signal(syscall.SIGTERM)).To(Succeed())
		Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
		// Measured, not asserted: speed belongs to benchmarks.
		GinkgoWriter.Printf("SIGTERM to exit: %s\n", time.Since(sent))
		AddReportEntry("SIGTERM to exit", time.Since(sent).String())
		Expect(s.ExitCode()).To(Equal(3), "stderr:\n%s", s.Err.Contents())
		for _, pid := range pids {
			Eventually(func() bool { return gone(pid) }).WithTimeout(10*time.Second).Should(BeTrue(), "process %d is stopped", pid)
		}
		Expect(expectInterruptedReports(dir, "SIGTERM")).To(Equal([]string{"lifecycle-initialize", "lifecycle-ping"}),
			"only what the label filter selected is reported as not judged")
	})

	It("handles SIGHUP as SIGTERM: stops the target and its setsid child, writes the report and exits 3", func() {
		s, dir, pids := interruptedRun("--label-filter", "scenario: containsAny {lifecycle-initialize, lifecycle-ping}")
		Expect(s.Command.Process.Signal(syscall.SIGHUP)).To(Succeed())
		Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
		Expect(s.ExitCode()).To(Equal(3), "stderr:\n%s", s.Err.Contents())
		Expect(string(s.Err.Contents())).To(ContainSubstring("SIGHUP: stopping the target and writing the report"))
		Expect(string(s.Err.Contents())).NotTo(ContainSubstring("again"), "the SIGTERM that tells Ginkgo is not a second signal")
		for _, pid := range pids { // the target, and the child it started with setsid
			Eventually(func() bool { return gone(pid) }).WithTimeout(10*time.Second).Should(BeTrue(), "process %d is stopped", pid)
		}
		Expect(expectInterruptedReports(dir, "SIGHUP")).To(Equal([]string{"lifecycle-initialize", "lifecycle-ping"}))
	})
})

var _ = Describe("-o", func() {
	It("is checked before anything runs: a path under a regular file exits 2 at once, in one line", func() {
		tmp := GinkgoT().TempDir()
		file := filepath.Join(tmp, "file")
		Expect(os.WriteFile(file, []byte("x"), 0o644)).To(Succeed())
		marker := filepath.Join(tmp, "target-started")
		script := filepath.Join(tmp, "target.sh")
		Expect(os.WriteFile(script, []byte("#!/bin/sh\ntouch \"$MARKER\"\nexec sleep 600\n"), 0o755)).To(Succeed())
		cmd := exec.Command(exe, "server", "-o", filepath.Join(file, "reports"), "--stdio", "--", script)
		cmd.Env = append(os.Environ(), "MARKER="+marker)
		s := start(cmd)
		Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit(2))
		errText := string(s.Err.Contents())
		Expect(strings.Split(strings.TrimSpace(errText), "\n")).To(HaveLen(1), "one line: %s", errText)
		Expect(errText).To(ContainSubstring("-o: cannot create the report directory " + filepath.Join(file, "reports")))
		Expect(errText).To(ContainSubstring("not a directory"))
		Expect(string(s.Out.Contents())).NotTo(ContainSubstring("judging"), "nothing ran")
		Expect(marker).NotTo(BeAnExistingFile(), "the target was never started")
	})

	It("is created when missing, and left without the file that checked it", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "a", "b")
		run(2, "server", "--scenario", "no-such-scenario", "-o", dir, "--url", "http://127.0.0.1:1/mcp")
		Expect(dir).NotTo(BeADirectory(), "a usage error is found before -o is touched")
		run(2, "server", "--label-filter", "scenario: containsAny nothing-matches", "-o", dir, "--url", "http://127.0.0.1:1/mcp")
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred(), "the directory is created")
		for _, e := range entries {
			Expect(e.Name()).NotTo(HavePrefix(".mcpconform-write-check"))
		}
	})
})
