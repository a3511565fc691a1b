package main_test

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// consoleControls lists what a terminal would obey in out: C0 controls
// except \n and \t (ESC, BEL, NUL, \r among them), DEL, C1 controls, bidi
// overrides and isolates, and bytes that are not UTF-8 (a raw 0x9B is a
// CSI to a terminal in an 8-bit mode).
func consoleControls(out []byte) []string {
	var found []string
	s := string(out)
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			found = append(found, fmt.Sprintf("byte %#x (not UTF-8) at %d", s[i], i))
		case r == '\n' || r == '\t':
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			found = append(found, fmt.Sprintf("%U at %d", r, i))
		}
		if len(found) == 20 {
			return append(found, "…")
		}
	}
	return found
}

// The hostile target's control-text mode puts a clear screen, a window
// title, OSC 8 hyperlinks, bells, a C1 CSI, a NUL, a terminal reset, a bidi
// override and a carriage return in its banner line, its stderr, a tool's
// and a prompt's names, a prompt argument's name, a resource template and
// its error messages. The console shows the words around them and nothing a
// terminal would obey.
var _ = Describe("the console", Label("hostile"), func() {
	// completion-complete skips a check with the template in its reason;
	// the others fail or warn quoting the names and the banner.
	selection := []string{"--scenario", "completion-complete,prompts-get-every,tools-names,wire-rules"}
	DescribeTable("shows a target's text without the control sequences in it",
		func(verbose bool, where, shown string) {
			args := selection
			if verbose {
				args = append([]string{"-v"}, selection...)
			}
			r := runHostile(context.Background(), "control-text", hostileCase{transport: "stdio", mode: "control-text", args: args})
			DeferCleanup(r.Close)
			Expect(r.err).NotTo(HaveOccurred())
			out := fmt.Sprintf("mcpconform %s\nstdout:\n%q\nstderr:\n%q", strings.Join(r.args, " "), r.stdout, r.stderr)
			Expect(r.code).To(Equal(1), out)
			Expect(consoleControls(r.stdout)).To(BeEmpty(), "stdout holds controls\n%s", out)
			Expect(consoleControls(r.stderr)).To(BeEmpty(), "stderr holds controls\n%s", out)
			console := map[string][]byte{"stdout": r.stdout, "stderr": r.stderr}[where]
			Expect(string(console)).To(ContainSubstring(shown), "the target's text reached %s, cleaned\n%s", where, out)
		},
		Entry("in the counts and the skip reasons", false, "stdout", "no completion result to judge: template tpl-ctl-actl-b ctl-link ctl-c31mctl-dctl-ectl-f"),
		Entry("with -v: steps, failures, transcripts and the target's own stderr", true, "stderr", "hostile stderr: ctl-actl-b ctl-link ctl-c31mctl-dctl-ectl-fctl-g"),
	)
})
