package reports

import (
	"io"
)

// CleanTerminal makes text safe to print on a terminal: a target's names,
// messages and stderr reach the console in progress lines, reasons, errors
// and -v output, and a terminal obeys what a report file only holds. It is
// stricter than cleanText (which the report files use):
//   - escape sequences are removed whole: CSI (ESC [ … final), OSC
//     (ESC ] … BEL or ESC \: window titles, OSC 8 hyperlinks), DCS, SOS, PM
//     and APC strings (to ST), and two-byte escapes (ESC c resets the
//     terminal); an unterminated string loses only its ESC, so its text
//     shows as harmless litter rather than swallowing what follows;
//   - every C0 control except \n and \t goes (NUL, BEL, BS, and \r, which
//     would let text overwrite the line it is on), and so do DEL and the C1
//     controls U+0080–U+009F (U+009B opens a sequence as ESC [ does);
//   - the bidirectional overrides and isolates (U+202A–U+202E,
//     U+2066–U+2069) go, which would reorder what is shown;
//   - each run of invalid UTF-8 becomes one U+FFFD (a raw byte 0x9B is a
//     CSI to a terminal in an 8-bit mode).
//
// It also redacts the secrets of this process (Redact): the console is
// where a target's echo of a token would otherwise be shown.
func CleanTerminal(s string) string {
	return Redact(clean(s, func(r rune) bool { return !terminalUnsafe(r) }))
}

// terminalUnsafe reports the runes CleanTerminal drops (ESC among them).
func terminalUnsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// escapeLen returns how many bytes of s (which starts with ESC) make up one
// escape sequence to drop; 1 (the ESC alone) when it is not well formed.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 1
	}
	switch s[1] {
	case '[':
		return csiLen(s)
	case ']', 'P', 'X', '^', '_':
		// A string: OSC ends at BEL or ST (ESC \), the others at ST.
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07 && s[1] == ']':
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case s[i] == 0x1b:
				return 1 // another escape before the end: not a string
			}
		}
		return 1
	}
	// ESC, intermediates (0x20–0x2F), a final byte (0x30–0x7E).
	i := 1
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		return i + 1
	}
	return 1
}

// TerminalWriter writes everything through CleanTerminal: the one way text
// reaches mcpconform's console, so no path can forget to clean. Each Write
// is cleaned on its own; a sequence split across two writes loses its ESC
// in the first and shows as litter in the second, which is still safe.
type TerminalWriter struct{ w io.Writer }

// NewTerminalWriter returns a TerminalWriter to w.
func NewTerminalWriter(w io.Writer) *TerminalWriter { return &TerminalWriter{w: w} }

// Write cleans b and writes it; it reports len(b) written when the clean
// text was written whole.
func (t *TerminalWriter) Write(b []byte) (int, error) {
	s := CleanTerminal(string(b))
	if _, err := io.WriteString(t.w, s); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Raw is the writer underneath, for the few bytes mcpconform writes to the
// terminal on purpose (the live progress line's carriage return and erase)
// and to ask whether it is a terminal.
func (t *TerminalWriter) Raw() io.Writer { return t.w }
