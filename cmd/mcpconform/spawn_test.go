package main_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// freeAddr is a loopback address nothing listens on at the moment.
func freeAddr() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	Expect(l.Close()).To(Succeed())
	return addr
}

var _ = Describe("server --url URL -- CMD: mcpconform starts the target itself", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("starts the command, waits until the URL accepts connections, judges it, and stops it with what it started", func() {
		addr := freeAddr()
		pidFile := filepath.Join(dir, "pid")
		// The target writes its pid, then becomes the reference server.
		script := filepath.Join(dir, "serve.sh")
		Expect(os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho $$ > %s\nexec %s fake-server --http %s\n", pidFile, exe, addr)), 0o755)).To(Succeed())
		s := run(0, "server", "--url", "http://"+addr+"/mcp", "--spec-version", "2025-11-25", "--label-filter", "family: containsAny lifecycle",
			"-o", filepath.Join(dir, "out"), "--", script)
		Expect(string(s.Out.Contents())).To(ContainSubstring("lifecycle-initialize"))
		b, err := os.ReadFile(pidFile)
		Expect(err).NotTo(HaveOccurred())
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		Expect(err).NotTo(HaveOccurred())
		Expect(syscall.Kill(pid, 0)).To(MatchError(syscall.ESRCH), "the target is stopped when the run ends")
	})

	It("says what the target wrote when it exits before serving, and exits 3", func() {
		s := run(3, "server", "--url", "http://"+freeAddr()+"/mcp", "-o", filepath.Join(dir, "out"), "--", "sh", "-c", "echo booting; echo no config >&2; exit 4")
		Expect(string(s.Err.Contents())).To(ContainSubstring("the target exited with status 4 before"))
		Expect(string(s.Err.Contents())).To(ContainSubstring("booting\nno config"))
	})

	It("gives up on a target that never serves after --wait-for-target, and stops it", func() {
		pidFile := filepath.Join(dir, "pid")
		started := time.Now()
		s := run(3, "server", "--url", "http://"+freeAddr()+"/mcp", "--wait-for-target", "500ms", "-o", filepath.Join(dir, "out"),
			"--", "sh", "-c", "echo $$ > "+pidFile+"; exec sleep 600")
		Expect(string(s.Err.Contents())).To(ContainSubstring("did not accept a connection within 500ms"))
		Expect(time.Since(started)).To(BeNumerically("<", time.Minute), "bounded by the wait, not by the target")
		b, err := os.ReadFile(pidFile)
		Expect(err).NotTo(HaveOccurred())
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		Expect(syscall.Kill(pid, 0)).To(MatchError(syscall.ESRCH))
	})

	It("retries the first connection to a target started elsewhere only when --wait-for-target says so", func() {
		s := run(3, "server", "--url", "http://"+freeAddr()+"/mcp", "--wait-for-target", "200ms", "-o", filepath.Join(dir, "out"))
		Expect(string(s.Err.Contents())).To(ContainSubstring("did not accept a connection within 200ms"))
		s = run(2, "server", "--stdio", "--wait-for-target", "1s", "-o", filepath.Join(dir, "out"), "--", "true")
		Expect(string(s.Err.Contents())).To(ContainSubstring("--wait-for-target goes with --url or --ws"))
	})
})

var _ = Describe("server --requirements REV: the official suite's required set", func() {
	It("runs the counterparts of the scenarios REV's list scores, at REV, and says which official scenarios fail", func() {
		dir := GinkgoT().TempDir()
		s := run(1, "server", "--reference", "--fault", "init-unknown-version", "--transport", "stdio", "--requirements", "2025-11-25",
			"-o", filepath.Join(dir, "out"))
		out := string(s.Out.Contents())
		Expect(out).To(MatchRegexp(`official required set 2025-11-25 \(official suite \S+\): \d+ of \d+ scored server scenarios pass`))
		Expect(out).To(MatchRegexp(`(?m)^  1 failed:\n    server-initialize \(lifecycle-initialize`))
		Expect(out).NotTo(ContainSubstring("server stdio 2025-06-18"), "only the revision is judged")
	})

	It("refuses a revision without a list, and flags it sets itself", func() {
		dir := GinkgoT().TempDir()
		s := run(2, "server", "--reference", "--requirements", "2025-06-18", "-o", dir)
		Expect(string(s.Err.Contents())).To(ContainSubstring("has requirement lists for"))
		s = run(2, "server", "--reference", "--requirements", "2025-11-25", "--spec-version", "2025-11-25", "-o", dir)
		Expect(string(s.Err.Contents())).To(ContainSubstring("leave out --spec-version"))
		s = run(2, "server", "--reference", "--requirements", "2025-11-25", "--scenario", "lifecycle-ping", "-o", dir)
		Expect(string(s.Err.Contents())).To(ContainSubstring("leave out --scenario"))
	})
})
