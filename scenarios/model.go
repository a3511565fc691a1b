// Package scenarios is the catalogue of what mcpconform judges. A scenario
// has a stable id, the side it tests, the spec versions it applies to, its
// checks (each with a level and a spec reference) and a body written against
// the fake peers. Bodies hand in a verdict per check; they never assert.
package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
)

// Level is the RFC 2119 keyword behind a check.
type Level string

const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	May    Level = "MAY"
)

// Side says which side is under test.
type Side string

const (
	ServerSide Side = "server"
	ClientSide Side = "client"
)

// Check is one requirement a scenario judges.
type Check struct {
	// ID is "<scenario id>/<check name>", kebab-case, hand-written and stable.
	ID    string
	Title string // the requirement in one line
	Level Level
	// Spec is the page (relative to the spec docs root) and section, e.g.
	// "2025-11-25/basic/lifecycle.mdx#version-negotiation".
	Spec string
}

// Scenario is one procedure against the target.
type Scenario struct {
	ID      string
	Title   string
	Family  string
	Side    Side
	Purpose string
	// Versions the scenario applies to.
	Versions []string
	// Transports it applies to; empty means every transport.
	Transports []string
	// Needs names what the target must offer (fixtures, capabilities); shown in `list`.
	Needs  []string
	Checks []Check
	Run    func(t *T)
}

// AppliesTo reports whether the scenario runs at this version on this transport.
func (s *Scenario) AppliesTo(version, transport string) bool {
	if !slices.Contains(s.Versions, version) {
		return false
	}
	return len(s.Transports) == 0 || slices.Contains(s.Transports, transport)
}

// Check returns the check with this id.
func (s *Scenario) Check(id string) (Check, bool) {
	for _, c := range s.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

var catalogue []*Scenario

// Register adds scenarios to the catalogue; called from init functions.
func Register(s ...*Scenario) { catalogue = append(catalogue, s...) }

// All returns the catalogue sorted by id.
func All() []*Scenario {
	out := append([]*Scenario(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Find returns the scenario with this id.
func Find(id string) (*Scenario, bool) {
	for _, s := range catalogue {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// AllChecks lists every check id in the catalogue.
func AllChecks() []Check {
	var out []Check
	for _, s := range All() {
		out = append(out, s.Checks...)
	}
	return out
}

var (
	kebab   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	specRef = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|ext-tasks|jsonrpc-2\.0)/[^#\s]+(#[a-z0-9-]+)?$`)
)

// Validate checks the catalogue's own consistency: ids unique and
// well-formed, every check with a level and a spec reference. killers maps
// check ids to the faults that must kill them; a check without one is
// refused, since a check that no fault can fail is a defect.
func Validate(killers map[string][]string) error {
	seen := map[string]bool{}
	for _, s := range All() {
		if !kebab.MatchString(s.ID) {
			return fmt.Errorf("scenario id %q is not kebab-case", s.ID)
		}
		if seen[s.ID] {
			return fmt.Errorf("duplicate scenario id %q", s.ID)
		}
		seen[s.ID] = true
		if s.Run == nil || len(s.Versions) == 0 || s.Family == "" || s.Title == "" {
			return fmt.Errorf("scenario %s lacks a body, versions, family or title", s.ID)
		}
		for _, c := range s.Checks {
			name, ok := cutPrefix(c.ID, s.ID+"/")
			if !ok || !kebab.MatchString(name) {
				return fmt.Errorf("check id %q must be %s/<kebab-case name>", c.ID, s.ID)
			}
			if seen[c.ID] {
				return fmt.Errorf("duplicate check id %q", c.ID)
			}
			seen[c.ID] = true
			if c.Level != Must && c.Level != Should && c.Level != May {
				return fmt.Errorf("check %s has no level", c.ID)
			}
			if !specRef.MatchString(c.Spec) {
				return fmt.Errorf("check %s has no valid spec reference (%q)", c.ID, c.Spec)
			}
			if c.Title == "" {
				return fmt.Errorf("check %s has no title", c.ID)
			}
			if killers != nil && len(killers[c.ID]) == 0 {
				return fmt.Errorf("check %s has no fault in the reference server that makes it fail", c.ID)
			}
		}
	}
	return nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}
