package suites

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// Sharding splits one run (every scenario × transport × version it would
// make, a unit) over N machines of a CI matrix: shard K of N runs the units
// of bin K, bins filled greedily by the units' recorded durations, longest
// first, so that every shard ends at about the same time. The assignment
// depends on nothing but the plan and the checked-in table, so every
// machine computes the same bins.
//
// Two kinds of unit do not take part in the balancing, because their
// verdicts depend on what else runs beside them on their transport and
// version:
//
//   - the handshake's scenario (Scenario.Handshake) decides the gate the
//     others consult. A shard without it would meet a target that cannot
//     start in whatever scenario came first, and fail one of that
//     scenario's checks where a whole run fails the handshake's check and
//     leaves the rest not judged. So it runs first in every shard that has
//     a unit of its transport and version, as in a whole run.
//   - the ledger judges (Scenario.Last) judge what every other scenario of
//     their transport and version sent. Run in one shard only, they would
//     pass whatever the other shards' scenarios sent unseen. So they run
//     last in every shard that has a unit of their transport and version,
//     each judging what that shard's scenarios sent: each shard's verdict
//     is true of its own traffic, and `mcpconform report merge` folds the
//     copies into one verdict per check (the worst), which is the verdict
//     on the traffic of all the shards together.
//
// Every other unit runs in exactly one shard.

// Unit is one scenario run of a plan: a scenario on one transport at one
// version.
type Unit struct {
	Scenario  string
	Transport transport.Kind
	Version   string
}

func (u Unit) String() string { return u.Scenario + " " + string(u.Transport) + " " + u.Version }

// Shard is the value of --shard: shard K of N (1 ≤ K ≤ N); the zero value
// is the whole run.
type Shard struct{ K, N int }

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("want K/N (shard K of N, 1 ≤ K ≤ N), got %q", s)
	}
	ki, kerr := strconv.Atoi(k)
	ni, nerr := strconv.Atoi(n)
	switch {
	case kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("want K/N with K and N whole numbers, got %q", s)
	case ni < 1:
		return Shard{}, fmt.Errorf("N must be at least 1, got %q", s)
	case ki < 1 || ki > ni:
		return Shard{}, fmt.Errorf("K must be between 1 and N, got %q", s)
	}
	return Shard{K: ki, N: ni}, nil
}

// Set, String and Type make a Shard a command-line flag (pflag.Value): a
// malformed value is refused while the flags are parsed.
func (s *Shard) Set(v string) error {
	sh, err := ParseShard(v)
	if err != nil {
		return err
	}
	*s = sh
	return nil
}

func (s *Shard) String() string {
	if s == nil || s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

func (s *Shard) Type() string { return "K/N" }

// Whole reports the zero value: no --shard, the whole run.
func (s Shard) Whole() bool { return s.N == 0 }

// Planned lists the units a config will run: its applicable scenarios
// (Applicable, so Select too) of which the label filter selects at least
// one check. Order: the config's run order.
func (c Config) Planned() []*scenarios.Scenario {
	filter, err := types.ParseLabelFilter(c.LabelFilter)
	if err != nil {
		// Refused before the run by the CLI; Define selects everything then.
		filter = nil
	}
	var out []*scenarios.Scenario
	for _, s := range c.Applicable() {
		if filter == nil || slices.ContainsFunc(s.Checks, func(ch *scenarios.Check) bool {
			return filter(CheckLabels(s, ch, c.Env.Version, c.Env.Transport))
		}) {
			out = append(out, s)
		}
	}
	return out
}

// InEveryShard reports a unit that runs in every shard that has a unit of
// its transport and version, instead of in one (see above).
func InEveryShard(s *scenarios.Scenario) bool { return Phase(s) != 1 }

// ShardUnits returns, for each config, the scenarios shard sh of the run
// made of configs runs. A config whose every scenario runs in every shard
// (only the handshake's or ledger scenarios are selected) is one unit of
// the balancing, its summed duration.
func ShardUnits(configs []Config, sh Shard, d Durations) [][]*scenarios.Scenario {
	type item struct {
		config int
		units  []*scenarios.Scenario // one, or a config's whole block
		cost   time.Duration
		key    string // the tie-break: the first unit's name
	}
	planned := make([][]*scenarios.Scenario, len(configs))
	var items []item
	follower := make([]time.Duration, len(configs)) // the cost a shard pays once per config it touches
	for i, cfg := range configs {
		planned[i] = cfg.Planned()
		var block []*scenarios.Scenario
		var blockCost time.Duration
		ordinary := false
		for _, s := range planned[i] {
			u := Unit{Scenario: s.ID, Transport: cfg.Env.Transport, Version: cfg.Env.Version}
			if InEveryShard(s) {
				block = append(block, s)
				blockCost += d.Of(u)
				continue
			}
			ordinary = true
			items = append(items, item{config: i, units: []*scenarios.Scenario{s}, cost: d.Of(u), key: u.String()})
		}
		if ordinary {
			follower[i] = blockCost
		} else if len(block) > 0 {
			u := Unit{Scenario: block[0].ID, Transport: cfg.Env.Transport, Version: cfg.Env.Version}
			items = append(items, item{config: i, units: block, cost: blockCost, key: u.String()})
		}
	}
	// Longest first; equal durations by name, so the order is total.
	slices.SortStableFunc(items, func(a, b item) int {
		if c := cmp.Compare(b.cost, a.cost); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	n := max(sh.N, 1)
	load := make([]time.Duration, n)
	touched := make([]map[int]bool, n)
	for b := range touched {
		touched[b] = map[int]bool{}
	}
	bin := map[*scenarios.Scenario]map[int]int{} // scenario → config → bin
	for _, it := range items {
		// The bin that ends earliest with it, counting the handshake and
		// ledger scenarios it pays once per transport and version it runs;
		// the lowest index of equals.
		best, bestLoad := 0, time.Duration(-1)
		for b := range n {
			l := load[b] + it.cost
			if !touched[b][it.config] {
				l += follower[it.config]
			}
			if bestLoad < 0 || l < bestLoad {
				best, bestLoad = b, l
			}
		}
		load[best] = bestLoad
		touched[best][it.config] = true
		for _, s := range it.units {
			if bin[s] == nil {
				bin[s] = map[int]int{}
			}
			bin[s][it.config] = best
		}
	}
	k := max(sh.K, 1) - 1
	out := make([][]*scenarios.Scenario, len(configs))
	for i := range configs {
		for _, s := range planned[i] {
			if b, ok := bin[s][i]; ok && b == k {
				out[i] = append(out[i], s)
			} else if !ok && InEveryShard(s) && touched[k][i] {
				out[i] = append(out[i], s)
			}
		}
	}
	return out
}

// ApplyShard narrows each config's selection to shard sh: one more
// selection step after --scenario and the label filter. The whole run
// (sh zero) is returned as it is.
func ApplyShard(configs []Config, sh Shard, d Durations) []Config {
	if sh.Whole() {
		return configs
	}
	units := ShardUnits(configs, sh, d)
	out := slices.Clone(configs)
	for i := range out {
		in := map[string]bool{}
		for _, s := range units[i] {
			in[s.ID] = true
		}
		prev := out[i].Select
		out[i].Select = func(s *scenarios.Scenario) bool { return in[s.ID] && (prev == nil || prev(s)) }
	}
	return out
}

// Durations are the recorded durations of units, from reference runs of
// the whole catalogue (durations.json).
type Durations struct {
	// Scenarios maps a scenario id to "transport version" to milliseconds.
	Scenarios map[string]map[string]float64 `json:"scenarios"`
	// SelfTest maps a self-test run's variant (Run.VariantKey) to
	// "transport version" to milliseconds: what each run of a targeted
	// self-test took, runs side by side, at the default timing. It orders
	// a self-test's runs, longest first.
	SelfTest map[string]map[string]float64 `json:"selftest,omitempty"`
}

//go:embed durations.json
var durationsJSON []byte

// DurationsFile is the table's file name in this package's directory.
const DurationsFile = "durations.json"

// RecordedDurations is the checked-in table. A table that does not parse
// is a defect of the build, caught by the package's tests; here it gives
// every unit the same duration (balancing by count).
func RecordedDurations() Durations {
	d, err := ParseDurations(durationsJSON)
	if err != nil {
		return Durations{}
	}
	return d
}

// ParseDurations reads a durations table.
func ParseDurations(b []byte) (Durations, error) {
	var d Durations
	if err := json.Unmarshal(b, &d); err != nil {
		return Durations{}, fmt.Errorf("durations table: %w", err)
	}
	return d, nil
}

// UnitKey is how the table names a unit's transport and version.
func UnitKey(kind transport.Kind, version string) string { return string(kind) + " " + version }

// Of is u's recorded duration; a unit the table lacks gets the median of
// its scenario's recorded units, and an unknown scenario the median of
// all; an empty table gives every unit 1 ms.
func (d Durations) Of(u Unit) time.Duration {
	if per, ok := d.Scenarios[u.Scenario]; ok {
		if ms, ok := per[UnitKey(u.Transport, u.Version)]; ok {
			return millis(ms)
		}
		if m, ok := median(per); ok {
			return millis(m)
		}
	}
	var all []float64
	for _, per := range d.Scenarios {
		for _, ms := range per {
			all = append(all, ms)
		}
	}
	if m, ok := medianOf(all); ok {
		return millis(m)
	}
	return time.Millisecond
}

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

func median(m map[string]float64) (float64, bool) {
	vs := make([]float64, 0, len(m))
	for _, v := range m {
		vs = append(vs, v)
	}
	return medianOf(vs)
}

func medianOf(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// DurationsOf records the scenarios' durations of reference runs, as read
// (reports.ReadJSON) or collected, each scenario saying where it ran: one
// entry per unit, the longest where the runs repeat one.
func DurationsOf(runs ...*reports.Run) Durations {
	d := Durations{Scenarios: map[string]map[string]float64{}}
	for _, r := range runs {
		for _, s := range r.Scenarios {
			tr, v := s.Transport, s.SpecVersion
			if tr == "" || v == "" {
				continue // a unit the table cannot name
			}
			per := d.Scenarios[s.ID]
			if per == nil {
				per = map[string]float64{}
				d.Scenarios[s.ID] = per
			}
			// Whole milliseconds, at least one: the table changes only
			// where a duration does.
			ms := max(1, float64(s.Duration.Round(time.Millisecond)/time.Millisecond))
			key := UnitKey(transport.Kind(tr), v)
			per[key] = max(per[key], ms)
		}
	}
	return d
}

// Encode writes the table as indented JSON, keys sorted, one unit a line.
func (d Durations) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// CheckShard refuses a shard that would run nothing: N larger than the
// units of the selection to share out.
func CheckShard(configs []Config, sh Shard) error {
	if sh.Whole() {
		return nil
	}
	shares := 0
	for _, cfg := range configs {
		planned := cfg.Planned()
		ordinary := 0
		for _, s := range planned {
			if !InEveryShard(s) {
				ordinary++
			}
		}
		if ordinary == 0 && len(planned) > 0 {
			ordinary = 1 // the handshake's and ledger scenarios, together
		}
		shares += ordinary
	}
	if shares > 0 && sh.N > shares {
		return fmt.Errorf("%s: the selection has %d scenario runs to share out (the handshake's and the ledger scenarios go with them), so N can be at most %d", sh.String(), shares, shares)
	}
	return nil
}
