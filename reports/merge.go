package reports

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The merge of a run's shards (mcpconform report merge): the reports one
// run would have written, from the results.json of each of its slices.

// Shard is one shard's results and the directory they came from.
type Shard struct {
	Dir string
	Run *Run
}

// MergeOrder is what a merge needs of the catalogue, which reports does not
// import: the orders of transports and versions, the scenarios every shard
// runs (whose copies are folded), and each scenario's place in a run.
type MergeOrder struct {
	Transports, Versions []string
	// InEveryShard reports a scenario every shard runs (the handshake's, a
	// ledger judge).
	InEveryShard func(scenarioID string) bool
	// Rank is a scenario's phase (handshake first, ledger last) and its
	// position in the catalogue; known is false for a scenario the
	// catalogue does not know (a newer build's), which goes after, as read.
	Rank func(scenarioID string) (phase, position int, known bool)
}

// MergeRules say which inputs a merge takes as one run's.
type MergeRules struct {
	// AnyTarget merges runs of different targets (one server's runs over
	// stdio and over HTTP, started by separate commands); by default their
	// targets must be one.
	AnyTarget bool
}

// unitKey names one scenario run: a scenario on a transport at a version.
type unitKey struct{ id, transport, version string }

// Merge combines the shards of one run into the run it would have been.
func Merge(inputs []Shard, order MergeOrder, rules MergeRules) (*Run, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("no shard to merge")
	}
	first := inputs[0]
	merged := &Run{Tool: first.Run.Tool, ToolVersion: first.Run.ToolVersion, Side: first.Run.Side, Strict: first.Run.Strict}
	var targets, kinds, versions, interrupts []string
	var end time.Time
	for _, in := range inputs {
		r := in.Run
		switch {
		case r.Side != merged.Side:
			return nil, fmt.Errorf("%s judged a %s and %s a %s: shards of one run judge one side", first.Dir, merged.Side, in.Dir, r.Side)
		case r.ToolVersion != merged.ToolVersion:
			return nil, fmt.Errorf("%s was written by mcpconform %s and %s by %s: shards of one run come from one build", first.Dir, merged.ToolVersion, in.Dir, r.ToolVersion)
		case r.Strict != merged.Strict:
			return nil, fmt.Errorf("%s and %s differ in --strict: shards of one run judge with the same flags", first.Dir, in.Dir)
		}
		targets = appendNew(targets, r.Target)
		kinds = appendNew(kinds, strings.Split(r.Transport, ",")...)
		versions = appendNew(versions, strings.Split(r.SpecVersion, ",")...)
		interrupts = appendNew(interrupts, r.Interrupted)
		if !r.Started.IsZero() {
			if merged.Started.IsZero() || r.Started.Before(merged.Started) {
				merged.Started = r.Started
			}
			if e := r.Started.Add(r.Duration); e.After(end) {
				end = e
			}
		}
	}
	if err := related(inputs, rules); err != nil {
		return nil, err
	}
	// The duration is the span from the first shard's start to the last
	// one's end: how long the gate took, however the shards overlapped.
	if !merged.Started.IsZero() {
		merged.Duration = end.Sub(merged.Started)
	}
	merged.Target = strings.Join(targets, "; ")
	merged.Transport = strings.Join(ordered(kinds, order.Transports), ",")
	merged.SpecVersion = strings.Join(ordered(versions, order.Versions), ",")
	merged.Interrupted = strings.Join(interrupts, ", ")

	var units []unitKey
	byUnit := map[unitKey][]copyOf{}
	for _, in := range inputs {
		// Each scenario says where it ran, whichever shard it came from.
		for _, s := range normalized(in.Run).Scenarios {
			// The merge's --expected-failures decides, as for a run (on
			// a copy: the inputs are left as they were).
			s.Checks = slices.Clone(s.Checks)
			for i := range s.Checks {
				s.Checks[i].Expected, s.Checks[i].ExpectedBy = false, ""
			}
			k := unitKey{s.ID, s.Transport, s.SpecVersion}
			if _, seen := byUnit[k]; !seen {
				units = append(units, k)
			}
			byUnit[k] = append(byUnit[k], copyOf{dir: in.Dir, s: s})
		}
	}
	sortUnits(units, kinds, versions, order)
	for _, k := range units {
		s, err := mergeCopies(k, byUnit[k], order)
		if err != nil {
			return nil, err
		}
		merged.Scenarios = append(merged.Scenarios, s)
	}
	return merged, nil
}

// related refuses inputs that are not the reports of one run: the shards
// of a run are all there, each once, and come from one command line; whole
// runs judged one target (unless rules.AnyTarget). A merge of part of a run
// would pass what it never judged, and one of unrelated runs would report
// a target that was never run.
func related(inputs []Shard, rules MergeRules) error {
	first := inputs[0]
	var sharded []Shard
	for _, in := range inputs {
		if in.Run.Shard != "" {
			sharded = append(sharded, in)
		}
	}
	for _, in := range inputs[1:] {
		if in.Run.Target != first.Run.Target && (len(sharded) > 0 || !rules.AnyTarget) {
			why := "give --any-target to merge runs of different targets"
			if len(sharded) > 0 {
				why = "the shards of one run judge one target"
			}
			return fmt.Errorf("%s judged %s and %s judged %s: %s", first.Dir, quoteTarget(first.Run.Target), in.Dir, quoteTarget(in.Run.Target), why)
		}
	}
	if len(sharded) == 0 {
		return nil
	}
	if len(sharded) < len(inputs) {
		whole := slices.IndexFunc(inputs, func(in Shard) bool { return in.Run.Shard == "" })
		return fmt.Errorf("%s is shard %s of a run and %s a whole run: merge the shards of one run", sharded[0].Dir, sharded[0].Run.Shard, inputs[whole].Dir)
	}
	n := 0
	have := map[int]string{}
	for _, in := range sharded {
		k, of, ok := parseShard(in.Run.Shard)
		if !ok {
			return fmt.Errorf("%s: shard %q is not K/N", in.Dir, in.Run.Shard)
		}
		if n == 0 {
			n = of
		}
		switch {
		case of != n:
			return fmt.Errorf("%s is shard %s and %s shard %s: the shards of one run have one N", first.Dir, first.Run.Shard, in.Dir, in.Run.Shard)
		case in.Run.Transport != first.Run.Transport || in.Run.SpecVersion != first.Run.SpecVersion:
			return fmt.Errorf("%s ran %s at %s and %s ran %s at %s: the shards of one run come from one command line",
				first.Dir, first.Run.Transport, first.Run.SpecVersion, in.Dir, in.Run.Transport, in.Run.SpecVersion)
		}
		if dir, dup := have[k]; dup && dir != in.Dir {
			return fmt.Errorf("%s and %s are both shard %s: give each shard once", dir, in.Dir, in.Run.Shard)
		}
		have[k] = in.Dir
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := have[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s missing: a merge of part of a run would pass what it never judged", strings.Join(missing, ", "))
	}
	return nil
}

func parseShard(s string) (k, n int, ok bool) {
	ks, ns, found := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	return k, n, found && err1 == nil && err2 == nil && 1 <= k && k <= n
}

// quoteTarget names a target in a message; an empty one (a report written
// without it) says so.
func quoteTarget(t string) string {
	if t == "" {
		return "an unnamed target"
	}
	return strconv.Quote(t)
}

// copyOf is one input's record of a scenario run.
type copyOf struct {
	dir string
	s   Scenario
}

// mergeCopies makes one record of a scenario run the inputs hold: the one
// copy; identical copies (a report given twice) once; the copies of a
// scenario every shard runs (the handshake's, a ledger judge) folded.
func mergeCopies(k unitKey, copies []copyOf, order MergeOrder) (Scenario, error) {
	s := copies[0].s
	distinct := []copyOf{copies[0]}
	for _, c := range copies[1:] {
		if !slices.ContainsFunc(distinct, func(d copyOf) bool { return reflect.DeepEqual(d.s, c.s) }) {
			distinct = append(distinct, c)
		}
	}
	if len(distinct) == 1 {
		return s, nil
	}
	if order.InEveryShard == nil || !order.InEveryShard(k.id) {
		return s, fmt.Errorf("%s over %s at %s is in %s and in %s with different results: each scenario runs in one shard "+
			"(are these the shards of one run, each given once?)", k.id, k.transport, k.version, distinct[0].dir, distinct[1].dir)
	}
	return foldCopies(distinct), nil
}

// foldCopies folds the copies of a scenario every shard runs into the
// verdict of one run: each check gets the worst status a copy gave it (a
// ledger judge's copies judged disjoint traffic, so a breach any copy saw
// is a breach of the whole run's; a check passes when every copy that
// judged it passed), with the messages of the copies that gave that status.
// Transcripts and stderr are kept, each under the name of its input.
func foldCopies(copies []copyOf) Scenario {
	s := copies[0].s
	s.Checks = nil
	s.Transcript, s.Stderr = "", ""
	index := map[string]int{}
	from := map[string][]string{} // check → the inputs whose message it carries
	for _, c := range copies {
		if !c.s.Started.IsZero() && (s.Started.IsZero() || c.s.Started.Before(s.Started)) {
			s.Started = c.s.Started
		}
		s.Duration = max(s.Duration, c.s.Duration)
		if c.s.Transcript != "" {
			s.Transcript += fmt.Sprintf("=== in %s ===\n%s", c.dir, c.s.Transcript)
		}
		if c.s.Stderr != "" {
			s.Stderr += fmt.Sprintf("=== in %s ===\n%s", c.dir, c.s.Stderr)
		}
		for _, ch := range c.s.Checks {
			i, ok := index[ch.ID]
			if !ok {
				index[ch.ID] = len(s.Checks)
				s.Checks = append(s.Checks, ch)
				from[ch.ID] = []string{c.dir}
				continue
			}
			got := &s.Checks[i]
			got.Duration = max(got.Duration, ch.Duration)
			switch w, o := severity(ch.Status), severity(got.Status); {
			case w > o:
				d := got.Duration
				*got = ch
				got.Duration = d
				from[ch.ID] = []string{c.dir}
			case w == o && ch.Message != "" && ch.Message != got.Message:
				if len(from[ch.ID]) == 1 && got.Message != "" {
					got.Message = fmt.Sprintf("in %s: %s", from[ch.ID][0], got.Message)
				}
				got.Message += fmt.Sprintf("\n\nin %s: %s", c.dir, ch.Message)
				from[ch.ID] = append(from[ch.ID], c.dir)
			}
		}
	}
	return s
}

// severity orders statuses as a run's outcome does, worst highest; a pass
// outranks a skip (a copy that had nothing to judge).
func severity(st Status) int {
	switch st {
	case Skipped:
		return 0
	case Passed:
		return 1
	case Warning:
		return 2
	case Failed:
		return 4
	}
	return 3 // errors, and statuses no writer knows
}

// sortUnits orders scenario runs as one run reports them: transport by
// transport, version by version, the handshake's scenario first, the
// ledger judges last, the rest in the catalogue's order; what the
// catalogue does not know (a newer build's scenarios) after, as read.
func sortUnits(units []unitKey, kinds, versions []string, order MergeOrder) {
	kindOrder := ordered(kinds, order.Transports)
	versionOrder := ordered(versions, order.Versions)
	rank := func(id string) (int, int) {
		if order.Rank != nil {
			if phase, pos, known := order.Rank(id); known {
				return phase, pos
			}
		}
		return 3, 0
	}
	slices.SortStableFunc(units, func(a, b unitKey) int {
		if c := cmp.Compare(slices.Index(kindOrder, a.transport), slices.Index(kindOrder, b.transport)); c != 0 {
			return c
		}
		if c := cmp.Compare(slices.Index(versionOrder, a.version), slices.Index(versionOrder, b.version)); c != 0 {
			return c
		}
		ra, pa := rank(a.id)
		rb, pb := rank(b.id)
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(pa, pb))
	})
}

// ordered lists the values of have in the order of known, then the rest
// as they came.
func ordered(have, known []string) []string {
	var out []string
	for _, k := range known {
		if slices.Contains(have, k) {
			out = append(out, k)
		}
	}
	for _, h := range have {
		if !slices.Contains(known, h) {
			out = append(out, h)
		}
	}
	return out
}
