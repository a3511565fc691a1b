package reports_test

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// terminalControls lists what a terminal obeys in s: C0 controls except \n
// and \t, DEL, C1 controls, bidi overrides and isolates, invalid UTF-8.
func terminalControls(s string) []string {
	var found []string
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			found = append(found, fmt.Sprintf("invalid UTF-8 %q", s[i]))
		case r == '\n' || r == '\t':
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			found = append(found, fmt.Sprintf("%U", r))
		}
	}
	return found
}

var _ = Describe("CleanTerminal", func() {
	DescribeTable("removes what a terminal obeys and keeps the text around it",
		func(in, want string) {
			got := reports.CleanTerminal(in)
			Expect(got).To(Equal(want))
			Expect(terminalControls(got)).To(BeEmpty())
		},
		Entry("clear screen and colour (CSI)", "a\x1b[2Jb\x1b[1;31mred\x1b[0m", "abred"),
		Entry("window title (OSC 0, BEL)", "a\x1b]0;pwned\x07b", "ab"),
		Entry("window title (OSC 2, ST)", "a\x1b]2;pwned\x1b\\b", "ab"),
		Entry("OSC 8 hyperlink", "see \x1b]8;;https://evil.example/\x1b\\here\x1b]8;;\x1b\\ now", "see here now"),
		Entry("DCS string", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),
		Entry("terminal reset (ESC c) and charset (ESC ( 0)", "a\x1bcb\x1b(0c", "abc"),
		Entry("an unterminated OSC loses its ESC only", "a\x1b]0;title", "a]0;title"),
		Entry("a lone ESC at the end", "a\x1b", "a"),
		Entry("bell, NUL, backspace, carriage return", "a\x07b\x00c\x08d\re\r\n", "abcde\n"),
		Entry("DEL and C1 (U+009B CSI, U+009D OSC, U+0085 NEL)", "a\x7fb\u009b2Jc\u009d0;t\u0085d", "ab2Jc0;td"),
		Entry("bidi overrides and isolates", "x\u202eevil\u202c \u2066y\u2069", "xevil y"),
		Entry("invalid UTF-8 and a raw 0x9B byte", "bad \xff\xfe end \x9b2J", "bad \uFFFD end \uFFFD2J"),
		Entry("tabs, newlines and other text stay", "a\tb\nc · é ✓ 😀", "a\tb\nc · é ✓ 😀"),
	)

	It("cleans every write of a TerminalWriter, and reports the bytes given as written", func() {
		var out bytes.Buffer
		w := reports.NewTerminalWriter(&out)
		n, err := w.Write([]byte("tool \x1b]0;title\x07name\u009b\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(len("tool \x1b]0;title\x07name\u009b\n")))
		Expect(out.String()).To(Equal("tool name\n"))
		Expect(w.Raw()).To(BeIdenticalTo(&out))
	})
})
