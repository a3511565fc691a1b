package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit document shape. Order of struct fields is the order of elements,
// matching the Ant/Jenkins schema (properties, testcase*, system-out,
// system-err) so strict consumers accept it.
type (
	junitSuites struct {
		XMLName   xml.Name `xml:"testsuites"`
		Name      string   `xml:"name,attr"`
		Tests     int      `xml:"tests,attr"`
		Failures  int      `xml:"failures,attr"`
		Errors    int      `xml:"errors,attr"`
		Skipped   int      `xml:"skipped,attr"`
		Time      string   `xml:"time,attr"`
		Timestamp string   `xml:"timestamp,attr,omitempty"`
		// Properties carries "interrupted" for a run stopped by a signal,
		// so a CI panel can tell an incomplete run from a complete one.
		Properties *junitProperties `xml:"properties,omitempty"`
		Suites     []junitSuite     `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Time       string           `xml:"time,attr"`
		Timestamp  string           `xml:"timestamp,attr,omitempty"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Cases      []junitCase      `xml:"testcase"`
		SystemOut  *junitText       `xml:"system-out,omitempty"`
		SystemErr  *junitText       `xml:"system-err,omitempty"`
	}
	junitCase struct {
		Name       string           `xml:"name,attr"`
		Classname  string           `xml:"classname,attr"`
		Time       string           `xml:"time,attr"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Skipped    *junitSkipped    `xml:"skipped,omitempty"`
		Failure    *junitProblem    `xml:"failure,omitempty"`
		Error      *junitProblem    `xml:"error,omitempty"`
		SystemOut  *junitText       `xml:"system-out,omitempty"`
	}
	junitProperties struct {
		Items []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr,omitempty"`
	}
	// junitText is CDATA so multi-line transcripts stay readable in the raw
	// file; encoding/xml splits any "]]>" inside it, and cleanText removes
	// what CDATA cannot carry.
	junitText struct {
		Text string `xml:",cdata"`
	}
)

// warningPrefix marks SHOULD violations in a testcase's system-out: they are
// reported as passed testcases so that a CI gate on JUnit does not break on
// advice, yet remain visible.
const warningPrefix = "WARNING (SHOULD): "

// An expected failure (listed in the baseline) is a skipped testcase, so a
// CI panel gating on JUnit stays green, with the failure in the message and
// the full text in system-out.
const expectedPrefix = "EXPECTED FAILURE (baseline): "

// WriteJUnit writes r as a JUnit XML report: one testsuite per scenario run,
// one testcase per check. Side, transport and spec version are part of the
// testsuite name and of every classname, so that CI systems, which merge
// testcases by (classname, name), keep a failure on one transport apart from
// a pass on another.
func WriteJUnit(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
	return writeJUnit(w, normalized(r))
}

// writeJUnit writes a normalised run.
func writeJUnit(w io.Writer, r *Run) error {
	doc := junitFromRun(r)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("reports: encoding JUnit: %w", err)
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitFromRun(r *Run) junitSuites {
	total := r.Counts()
	name := r.tool()
	if r.Side != "" {
		name += " " + r.Side
	}
	doc := junitSuites{
		Name:      cleanText(name + " conformance"),
		Tests:     total.Total,
		Failures:  total.Failed,
		Errors:    total.Errored,
		Skipped:   total.Skipped + total.Expected,
		Time:      junitSeconds(r.Duration),
		Timestamp: junitTimestamp(r.Started),
		Suites:    make([]junitSuite, 0, len(r.Scenarios)),
	}
	if r.Interrupted != "" {
		doc.Properties = &junitProperties{Items: []junitProperty{
			{Name: "interrupted", Value: cleanText(r.Interrupted)},
			{Name: "note", Value: cleanText(r.InterruptedNote())},
		}}
	}
	classnames := map[string]int{}
	for i := range r.Scenarios {
		doc.Suites = append(doc.Suites, junitFromScenario(r, &r.Scenarios[i], classnames))
	}
	return doc
}

// junitFromScenario renders one scenario run. classnames counts the
// classnames used so far: a scenario that recurs with the same side,
// transport and version (a producer that left Transport empty on a
// multi-transport run) gets a numbered classname instead of merging.
func junitFromScenario(r *Run, s *Scenario, classnames map[string]int) junitSuite {
	c := s.Counts()
	started := s.Started
	if started.IsZero() {
		started = r.Started
	}
	side, transport, version := s.Side, s.Transport, s.SpecVersion
	name := joinNonEmpty(" ", side, transport, version, s.ID)
	classname := junitClassname(side, transport, version, s.Family, s.ID)
	classnames[classname]++
	if n := classnames[classname]; n > 1 {
		name += fmt.Sprintf(" (run %d)", n)
		classname += fmt.Sprintf("-run%d", n)
	}
	suite := junitSuite{
		Name:      cleanText(name),
		Tests:     c.Total,
		Failures:  c.Failed,
		Errors:    c.Errored,
		Skipped:   c.Skipped + c.Expected,
		Time:      junitSeconds(s.Duration),
		Timestamp: junitTimestamp(started),
		Properties: junitProps(
			"scenario", s.ID,
			"side", side,
			"transport", transport,
			"specVersion", version,
			"family", s.Family,
			"target", r.Target,
			"title", s.Title,
			"strict", fmt.Sprint(r.Strict),
			"toolVersion", r.ToolVersion,
		),
		Cases: make([]junitCase, 0, len(s.Checks)),
	}
	for i := range s.Checks {
		suite.Cases = append(suite.Cases, junitFromCheck(classname, &s.Checks[i]))
	}
	if s.Transcript != "" {
		suite.SystemOut = &junitText{cleanText(s.Transcript)}
	}
	if s.Stderr != "" {
		suite.SystemErr = &junitText{cleanText(s.Stderr)}
	}
	return suite
}

// junitClassname is "mcpconform.<side>.<transport>.<version>.<family>.<scenario>",
// e.g. "mcpconform.server.http.2025-11-25.lifecycle.lifecycle-ping". An
// unknown side, transport or version is left out rather than shown as a
// placeholder; the family keeps one, since the tree level is always there.
func junitClassname(side, transport, version, family, id string) string {
	parts := []string{"mcpconform"}
	if side != "" {
		parts = append(parts, classSegment(side))
	}
	if transport != "" {
		parts = append(parts, classSegment(transport))
	}
	if version != "" {
		parts = append(parts, versionSegment(version))
	}
	return strings.Join(append(parts, classSegment(family), classSegment(id)), ".")
}

func junitFromCheck(classname string, c *Check) junitCase {
	msg := c.Message
	status := c.Final()
	tc := junitCase{
		Name:      cleanText(c.ID),
		Classname: classname,
		Time:      junitSeconds(c.Duration),
	}
	props := []string{"level", c.Level, "spec", c.SpecRef, "title", c.Title}
	if c.Quote != "" {
		props = append(props, "quote", c.Quote)
	}
	if c.Source != "" {
		props = append(props, "source", c.Source)
	}
	switch status {
	case Failed:
		tc.Failure = &junitProblem{Message: firstLine(msg, c.Title), Type: c.Level, Text: cleanText(msg)}
	case Errored:
		tc.Error = &junitProblem{Message: firstLine(msg, c.Title), Type: "harness", Text: cleanText(msg)}
	case Skipped:
		tc.Skipped = &junitSkipped{Message: cleanText(msg)}
	case Warning:
		props = append(props, "outcome", "warning")
		tc.SystemOut = &junitText{cleanText(warningPrefix + msg)}
	case ExpectedFailure:
		props = append(props, "outcome", "expected-failure", "expectedBy", c.ExpectedBy)
		tc.Skipped = &junitSkipped{Message: "expected failure (baseline): " + firstLine(msg, c.Title)}
		tc.SystemOut = &junitText{cleanText(expectedPrefix + c.ExpectedBy + "\n" + msg)}
	}
	tc.Properties = junitProps(props...)
	return tc
}

// junitProps builds properties from name/value pairs, keeping their order so
// output is deterministic.
func junitProps(kv ...string) *junitProperties {
	p := &junitProperties{Items: make([]junitProperty, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Items = append(p.Items, junitProperty{Name: kv[i], Value: cleanText(kv[i+1])})
	}
	return p
}

// firstLine is the failure's one-line summary for the message attribute;
// CI UIs show it in lists, the full text is in the element body.
func firstLine(msg, fallback string) string {
	msg = strings.TrimSpace(cleanText(msg))
	if msg == "" {
		return cleanText(fallback)
	}
	line, _, _ := strings.Cut(msg, "\n")
	return strings.TrimSpace(line)
}

// classSegment keeps one classname component free of dots and slashes:
// consumers split classname on dots into a package tree.
func classSegment(s string) string {
	return classPart(s, false)
}

// versionSegment is classSegment keeping dots, so a dotted version ("1.2")
// stays readable; it only adds a level to the tree, never an empty one.
func versionSegment(s string) string {
	var parts []string
	for _, p := range strings.Split(classPart(s, true), ".") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, ".")
}

func classPart(s string, keepDots bool) string {
	if s == "" {
		return "unknown"
	}
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') ||
			(keepDots && r == '.')
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String()
}

func junitSeconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.3f", d.Seconds())
}

// junitTimestamp uses the Ant schema's format (no zone, no fraction), in UTC,
// since some consumers validate against that schema.
func junitTimestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}
