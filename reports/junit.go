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
		XMLName   xml.Name     `xml:"testsuites"`
		Name      string       `xml:"name,attr"`
		Tests     int          `xml:"tests,attr"`
		Failures  int          `xml:"failures,attr"`
		Errors    int          `xml:"errors,attr"`
		Skipped   int          `xml:"skipped,attr"`
		Time      string       `xml:"time,attr"`
		Timestamp string       `xml:"timestamp,attr,omitempty"`
		Suites    []junitSuite `xml:"testsuite"`
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

// WriteJUnit writes r as a JUnit XML report: one testsuite per scenario, one
// testcase per check.
func WriteJUnit(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
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
		Skipped:   total.Skipped,
		Time:      junitSeconds(r.Duration),
		Timestamp: junitTimestamp(r.Started),
		Suites:    make([]junitSuite, 0, len(r.Scenarios)),
	}
	for i := range r.Scenarios {
		doc.Suites = append(doc.Suites, junitFromScenario(r, &r.Scenarios[i]))
	}
	return doc
}

func junitFromScenario(r *Run, s *Scenario) junitSuite {
	c := s.Counts()
	started := s.Started
	if started.IsZero() {
		started = r.Started
	}
	suite := junitSuite{
		Name:      cleanText(s.ID),
		Tests:     c.Total,
		Failures:  c.Failed,
		Errors:    c.Errored,
		Skipped:   c.Skipped,
		Time:      junitSeconds(s.Duration),
		Timestamp: junitTimestamp(started),
		Properties: junitProps(
			"specVersion", s.specVersion(r),
			"family", s.Family,
			"transport", r.Transport,
			"target", r.Target,
			"side", r.Side,
			"title", s.Title,
			"strict", fmt.Sprint(r.Strict),
			"toolVersion", r.ToolVersion,
		),
		Cases: make([]junitCase, 0, len(s.Checks)),
	}
	classname := strings.Join([]string{
		"mcpconform", classSegment(r.Side), classSegment(s.Family), classSegment(s.ID),
	}, ".")
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

func junitFromCheck(classname string, c *Check) junitCase {
	status, msg := c.effective()
	tc := junitCase{
		Name:      cleanText(c.ID),
		Classname: classname,
		Time:      junitSeconds(c.Duration),
	}
	props := []string{"level", c.Level, "spec", c.SpecRef, "title", c.Title}
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
	if s == "" {
		return "unknown"
	}
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
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
