package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/internal/yamlline"
)

// ExpectedFailure is the outcome of a scenario, a cell or a run whose worst
// result is a failure an expected-failures baseline lists: it does not fail
// the run. It is never a check's Status (a check keeps Failed and carries
// Expected).
const ExpectedFailure Status = "expected"

// Baseline is an expected-failures file in the official conformance suite's
// shape, extended so an entry may be limited to transports and versions:
//
//	server:
//	  - lifecycle-ping                      # every check of the scenario
//	  - tools-call/structured-content       # one check
//	  - id: lifecycle-ping/answers          # one check, only where named
//	    transport: stdio                    # or a list: [stdio, http]
//	    specVersion: 2025-11-25             # or a list
//	    reason: upstream issue 123          # optional, for people
//	client:
//	  - initialize:some-check               # the official form, same as initialize/some-check
type Baseline struct {
	Path    string // as given, for messages
	Entries []BaselineEntry
	// Elsewhere, when set, reports an entry that also covers scenario runs
	// the whole run judges but this one does not hold (the other shards of
	// --shard): such an entry is never stale here, since only the merged
	// run sees every check it covers.
	Elsewhere func(e *BaselineEntry) bool
}

// BaselineEntry is one line (or mapping) of a baseline.
type BaselineEntry struct {
	Side         string // "server" or "client": the list it is in
	ID           string // a scenario id, or a check id "<scenario>/<check>"
	Transports   []string
	SpecVersions []string
	Reason       string
	Line         int // 1-based line in the file, 0 when not from a file
}

// Scenario is the scenario id the entry names.
func (e *BaselineEntry) Scenario() string {
	s, _, _ := strings.Cut(e.ID, "/")
	return s
}

// IsCheck reports whether the entry names one check rather than a scenario.
func (e *BaselineEntry) IsCheck() bool { return strings.Contains(e.ID, "/") }

// String is the entry as a person reads it: its id and limits.
func (e *BaselineEntry) String() string {
	var limits []string
	if len(e.Transports) > 0 {
		limits = append(limits, "transport "+strings.Join(e.Transports, ", "))
	}
	if len(e.SpecVersions) > 0 {
		limits = append(limits, "spec "+strings.Join(e.SpecVersions, ", "))
	}
	if len(limits) == 0 {
		return e.ID
	}
	return e.ID + " (" + strings.Join(limits, "; ") + ")"
}

// where is "FILE line N" for messages.
func (b *Baseline) where(e *BaselineEntry) string {
	path := b.Path
	if path == "" {
		path = "the expected-failures file"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d", path, e.Line)
	}
	return path
}

// LoadBaseline reads and parses an expected-failures file.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseBaseline(data, path)
}

// ParseBaseline parses an expected-failures file. An empty file is an empty
// baseline. Unknown keys are errors: a misspelt "sever:" or "transprot:"
// silently ignored would widen or narrow what the gate lets through.
func ParseBaseline(data []byte, path string) (*Baseline, error) {
	b := &Baseline{Path: path}
	fail := func(line int, format string, args ...any) error {
		at := path
		if line > 0 {
			at = fmt.Sprintf("%s line %d", path, line)
		}
		return fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...))
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if fixed := yamlline.Fix(data, err); fixed != err {
			return nil, fmt.Errorf("%s: %w", path, fixed)
		}
		return nil, fmt.Errorf("%s: not valid YAML: %v", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fail(extra.Line, "more than one YAML document")
	}
	if len(doc.Content) == 0 {
		return b, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return b, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "expected a mapping with server: and/or client: lists")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		side := key.Value
		if side != "server" && side != "client" {
			return nil, fail(key.Line, "unknown key %q (want server or client)", side)
		}
		if seen[side] {
			return nil, fail(key.Line, "%s: appears twice", side)
		}
		seen[side] = true
		if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
			continue
		}
		if val.Kind != yaml.SequenceNode {
			return nil, fail(val.Line, "%s: must be a list of scenario or scenario/check ids", side)
		}
		for _, item := range val.Content {
			e, err := parseBaselineEntry(item, side)
			if err != nil {
				return nil, fail(item.Line, "%v", err)
			}
			b.Entries = append(b.Entries, e)
		}
	}
	return b, nil
}

func parseBaselineEntry(n *yaml.Node, side string) (BaselineEntry, error) {
	e := BaselineEntry{Side: side, Line: n.Line}
	switch n.Kind {
	case yaml.ScalarNode:
		id, err := baselineID(n)
		e.ID = id
		return e, err
	case yaml.MappingNode:
	default:
		return e, fmt.Errorf("a %s entry must be an id or a mapping with id:", side)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		var err error
		switch key.Value {
		case "id":
			e.ID, err = baselineID(val)
		case "transport":
			e.Transports, err = baselineList(val, "transport")
		case "specVersion":
			e.SpecVersions, err = baselineList(val, "specVersion")
		case "reason":
			if val.Kind != yaml.ScalarNode {
				err = fmt.Errorf("reason: must be text")
			}
			e.Reason = val.Value
		default:
			if len(n.Content) == 2 && val.Kind == yaml.ScalarNode {
				// The official form "scenario:check" with a space after the
				// colon reads as a mapping; say so rather than "unknown key".
				return e, fmt.Errorf("unknown key %q; did you mean '- %s:%s' (no space after the colon) or '- %s/%s'?",
					key.Value, key.Value, val.Value, key.Value, val.Value)
			}
			return e, fmt.Errorf("unknown key %q in an entry (want id, transport, specVersion, reason)", key.Value)
		}
		if err != nil {
			return e, err
		}
	}
	if e.ID == "" {
		return e, fmt.Errorf("an entry given as a mapping needs id:")
	}
	return e, nil
}

// baselineID reads an id; the official "scenario:check" form is the same as
// mcpconform's "scenario/check".
func baselineID(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", fmt.Errorf("an entry must be a scenario or scenario/check id")
	}
	id := strings.TrimSpace(n.Value)
	if s, c, ok := strings.Cut(id, ":"); ok {
		id = s + "/" + c
	}
	s, c, isCheck := strings.Cut(id, "/")
	if s == "" || (isCheck && (c == "" || strings.Contains(c, "/"))) || strings.ContainsAny(id, " \t") {
		return "", fmt.Errorf("%q is not a scenario or scenario/check id", n.Value)
	}
	return id, nil
}

func baselineList(n *yaml.Node, key string) ([]string, error) {
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			out = append(out, strings.TrimSpace(n.Value))
		}
	case yaml.SequenceNode:
		for _, v := range n.Content {
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s: must be a value or a list of values", key)
			}
			out = append(out, strings.TrimSpace(v.Value))
		}
	default:
		return nil, fmt.Errorf("%s: must be a value or a list of values", key)
	}
	if len(out) == 0 || slices.Contains(out, "") {
		return nil, fmt.Errorf("%s: must not be empty (leave it out to mean every %s)", key, key)
	}
	return out, nil
}

// Validate runs check on every entry (the caller knows the catalogue, the
// transports and the versions; this package does not) and returns the first
// error, prefixed with where the entry is.
func (b *Baseline) Validate(check func(e *BaselineEntry) error) error {
	if b == nil {
		return nil
	}
	for i := range b.Entries {
		if err := check(&b.Entries[i]); err != nil {
			return fmt.Errorf("%v in %s", err, b.where(&b.Entries[i]))
		}
	}
	return nil
}

// StaleEntry is a baseline entry whose checks ran and passed: the failure it
// expected is gone, and the entry must go too, or it would hide the failure
// coming back.
type StaleEntry struct {
	Entry BaselineEntry
	Where string // "FILE line N"
	Path  string
}

// Message tells the user what to remove from where.
func (s StaleEntry) Message() string {
	path := s.Path
	if path == "" {
		path = "the expected-failures file"
	}
	return fmt.Sprintf("stale expected failure %s (%s): its checks ran and none failed; remove it from %s",
		s.Entry.String(), s.Where, path)
}

// Applied is what a baseline did to a run.
type Applied struct {
	Expected int          // failed checks now marked expected
	Stale    []StaleEntry // in file order
}

// Covers reports whether e covers (some checks of) this scenario run.
func (e *BaselineEntry) Covers(side, scenario, transport, specVersion string) bool {
	if e.Side != side || e.Scenario() != scenario {
		return false
	}
	// A limited entry cannot match where the run does not say which
	// transport or version a scenario used.
	if len(e.Transports) > 0 && !slices.Contains(e.Transports, transport) {
		return false
	}
	return len(e.SpecVersions) == 0 || slices.Contains(e.SpecVersions, specVersion)
}

// Expects reports whether an entry covers check checkID of this scenario
// run: a failure there is expected (what a run's progress shows before the
// baseline is applied to the whole run).
func (b *Baseline) Expects(side, scenario, transport, specVersion, checkID string) bool {
	for i := range b.Entries {
		e := &b.Entries[i]
		if (!e.IsCheck() || e.ID == checkID) && e.Covers(side, scenario, transport, specVersion) {
			return true
		}
	}
	return false
}

// Mark marks check c of scenario s, as it is collected, an expected
// failure when it failed and an entry covers it (the rule Apply follows for
// a whole run); s says where it ran, as a collected scenario does. It
// reports whether it marked c.
func (b *Baseline) Mark(s *Scenario, c *Check) bool {
	if b == nil || c.Status != Failed {
		return false
	}
	for k := range b.Entries {
		if e := &b.Entries[k]; e.matches(s, c) {
			c.Expected, c.ExpectedBy = true, e.String()+" ("+b.where(e)+")"
			return true
		}
	}
	return false
}

// matches reports whether e covers check c of scenario s.
func (e *BaselineEntry) matches(s *Scenario, c *Check) bool {
	if e.IsCheck() && e.ID != c.ID {
		return false
	}
	return e.Covers(s.Side, s.ID, s.Transport, s.SpecVersion)
}

// Apply marks the failed checks of r that an entry covers as expected
// (clearing any earlier marks, so applying to a merged run re-judges it) and
// returns the stale entries; r is normalised first (Normalize), so each
// scenario says where it ran. An entry is judged only on the checks it covers
// that ran:
//   - failed: the check is an expected failure, the entry is in use;
//   - warning: the SHOULD is still violated (a baseline made under --strict,
//     a run without), so the entry is in use, though nothing needs marking;
//   - passed: counts towards stale; the entry is stale when its checks
//     passed and none failed or warned;
//   - skipped or error: not judged, so neither use nor staleness (an error
//     still makes the run exit 3: a baseline never hides what could not be
//     judged).
//
// Entries whose checks did not run in r (another side, transport, version,
// a --scenario selection, another shard) are not stale; nor, with
// Elsewhere, those that also cover another shard's scenario runs.
func (b *Baseline) Apply(r *Run) Applied {
	var out Applied
	if r == nil {
		return out
	}
	r.Normalize()
	for i := range r.Scenarios {
		for j := range r.Scenarios[i].Checks {
			c := &r.Scenarios[i].Checks[j]
			c.Expected, c.ExpectedBy = false, ""
		}
	}
	if b == nil {
		return out
	}
	used := make([]bool, len(b.Entries))
	passed := make([]bool, len(b.Entries))
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		for j := range s.Checks {
			c := &s.Checks[j]
			for k := range b.Entries {
				e := &b.Entries[k]
				if !e.matches(s, c) {
					continue
				}
				switch c.Status {
				case Failed:
					used[k] = true
					if !c.Expected {
						c.Expected, c.ExpectedBy = true, e.String()+" ("+b.where(e)+")"
						out.Expected++
					}
				case Warning:
					used[k] = true
				case Passed:
					passed[k] = true
				}
			}
		}
	}
	for k := range b.Entries {
		if passed[k] && !used[k] && (b.Elsewhere == nil || !b.Elsewhere(&b.Entries[k])) {
			out.Stale = append(out.Stale, StaleEntry{Entry: b.Entries[k], Where: b.where(&b.Entries[k]), Path: b.Path})
		}
	}
	return out
}
