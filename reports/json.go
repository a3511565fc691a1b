package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// JSONFormatVersion is written as "formatVersion" so consumers can detect
// incompatible changes to results.json.
const JSONFormatVersion = 1

// Wire shape of results.json: lower-camel names, durations as milliseconds
// (fractional, microsecond resolution), times as RFC 3339 in UTC.
type (
	jsonRun struct {
		FormatVersion int            `json:"formatVersion"`
		Tool          string         `json:"tool"`
		ToolVersion   string         `json:"toolVersion"`
		Side          string         `json:"side"`
		Target        string         `json:"target"`
		Transport     string         `json:"transport"`
		SpecVersion   string         `json:"specVersion"`
		Strict        bool           `json:"strict"`
		Started       string         `json:"started,omitempty"`
		DurationMs    float64        `json:"durationMs"`
		Interrupted   bool           `json:"interrupted"`
		InterruptedBy string         `json:"interruptedBy,omitempty"`
		Shard         string         `json:"shard,omitempty"`
		Outcome       Status         `json:"outcome"`
		Counts        jsonCounts     `json:"counts"`
		Scenarios     []jsonScenario `json:"scenarios"`
	}
	jsonScenario struct {
		ID          string      `json:"id"`
		Title       string      `json:"title"`
		Family      string      `json:"family"`
		Side        string      `json:"side"`
		Transport   string      `json:"transport"`
		SpecVersion string      `json:"specVersion"`
		Started     string      `json:"started,omitempty"`
		DurationMs  float64     `json:"durationMs"`
		Outcome     Status      `json:"outcome"`
		Counts      jsonCounts  `json:"counts"`
		Checks      []jsonCheck `json:"checks"`
		Transcript  string      `json:"transcript,omitempty"`
		Stderr      string      `json:"stderr,omitempty"`
	}
	jsonCheck struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Level   string `json:"level"`
		SpecRef string `json:"specRef"`
		Quote   string `json:"quote,omitempty"`
		Source  string `json:"source,omitempty"`
		Status  Status `json:"status"`
		// Reason: the kind of reason of a skip or an error, for machines
		// (the message says it to people).
		Reason     ReasonKind `json:"reason,omitempty"`
		Message    string     `json:"message,omitempty"`
		DurationMs float64    `json:"durationMs"`
		// Expected: a failure an expected-failures baseline lists (status
		// stays "failed"); ExpectedBy names the entry and where it is.
		Expected   bool   `json:"expected,omitempty"`
		ExpectedBy string `json:"expectedBy,omitempty"`
	}
	jsonCounts struct {
		Passed  int `json:"passed"`
		Failed  int `json:"failed"`
		Warning int `json:"warning"`
		Skipped int `json:"skipped"`
		Errored int `json:"errored"`
		// Expected failures, not counted in Failed; present when a
		// baseline expected some.
		Expected int `json:"expected,omitempty"`
		Total    int `json:"total"`
	}
)

// WriteJSON writes r as indented JSON with lower-camel field names,
// durations in milliseconds and per-run and per-scenario counts, of r as
// Normalize completes it: each scenario says where it ran, and an unknown
// check status is written "error", as Counts counts it.
func WriteJSON(w io.Writer, r *Run) error {
	if r == nil {
		return errNilRun
	}
	return writeJSON(w, normalized(r))
}

// writeJSON writes a normalised run.
func writeJSON(w io.Writer, r *Run) error {
	// The run is written scenario by scenario: indenting the whole run at
	// once held its encoding three times over (compact, indented, and the
	// encoder's buffer). The bytes are those of one indented encoding:
	// "scenarios" is the run's last member, so the head is the run encoded
	// with no scenarios up to its "[", and each scenario is encoded as an
	// element of that array, two levels deep, by one encoder whose buffers
	// serve every scenario in turn.
	var head bytes.Buffer
	if err := newIndentEncoder(&head, "").Encode(jsonRunHead(r)); err != nil {
		return fmt.Errorf("reports: encoding JSON: %w", err)
	}
	const emptyTail = "[]\n}\n"
	if !bytes.HasSuffix(head.Bytes(), []byte(emptyTail)) {
		return fmt.Errorf("reports: encoding JSON: the run does not end with its scenarios")
	}
	if _, err := w.Write(head.Bytes()[:head.Len()-len(emptyTail)+1]); err != nil { // up to "["
		return fmt.Errorf("reports: writing JSON: %w", err)
	}
	const elementIndent = "    " // an element of the run's "scenarios"
	elem := &holdNewline{w: w}
	enc := newIndentEncoder(elem, elementIndent)
	for i := range r.Scenarios {
		sep := ",\n" + elementIndent
		if i == 0 {
			sep = sep[1:]
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return fmt.Errorf("reports: writing JSON: %w", err)
		}
		if err := enc.Encode(jsonFromScenario(&r.Scenarios[i])); err != nil {
			return fmt.Errorf("reports: encoding JSON: %w", err)
		}
		elem.held = false // the encoder's newline: the array goes on
	}
	end := "]\n}\n"
	if len(r.Scenarios) > 0 {
		end = "\n  ]\n}\n"
	}
	if _, err := io.WriteString(w, end); err != nil {
		return fmt.Errorf("reports: writing JSON: %w", err)
	}
	return nil
}

// newIndentEncoder encodes into w indented by two spaces, every line after
// the first starting with prefix.
func newIndentEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	// Transcripts are full of <, > and &; \u003c escapes only hurt readability.
	enc.SetEscapeHTML(false)
	return enc
}

// holdNewline passes writes on to w, holding back a newline that ends one
// until more follows: what an encoder writes, without the newline it ends
// each value with once held is cleared.
type holdNewline struct {
	w    io.Writer
	held bool
}

func (h *holdNewline) Write(b []byte) (int, error) {
	n := len(b)
	if n == 0 {
		return 0, nil
	}
	if h.held {
		if _, err := io.WriteString(h.w, "\n"); err != nil {
			return 0, err
		}
		h.held = false
	}
	if b[n-1] == '\n' {
		h.held, b = true, b[:n-1]
	}
	if _, err := h.w.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

// ReadJSON parses a results.json written by WriteJSON back into a Run, so a
// report can be re-rendered (e.g. as Markdown) without rerunning the suite.
// The run is normalised as it is read (Normalize): a file from before
// scenarios carried side and transport reads with the run's, where the run
// names one.
func ReadJSON(rd io.Reader) (*Run, error) {
	var in jsonRun
	if err := json.NewDecoder(rd).Decode(&in); err != nil {
		return nil, fmt.Errorf("reports: decoding JSON: %w", err)
	}
	if in.FormatVersion != JSONFormatVersion {
		return nil, fmt.Errorf("reports: unsupported formatVersion %d (want %d)", in.FormatVersion, JSONFormatVersion)
	}
	started, err := parseJSONTime(in.Started)
	if err != nil {
		return nil, err
	}
	r := &Run{
		Tool:        in.Tool,
		ToolVersion: in.ToolVersion,
		Side:        in.Side,
		Target:      in.Target,
		Transport:   in.Transport,
		SpecVersion: in.SpecVersion,
		Strict:      in.Strict,
		Started:     started,
		Duration:    fromMillis(in.DurationMs),
		Interrupted: in.InterruptedBy,
		Shard:       in.Shard,
	}
	if in.Interrupted && r.Interrupted == "" {
		r.Interrupted = "an interrupt"
	}
	for _, s := range in.Scenarios {
		st, err := parseJSONTime(s.Started)
		if err != nil {
			return nil, err
		}
		sc := Scenario{
			ID:          s.ID,
			Title:       s.Title,
			Family:      s.Family,
			Side:        s.Side,
			Transport:   s.Transport,
			SpecVersion: s.SpecVersion,
			Started:     st,
			Duration:    fromMillis(s.DurationMs),
			Transcript:  s.Transcript,
			Stderr:      s.Stderr,
		}
		for _, c := range s.Checks {
			sc.Checks = append(sc.Checks, Check{
				ID:         c.ID,
				Title:      c.Title,
				Level:      c.Level,
				SpecRef:    c.SpecRef,
				Quote:      c.Quote,
				Source:     c.Source,
				Status:     c.Status,
				Reason:     c.Reason,
				Message:    c.Message,
				Duration:   fromMillis(c.DurationMs),
				Expected:   c.Expected,
				ExpectedBy: c.ExpectedBy,
			})
		}
		r.Scenarios = append(r.Scenarios, sc)
	}
	r.Normalize()
	return r, nil
}

// jsonRunHead is the wire shape of r without its scenarios (an empty
// list), which WriteJSON writes one by one (jsonFromScenario).
func jsonRunHead(r *Run) jsonRun {
	c := r.Counts()
	out := jsonRun{
		FormatVersion: JSONFormatVersion,
		Tool:          r.tool(),
		ToolVersion:   r.ToolVersion,
		Side:          r.Side,
		Target:        r.Target,
		Transport:     r.Transport,
		SpecVersion:   r.SpecVersion,
		Strict:        r.Strict,
		Started:       jsonTime(r.Started),
		DurationMs:    millis(r.Duration),
		Interrupted:   r.Interrupted != "",
		InterruptedBy: r.Interrupted,
		Shard:         r.Shard,
		Outcome:       r.Outcome(),
		Counts:        jsonCounts(c),
		Scenarios:     []jsonScenario{}, // [] rather than null
	}
	return out
}

// jsonFromScenario is the wire shape of one scenario.
func jsonFromScenario(s *Scenario) jsonScenario {
	sc := s.Counts()
	js := jsonScenario{
		ID:          s.ID,
		Title:       s.Title,
		Family:      s.Family,
		Side:        s.Side,
		Transport:   s.Transport,
		SpecVersion: s.SpecVersion,
		Started:     jsonTime(s.Started),
		DurationMs:  millis(s.Duration),
		Outcome:     sc.Outcome(),
		Counts:      jsonCounts(sc),
		Checks:      make([]jsonCheck, 0, len(s.Checks)),
		Transcript:  s.Transcript,
		Stderr:      s.Stderr,
	}
	for j := range s.Checks {
		c := &s.Checks[j]
		js.Checks = append(js.Checks, jsonCheck{
			ID:         c.ID,
			Title:      c.Title,
			Level:      c.Level,
			SpecRef:    c.SpecRef,
			Quote:      c.Quote,
			Source:     c.Source,
			Status:     c.Status,
			Reason:     c.Reason,
			Message:    c.Message,
			DurationMs: millis(c.Duration),
			Expected:   c.Expected,
			ExpectedBy: c.ExpectedBy,
		})
	}
	return js
}

func millis(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}

func fromMillis(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseJSONTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("reports: bad time %q: %w", s, err)
	}
	return t, nil
}
