// Package scenarios is the side-neutral verdict core of mcpconform: what a
// scenario and a check are, the catalogue's rules, and Execute, which runs
// one scenario body and hands back a verdict for every check. The bodies
// live below it, one package per side and family (scenarios/server/…,
// scenarios/client/…), written against a side driver (scenarios/serverside,
// scenarios/clientside); scenarios/catalogue lists them all.
package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/transport"
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
	// AuthServerSide judges an OAuth authorization server (mcpconform
	// authserver): mcpconform plays the MCP client's part of the flow.
	AuthServerSide Side = "authserver"
)

// Check is one requirement a scenario judges. Bodies refer to checks by
// their variable, so a misspelt check is a compile error.
type Check struct {
	// ID is "<scenario id>/<check name>", kebab-case, hand-written and stable.
	ID    string
	Title string // the requirement in one line
	Level Level
	// Spec is the page (relative to the spec docs root) and section, e.g.
	// "2025-11-25/basic/lifecycle.mdx#version-negotiation".
	Spec string
	// Quote is the sentence of that page (or of Source) the check rests on.
	Quote string
	// Faults are the reference peer's faults that must make this check
	// fail: a check that no fault can fail is a defect.
	Faults []*fault.Fault
	// Liberties are the reference peer's conformant variants that this
	// check must pass although they do what the reference does not.
	Liberties []*fault.Fault
	// Source names a design note when the check rests on it rather than on
	// the spec page (e.g. "seps/1686-tasks.md#81-…"); the report cites it.
	Source string
	// Versions, when set, are the only versions the check is judged at
	// within its scenario's (a rule one version's page added or dropped);
	// the body skips it elsewhere, and a fault is held to it only there.
	Versions []string
	// Profile, when set, makes the check opt-in: it is judged only when the
	// run enables the profile (--profile), since no spec sentence asks it
	// of every peer.
	Profile string
	// Requirements are the official requirement ids (official-conformance
	// seps/sep-*.yaml, e.g. "sep-2575-server-sends-subscription-ack") the
	// check judges, wholly or in part, so coverage of the official lists is
	// data a test can hold complete.
	Requirements []string
}

// Scenario is one procedure against the target.
type Scenario struct {
	ID      string
	Title   string
	Family  string
	Side    Side
	Purpose string
	// Official is the official suite's scenario this one covers, when it
	// has another name: a client under test is told it in
	// MCP_CONFORMANCE_SCENARIO, so clients prepared for it run unchanged.
	Official string
	// Handshake marks the scenario that judges the handshake itself: it
	// runs first on each transport and version, so a target that cannot
	// even start fails there once and the rest are not attempted.
	Handshake bool
	// Last marks a scenario that judges what the others saw (every message
	// of every session): it runs last on each transport and version.
	Last bool
	// ChangesTarget marks a scenario that changes what the target lists
	// (a fixture that adds a tool or a prompt): it runs after the other
	// scenarios of its target, at every version, so none of them sees the
	// change.
	ChangesTarget bool
	// Versions the scenario applies to.
	Versions []string
	// Transports it applies to; empty means every transport.
	Transports []transport.Kind
	// Needs are what the target must offer: capabilities the side driver
	// gates the scenario on, fixtures of the contract, other needs in
	// words; shown in `list` and held to the fixtures table by Validate.
	Needs  []Need
	Checks []*Check
	// Run is the body, usually made by a side driver (serverside.Body).
	Run func(t *T)
}

// Need is one thing a scenario needs of its target. Exactly one of
// Capability, Fixture and Other is set; Note may qualify the first two.
type Need struct {
	// Capability is a capability the target declares, as a dotted path
	// ("tools", "tasks.list"). The side driver skips the scenario, before
	// its body judges anything, when the target does not declare it.
	Capability string
	// Fixture is a name of the fixtures contract (package fixtures) the
	// scenario uses; a body that asks for a fixture its scenario does not
	// name is a harness error.
	Fixture string
	// Other is a need the catalogue cannot type (a second session, an
	// issuer the target trusts), in words.
	Other string
	// Note says what the capability or fixture must do here.
	Note string
}

// NeedsCapability is the need of a declared capability (a dotted path).
func NeedsCapability(path string, note ...string) Need {
	return Need{Capability: path, Note: strings.Join(note, "; ")}
}

// NeedsFixture is the need of a fixture of the contract.
func NeedsFixture(name string, note ...string) Need {
	return Need{Fixture: name, Note: strings.Join(note, "; ")}
}

// NeedsOther is a need in words.
func NeedsOther(text string) Need { return Need{Other: text} }

// String is how `list` and the docs show the need.
func (n Need) String() string {
	var s string
	switch {
	case n.Capability != "":
		s = "capability " + n.Capability
	case n.Fixture != "":
		s = "fixture " + n.Fixture
		if f, ok := fixtures.Find(n.Fixture); ok {
			s = string(f.Kind) + " " + n.Fixture
		}
	default:
		return n.Other
	}
	if n.Note != "" {
		s += " (" + n.Note + ")"
	}
	return s
}

// Capabilities are the capability paths the scenario needs.
func (s *Scenario) Capabilities() []string {
	var out []string
	for _, n := range s.Needs {
		if n.Capability != "" {
			out = append(out, n.Capability)
		}
	}
	return out
}

// NeedsFixtureNamed reports whether the scenario names fixture name among its needs.
func (s *Scenario) NeedsFixtureNamed(name string) bool {
	return slices.ContainsFunc(s.Needs, func(n Need) bool { return n.Fixture == name })
}

// AppliesTo reports whether the scenario runs at this version on this transport.
func (s *Scenario) AppliesTo(version string, kind transport.Kind) bool {
	if !slices.Contains(s.Versions, version) {
		return false
	}
	return len(s.Transports) == 0 || slices.Contains(s.Transports, kind)
}

// Catalogue is a list of scenarios.
type Catalogue []*Scenario

// Sorted returns the scenarios sorted by id.
func (c Catalogue) Sorted() Catalogue {
	out := slices.Clone(c)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Find returns the scenario with this id.
func (c Catalogue) Find(id string) (*Scenario, bool) {
	for _, s := range c {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// Side keeps the scenarios of one side.
func (c Catalogue) Side(side Side) Catalogue {
	var out Catalogue
	for _, s := range c {
		if s.Side == side {
			out = append(out, s)
		}
	}
	return out
}

// Checks lists every check, in catalogue order.
func (c Catalogue) Checks() []*Check {
	var out []*Check
	for _, s := range c {
		out = append(out, s.Checks...)
	}
	return out
}

// Exercisers maps each liberty to the checks that exercise it.
func (c Catalogue) Exercisers() map[*fault.Fault][]*Check {
	out := map[*fault.Fault][]*Check{}
	for _, ch := range c.Checks() {
		for _, l := range ch.Liberties {
			out[l] = append(out[l], ch)
		}
	}
	return out
}

// Profiles lists the opt-in profiles the catalogue's checks name, sorted.
func (c Catalogue) Profiles() []string {
	var out []string
	for _, ch := range c.Checks() {
		if ch.Profile != "" && !slices.Contains(out, ch.Profile) {
			out = append(out, ch.Profile)
		}
	}
	sort.Strings(out)
	return out
}

// Killers maps each fault to the checks it must make fail, in catalogue order.
func (c Catalogue) Killers() map[*fault.Fault][]*Check {
	out := map[*fault.Fault][]*Check{}
	for _, ch := range c.Checks() {
		for _, f := range ch.Faults {
			out[f] = append(out[f], ch)
		}
	}
	return out
}

// KillersOn is Killers restricted to the scenarios that run over kind at
// version: a check of a scenario that does not run there cannot fail
// there, whatever fault it names.
func (c Catalogue) KillersOn(version string, kind transport.Kind) map[*fault.Fault][]*Check {
	out := map[*fault.Fault][]*Check{}
	for _, s := range c {
		if !s.AppliesTo(version, kind) {
			continue
		}
		for _, ch := range s.Checks {
			if !ch.JudgedAt(version) {
				continue
			}
			for _, f := range ch.Faults {
				out[f] = append(out[f], ch)
			}
		}
	}
	return out
}

// JudgedAt reports whether the check is judged at version (its scenario
// running there).
func (c *Check) JudgedAt(version string) bool {
	return len(c.Versions) == 0 || slices.Contains(c.Versions, version)
}

var (
	kebab   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	specRef = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|ext-tasks|ext-skills|ext-auth|jsonrpc-2\.0|seps|seeds|official-conformance)/[^#\s]+(#[a-z0-9-]+)?$`)
	// requirementID is the form of the official lists' ids: sep-<number>-…,
	// save sep-1933.yaml's, which begin wif-.
	requirementID = regexp.MustCompile(`^(sep-\d+|wif)(-[a-z0-9]+)+$`)
)

// Validate checks the catalogue's own consistency: ids unique and
// well-formed, every check with a level, a spec reference and at least one
// fault that makes it fail, every fault and liberty one of its side's
// (variants by side: faults and liberties), every liberty exercised, every
// requirement id well-formed and named once by its check.
func (c Catalogue) Validate(variants map[Side]fault.Set) error {
	faults := variants
	seen := map[string]bool{}
	for _, s := range c {
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
		if s.Side != ServerSide && s.Side != ClientSide && s.Side != AuthServerSide {
			return fmt.Errorf("scenario %s has no side", s.ID)
		}
		if err := s.validateNeeds(); err != nil {
			return err
		}
		for _, ch := range s.Checks {
			name, ok := strings.CutPrefix(ch.ID, s.ID+"/")
			if !ok || !kebab.MatchString(name) {
				return fmt.Errorf("check id %q must be %s/<kebab-case name>", ch.ID, s.ID)
			}
			if seen[ch.ID] {
				return fmt.Errorf("duplicate check id %q", ch.ID)
			}
			seen[ch.ID] = true
			if ch.Level != Must && ch.Level != Should && ch.Level != May {
				return fmt.Errorf("check %s has no level", ch.ID)
			}
			if !specRef.MatchString(ch.Spec) {
				return fmt.Errorf("check %s has no valid spec reference (%q)", ch.ID, ch.Spec)
			}
			if ch.Title == "" {
				return fmt.Errorf("check %s has no title", ch.ID)
			}
			if len(ch.Faults) == 0 {
				return fmt.Errorf("check %s has no fault in the reference %s that makes it fail", ch.ID, s.Side.Peer())
			}
			for _, f := range ch.Faults {
				if f == nil || f.Liberty || !slices.Contains(faults[s.Side], f) {
					return fmt.Errorf("check %s names a fault that is not one of the reference %s's", ch.ID, s.Side.Peer())
				}
			}
			for _, l := range ch.Liberties {
				if l == nil || !l.Liberty || !slices.Contains(faults[s.Side], l) {
					return fmt.Errorf("check %s names a liberty that is not one of the reference %s's", ch.ID, s.Side.Peer())
				}
			}
			if ch.Source != "" && !specRef.MatchString(ch.Source) {
				return fmt.Errorf("check %s has no valid source (%q)", ch.ID, ch.Source)
			}
			for _, v := range ch.Versions {
				if !slices.Contains(s.Versions, v) {
					return fmt.Errorf("check %s is judged at %s, where its scenario does not run", ch.ID, v)
				}
			}
			if ch.Profile != "" && !kebab.MatchString(ch.Profile) {
				return fmt.Errorf("check %s names profile %q, which is not kebab-case", ch.ID, ch.Profile)
			}
			for i, r := range ch.Requirements {
				if !requirementID.MatchString(r) {
					return fmt.Errorf("check %s names requirement %q, which is no official requirement id", ch.ID, r)
				}
				if slices.Contains(ch.Requirements[:i], r) {
					return fmt.Errorf("check %s names requirement %q twice", ch.ID, r)
				}
			}
		}
	}
	exercised := c.Exercisers()
	for side, set := range variants {
		for _, v := range set {
			if v.Liberty && len(c.Side(side)) > 0 && len(exercised[v]) == 0 {
				return fmt.Errorf("liberty %s is exercised by no check", v.Name)
			}
		}
	}
	return nil
}

var capabilityPath = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/._-]*$`)

// validateNeeds holds each need to one kind, a capability to a path, and a
// fixture to the contract, on the side that offers it.
func (s *Scenario) validateNeeds() error {
	offeredBy := fixtures.ByServer
	if s.Side == ClientSide {
		offeredBy = fixtures.ToClient
	}
	for _, n := range s.Needs {
		set := 0
		for _, v := range []string{n.Capability, n.Fixture, n.Other} {
			if v != "" {
				set++
			}
		}
		if set != 1 || (n.Other != "" && n.Note != "") {
			return fmt.Errorf("scenario %s has a need that is not exactly one of capability, fixture or words: %+v", s.ID, n)
		}
		if n.Capability != "" && !capabilityPath.MatchString(n.Capability) {
			return fmt.Errorf("scenario %s needs capability %q, which is no dotted path", s.ID, n.Capability)
		}
		if n.Fixture != "" {
			f, ok := fixtures.Find(n.Fixture)
			if !ok {
				return fmt.Errorf("scenario %s needs fixture %q, which the fixtures table does not list", s.ID, n.Fixture)
			}
			if f.Side != offeredBy {
				return fmt.Errorf("scenario %s needs fixture %s, which is offered by the %s side's peer", s.ID, n.Fixture, f.Side)
			}
		}
	}
	return nil
}

// Peer names the reference peer whose faults prove the side's checks: the
// reference server's for a server under test, the reference client's for a
// client under test.
func (s Side) Peer() string {
	switch s {
	case ClientSide:
		return "client"
	case AuthServerSide:
		return "authserver"
	}
	return "server"
}
