package suites_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// wholeRun is the configs of `side --transport all --spec-version all`.
func wholeRun(side scenarios.Side, labelFilter string) []suites.Config {
	var configs []suites.Config
	for _, tr := range transport.Kinds() {
		for _, v := range protocol.Judged() {
			configs = append(configs, suites.Config{
				Name: string(side) + " " + string(tr) + " " + v, Side: side, LabelFilter: labelFilter,
				Env: scenarios.Env{Transport: tr, Version: v},
			})
		}
	}
	return configs
}

// ids names each config's scenarios, config by config.
func ids(units [][]*scenarios.Scenario) [][]string {
	out := make([][]string, len(units))
	for i, us := range units {
		for _, s := range us {
			out[i] = append(out[i], s.ID)
		}
	}
	return out
}

func follows(s *scenarios.Scenario) bool { return s.Handshake || s.Last }

// load is what a shard costs by the table: its scenario runs' durations.
func load(configs []suites.Config, units [][]*scenarios.Scenario, d suites.Durations) time.Duration {
	var total time.Duration
	for i, us := range units {
		for _, s := range us {
			total += d.Of(suites.Unit{Scenario: s.ID, Transport: configs[i].Env.Transport, Version: configs[i].Env.Version})
		}
	}
	return total
}

// byCount splits every config's ordinary scenario runs, in plan order, into
// n runs of equal count, each with the handshake's and ledger scenarios of
// the configs it touches: what a splitter that ignores durations does.
func byCount(configs []suites.Config, n int) [][][]*scenarios.Scenario {
	type at struct {
		config int
		s      *scenarios.Scenario
	}
	var ordinary []at
	for i, cfg := range configs {
		for _, s := range cfg.Planned() {
			if !follows(s) {
				ordinary = append(ordinary, at{i, s})
			}
		}
	}
	shards := make([][][]*scenarios.Scenario, n)
	for k := range shards {
		shards[k] = make([][]*scenarios.Scenario, len(configs))
		lo, hi := k*len(ordinary)/n, (k+1)*len(ordinary)/n
		mine := map[*scenarios.Scenario]map[int]bool{}
		touched := map[int]bool{}
		for _, u := range ordinary[lo:hi] {
			if mine[u.s] == nil {
				mine[u.s] = map[int]bool{}
			}
			mine[u.s][u.config] = true
			touched[u.config] = true
		}
		for i, cfg := range configs {
			for _, s := range cfg.Planned() {
				if mine[s][i] || (follows(s) && touched[i]) {
					shards[k][i] = append(shards[k][i], s)
				}
			}
		}
	}
	return shards
}

var _ = Describe("sharding a run", func() {
	d := suites.RecordedDurations()

	It("reads K/N and refuses anything else", func() {
		sh, err := suites.ParseShard("2/3")
		Expect(err).NotTo(HaveOccurred())
		Expect(sh).To(Equal(suites.Shard{K: 2, N: 3}))
		Expect(sh.String()).To(Equal("2/3"))
		for _, bad := range []string{"0/3", "4/3", "a/b", "3", "1/0", "-1/2", "1/2/3", "", "/"} {
			_, err := suites.ParseShard(bad)
			Expect(err).To(HaveOccurred(), "%q", bad)
		}
	})

	for _, side := range []scenarios.Side{scenarios.ServerSide, scenarios.ClientSide} {
		configs := wholeRun(side, "")

		It("gives the same shards every time: "+string(side), func() {
			for n := 1; n <= 5; n++ {
				for k := 1; k <= n; k++ {
					first := ids(suites.ShardUnits(configs, suites.Shard{K: k, N: n}, d))
					for range 3 {
						Expect(ids(suites.ShardUnits(configs, suites.Shard{K: k, N: n}, d))).To(Equal(first), "shard %d/%d", k, n)
					}
				}
			}
		})

		It("runs every scenario run in exactly one shard, the handshake's and the ledger scenarios in every shard of their transport and version: "+string(side), func() {
			planned := make([][]*scenarios.Scenario, len(configs))
			for i, cfg := range configs {
				planned[i] = cfg.Planned()
			}
			for _, n := range []int{1, 2, 3, 4, 7} {
				seen := make([]map[string]int, len(configs))
				for i := range seen {
					seen[i] = map[string]int{}
				}
				for k := 1; k <= n; k++ {
					units := suites.ShardUnits(configs, suites.Shard{K: k, N: n}, d)
					Expect(units).To(HaveLen(len(configs)))
					for i, us := range units {
						ordinary := slices.ContainsFunc(us, func(s *scenarios.Scenario) bool { return !follows(s) })
						for _, s := range planned[i] {
							if follows(s) && ordinary {
								Expect(us).To(ContainElement(s), "%s in shard %d/%d of %s, which runs others there", s.ID, k, n, configs[i].Name)
							}
						}
						for _, s := range us {
							Expect(planned[i]).To(ContainElement(s), "shard %d/%d runs only what the whole run plans", k, n)
							seen[i][s.ID]++
						}
					}
				}
				for i := range configs {
					for _, s := range planned[i] {
						if follows(s) {
							Expect(seen[i][s.ID]).To(BeNumerically(">=", 1), "%s %s with %d shards", configs[i].Name, s.ID, n)
						} else {
							Expect(seen[i][s.ID]).To(Equal(1), "%s %s with %d shards", configs[i].Name, s.ID, n)
						}
					}
				}
			}
		})

		It("ends the slowest shard sooner than shards of equal counts: "+string(side), func() {
			for _, n := range []int{2, 3, 4} {
				var sharded, counted time.Duration
				for k := 1; k <= n; k++ {
					sharded = max(sharded, load(configs, suites.ShardUnits(configs, suites.Shard{K: k, N: n}, d), d))
				}
				for _, shard := range byCount(configs, n) {
					counted = max(counted, load(configs, shard, d))
				}
				whole := load(configs, suites.ShardUnits(configs, suites.Shard{K: 1, N: 1}, d), d)
				GinkgoWriter.Printf("%s, %d shards: slowest %s by duration, %s by count, whole %s\n", side, n, sharded, counted, whole)
				Expect(sharded).To(BeNumerically("<", counted), "%d shards", n)
				// Within a third of the ideal: LPT's bound is 4/3, the
				// copies of the handshake and ledger scenarios come on top.
				Expect(float64(sharded)).To(BeNumerically("<", float64(whole)/float64(n)*4/3+float64(whole)/20), "%d shards", n)
			}
		})
	}

	It("shares only what the selection runs: a label filter's scenarios", func() {
		configs := wholeRun(scenarios.ServerSide, "family: containsAny tools")
		for _, s := range slices.Concat(suites.ShardUnits(configs, suites.Shard{K: 1, N: 2}, d)...) {
			Expect(s.Family).To(Equal("tools"))
		}
		Expect(slices.Concat(suites.ShardUnits(configs, suites.Shard{K: 2, N: 2}, d)...)).NotTo(BeEmpty())
	})

	It("narrows each config's selection after the others (--scenario)", func() {
		configs := wholeRun(scenarios.ServerSide, "")
		for i := range configs {
			configs[i].Select = func(s *scenarios.Scenario) bool { return strings.HasPrefix(s.ID, "tools-") || follows(s) }
		}
		var union []string
		for k := 1; k <= 3; k++ {
			for _, cfg := range suites.ApplyShard(configs, suites.Shard{K: k, N: 3}, d) {
				for _, s := range cfg.Applicable() {
					Expect(strings.HasPrefix(s.ID, "tools-") || follows(s)).To(BeTrue(), s.ID)
					if !follows(s) {
						union = append(union, cfg.Name+" "+s.ID)
					}
				}
			}
		}
		var whole []string
		for _, cfg := range configs {
			for _, s := range cfg.Applicable() {
				if !follows(s) {
					whole = append(whole, cfg.Name+" "+s.ID)
				}
			}
		}
		Expect(union).To(ConsistOf(whole))
		Expect(suites.ApplyShard(configs, suites.Shard{}, d)).To(HaveLen(len(configs)), "no --shard: the whole run")
	})

	It("refuses more shards than scenario runs to share", func() {
		configs := wholeRun(scenarios.ServerSide, "")
		for i := range configs {
			configs[i].Select = func(s *scenarios.Scenario) bool { return s.ID == "tools-list" || follows(s) }
		}
		n := 0
		for _, cfg := range configs {
			if slices.ContainsFunc(cfg.Planned(), func(s *scenarios.Scenario) bool { return s.ID == "tools-list" }) {
				n++
			}
		}
		Expect(n).To(BeNumerically(">", 1))
		Expect(suites.CheckShard(configs, suites.Shard{K: 1, N: n})).To(Succeed())
		Expect(suites.CheckShard(configs, suites.Shard{K: 1, N: n + 1})).To(MatchError(ContainSubstring("at most %d", n)))
	})

	It("gives a unit the table lacks its scenario's median, and an unknown scenario the median of all", func() {
		t := suites.Durations{Scenarios: map[string]map[string]float64{
			"a": {"stdio 2025-11-25": 10, "http 2025-11-25": 30, "ws 2025-11-25": 20},
			"b": {"stdio 2025-11-25": 100},
		}}
		Expect(t.Of(suites.Unit{Scenario: "a", Transport: transport.HTTP, Version: "2025-11-25"})).To(Equal(30 * time.Millisecond))
		Expect(t.Of(suites.Unit{Scenario: "a", Transport: transport.HTTP, Version: "2026-07-28"})).To(Equal(20 * time.Millisecond))
		Expect(t.Of(suites.Unit{Scenario: "c", Transport: transport.HTTP, Version: "2025-11-25"})).To(Equal(25 * time.Millisecond))
		Expect(suites.Durations{}.Of(suites.Unit{Scenario: "c"})).To(Equal(time.Millisecond))
	})

	It("records a reference run's durations, unit by unit", func() {
		run := &reports.Run{Transport: "stdio", SpecVersion: "2025-11-25", Scenarios: []reports.Scenario{
			{ID: "a", Duration: 12400 * time.Microsecond},
			{ID: "a", Transport: "http", Duration: 0},
		}}
		run.Normalize() // as read: each scenario says where it ran
		got := suites.DurationsOf(run)
		Expect(got.Scenarios).To(Equal(map[string]map[string]float64{"a": {"stdio 2025-11-25": 12, "http 2025-11-25": 1}}))
		b, err := got.Encode()
		Expect(err).NotTo(HaveOccurred())
		back, err := suites.ParseDurations(b)
		Expect(err).NotTo(HaveOccurred())
		Expect(back).To(Equal(got))
	})

	// The table is measured from reference runs of both sides over every
	// transport and version, one scenario at a time, and from a targeted
	// self-test of every variant there (the order of a self-test's runs):
	//   MCPCONFORM_UPDATE_DURATIONS=1 go test ./suites -ginkgo.focus 'recorded durations'
	It("has recorded durations of scenarios the catalogue runs where it runs them", func(ctx SpecContext) {
		updating := os.Getenv("MCPCONFORM_UPDATE_DURATIONS") != ""
		if updating {
			var runs []*reports.Run
			for _, side := range []string{"server", "client"} {
				dir := GinkgoT().TempDir()
				cmd := exec.Command(exe, side, "--reference", "--transport", "all", "--spec-version", "all", "--parallel", "1", "-o", dir)
				cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
				Expect(cmd.Run()).To(Succeed(), "the reference passes: %s", side)
				f, err := os.Open(filepath.Join(dir, "results.json"))
				Expect(err).NotTo(HaveOccurred())
				run, err := reports.ReadJSON(f)
				f.Close()
				Expect(err).NotTo(HaveOccurred())
				runs = append(runs, run)
			}
			table := suites.DurationsOf(runs...)
			// The self-test's default width and timing, as a user runs it.
			report, err := suites.SelfTest(ctx, suites.SelfTestOptions{
				Exe: exe, Transports: transport.Kinds(), Versions: protocol.Judged(), Parallel: 64,
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(report.Problems).To(BeEmpty())
			table.RecordSelfTest(report)
			b, err := table.Encode()
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(suites.DurationsFile, b, 0o644)).To(Succeed())
		}
		b, err := os.ReadFile(suites.DurationsFile)
		Expect(err).NotTo(HaveOccurred())
		t, err := suites.ParseDurations(b)
		Expect(err).NotTo(HaveOccurred())
		if !updating { // the binary holds the table it was built with
			Expect(suites.RecordedDurations()).To(Equal(t), "the table built in is the file")
		}
		Expect(t.Scenarios).NotTo(BeEmpty())
		for id, per := range t.Scenarios {
			s, ok := catalogue.All().Find(id)
			Expect(ok).To(BeTrue(), "%s is no scenario any more: MCPCONFORM_UPDATE_DURATIONS=1 go test ./suites -ginkgo.focus 'recorded durations'", id)
			for unit, ms := range per {
				tr, v, _ := strings.Cut(unit, " ")
				Expect(s.AppliesTo(v, transport.Kind(tr))).To(BeTrue(), "%s does not run over %s", id, unit)
				Expect(ms).To(BeNumerically(">=", 1))
			}
		}
		variants := map[string]*fault.Fault{"server reference": nil, "client reference": nil, "authserver reference": nil}
		for _, side := range []scenarios.Side{scenarios.ServerSide, scenarios.ClientSide, scenarios.AuthServerSide} {
			for _, f := range append(append(fault.Set(nil), catalogue.Faults()[side]...), catalogue.Liberties()[side]...) {
				variants[suites.Run{Side: side, Fault: f}.VariantKey()] = f
			}
		}
		Expect(t.SelfTest).NotTo(BeEmpty())
		for key, per := range t.SelfTest {
			f, ok := variants[key]
			Expect(ok).To(BeTrue(), "%s is no variant any more: MCPCONFORM_UPDATE_DURATIONS=1 go test ./suites -ginkgo.focus 'recorded durations'", key)
			for unit, ms := range per {
				tr, v, _ := strings.Cut(unit, " ")
				Expect(f == nil || f.ObservableOn(transport.Kind(tr), v)).To(BeTrue(), "%s does not run over %s", key, unit)
				Expect(ms).To(BeNumerically(">=", 1))
			}
		}
	}, NodeTimeout(10*time.Minute))
})
