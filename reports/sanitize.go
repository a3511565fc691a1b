package reports

import (
	"strings"
	"unicode/utf8"
)

// cleanText makes target-produced text safe for XML 1.0 and readable in
// Markdown. Targets can write anything to stdout/stderr, and a single illegal
// character makes the whole JUnit file unparseable, losing every result:
//   - escape sequences (CSI colours and cursor moves, OSC titles and
//     hyperlinks, …) are removed whole, because dropping only the ESC would
//     leave "[31m" litter;
//   - other characters XML 1.0 forbids (C0 controls except \t \n \r,
//     U+FFFE, U+FFFF) are dropped, and so are DEL and the C1 controls,
//     which XML only discourages but a terminal obeys (U+009B opens an
//     escape sequence like ESC [) when someone cats summary.md;
//   - each run of invalid UTF-8 becomes one U+FFFD so the reader can see
//     that bytes were lost.
func cleanText(s string) string { return clean(s, reportChar) }

// reportChar reports the runes cleanText keeps.
func reportChar(r rune) bool { return xmlChar(r) && !isControl(r) }

// clean drops from s every escape sequence whole (escapeLen) and every rune
// keep refuses, and turns each run of invalid UTF-8 into one U+FFFD, so the
// reader can see that bytes were lost. The reports and the console differ
// only in what they keep.
func clean(s string, keep func(rune) bool) string {
	if isClean(s, keep) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteRune(utf8.RuneError)
			i++
			for i < len(s) {
				if r2, w2 := utf8.DecodeRuneInString(s[i:]); r2 != utf8.RuneError || w2 != 1 {
					break
				}
				i++
			}
			continue
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case keep(r):
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

func isClean(s string, keep func(rune) bool) bool {
	for _, r := range s {
		// range yields RuneError for invalid bytes; a genuine U+FFFD is
		// harmless to reprocess, so treating it as unclean is fine.
		if r == utf8.RuneError || r == 0x1b || !keep(r) {
			return false
		}
	}
	return true
}

// isControl reports DEL and the C1 controls (U+0080–U+009F).
func isControl(r rune) bool { return r >= 0x7f && r <= 0x9f }

// xmlChar reports whether r is a Char in the XML 1.0 grammar.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}

// csiLen returns how many bytes of s (which starts with ESC) to drop: the
// whole "ESC [ params intermediates final" sequence when well formed,
// otherwise just the ESC.
func csiLen(s string) int {
	if len(s) < 2 || s[1] != '[' {
		return 1
	}
	i := 2
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		return i + 1
	}
	return 1
}
