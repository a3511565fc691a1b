package suites

import (
	"time"

	"github.com/mcpconform/mcpconform/transport"
)

// VariantKey names a self-test run's variant in the durations table: its
// peer and its fault or liberty ("server listen-no-ack"), or "reference".
func (r Run) VariantKey() string {
	name := "reference"
	if r.Fault != nil {
		name = r.Fault.Name
	}
	return r.Side.Peer() + " " + name
}

// Estimate is how long the self-test run r takes by the table: the
// recorded reference durations of the scenarios it runs, plus what its
// variant was recorded to take beyond those of its own scenarios (a fault
// that leaves a request unanswered costs a response timeout, wherever it
// runs).
func (d Durations) Estimate(r Run, sweep bool) time.Duration {
	own := d.scenariosOf(r.config(false), r.Transport, r.Version)
	est := own
	if sweep {
		est = d.scenariosOf(r.config(true), r.Transport, r.Version)
	}
	if ms, ok := d.SelfTest[r.VariantKey()][UnitKey(r.Transport, r.Version)]; ok {
		est += max(0, millis(ms)-own)
	}
	return est
}

func (d Durations) scenariosOf(cfg Config, kind transport.Kind, version string) time.Duration {
	var sum time.Duration
	for _, s := range cfg.Applicable() {
		sum += d.Of(Unit{Scenario: s.ID, Transport: kind, Version: version})
	}
	return sum
}

// RecordSelfTest adds the durations of a self-test's runs to the table:
// one entry per variant and unit, the longest where runs repeat one.
func (d *Durations) RecordSelfTest(r *SelfTestReport) {
	if d.SelfTest == nil {
		d.SelfTest = map[string]map[string]float64{}
	}
	for _, o := range r.Outcomes {
		key := o.VariantKey()
		per := d.SelfTest[key]
		if per == nil {
			per = map[string]float64{}
			d.SelfTest[key] = per
		}
		ms := max(1, float64(o.Duration.Round(time.Millisecond)/time.Millisecond))
		unit := UnitKey(o.Transport, o.Version)
		per[unit] = max(per[unit], ms)
	}
}
