package suites

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/suggest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/transport"
)

// LoadBaseline reads an expected-failures file and checks every entry
// against the catalogue, so a typo is an error before anything runs rather
// than an entry that silently never matches.
func LoadBaseline(path string) (*reports.Baseline, error) {
	b, err := reports.LoadBaseline(path)
	if err != nil {
		return nil, err
	}
	b.Entries = expandOfficialNames(b.Entries)
	if err := b.Validate(checkBaselineEntry); err != nil {
		return nil, err
	}
	return b, nil
}

// expandOfficialNames rewrites each whole-scenario entry that names an
// official scenario (ping, server-initialize, tools_call, …) rather than an
// mcpconform id into one entry per mcpconform scenario that judges it
// (coverage.yaml), so a baseline written for the official suite keeps
// working. Where the entry limits versions, only the scenarios that run at
// one of them are taken.
func expandOfficialNames(entries []reports.BaselineEntry) []reports.BaselineEntry {
	var out []reports.BaselineEntry
	for _, e := range entries {
		covering := catalogue.ScenariosFor(scenarios.Side(e.Side), e.ID)
		if _, ok := catalogue.All().Find(e.Scenario()); ok || len(covering) == 0 {
			out = append(out, e) // an mcpconform id, or checkBaselineEntry says what is wrong with it
			continue
		}
		// An official name (auth/metadata-default has a slash too).
		var taken []reports.BaselineEntry
		for _, id := range covering {
			s, _ := catalogue.All().Find(id)
			if len(e.SpecVersions) > 0 && !slices.ContainsFunc(e.SpecVersions, func(v string) bool { return slices.Contains(s.Versions, v) }) {
				continue
			}
			x := e
			x.ID = id
			x.SpecVersions = slices.DeleteFunc(slices.Clone(e.SpecVersions), func(v string) bool { return !slices.Contains(s.Versions, v) })
			taken = append(taken, x)
		}
		if len(taken) == 0 {
			out = append(out, e) // checkBaselineEntry says what is wrong with it
		}
		out = append(out, taken...)
	}
	return out
}

// checkBaselineEntry refuses an entry that could never match: an id the
// catalogue does not have, a scenario of the other side, a transport or a
// version the scenario never runs on.
//
// A whole-scenario entry may name a scenario by the official suite's name
// (initialize, tools_call, …), so a baseline written for the official suite
// keeps working; it is rewritten to the mcpconform id that covers it.
func checkBaselineEntry(e *reports.BaselineEntry) error {
	if _, ok := catalogue.All().Find(e.Scenario()); !ok {
		var covering []*scenarios.Scenario
		for _, s := range catalogue.All() {
			if s.Official == e.Scenario() && string(s.Side) == e.Side {
				covering = append(covering, s)
			}
		}
		switch {
		case len(covering) == 1 && !e.IsCheck():
			e.ID = covering[0].ID
		case len(covering) == 1:
			return fmt.Errorf("%q: %s is the official suite's name of %s, whose check ids differ: list %s or one of its checks (see 'mcpconform list')",
				e.ID, e.Scenario(), covering[0].ID, covering[0].ID)
		}
	}
	s, ok := catalogue.All().Find(e.Scenario())
	if ok && e.IsCheck() {
		ok = slices.ContainsFunc(s.Checks, func(c *scenarios.Check) bool { return c.ID == e.ID })
	}
	if !ok {
		return fmt.Errorf("unknown scenario or check id %q%s (see 'mcpconform list')", e.ID, suggest.DidYouMean(e.ID, KnownIDs(e.IsCheck())))
	}
	if string(s.Side) != e.Side {
		return fmt.Errorf("%q judges a %s but is listed under %s:", e.ID, s.Side, e.Side)
	}
	for _, t := range e.Transports {
		k, err := transport.ParseKind(t)
		if err != nil {
			return fmt.Errorf("%q: transport: %v", e.ID, err)
		}
		if len(s.Transports) > 0 && !slices.Contains(s.Transports, k) {
			return fmt.Errorf("%q never runs over %s (only %s)", e.ID, t, transportNames(s.Transports))
		}
	}
	for _, v := range e.SpecVersions {
		if !slices.Contains(protocol.Judged(), v) {
			return fmt.Errorf("%q: unknown specVersion %q (known: %s)", e.ID, v, strings.Join(protocol.Judged(), ", "))
		}
		if !slices.Contains(s.Versions, v) {
			return fmt.Errorf("%q never runs at %s (only %s)", e.ID, v, strings.Join(s.Versions, ", "))
		}
	}
	return nil
}

// KnownIDs are the catalogue's scenario ids, or its check ids.
func KnownIDs(checks bool) []string {
	var out []string
	for _, s := range catalogue.All() {
		if !checks {
			out = append(out, s.ID)
			continue
		}
		for _, c := range s.Checks {
			out = append(out, c.ID)
		}
	}
	return out
}

func transportNames(kinds []transport.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
