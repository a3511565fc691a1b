package testprogress_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/internal/testprogress"
)

var _ = Describe("Tracker", func() {
	It("says how many specs are done, for how long, how many failed, and what is running", func() {
		var out bytes.Buffer
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		t := testprogress.NewTracker(&out, "suites", 3, func() time.Time { return clock })
		t.SpecStarted("first")
		clock = clock.Add(5 * time.Second)
		t.SpecDone("first", false)
		t.SpecStarted("the hostile table")
		clock = clock.Add(75 * time.Second)
		t.Print()
		Expect(out.String()).To(Equal("\n[progress] suites: 1/3 specs · 1m20s · 0 failed · running for 1m15s: the hostile table\n"))
		out.Reset()
		t.SpecDone("the hostile table", true)
		Expect(out.String()).To(Equal("\n[progress] suites: 2/3 specs · 1m20s · 1 failed · failed: the hostile table\n"))
		out.Reset()
		t.Stop()
		Expect(out.String()).To(Equal("\n[progress] suites: 2/3 specs · 1m20s · 1 failed\n"))
	})
})

// The real thing: go test -json runs a suite whose second spec waits until
// this test has read, from the stream, the line that says it is running.
// Under plain go test nothing is printed.
var _ = Describe("under go test -json", func() {
	type event struct{ Action, Package, Test, Output string }

	run := func(ctx SpecContext, fail bool, args ...string) (lines []string, code int) {
		goAhead := filepath.Join(GinkgoT().TempDir(), "go-ahead")
		cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-json", "-count=1", "./testdata/sample"}, args...)...)
		cmd.Env = append(os.Environ(), testprogress.EveryEnv+"=50ms", "SAMPLE_GO_AHEAD="+goAhead, "SAMPLE_FAIL=")
		if fail {
			cmd.Env = append(cmd.Env, "SAMPLE_FAIL=1")
		}
		stdout, err := cmd.StdoutPipe()
		Expect(err).NotTo(HaveOccurred())
		cmd.Stderr = GinkgoWriter
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Kill() })
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev event
			Expect(json.Unmarshal(sc.Bytes(), &ev)).To(Succeed(), sc.Text())
			if strings.HasPrefix(ev.Output, "[progress]") {
				lines = append(lines, strings.TrimSpace(ev.Output))
				if strings.Contains(ev.Output, "running for") && strings.Contains(ev.Output, "waits for the go-ahead") {
					Expect(os.WriteFile(goAhead, nil, 0o600)).To(Succeed())
				}
			}
		}
		err = cmd.Wait()
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			Expect(ok).To(BeTrue(), "%v", err)
			code = ee.ExitCode()
		}
		return lines, code
	}

	It("prints while a spec runs, and the suite's last line at the end, counting only the specs that run", func(ctx SpecContext) {
		lines, code := run(ctx, false, "-ginkgo.skip", "fails when asked")
		Expect(code).To(Equal(0))
		Expect(lines).To(ContainElement(MatchRegexp(`^\[progress\] sample: 2/3 specs · \S+ · 0 failed · running for \S+: sample waits for the go-ahead$`)))
		Expect(lines[len(lines)-1]).To(MatchRegexp(`^\[progress\] sample: 3/3 specs · \S+ · 0 failed$`))
	}, SpecTimeout(3*time.Minute))

	It("prints a failure as it happens, and go test still fails", func(ctx SpecContext) {
		lines, code := run(ctx, true)
		Expect(code).To(Equal(1))
		Expect(lines).To(ContainElement(MatchRegexp(`^\[progress\] sample: 4/4 specs · \S+ · 1 failed · failed: sample fails when asked$`)))
	}, SpecTimeout(3*time.Minute))

	It("prints nothing under plain go test", func() {
		cmd := exec.Command("go", "test", "-count=1", "-v", "./testdata/sample")
		cmd.Env = append(os.Environ(), testprogress.EveryEnv+"=50ms", "SAMPLE_GO_AHEAD=/", "SAMPLE_FAIL=")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s).WithTimeout(2 * time.Minute).Should(gexec.Exit(0))
		Expect(string(s.Out.Contents())).NotTo(ContainSubstring("[progress]"))
	})
})
