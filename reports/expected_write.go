package reports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// BaselineFrom makes a baseline of every failed check of the runs (expected
// or not: a baseline rewritten from a run that used one keeps its entries).
// An entry is limited to transports or versions only when the check failed
// in some but not all of the places it appeared in (judged, skipped or not
// judged): a check that failed on stdio and was skipped over HTTP gets
// "transport: stdio", so a failure over HTTP later is not hidden.
func BaselineFrom(runs ...*Run) *Baseline {
	type key struct{ side, id string }
	appeared := map[key]map[axis]bool{}
	failed := map[key]map[axis]bool{}
	var order []key
	for _, r := range runs {
		if r == nil {
			continue
		}
		r = normalized(r)
		for i := range r.Scenarios {
			s := &r.Scenarios[i]
			a := s.axis()
			for j := range s.Checks {
				c := &s.Checks[j]
				k := key{s.Side, c.ID}
				if appeared[k] == nil {
					appeared[k], failed[k] = map[axis]bool{}, map[axis]bool{}
					order = append(order, k)
				}
				appeared[k][a] = true
				if c.Status == Failed {
					failed[k][a] = true
				}
			}
		}
	}
	b := &Baseline{}
	for _, k := range order {
		if len(failed[k]) == 0 {
			continue
		}
		for _, lim := range limitsFor(failed[k], appeared[k]) {
			b.Entries = append(b.Entries, BaselineEntry{Side: k.side, ID: k.id, Transports: lim.transports, SpecVersions: lim.versions})
		}
	}
	slices.SortStableFunc(b.Entries, func(x, y BaselineEntry) int {
		return cmpAll(sideRank(x.Side)-sideRank(y.Side), strings.Compare(x.ID, y.ID),
			strings.Compare(strings.Join(x.Transports, ","), strings.Join(y.Transports, ",")),
			strings.Compare(strings.Join(x.SpecVersions, ","), strings.Join(y.SpecVersions, ",")))
	})
	return b
}

func sideRank(side string) int {
	switch side {
	case "server":
		return 0
	case "client":
		return 1
	}
	return 2
}

func cmpAll(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}

type limit struct{ transports, versions []string }

// limitsFor covers exactly the failed cells among those the check appeared
// in, with as few entries as it can: none limited when it failed
// everywhere, one transport × version product when the failures form one,
// else one entry per transport.
func limitsFor(failed, appeared map[axis]bool) []limit {
	if len(failed) == len(appeared) {
		return []limit{{}}
	}
	var fts, fvs []string
	for a := range failed {
		fts = appendNew(fts, a.transport)
		fvs = appendNew(fvs, a.specVersion)
	}
	slices.Sort(fts)
	slices.Sort(fvs)
	// An unknown transport or version cannot be named, so that dimension
	// cannot be limited.
	unknownT, unknownV := false, false
	for a := range appeared {
		unknownT = unknownT || a.transport == ""
		unknownV = unknownV || a.specVersion == ""
	}
	covers := func(ts, vs []string) map[axis]bool {
		out := map[axis]bool{}
		for a := range appeared {
			if (ts == nil || slices.Contains(ts, a.transport)) && (vs == nil || slices.Contains(vs, a.specVersion)) {
				out[a] = true
			}
		}
		return out
	}
	same := func(x, y map[axis]bool) bool {
		if len(x) != len(y) {
			return false
		}
		for a := range x {
			if !y[a] {
				return false
			}
		}
		return true
	}
	// Prefer the least limited entry that covers exactly the failures.
	for _, try := range []limit{{nil, fvs}, {fts, nil}, {fts, fvs}} {
		if (try.transports != nil && unknownT) || (try.versions != nil && unknownV) {
			continue
		}
		if same(covers(try.transports, try.versions), failed) {
			return []limit{try}
		}
	}
	if unknownT {
		return []limit{{}} // cannot say where: the whole check
	}
	var out []limit
	for _, t := range fts {
		var vs []string
		for a := range failed {
			if a.transport == t {
				vs = appendNew(vs, a.specVersion)
			}
		}
		slices.Sort(vs)
		lim := limit{[]string{t}, vs}
		if unknownV || same(covers(lim.transports, nil), covers(lim.transports, vs)) {
			lim.versions = nil
		}
		out = append(out, lim)
	}
	return out
}

// WriteYAML writes b in the file format ParseBaseline reads: the header
// lines as comments, then a server: and a client: list for the sides named
// in sides (an empty list when nothing failed on a side that was judged).
// Plain ids are plain strings, as in the official suite's files; limited
// entries are mappings, versions quoted so no YAML reader takes them for
// dates.
func (b *Baseline) WriteYAML(w io.Writer, header []string, sides []string) error {
	var out strings.Builder
	for _, h := range header {
		out.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	for _, side := range []string{"server", "client"} {
		var entries []BaselineEntry
		for _, e := range b.Entries {
			if e.Side == side {
				entries = append(entries, e)
			}
		}
		if len(entries) == 0 && !slices.Contains(sides, side) {
			continue
		}
		if len(entries) == 0 {
			fmt.Fprintf(&out, "%s: []\n", side)
			continue
		}
		fmt.Fprintf(&out, "%s:\n", side)
		for _, e := range entries {
			if len(e.Transports) == 0 && len(e.SpecVersions) == 0 && e.Reason == "" {
				fmt.Fprintf(&out, "  - %s\n", e.ID)
				continue
			}
			fmt.Fprintf(&out, "  - id: %s\n", e.ID)
			if len(e.Transports) > 0 {
				fmt.Fprintf(&out, "    transport: %s\n", yamlOneOrList(e.Transports))
			}
			if len(e.SpecVersions) > 0 {
				fmt.Fprintf(&out, "    specVersion: %s\n", yamlOneOrList(e.SpecVersions))
			}
			if e.Reason != "" {
				fmt.Fprintf(&out, "    reason: %s\n", strconv.Quote(e.Reason))
			}
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func yamlOneOrList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Sides lists the sides the runs judged, server first.
func Sides(runs ...*Run) []string {
	var out []string
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, s := range normalized(r).Scenarios {
			out = appendNew(out, s.Side)
		}
		out = appendNew(out, r.Side)
	}
	slices.SortFunc(out, func(x, y string) int { return cmpAll(sideRank(x)-sideRank(y), strings.Compare(x, y)) })
	return out
}
