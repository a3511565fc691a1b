package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Bounds of summary.md. GitHub refuses a job summary over 1 MiB, and a wall
// of payload hides the other results; the full text is in results.json,
// junit.xml and report.html.
const (
	mdMaxMessageBytes = 4000
	mdMaxMessageLines = 60

	// Failing checks shown with their evidence (message and transcript tail).
	mdMaxEvidence = 25
	// The end of a transcript is where a failure shows; single frames can be
	// megabytes of JSON, hence the cut per line.
	mdTranscriptTailLines = 40
	mdTranscriptLineBytes = 300
	mdTranscriptTailBytes = 8000

	// Sections that would take the file past mdMaxBytes are left out with a
	// note; the Failures section may take half of it.
	mdMaxBytes         = 900 << 10
	mdMaxEvidenceBytes = mdMaxBytes / 2
	mdNoteReserve      = 2 << 10
)

// checkRef locates a check: scenario index, check index.
type checkRef struct{ scenario, check int }

// WriteMarkdown writes a human summary of r: a title line with the overall
// outcome, run details, a totals table, a table per transport × spec
// version, the evidence of every failure (message and transcript tail), then
// per scenario run a table of checks followed by the messages of the checks
// that did not pass and were not shown under Failures. The output stays
// under GitHub's 1 MiB job summary limit.
func WriteMarkdown(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
	return writeMarkdown(w, normalized(r))
}

// writeMarkdown writes a normalised run.
func writeMarkdown(w io.Writer, r *Run) error {
	var b strings.Builder
	total := r.Counts()

	side := ""
	if r.Side != "" {
		side = " " + mdText(r.Side)
	}
	fmt.Fprintf(&b, "# %s%s conformance: %s\n\n", mdText(r.tool()), side, r.Outcome().Word())
	if note := r.InterruptedNote(); note != "" {
		fmt.Fprintf(&b, "> [!WARNING]\n> **INTERRUPTED.** %s\n\n", mdText(note))
	}

	b.WriteString("| Target | Transport | Spec | Strict | Started | Duration | Version |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n\n",
		mdCode(r.Target, true), mdList(runTransports(r)), mdList(runSpecVersions(r)),
		yesNo(r.Strict), mdTime(r.Started), mdDuration(r.Duration), orDash(mdText(r.ToolVersion)))

	b.WriteString("| Passed | Failed | Warning | Skipped | Error | Total |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %d |\n",
		total.Passed, mdFailed(total), total.Warning, total.Skipped, total.Errored, total.Total)

	writeMarkdownAxes(&b, r)
	evidenced := writeMarkdownFailures(&b, r)
	writeMarkdownExpected(&b, r)

	if len(r.Scenarios) > 0 {
		b.WriteString("\n## Scenarios\n")
	}
	for i := range r.Scenarios {
		var sec strings.Builder
		writeMarkdownScenario(&sec, r, i, evidenced)
		if b.Len()+sec.Len() > mdMaxBytes-mdNoteReserve {
			fmt.Fprintf(&b, "\n%d further scenario runs are not shown, to keep this summary under GitHub's 1 MiB limit; report.html and results.json have them all.\n",
				len(r.Scenarios)-i)
			break
		}
		b.WriteString(sec.String())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdownAxes writes the totals per transport × spec version, so a
// failure confined to one transport or version shows at a glance.
func writeMarkdownAxes(b *strings.Builder, r *Run) {
	axes := runAxes(r)
	if !slices.ContainsFunc(axes, func(a axis) bool { return a.label() != "" }) {
		return
	}
	counts := map[axis]Counts{}
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		a := s.axis()
		counts[a] = counts[a].plus(s.Counts())
	}
	b.WriteString("\n## By transport and spec version\n\n")
	b.WriteString("| Transport | Spec | Outcome | Passed | Failed | Warning | Skipped | Error | Total |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, a := range axes {
		c := counts[a]
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %d | %d | %d | %d |\n",
			orDash(mdText(a.transport)), orDash(mdText(a.specVersion)), c.Outcome().Word(),
			c.Passed, mdFailed(c), c.Warning, c.Skipped, c.Errored, c.Total)
	}
}

// writeMarkdownFailures writes, per scenario run with failed or errored
// checks, each such check's message and the end of the scenario's
// transcript, for the first mdMaxEvidence of them. It returns the checks it
// showed, whose messages the scenario sections then do not repeat.
func writeMarkdownFailures(b *strings.Builder, r *Run) map[checkRef]bool {
	total := r.Counts()
	failing := total.Failed + total.Errored
	if failing == 0 {
		return nil
	}
	b.WriteString("\n## Failures\n\n")
	var counted []string
	if total.Failed > 0 {
		counted = append(counted, plural(total.Failed, "check failed", "checks failed"))
	}
	if total.Errored > 0 {
		counted = append(counted, plural(total.Errored, "check could not be judged", "checks could not be judged"))
	}
	fmt.Fprintf(b, "%s.\n", strings.Join(counted, "; "))

	shown := map[checkRef]bool{}
	start := b.Len()
	for i := range r.Scenarios {
		if len(shown) == mdMaxEvidence {
			break
		}
		s := &r.Scenarios[i]
		var sec strings.Builder
		var refs []checkRef
		for j := range s.Checks {
			if len(shown)+len(refs) == mdMaxEvidence {
				break
			}
			ch := &s.Checks[j]
			msg := ch.Message
			st := ch.Final()
			if st != Failed && st != Errored {
				continue
			}
			refs = append(refs, checkRef{i, j})
			writeMarkdownProblem(&sec, ch, st, msg)
		}
		if len(refs) == 0 {
			continue
		}
		var head strings.Builder
		writeMarkdownScenarioHeading(&head, r, s)
		sec.WriteString("\n")
		writeMarkdownTranscriptTail(&sec, s.Transcript)
		if b.Len()-start+head.Len()+sec.Len() > mdMaxEvidenceBytes {
			break
		}
		b.WriteString(head.String())
		b.WriteString(sec.String())
		for _, ref := range refs {
			shown[ref] = true
		}
	}
	if len(shown) < failing {
		fmt.Fprintf(b, "\nEvidence is shown for the first %d of %d failed or errored checks; the messages of the others are in their scenario sections below, their transcripts in report.html and junit.xml.\n",
			len(shown), failing)
	}
	return shown
}

func writeMarkdownTranscriptTail(b *strings.Builder, transcript string) {
	tail, kept, total := transcriptTail(transcript)
	switch {
	case total == 0:
		b.WriteString("No transcript was recorded.\n")
		return
	case kept == total:
		fmt.Fprintf(b, "Transcript (%s):\n\n", plural(total, "line", "lines"))
	default:
		fmt.Fprintf(b, "Transcript, last %d of %d lines:\n\n", kept, total)
	}
	mdFence(b, tail)
}

// transcriptTail returns the last lines of a transcript, bounded in lines
// and bytes with over-long lines cut, and how many of how many lines it kept.
func transcriptTail(s string) (tail string, kept, total int) {
	s = strings.TrimRight(strings.ReplaceAll(cleanText(s), "\r\n", "\n"), "\n")
	if strings.TrimSpace(s) == "" {
		return "", 0, 0
	}
	lines := strings.Split(s, "\n")
	total = len(lines)
	lines = lines[max(0, total-mdTranscriptTailLines):]
	for i := range lines {
		lines[i] = cutLine(lines[i], mdTranscriptLineBytes)
	}
	start, size := len(lines), 0
	for start > 0 && size+len(lines[start-1])+1 <= mdTranscriptTailBytes {
		start--
		size += len(lines[start]) + 1
	}
	lines = lines[start:]
	return strings.Join(lines, "\n"), len(lines), total
}

// cutLine shortens s to at most n bytes plus a marker, on a rune boundary.
func cutLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + " … (line cut)"
}

func writeMarkdownScenarioHeading(b *strings.Builder, r *Run, s *Scenario) {
	fmt.Fprintf(b, "\n### %s %s", s.Counts().Outcome().Word(), mdCode(s.ID, false))
	if where := s.axis().label(); where != "" {
		fmt.Fprintf(b, " · %s", mdText(where))
	}
	if s.Title != "" {
		fmt.Fprintf(b, ": %s", mdText(s.Title))
	}
	b.WriteString("\n")
}

func writeMarkdownScenario(b *strings.Builder, r *Run, i int, evidenced map[checkRef]bool) {
	s := &r.Scenarios[i]
	c := s.Counts()
	writeMarkdownScenarioHeading(b, r, s)
	fmt.Fprintf(b, "\nFamily: %s · Side: %s · Transport: %s · Spec: %s · Checks: %d · Duration: %s\n",
		orDash(mdText(s.Family)), orDash(mdText(s.Side)), orDash(mdText(s.Transport)),
		orDash(mdText(s.SpecVersion)), c.Total, mdDuration(s.Duration))
	if len(s.Checks) == 0 {
		return
	}

	b.WriteString("\n| Status | Level | Check | Title |\n|---|---|---|---|\n")
	for j := range s.Checks {
		ch := &s.Checks[j]
		st := ch.Final()
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n",
			st.Word(), orDash(mdText(ch.Level)), mdCode(ch.ID, true), mdText(ch.Title))
	}

	for j := range s.Checks {
		if evidenced[checkRef{i, j}] {
			b.WriteString("\nEvidence of the failures: see Failures above.\n")
			break
		}
	}
	for j := range s.Checks {
		ch := &s.Checks[j]
		msg := ch.Message
		st := ch.Final()
		if st == Passed || strings.TrimSpace(msg) == "" || evidenced[checkRef{i, j}] {
			continue
		}
		writeMarkdownProblem(b, ch, st, msg)
	}
}

// writeMarkdownProblem writes a non-passing check's id, level, spec
// reference and message.
func writeMarkdownProblem(b *strings.Builder, ch *Check, st Status, msg string) {
	fmt.Fprintf(b, "\n**%s** %s", st.Word(), mdCode(ch.ID, false))
	var meta []string
	if ch.Level != "" {
		meta = append(meta, mdText(ch.Level))
	}
	if url := SpecURL(ch.SpecRef); url != "" {
		meta = append(meta, "spec ["+mdCode(ch.SpecRef, false)+"]("+url+")")
	} else if ch.SpecRef != "" {
		meta = append(meta, "spec "+mdCode(ch.SpecRef, false))
	}
	if ch.Source != "" {
		meta = append(meta, "source "+mdCode(ch.Source, false)+" (a design note)")
	}
	if len(meta) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(meta, ", "))
	}
	b.WriteString("\n\n")
	if st == ExpectedFailure {
		fmt.Fprintf(b, "Expected failure: listed in the baseline as %s; it does not fail the run.\n\n", mdCode(ch.ExpectedBy, false))
	}
	if ch.Quote != "" {
		fmt.Fprintf(b, "> %s\n\n", mdText(oneLineText(ch.Quote)))
	}
	if strings.TrimSpace(msg) == "" {
		msg = "(no message)"
	}
	mdFence(b, truncateMessage(cleanText(msg)))
}

// mdFailed is the Failed count, with the expected failures beside it when
// a baseline expected some: "1 (+2 expected)".
func mdFailed(c Counts) string {
	if c.Expected == 0 {
		return fmt.Sprint(c.Failed)
	}
	return fmt.Sprintf("%d (+%d expected)", c.Failed, c.Expected)
}

// mdMaxExpected bounds the list of expected failures; each is also in its
// scenario's table.
const mdMaxExpected = 100

// writeMarkdownExpected lists the failures the baseline expected, one line
// each: they pass the gate, and a reader must still see that they failed.
func writeMarkdownExpected(b *strings.Builder, r *Run) {
	total := r.Counts()
	if total.Expected == 0 {
		return
	}
	b.WriteString("\n## Expected failures\n\n")
	fmt.Fprintf(b, "%s listed in the expected-failures baseline; they do not fail the run.\n\n",
		plural(total.Expected, "check failed as", "checks failed as"))
	shown := 0
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		for j := range s.Checks {
			ch := &s.Checks[j]
			if ch.Final() != ExpectedFailure {
				continue
			}
			if shown == mdMaxExpected {
				fmt.Fprintf(b, "- … and %d more (results.json has them all)\n", total.Expected-shown)
				return
			}
			shown++
			msg := ch.Message
			line := mdText(cutLine(firstLine(msg, ch.Title), mdTranscriptLineBytes))
			if where := s.axis().label(); where != "" {
				line = mdText(where) + ": " + line
			}
			fmt.Fprintf(b, "- **XFAIL** %s · %s · baseline %s\n", mdCode(ch.ID, false), line, mdCode(ch.ExpectedBy, false))
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// mdList renders a list of run values ("stdio, http"), "-" when empty.
func mdList(values []string) string {
	for i, v := range values {
		values[i] = mdText(v)
	}
	return orDash(strings.Join(values, ", "))
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

// oneLineText folds a quoted sentence onto one line for a Markdown quote.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
