package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// htmlTemplateText is the page. It is self-contained: inline CSS, no script,
// no external fonts, images or links, and a Content-Security-Policy that
// forbids loading or running anything should an escaping bug ever let markup
// through.
//
//go:embed html.tmpl
var htmlTemplateText string

var htmlTemplate = template.Must(template.New("report.html").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 },
}).Parse(htmlTemplateText))

// WriteHTML writes r as a single self-contained HTML page for a developer to
// open after a run: run details and overall outcome, a totals bar, a matrix
// with one row per scenario and one colour-coded column per transport ×
// spec version, each cell linking to that run's section, and per scenario
// run the checks, the messages of those that did not pass, and the
// transcript and target stderr in collapsible blocks. Every text is escaped
// by html/template after the sanitiser has removed control characters and
// invalid UTF-8, so whatever a target sends renders as text. The output
// depends only on r.
func WriteHTML(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
	return writeHTML(w, normalized(r))
}

// writeHTML writes a normalised run.
func writeHTML(w io.Writer, r *Run) error {
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, htmlFromRun(r)); err != nil {
		return fmt.Errorf("reports: rendering HTML: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// View model of the page: every string is already sanitised, every status
// already resolved, so the template only lays things out.
type (
	htmlPage struct {
		Title        string
		Heading      string
		Tool         string
		Target       string
		Transports   []string
		SpecVersions []string
		Strict       bool
		Started      string
		Duration     string
		Outcome      htmlStatus
		OutcomeText  string
		Interrupted  string // the banner of an interrupted run; empty otherwise
		Counts       []htmlCount
		Total        int
		Matrix       htmlMatrix
		// Filters narrow the page to the scenarios with a cell of one
		// outcome, for the outcomes that occur; CSS alone applies them (the
		// page runs no script).
		Filters   []htmlFilter
		Scenarios []htmlScenario
	}
	htmlFilter struct {
		Status htmlStatus
		Title  string
		Rows   int // matrix rows with a cell of this outcome
	}
	// htmlMatrix has a row per scenario id and a column per transport ×
	// spec version that occurs, grouped by transport under a spanning header.
	htmlMatrix struct {
		Transports []htmlAxisGroup
		Columns    []htmlAxis
		Rows       []htmlMatrixRow
		Totals     []htmlCell // per column, over all scenarios
		// Notes explain the columns of a version the target does not
		// implement (every check there not judged), below the matrix.
		Notes []string
	}
	htmlAxisGroup struct {
		Transport string
		Span      int
	}
	htmlAxis struct {
		Transport   string
		SpecVersion string
		// NotImplemented marks a column where the target does not
		// implement the version: nothing there was judged.
		NotImplemented bool
	}
	htmlMatrixRow struct {
		Anchor string // of the scenario's first run
		ID     string
		Title  string
		Family string
		Cells  []htmlCell
	}
	htmlCell struct {
		Ran     bool
		Anchor  string // of the scenario run's section; empty in Totals
		Outcome htmlStatus
		Detail  string // tooltip: where, and the counts
	}
	htmlStatus struct {
		Name  string // passed, failed, warning, skipped, error: CSS class suffix
		Label string // PASS, FAIL, WARN, SKIP, ERROR
	}
	htmlCount struct {
		Status htmlStatus
		Title  string // column heading: Passed, Failed, …
		N      int
	}
	htmlScenario struct {
		// Open: the section starts expanded (a failure or an error);
		// the others are collapsed so the page stays short.
		Open        bool
		Anchor      string
		ID          string
		Title       string
		Family      string
		Side        string
		Transport   string
		SpecVersion string
		Where       string // "http · 2025-11-25", for the heading
		Started     string
		Duration    string
		Outcome     htmlStatus
		Counts      []htmlCount
		Total       int
		Checks      []htmlCheck
		Problems    []htmlCheck // non-passing checks with a message, in check order
		Transcript  []htmlLine
		Stderr      string
	}
	htmlCheck struct {
		Anchor   string // of the message, when the check has one shown
		Status   htmlStatus
		Level    string
		ID       string
		Title    string
		SpecRef  string
		SpecURL  string // the published page of SpecRef, when it is a spec page
		Quote    string
		Source   string
		Duration string
		Message  string
		// ExpectedBy names the baseline entry of an expected failure.
		ExpectedBy string
	}
	htmlLine struct {
		Class string // tr-send, tr-recv, tr-stderr, tr-event, tr-note or empty
		Text  string
	}
)

// htmlStatuses is the order of statuses in totals and count columns.
var htmlStatuses = []struct {
	status Status
	title  string
}{
	{Passed, "Passed"}, {Failed, "Failed"}, {Warning, "Warning"}, {Skipped, "Skipped"}, {Errored, "Error"},
	{ExpectedFailure, "Expected failure"},
}

// htmlCountsOf lists c in htmlStatuses' order; expected failures only when a
// baseline expected some, so a run without one reads as before.
func htmlCountsOf(c Counts) []int {
	return []int{c.Passed, c.Failed, c.Warning, c.Skipped, c.Errored, c.Expected}
}

func htmlFromRun(r *Run) htmlPage {
	total := r.Counts()
	outcome := r.Outcome()
	heading := r.tool()
	if r.Side != "" {
		heading += " " + r.Side
	}
	heading = oneLine(htmlText(heading + " conformance"))
	p := htmlPage{
		Heading:      heading,
		Tool:         oneLine(htmlText(strings.TrimSpace(r.tool() + " " + r.ToolVersion))),
		Target:       oneLine(htmlText(r.Target)),
		Transports:   htmlList(runTransports(r)),
		SpecVersions: htmlList(runSpecVersions(r)),
		Strict:       r.Strict,
		Started:      mdTime(r.Started),
		Duration:     mdDuration(r.Duration),
		Outcome:      htmlStatusOf(outcome),
		OutcomeText:  htmlOutcomeText(outcome, total),
		Interrupted:  oneLine(htmlText(r.InterruptedNote())),
		Counts:       htmlCounts(total),
		Total:        total.Total,
		Scenarios:    make([]htmlScenario, 0, len(r.Scenarios)),
	}
	p.Title = p.Heading + ": " + p.Outcome.Label
	if p.Target != "" {
		p.Title += " · " + p.Target
	}
	for i := range r.Scenarios {
		p.Scenarios = append(p.Scenarios, htmlFromScenario(r, i))
	}
	p.Matrix = htmlMatrixOf(r, p.Scenarios)
	p.Filters = htmlFiltersOf(p.Matrix)
	return p
}

// htmlFilterTitles are the outcomes the filter bar offers, in its order; the
// template's CSS has a rule for each.
var htmlFilterTitles = []struct {
	status Status
	title  string
}{
	{Failed, "Failed"}, {Errored, "Not judged"}, {ExpectedFailure, "Expected failures"}, {Warning, "Warnings"}, {Skipped, "Skipped"},
}

func htmlFiltersOf(m htmlMatrix) []htmlFilter {
	var out []htmlFilter
	for _, f := range htmlFilterTitles {
		n := 0
		for _, row := range m.Rows {
			if slices.ContainsFunc(row.Cells, func(c htmlCell) bool { return c.Ran && c.Outcome.Name == string(f.status) }) {
				n++
			}
		}
		if n > 0 {
			out = append(out, htmlFilter{Status: htmlStatusOf(f.status), Title: f.title, Rows: n})
		}
	}
	return out
}

// htmlMatrixOf lays the scenario runs out as scenario id × (transport, spec
// version); a cell stays empty where the scenario did not run. Should one
// id run twice in the same cell, the cell shows the worse outcome and links
// to the first run.
func htmlMatrixOf(r *Run, sections []htmlScenario) htmlMatrix {
	axes := runAxes(r)
	column := map[axis]int{}
	var m htmlMatrix
	for i, a := range axes {
		column[a] = i
		m.Columns = append(m.Columns, htmlAxis{Transport: htmlOrDash(a.transport), SpecVersion: htmlOrDash(a.specVersion)})
		if n := len(m.Transports); n > 0 && axes[i-1].transport == a.transport {
			m.Transports[n-1].Span++
		} else {
			m.Transports = append(m.Transports, htmlAxisGroup{Transport: htmlOrDash(a.transport), Span: 1})
		}
	}

	type cellCounts struct {
		ran    bool
		anchor string
		counts Counts
	}
	rowOf := map[string]int{}
	var cells [][]cellCounts
	totals := make([]cellCounts, len(axes))
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		row, ok := rowOf[s.ID]
		if !ok {
			row = len(m.Rows)
			rowOf[s.ID] = row
			m.Rows = append(m.Rows, htmlMatrixRow{
				Anchor: sections[i].Anchor, ID: sections[i].ID, Title: sections[i].Title, Family: sections[i].Family,
			})
			cells = append(cells, make([]cellCounts, len(axes)))
		}
		col := column[s.axis()]
		c := &cells[row][col]
		if !c.ran {
			c.ran, c.anchor = true, sections[i].Anchor
		}
		c.counts = c.counts.plus(s.Counts())
		totals[col].ran = true
		totals[col].counts = totals[col].counts.plus(s.Counts())
	}

	cellOf := func(c cellCounts, a axis) htmlCell {
		if !c.ran {
			return htmlCell{Detail: "not run on " + htmlOrDash(a.label())}
		}
		return htmlCell{
			Ran:     true,
			Anchor:  c.anchor,
			Outcome: htmlStatusOf(c.counts.Outcome()),
			Detail:  htmlOrDash(a.label()) + ": " + htmlCountsText(c.counts),
		}
	}
	for row := range m.Rows {
		for col, a := range axes {
			m.Rows[row].Cells = append(m.Rows[row].Cells, cellOf(cells[row][col], a))
		}
	}
	for col, a := range axes {
		if why := notImplemented(r, a); why != "" {
			m.Columns[col].NotImplemented = true
			m.Notes = append(m.Notes, htmlOrDash(a.label())+": not judged: "+oneLine(htmlText(why)))
		}
	}
	for col, a := range axes {
		m.Totals = append(m.Totals, cellOf(totals[col], a))
	}
	return m
}

// notImplemented is why nothing was judged on axis a when the target does
// not implement its version: every check there skipped, at least one of
// them not judged (the handshake's gate); "" otherwise.
func notImplemented(r *Run, a axis) string {
	why := ""
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if s.axis() != a {
			continue
		}
		for _, c := range s.Checks {
			if c.Status != Skipped {
				return ""
			}
			if c.Reason == ReasonNotJudged && why == "" {
				why = strings.TrimPrefix(c.Message, "not judged: ")
			}
		}
	}
	return why
}

// htmlCountsText is "3 passed, 1 failed" (zeros left out), for tooltips.
func htmlCountsText(c Counts) string {
	n := htmlCountsOf(c)
	var parts []string
	for i, s := range htmlStatuses {
		if n[i] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[i], strings.ToLower(s.title)))
		}
	}
	if len(parts) == 0 {
		return "no checks"
	}
	return strings.Join(parts, ", ")
}

func htmlOrDash(s string) string {
	if s = oneLine(htmlText(s)); s == "" {
		return "-"
	}
	return s
}

func htmlFromScenario(r *Run, i int) htmlScenario {
	s := &r.Scenarios[i]
	c := s.Counts()
	// The same scenario id recurs once per transport and spec version, so
	// the position makes the anchor unique; the id keeps it readable.
	anchor := fmt.Sprintf("s%d-%s", i+1, classSegment(s.ID))
	hs := htmlScenario{
		Anchor:      anchor,
		ID:          oneLine(htmlText(s.ID)),
		Title:       oneLine(htmlText(s.Title)),
		Family:      oneLine(htmlText(s.Family)),
		Side:        oneLine(htmlText(s.Side)),
		Transport:   oneLine(htmlText(s.Transport)),
		SpecVersion: oneLine(htmlText(s.SpecVersion)),
		Where:       oneLine(htmlText(s.axis().label())),
		Duration:    mdDuration(s.Duration),
		Outcome:     htmlStatusOf(c.Outcome()),
		Open:        c.Failed > 0 || c.Errored > 0,
		Counts:      htmlCounts(c),
		Total:       c.Total,
		Checks:      make([]htmlCheck, 0, len(s.Checks)),
		Transcript:  transcriptLines(s.Transcript),
		Stderr:      htmlBlock(s.Stderr),
	}
	if !s.Started.IsZero() {
		hs.Started = mdTime(s.Started)
	}
	for j := range s.Checks {
		ch := &s.Checks[j]
		msg := ch.Message
		st := ch.Final()
		hc := htmlCheck{
			Status:   htmlStatusOf(st),
			Level:    oneLine(htmlText(ch.Level)),
			ID:       oneLine(htmlText(ch.ID)),
			Title:    oneLine(htmlText(ch.Title)),
			SpecRef:  oneLine(htmlText(ch.SpecRef)),
			SpecURL:  SpecURL(oneLine(htmlText(ch.SpecRef))),
			Quote:    oneLine(htmlText(ch.Quote)),
			Source:   oneLine(htmlText(ch.Source)),
			Duration: mdDuration(ch.Duration),
		}
		if st == ExpectedFailure {
			hc.ExpectedBy = oneLine(htmlText(ch.ExpectedBy))
		}
		if msg := htmlBlock(msg); st != Passed && strings.TrimSpace(msg) != "" {
			hc.Anchor = fmt.Sprintf("%s-c%d", anchor, j+1)
			hc.Message = msg
			hs.Problems = append(hs.Problems, hc)
		}
		hs.Checks = append(hs.Checks, hc)
	}
	return hs
}

func htmlStatusOf(s Status) htmlStatus {
	if !s.Valid() && s != ExpectedFailure {
		s = Errored
	}
	return htmlStatus{Name: string(s), Label: s.Word()}
}

func htmlCounts(c Counts) []htmlCount {
	n := htmlCountsOf(c)
	out := make([]htmlCount, 0, len(htmlStatuses))
	for i, s := range htmlStatuses {
		if s.status == ExpectedFailure && n[i] == 0 {
			continue
		}
		out = append(out, htmlCount{Status: htmlStatusOf(s.status), Title: s.title, N: n[i]})
	}
	return out
}

// htmlOutcomeText explains the overall outcome in the words of the exit codes.
func htmlOutcomeText(s Status, c Counts) string {
	switch s {
	case Errored:
		return fmt.Sprintf("%d of %d checks could not be judged", c.Errored, c.Total)
	case Failed:
		text := fmt.Sprintf("%d of %d checks failed", c.Failed, c.Total)
		if c.Expected > 0 {
			text += fmt.Sprintf(" unexpectedly (and %d as the baseline expected)", c.Expected)
		}
		if c.Errored > 0 {
			text += fmt.Sprintf("; %d could not be judged", c.Errored)
		}
		return text
	case ExpectedFailure:
		return fmt.Sprintf("nothing failed unexpectedly; %d expected failures (listed in the baseline)", c.Expected)
	case Warning:
		return fmt.Sprintf("nothing failed; %d SHOULD warnings", c.Warning)
	case Passed:
		return "every judged check passed"
	}
	return "no check was judged"
}

// htmlList prepares run values (transports, versions) for display.
func htmlList(values []string) []string {
	var out []string
	for _, v := range values {
		if v = oneLine(htmlText(v)); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// htmlBlock prepares multi-line text for a <pre>: sanitised, line endings
// normalised, trailing blank lines dropped.
func htmlBlock(s string) string {
	s = strings.ReplaceAll(htmlText(s), "\r\n", "\n")
	return strings.TrimRight(s, "\n")
}

// htmlText is cleanText (ANSI sequences, XML-illegal controls and invalid
// UTF-8 removed) minus what HTML additionally reports as a parse error: DEL,
// C1 controls and noncharacters. Escaping itself is html/template's job.
func htmlText(s string) string {
	s = cleanText(s)
	if strings.IndexFunc(s, htmlIllegal) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if htmlIllegal(r) {
			return -1
		}
		return r
	}, s)
}

func htmlIllegal(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0xfdd0 && r <= 0xfdef) ||
		(r <= utf8.MaxRune && r&0xfffe == 0xfffe)
}

// transcriptLines splits a transcript as jsonrpc.Transcript formats it
// ("    0.003s send   [A] {...}") into lines classed by direction. Lines
// that do not start a frame (a frame spanning several lines) keep the class
// of the frame they continue; the "… frames dropped" trailer is a note.
func transcriptLines(s string) []htmlLine {
	s = htmlBlock(s)
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	out := make([]htmlLine, len(lines))
	class := ""
	for i, l := range lines {
		if dir, ok := transcriptDirection(l); ok {
			class = "tr-" + dir
		} else if strings.HasPrefix(l, "… ") {
			class = "tr-note"
		}
		out[i] = htmlLine{Class: class, Text: l}
	}
	return out
}

// transcriptDirection recognises "<seconds>s <direction> " at the start of a
// transcript line.
func transcriptDirection(line string) (string, bool) {
	rest := strings.TrimLeft(line, " ")
	at, rest, ok := strings.Cut(rest, " ")
	if !ok || !isSeconds(at) {
		return "", false
	}
	word, _, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	switch word {
	case "send", "recv", "stderr", "event":
		return word, true
	}
	return "", false
}

// isSeconds matches "0.003s", "12s" and the like.
func isSeconds(s string) bool {
	num, ok := strings.CutSuffix(s, "s")
	if !ok || num == "" {
		return false
	}
	digits, dots := 0, 0
	for i := 0; i < len(num); i++ {
		switch c := num[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}
