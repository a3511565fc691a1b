package main_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/creack/pty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// runOnTerminal runs `mcpconform args...` with a pseudo-terminal of 160
// columns as its stdin, stdout and stderr, and returns all it printed and
// its exit code.
func runOnTerminal(env []string, args ...string) (string, int) {
	GinkgoHelper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(tty.Close)
	read := make(chan string, 1)
	go func() {
		// The terminal reads as ended (EIO) once the process and every
		// one holding it have exited.
		b, err := io.ReadAll(tty)
		if err != nil && !errors.Is(err, syscall.EIO) {
			b = append(b, []byte("\nread error: "+err.Error())...)
		}
		read <- string(b)
	}()
	var out string
	Eventually(read).WithTimeout(exitWithin).Should(Receive(&out), "mcpconform %v did not exit", args)
	err = cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	return out, code
}

var _ = Describe("progress on a terminal", func() {
	// Two families over stdio at two versions: the N of the live line is
	// what runs (the selection, every version), which the plain lines of
	// the same run count independently.
	args := func(dir string) []string {
		return []string{"server", "--reference", "--transport", "stdio", "--spec-version", "2025-11-25,2025-06-18",
			"--label-filter", "family: containsAny lifecycle && level: containsAny MUST", "-o", dir}
	}
	plainLine := regexp.MustCompile(`(?m)^(PASS|FAIL|WARN|SKIP|ERROR) +server stdio`)

	It("prints one line per scenario, with no escape sequences, when stdout is not a terminal", func() {
		out := string(run(0, args(GinkgoT().TempDir())...).Out.Contents())
		Expect(plainLine.FindAllString(out, -1)).NotTo(BeEmpty())
		Expect(out).NotTo(ContainSubstring("\r"))
		Expect(out).NotTo(ContainSubstring("\x1b"))
		Expect(out).NotTo(ContainSubstring("scenario 1/"))
	})

	It("rewrites one line in place on a terminal, counts to the scenarios that run, and clears it before the counts", func() {
		plain := string(run(0, args(GinkgoT().TempDir())...).Out.Contents())
		n := len(plainLine.FindAllString(plain, -1))
		Expect(n).To(BeNumerically(">", 2))

		out, code := runOnTerminal([]string{"TERM=xterm", "NO_COLOR="}, args(GinkgoT().TempDir())...)
		Expect(code).To(Equal(0), out)
		N := strconv.Itoa(n)
		Expect(out).To(ContainSubstring("\r\x1b[Kscenario 1/" + N + " · stdio · 2025-11-25 · "))
		Expect(out).To(ContainSubstring("\r\x1b[Kscenario " + N + "/" + N + " · stdio · 2025-06-18 · "))
		Expect(out).NotTo(ContainSubstring("scenario " + strconv.Itoa(n+1) + "/"))
		Expect(out).To(MatchRegexp(`scenario `+N+`/`+N+` [^\r\n]* · 0 failed\r\x1b\[K\r\n\d+ checks: `),
			"the last live line is cleared before the counts")
		Expect(plainLine.FindAllString(out, -1)).To(BeEmpty(), "passing scenarios leave no line of their own")
	})

	It("keeps each failed scenario on screen as a line of its own, as it happens", func() {
		out, code := runOnTerminal([]string{"TERM=xterm", "NO_COLOR="}, "server", "--reference", "--fault", "answers-notifications",
			"--transport", "stdio", "--spec-version", "2025-11-25", "--label-filter", "family: containsAny lifecycle", "-o", GinkgoT().TempDir())
		Expect(code).To(Equal(1), out)
		Expect(out).To(MatchRegexp(`\r\x1b\[KFAIL +server stdio 2025-11-25 +lifecycle-notification-silent [^\r\n]*\r\n`))
		Expect(out).To(MatchRegexp(`\r\x1b\[Kscenario \d+/\d+ · stdio · 2025-11-25 · [^\r\n]* · [1-9]\d* failed`))
	})

	It("prints plain lines on a terminal with --progress plain, NO_COLOR or TERM=dumb", func() {
		for _, c := range []struct {
			env  []string
			flag []string
		}{
			{[]string{"TERM=xterm", "NO_COLOR="}, []string{"--progress", "plain"}},
			{[]string{"TERM=xterm", "NO_COLOR=1"}, nil},
			{[]string{"TERM=dumb", "NO_COLOR="}, nil},
		} {
			out, code := runOnTerminal(c.env, append(args(GinkgoT().TempDir()), c.flag...)...)
			Expect(code).To(Equal(0), out)
			Expect(out).NotTo(ContainSubstring("\x1b"), "%v %v", c.env, c.flag)
			Expect(plainLine.FindAllString(out, -1)).NotTo(BeEmpty(), "%v %v", c.env, c.flag)
		}
	})

	It("refuses an unknown --progress before anything runs", func() {
		s := run(2, "server", "--reference", "--progress", "fancy")
		Expect(strings.TrimSpace(string(s.Err.Contents()))).To(HavePrefix("mcpconform: "))
		Expect(strings.Count(strings.TrimSpace(string(s.Err.Contents())), "\n")).To(Equal(0))
		Expect(string(s.Out.Contents())).NotTo(ContainSubstring("judging"))
	})
})
