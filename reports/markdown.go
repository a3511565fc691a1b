package reports

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Messages longer than this are cut in Markdown: GitHub caps a job summary
// at 1 MiB and a wall of payload hides the other results. The full text is
// in results.json and junit.xml.
const (
	mdMaxMessageBytes = 4000
	mdMaxMessageLines = 60
)

// WriteMarkdown writes a human summary of r: a title line with the overall
// outcome, run details, a totals table, then per scenario a table of checks
// followed by the message of every check that did not pass.
func WriteMarkdown(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
	var b strings.Builder
	total := r.Counts()

	side := ""
	if r.Side != "" {
		side = " " + mdText(r.Side)
	}
	fmt.Fprintf(&b, "# %s%s conformance: %s\n\n", mdText(r.tool()), side, statusLabel(total.Outcome()))

	b.WriteString("| Target | Transport | Spec | Strict | Started | Duration | Version |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n\n",
		mdCode(r.Target, true), orDash(mdText(r.Transport)), orDash(mdText(r.SpecVersion)),
		yesNo(r.Strict), mdTime(r.Started), mdDuration(r.Duration), orDash(mdText(r.ToolVersion)))

	b.WriteString("| Passed | Failed | Warning | Skipped | Error | Total |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d |\n",
		total.Passed, total.Failed, total.Warning, total.Skipped, total.Errored, total.Total)

	for i := range r.Scenarios {
		writeMarkdownScenario(&b, r, &r.Scenarios[i])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownScenario(b *strings.Builder, r *Run, s *Scenario) {
	c := s.Counts()
	fmt.Fprintf(b, "\n## %s %s", statusLabel(c.Outcome()), mdCode(s.ID, false))
	if s.Title != "" {
		fmt.Fprintf(b, ": %s", mdText(s.Title))
	}
	b.WriteString("\n\n")
	fmt.Fprintf(b, "Family: %s · Spec: %s · Checks: %d · Duration: %s\n",
		orDash(mdText(s.Family)), orDash(mdText(s.specVersion(r))), c.Total, mdDuration(s.Duration))
	if len(s.Checks) == 0 {
		return
	}

	b.WriteString("\n| Status | Level | Check | Title |\n|---|---|---|---|\n")
	for i := range s.Checks {
		ch := &s.Checks[i]
		st, _ := ch.effective()
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n",
			statusLabel(st), orDash(mdText(ch.Level)), mdCode(ch.ID, true), mdText(ch.Title))
	}

	for i := range s.Checks {
		ch := &s.Checks[i]
		st, msg := ch.effective()
		if st == Passed || strings.TrimSpace(msg) == "" {
			continue
		}
		fmt.Fprintf(b, "\n**%s** %s", statusLabel(st), mdCode(ch.ID, false))
		var meta []string
		if ch.Level != "" {
			meta = append(meta, mdText(ch.Level))
		}
		if ch.SpecRef != "" {
			meta = append(meta, "spec "+mdCode(ch.SpecRef, false))
		}
		if len(meta) > 0 {
			fmt.Fprintf(b, " (%s)", strings.Join(meta, ", "))
		}
		b.WriteString("\n\n")
		mdFence(b, truncateMessage(cleanText(msg)))
	}
}

// statusLabel is the fixed-width-ish word shown for a status.
func statusLabel(s Status) string {
	switch s {
	case Passed:
		return "PASS"
	case Failed:
		return "FAIL"
	case Warning:
		return "WARN"
	case Skipped:
		return "SKIP"
	}
	return "ERROR"
}

// mdText escapes inline text so titles like "_meta" or "<uri>" render as
// written instead of as emphasis or swallowed HTML, and so a "|" cannot
// break a table row.
func mdText(s string) string {
	s = oneLine(cleanText(s))
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '#', '!':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode renders s as a code span. Inside a GFM table a "|" must be escaped
// even in code; outside a table the backslash would show, hence inTable.
func mdCode(s string, inTable bool) string {
	// Only line breaks are flattened: spacing inside a command line matters.
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, cleanText(s)))
	if s == "" {
		return "-"
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence writes text in a fenced block whose fence is longer than any
// backtick run inside, so a message quoting Markdown cannot close it early.
func mdFence(b *strings.Builder, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	b.WriteString(fence + "text\n" + text + "\n" + fence + "\n")
}

func truncateMessage(s string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	cut := len(s)
	if cut > mdMaxMessageBytes {
		cut = mdMaxMessageBytes
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
	}
	lines := 0
	for i := 0; i < cut; i++ {
		if s[i] == '\n' {
			lines++
			if lines == mdMaxMessageLines {
				cut = i
				break
			}
		}
	}
	if cut == len(s) {
		return s
	}
	return s[:cut] + "\n… (truncated; full message in results.json)"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func mdTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// mdDuration rounds so tables show "1.234s" or "12ms" rather than
// nanosecond noise.
func mdDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}
