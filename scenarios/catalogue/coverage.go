package catalogue

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/scenarios"
)

// Status says how much of an official scenario mcpconform judges at a
// revision.
type Status string

const (
	// Full: the mcpconform scenarios named judge what it judges.
	Full Status = "full"
	// Partial: they judge part of it; the rest is said in words.
	Partial Status = "partial"
	// Absent: no mcpconform scenario judges it, and why is said.
	Absent Status = "absent"
)

// Coverage is what mcpconform judges of one official scenario at a
// revision.
type Coverage struct {
	Official string
	Side     scenarios.Side
	Version  string
	// List is how the revision's list takes it: Scored, or the reason it
	// is not (a key of NotScoredReasons).
	List      string
	Status    Status
	Scenarios []string // mcpconform scenarios that judge it there
	Checks    int      // their checks judged at that version
	Why       string   // Partial: what is missing; Absent: why none judges it
}

// Scored reports whether the revision's list scores the scenario.
func (c Coverage) Scored() bool { return c.List == Scored }

// CoverageOf maps every official scenario that applies at version (scored
// or not) to the mcpconform scenarios that judge it there, in the official
// suite's order, as coverage.yaml says.
func CoverageOf(version string) []Coverage {
	var out []Coverage
	for _, o := range official.Scenarios {
		list, ok := o.Revisions[version]
		if !ok {
			continue
		}
		r, _ := coverageMap.at(o, version)
		c := Coverage{Official: o.Name, Side: o.Side, Version: version, List: list, Status: r.status(),
			Scenarios: slices.Clone(r.By), Why: r.Partial + r.Absent}
		for _, id := range r.By {
			if s, ok := all.Find(id); ok {
				c.Checks += judgedAt(s, version)
			}
		}
		out = append(out, c)
	}
	return out
}

// OutsideRevisions are the official scenarios that apply at no revision
// with a list, each with the mcpconform scenarios that take its official
// name.
func OutsideRevisions() []Claimed {
	var out []Claimed
	for _, o := range official.Scenarios {
		if len(o.Revisions) > 0 {
			continue
		}
		c := Claimed{OfficialScenario: o}
		for _, s := range all {
			if s.Official == o.Name && s.Side == o.Side {
				c.By = append(c.By, s.ID)
			}
		}
		out = append(out, c)
	}
	return out
}

// Claimed is an official scenario and the mcpconform scenarios whose
// Official names it.
type Claimed struct {
	OfficialScenario
	By []string
}

func judgedAt(s *scenarios.Scenario, version string) int {
	n := 0
	for _, c := range s.Checks {
		if c.JudgedAt(version) {
			n++
		}
	}
	return n
}

// at resolves the rule of an official scenario at one revision.
func (m coverageData) at(o OfficialScenario, version string) (coverageRule, bool) {
	rule, ok := m[o.Side][o.Name]
	if !ok {
		return coverageRule{}, false
	}
	over, ok := rule.At[version]
	rule.At = nil
	if !ok {
		return rule, true
	}
	if over.By != nil {
		rule.By = over.By
	}
	if over.Partial != "" || over.Absent != "" {
		rule.Partial, rule.Absent = over.Partial, over.Absent
	}
	if over.Absent != "" && over.By == nil {
		rule.By = nil
	}
	return rule, true
}

func (r coverageRule) status() Status {
	switch {
	case r.Absent != "":
		return Absent
	case r.Partial != "":
		return Partial
	}
	return Full
}

// coverageProblems holds the data to itself and to the catalogue: every
// official scenario has one coverage rule at each revision it applies to,
// full or partial naming mcpconform scenarios of its side that run there,
// partial saying what is missing, absent saying why and naming none; no
// rule names an official scenario or revision the data lacks; and an
// mcpconform scenario that takes an official name is named in its rule
// wherever both run.
func coverageProblems(off officialData, cov coverageData, cat scenarios.Catalogue) []string {
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	if off.Release == "" || len(off.Revisions) == 0 {
		add("official.yaml: no release or no revisions")
	}
	known := map[string]OfficialScenario{}
	for _, o := range off.Scenarios {
		if _, dup := known[o.Name]; dup {
			add("official.yaml: %s listed twice", o.Name)
		}
		known[o.Name] = o
		if o.Side != scenarios.ServerSide && o.Side != scenarios.ClientSide && o.Side != scenarios.AuthServerSide {
			add("official.yaml: %s has side %q", o.Name, o.Side)
		}
		if (len(o.Versions) == 0) == (o.Extension == "") {
			add("official.yaml: %s needs spec versions or an extension, not both", o.Name)
		}
		for rev, list := range o.Revisions {
			if !slices.Contains(off.Revisions, rev) {
				add("official.yaml: %s names revision %s, which has no list", o.Name, rev)
			}
			if _, reason := off.NotScored[list]; list != Scored && !reason {
				add("official.yaml: %s at %s is %q, neither scored nor a not-scored reason", o.Name, rev, list)
			}
		}
		for _, v := range o.Versions {
			if _, taken := o.Revisions[v]; slices.Contains(off.Revisions, v) && !taken {
				add("official.yaml: %s applies at %s but says nothing of its list there", o.Name, v)
			}
		}
	}

	for side, rules := range cov {
		for name, rule := range rules {
			o, ok := known[name]
			switch {
			case !ok:
				add("coverage.yaml: %s %s is no official scenario", side, name)
				continue
			case o.Side != side:
				add("coverage.yaml: %s is under %s, but the official suite has it on the %s side", name, side, o.Side)
				continue
			case len(o.Revisions) == 0:
				add("coverage.yaml: %s applies at no revision with a list, so a rule for it is never read", name)
			}
			for rev, over := range rule.At {
				if _, applies := o.Revisions[rev]; !applies {
					add("coverage.yaml: %s has a rule at %s, where it does not apply", name, rev)
				}
				if over.At != nil {
					add("coverage.yaml: %s at %s nests another at", name, rev)
				}
				// An absent kept after its rule's scenarios came to run
				// there hides coverage the catalogue now has.
				if over.Absent != "" && over.By == nil {
					for _, id := range rule.By {
						if s, found := cat.Find(id); found && slices.Contains(s.Versions, rev) && judgedAt(s, rev) > 0 {
							add("coverage.yaml: %s is absent at %s, yet %s, which its rule names, judges there", name, rev, id)
						}
					}
				}
			}
		}
	}

	for _, o := range off.Scenarios {
		for _, rev := range off.Revisions {
			if _, applies := o.Revisions[rev]; !applies {
				continue
			}
			r, ok := cov.at(o, rev)
			if !ok {
				add("%s %s at %s: no coverage rule", o.Side, o.Name, rev)
				continue
			}
			where := fmt.Sprintf("%s %s at %s", o.Side, o.Name, rev)
			switch {
			case r.Partial != "" && r.Absent != "":
				add("%s: both partial and absent", where)
			case r.Absent != "" && len(r.By) > 0:
				add("%s: absent, yet it names %v", where, r.By)
			case r.Absent == "" && len(r.By) == 0:
				add("%s: %s, yet it names no mcpconform scenario", where, r.status())
			}
			for _, id := range r.By {
				s, found := cat.Find(id)
				switch {
				case !found:
					add("%s: no mcpconform scenario %s", where, id)
				case s.Side != o.Side:
					add("%s: %s is a %s scenario", where, id, s.Side)
				case !slices.Contains(s.Versions, rev) || judgedAt(s, rev) == 0:
					add("%s: %s judges nothing at %s", where, id, rev)
				}
			}
		}
	}

	for _, s := range cat {
		if s.Official == "" {
			continue
		}
		o, ok := known[s.Official]
		if !ok || o.Side != s.Side {
			add("scenario %s takes the official name %s, which the official suite has not on the %s side", s.ID, s.Official, s.Side)
			continue
		}
		for _, rev := range off.Revisions {
			if _, applies := o.Revisions[rev]; !applies || !slices.Contains(s.Versions, rev) {
				continue
			}
			if r, _ := cov.at(o, rev); !slices.Contains(r.By, s.ID) {
				add("scenario %s takes the official name %s but is not named in its coverage at %s", s.ID, o.Name, rev)
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// ScenariosFor lists the mcpconform scenarios that judge an official
// scenario on a side, at any revision (coverage.yaml's by, and the
// scenarios that take its name), in catalogue order; none for a name the
// official suite does not have there.
func ScenariosFor(side scenarios.Side, official string) []string {
	ids := map[string]bool{}
	if rule, ok := coverageMap[side][official]; ok {
		for _, id := range rule.By {
			ids[id] = true
		}
		for _, over := range rule.At {
			for _, id := range over.By {
				ids[id] = true
			}
		}
	}
	var out []string
	for _, s := range all {
		if s.Side == side && (ids[s.ID] || s.Official == official) {
			out = append(out, s.ID)
		}
	}
	return out
}
