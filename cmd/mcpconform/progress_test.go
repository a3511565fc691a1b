package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/creack/pty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// The renderer in-process, on a fake terminal (a buffer) and a fake clock;
// progress_cli_test.go runs the binary under a pseudo-terminal.
var _ = Describe("progress line", func() {
	var (
		screen bytes.Buffer
		clock  time.Time
		total  int
		p      *liveProgress
	)
	now := func() time.Time { return clock }
	done := func(word string, counts reports.Counts) suites.ScenarioDone {
		return suites.ScenarioDone{Config: "server stdio 2025-11-25", Transport: transport.Stdio, Version: "2025-11-25",
			Scenario: "lifecycle-ping", Counts: counts, Word: word,
			Line: word + "  server stdio 2025-11-25 lifecycle-ping  1/2 passed"}
	}
	BeforeEach(func() {
		screen.Reset()
		clock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		total = 3
		p = newLiveProgress(&screen, 0, func() int { return total }, now, 0)
	})

	It("rewrites one line in place with n/N, transport, version, elapsed and failures", func() {
		clock = clock.Add(1500 * time.Millisecond)
		p.ScenarioDone(done("PASS", reports.Counts{Total: 2, Passed: 2}))
		Expect(screen.String()).To(Equal("\r\x1b[Kscenario 1/3 · stdio · 2025-11-25 · 1.5s · 0 failed"))
		screen.Reset()
		clock = clock.Add(2*time.Minute + 3*time.Second)
		p.ScenarioDone(suites.ScenarioDone{Transport: transport.WS, Version: "2026-07-28", Word: "PASS",
			Counts: reports.Counts{Total: 3, Passed: 2, Warning: 1}, Line: "PASS  …"})
		Expect(screen.String()).To(Equal("\r\x1b[Kscenario 2/3 · ws · 2026-07-28 · 2m4s · 0 failed, 1 warnings"))
	})

	It("names the scenario it has waited on longest, until that one is done", func() {
		started := func(id string) suites.ScenarioStarted {
			return suites.ScenarioStarted{Config: "server http 2025-11-25", Transport: transport.HTTP, Version: "2025-11-25", Scenario: id}
		}
		p.ScenarioStarted(started("tools-cancel-long-running"))
		clock = clock.Add(time.Second)
		p.ScenarioStarted(started("lifecycle-ping"))
		clock = clock.Add(2 * time.Second)
		p.redraw()
		Expect(screen.String()).To(HaveSuffix(" · 0 failed · waiting on tools-cancel-long-running (http 2025-11-25, 3.0s)"))
		screen.Reset()
		p.ScenarioDone(suites.ScenarioDone{Config: "server http 2025-11-25", Transport: transport.HTTP, Version: "2025-11-25",
			Scenario: "tools-cancel-long-running", Word: "PASS", Counts: reports.Counts{Total: 1, Passed: 1}})
		Expect(screen.String()).To(HaveSuffix(" · waiting on lifecycle-ping (http 2025-11-25, 2.0s)"))
		screen.Reset()
		p.ScenarioDone(suites.ScenarioDone{Config: "server http 2025-11-25", Transport: transport.HTTP, Version: "2025-11-25",
			Scenario: "lifecycle-ping", Word: "PASS", Counts: reports.Counts{Total: 1, Passed: 1}})
		Expect(screen.String()).To(HaveSuffix(" · 0 failed"), "nothing left running")
	})

	It("prints a message to another stream (stderr on the same terminal) above the live line, not on its row", func() {
		p.ScenarioDone(done("PASS", reports.Counts{Total: 2, Passed: 2}))
		screen.Reset()
		fmt.Fprintf(p.Above(&screen), "mcpconform: interrupt: stopping the target\n")
		Expect(screen.String()).To(Equal("\r\x1b[K" +
			"mcpconform: interrupt: stopping the target\n" +
			"\r\x1b[Kscenario 1/3 · stdio · 2025-11-25 · 0.0s · 0 failed"))
	})

	It("prints a failed scenario as a line of its own above the live line, and keeps counting its failures", func() {
		p.ScenarioDone(done("PASS", reports.Counts{Total: 2, Passed: 2}))
		screen.Reset()
		p.ScenarioDone(done("FAIL", reports.Counts{Total: 2, Passed: 1, Failed: 1}))
		Expect(screen.String()).To(Equal("\r\x1b[K" +
			"FAIL  server stdio 2025-11-25 lifecycle-ping  1/2 passed\n" +
			"\r\x1b[Kscenario 2/3 · stdio · 2025-11-25 · 0.0s · 1 failed"))
		screen.Reset()
		p.ScenarioDone(done("ERROR", reports.Counts{Total: 2, Passed: 1, Errored: 1}))
		Expect(screen.String()).To(HavePrefix("\r\x1b[KERROR"))
		Expect(screen.String()).To(HaveSuffix("scenario 3/3 · stdio · 2025-11-25 · 0.0s · 1 failed, 1 not judged"))
	})

	It("keeps passed and skipped scenarios off the screen, and a version's not-judged notice on it", func() {
		p.ScenarioDone(done("SKIP", reports.Counts{Total: 2, Skipped: 2}))
		Expect(screen.String()).NotTo(ContainSubstring("lifecycle-ping"))
		screen.Reset()
		p.ScenarioDone(suites.ScenarioDone{Transport: transport.Stdio, Version: "2026-07-28", Word: "SKIP", NotJudged: true,
			Line: "SKIP  server stdio 2026-07-28 the target does not implement 2026-07-28: not judged"})
		Expect(screen.String()).To(HavePrefix("\r\x1b[KSKIP  server stdio 2026-07-28 the target does not implement 2026-07-28: not judged\n"))
	})

	It("prints other writes as permanent lines and clears the live line when closed", func() {
		p.ScenarioDone(done("PASS", reports.Counts{Total: 2, Passed: 2}))
		screen.Reset()
		_, err := p.Write([]byte("a notice\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(screen.String()).To(Equal("\r\x1b[Ka notice\n\r\x1b[Kscenario 1/3 · stdio · 2025-11-25 · 0.0s · 0 failed"))
		screen.Reset()
		p.close()
		Expect(screen.String()).To(Equal("\r\x1b[K"))
		screen.Reset()
		p.ScenarioDone(done("PASS", reports.Counts{Total: 2, Passed: 2}))
		p.redraw()
		Expect(screen.String()).To(BeEmpty(), "nothing is drawn once closed")
	})

	It("keeps its own carriage return and erase, and cleans the text it draws (a failed line, a message above, a write)", func() {
		hostile := "x\x1b[2J\x1b]0;title\x07y\u009b31m\x00\rz"
		p.ScenarioDone(suites.ScenarioDone{Transport: transport.Stdio, Version: "2025-11-25", Word: "FAIL",
			Counts: reports.Counts{Total: 1, Failed: 1}, Line: "FAIL  " + hostile})
		fmt.Fprintf(p.Above(&screen), "above %s\n", hostile)
		_, err := p.Write([]byte("write " + hostile + "\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(screen.String()).To(Equal("FAIL  xy31mz\n" +
			"\r\x1b[Kscenario 1/3 · stdio · 2025-11-25 · 0.0s · 1 failed" +
			"\r\x1b[Kabove xy31mz\n" +
			"\r\x1b[Kscenario 1/3 · stdio · 2025-11-25 · 0.0s · 1 failed" +
			"\r\x1b[Kwrite xy31mz\n" +
			"\r\x1b[Kscenario 1/3 · stdio · 2025-11-25 · 0.0s · 1 failed"))
	})

	It("draws nothing before the plan is known", func() {
		total = 0
		p.redraw()
		Expect(screen.String()).To(BeEmpty())
		total = 7
		p.redraw()
		Expect(screen.String()).To(Equal("\r\x1b[Kscenario 0/7 · 0.0s · 0 failed"))
	})

	It("cuts the line to the terminal's width, so that it never wraps", func() {
		p = newLiveProgress(&screen, 20, func() int { return 3 }, now, 0)
		p.ScenarioDone(done("PASS", reports.Counts{Total: 2, Passed: 2}))
		Expect(screen.String()).To(Equal("\r\x1b[Kscenario 1/3 · std…"))
		Expect([]rune(strings.TrimPrefix(screen.String(), "\r\x1b[K"))).To(HaveLen(19))
	})

	It("redraws on its own while a scenario runs, so that the elapsed time moves", func() {
		master, tty := openPTY()
		p = newLiveProgress(tty, 0, func() int { return 3 }, time.Now, time.Millisecond)
		DeferCleanup(p.close)
		// Read until the terminal closes: a terminal nobody reads fills
		// up, and the next redraw would block.
		read := make(chan string, 1)
		go func() {
			buf := make([]byte, 256)
			for first := true; ; first = false {
				n, err := master.Read(buf)
				if first {
					read <- string(buf[:n])
				}
				if err != nil {
					return
				}
			}
		}()
		Eventually(read).WithTimeout(10 * time.Second).Should(Receive(ContainSubstring("scenario 0/3")))
	})

	Describe("--progress", func() {
		env := func(kv ...string) func(string) string {
			return func(k string) string {
				for i := 0; i+1 < len(kv); i += 2 {
					if kv[i] == k {
						return kv[i+1]
					}
				}
				return ""
			}
		}
		It("is live on a terminal, plain on anything else, and forced either way by the flag", func() {
			_, tty := openPTY()
			live, width := liveWanted(progressAuto, tty, env("TERM", "xterm"), false)
			Expect(live).To(BeTrue())
			Expect(width).To(Equal(101))
			live, _ = liveWanted(progressAuto, &bytes.Buffer{}, env("TERM", "xterm"), false)
			Expect(live).To(BeFalse(), "not a terminal")
			live, _ = liveWanted(progressLine, &bytes.Buffer{}, env(), false)
			Expect(live).To(BeTrue(), "--progress line")
			live, _ = liveWanted(progressPlain, tty, env("TERM", "xterm"), false)
			Expect(live).To(BeFalse(), "--progress plain")
		})

		It("is plain with NO_COLOR, TERM=dumb or -v", func() {
			_, tty := openPTY()
			for _, e := range []func(string) string{env("NO_COLOR", "1", "TERM", "xterm"), env("TERM", "dumb")} {
				live, _ := liveWanted(progressAuto, tty, e, false)
				Expect(live).To(BeFalse())
			}
			live, _ := liveWanted(progressAuto, tty, env("TERM", "xterm"), true)
			Expect(live).To(BeFalse(), "-v")
		})

		It("takes auto, line or plain and nothing else", func() {
			var m progressMode
			Expect(m.Set("line")).To(Succeed())
			Expect(m).To(Equal(progressLine))
			Expect(m.Set("fancy")).To(MatchError("must be auto, line or plain"))
		})
	})
})

// openPTY opens a pseudo-terminal of 101 columns: the controlling side and
// the terminal a program writes to.
func openPTY() (master, tty *os.File) {
	GinkgoHelper()
	master, tty, err := pty.Open()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(master.Close)
	DeferCleanup(tty.Close)
	Expect(pty.Setsize(tty, &pty.Winsize{Rows: 30, Cols: 101})).To(Succeed())
	return master, tty
}
