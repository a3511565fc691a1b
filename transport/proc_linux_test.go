package transport_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/transport"
)

// escapingTarget is a target whose children leave its process group in
// every way a shell can: setsid, a parent that exits at once (an orphan), a
// setsid'd shell that ignores SIGTERM and whose child clears its
// environment, a plain double fork, and an orphan launched in turn (by a
// nested launch, its token after ours). Each writes its pid to $PIDS; the
// target itself then runs ("hang") or exits ("exit").
const escapingTarget = `
setsid sleep 300 & echo $! >> "$PIDS"
sh -c 'setsid sleep 301 & echo $! >> "$PIDS"' &
setsid sh -c 'trap "" TERM; env -i sleep 302 & echo $! >> "$PIDS"; echo $$ >> "$PIDS"; wait' &
( ( exec sleep 303 ) & echo $! >> "$PIDS" ) &
MCPCONFORM_LAUNCH="$MCPCONFORM_LAUNCH,inner" sh -c 'setsid sleep 305 & echo $! >> "$PIDS"' &
`

const escapingPids = 6

// startEscaping writes the script and returns its path, the pid file and a
// function reading the pids once all are written.
func startEscaping(tail string) (script, pidFile string, pids func() []int) {
	dir := GinkgoT().TempDir()
	script = filepath.Join(dir, "target.sh")
	Expect(os.WriteFile(script, []byte("#!/bin/sh\n"+escapingTarget+tail+"\n"), 0o755)).To(Succeed())
	pidFile = filepath.Join(dir, "pids")
	read := func() []int {
		b, _ := os.ReadFile(pidFile)
		var out []int
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	pids = func() []int {
		GinkgoHelper()
		Eventually(read).WithTimeout(10*time.Second).Should(HaveLen(escapingPids), "the target's children wrote their pids")
		got := read()
		// Should the code under test leave them, the test does not.
		DeferCleanup(func() {
			for _, pid := range got {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		return got
	}
	return script, pidFile, pids
}

// running lists the pids that still exist (zombies included: as their
// subreaper, the code under test must reap the ones it adopted).
func running(pids []int) func() []int {
	return func() []int {
		var out []int
		for _, pid := range pids {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
				GinkgoWriter.Printf("still there: %s", b)
				out = append(out, pid)
			}
		}
		return out
	}
}

var _ = Describe("Descendants that leave the process group", func() {
	It("are killed and reaped when a stdio target is closed", func() {
		script, pidFile, pids := startEscaping("exec sleep 600")
		c, err := transport.DialStdio(context.Background(), []string{script},
			transport.StdioOptions{Env: []string{"PIDS=" + pidFile}, StdinCloseWait: 100 * time.Millisecond, TermWait: time.Second})
		Expect(err).NotTo(HaveOccurred())
		escaped := pids()
		Expect(running(escaped)()).To(HaveLen(escapingPids))
		_ = c.Close()
		Expect(running(escaped)()).To(BeEmpty(), "every descendant is gone once Close returns")
	})

	It("are killed and reaped when a stdio target exits by itself", func() {
		script, pidFile, pids := startEscaping(`while [ "$(wc -l < "$PIDS")" -lt 6 ]; do sleep 0.05; done; exit 0`)
		c, err := transport.DialStdio(context.Background(), []string{script}, transport.StdioOptions{Env: []string{"PIDS=" + pidFile}})
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		escaped := pids()
		Eventually(c.Exited()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(running(escaped)()).To(BeEmpty(), "every descendant is gone once the exit is reported")
	})

	It("are killed and reaped when a launched client is stopped", func() {
		script, pidFile, pids := startEscaping("exec sleep 600")
		p, err := transport.Launch([]string{script}, transport.LaunchOptions{Env: []string{"PIDS=" + pidFile}})
		Expect(err).NotTo(HaveOccurred())
		escaped := pids()
		p.Stop(time.Second)
		Expect(p.Exited()).To(BeClosed())
		Expect(running(escaped)()).To(BeEmpty(), "every descendant is gone once Stop returns")
	})

	It("are killed by StopAll, with their leaders, when nobody closed them", Serial, func() {
		script, pidFile, pids := startEscaping("trap '' TERM; sleep 600 & wait")
		c, err := transport.DialStdio(context.Background(), []string{script}, transport.StdioOptions{Env: []string{"PIDS=" + pidFile}})
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		escaped := append(pids(), c.Pid())
		Expect(transport.StopAll(200 * time.Millisecond)).To(BeNumerically(">=", 1))
		Expect(c.Exited()).To(BeClosed())
		Expect(running(escaped)()).To(BeEmpty())
	})

	It("cannot hold Stop of a launched client by keeping its output open, even when nothing finds them", func() {
		// This child clears its environment, leaves the group and loses its
		// parent at once: no search finds it, but it holds the output pipe.
		dir := GinkgoT().TempDir()
		pidFile := filepath.Join(dir, "pid")
		p, err := transport.Launch([]string{"sh", "-c", `sh -c 'setsid env -i sleep 304 & echo $! > "$PIDS"'; exec sleep 600`},
			transport.LaunchOptions{Env: []string{"PIDS=" + pidFile}})
		Expect(err).NotTo(HaveOccurred())
		var pid int
		Eventually(func() error {
			b, err := os.ReadFile(pidFile)
			if err == nil {
				pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			return err
		}).WithTimeout(10 * time.Second).Should(Succeed())
		DeferCleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			p.Stop(time.Second)
		}()
		Eventually(stopped).WithTimeout(30*time.Second).Should(BeClosed(), "Stop returns while the child still runs")
	})

	It("carry the launch token in their environment, after those of the launches we belong to", func() {
		dir := GinkgoT().TempDir()
		out := filepath.Join(dir, "env")
		GinkgoT().Setenv(transport.LaunchEnv, "outer")
		p, err := transport.Launch([]string{"sh", "-c", `printf %s "$` + transport.LaunchEnv + `" > "$OUT"`},
			transport.LaunchOptions{Env: []string{"OUT=" + out, transport.LaunchEnv + "=forged"}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(p.Exited()).WithTimeout(10 * time.Second).Should(BeClosed())
		b, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(MatchRegexp(`^outer,[0-9a-f]{32}$`), "a fresh token, after ours; Env cannot replace them")
	})
})
