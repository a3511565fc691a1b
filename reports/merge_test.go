package reports_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("Merge", func() {
	shard := func(side string, scenarios ...reports.Scenario) *reports.Run {
		return &reports.Run{Tool: "mcpconform", ToolVersion: "test", Side: side, Transport: "http", SpecVersion: "2025-11-25",
			Target: "http: t", Scenarios: scenarios}
	}
	sc := func(id string, st reports.Status) reports.Scenario {
		return reports.Scenario{ID: id, Checks: []reports.Check{{ID: id + "/c", Status: st, Message: string(st)}}}
	}
	everyShard := reports.MergeOrder{Transports: []string{"http"}, Versions: []string{"2025-11-25"},
		InEveryShard: func(id string) bool { return id == "handshake" },
		Rank: func(id string) (int, int, bool) {
			switch id {
			case "handshake":
				return 0, 0, true
			case "a":
				return 1, 1, true
			}
			return 0, 0, false
		}}

	It("keeps each scenario once, in the run's order, and folds the copies of one every shard runs to the worst", func() {
		run, err := reports.Merge([]reports.Shard{
			{Dir: "s1", Run: shard("server", sc("unknown-newer", reports.Passed), sc("handshake", reports.Passed))},
			{Dir: "s2", Run: shard("server", sc("a", reports.Passed), sc("handshake", reports.Failed))},
		}, everyShard, reports.MergeRules{})
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, s := range run.Scenarios {
			ids = append(ids, s.ID)
		}
		Expect(ids).To(Equal([]string{"handshake", "a", "unknown-newer"}))
		Expect(run.Scenarios[0].Checks[0].Status).To(Equal(reports.Failed))
	})

	It("gives each scenario where it ran from its own shard, and leaves the shards as they were", func() {
		one := shard("server", sc("a", reports.Failed))
		one.Scenarios[0].Checks[0].Expected, one.Scenarios[0].Checks[0].ExpectedBy = true, "a (old.yaml)"
		other := shard("server", sc("b", reports.Passed))
		other.Transport = "stdio"
		run, err := reports.Merge([]reports.Shard{{Dir: "s1", Run: one}, {Dir: "s2", Run: other}}, reports.MergeOrder{}, reports.MergeRules{})
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Transport).To(Equal("http,stdio"))
		Expect([]string{run.Scenarios[0].Transport, run.Scenarios[1].Transport}).To(Equal([]string{"http", "stdio"}))
		Expect(run.Scenarios[0].Side).To(Equal("server"))
		Expect(run.Scenarios[0].Checks[0].Expected).To(BeFalse(), "the merge's baseline decides")
		Expect(one.Scenarios[0].Checks[0].Expected).To(BeTrue(), "the input keeps its mark")
		Expect(one.Scenarios[0].Transport).To(BeEmpty(), "the input is not completed in place")
	})

	It("refuses shards of two sides, and one scenario judged differently in two shards", func() {
		_, err := reports.Merge([]reports.Shard{{Dir: "s1", Run: shard("server")}, {Dir: "s2", Run: shard("client")}}, everyShard, reports.MergeRules{})
		Expect(err).To(MatchError(ContainSubstring("shards of one run judge one side")))
		_, err = reports.Merge([]reports.Shard{
			{Dir: "s1", Run: shard("server", sc("a", reports.Passed))},
			{Dir: "s2", Run: shard("server", sc("a", reports.Failed))},
		}, everyShard, reports.MergeRules{})
		Expect(err).To(MatchError(ContainSubstring("each scenario runs in one shard")))
		_, err = reports.Merge(nil, everyShard, reports.MergeRules{})
		Expect(err).To(HaveOccurred())
	})

	Describe("refuses what is not one run's reports", func() {
		of := func(dir, k, target, version string, scenarios ...reports.Scenario) reports.Shard {
			r := shard("server", scenarios...)
			r.Shard, r.Target, r.SpecVersion = k, target, version
			return reports.Shard{Dir: dir, Run: r}
		}
		merge := func(rules reports.MergeRules, in ...reports.Shard) error {
			_, err := reports.Merge(in, everyShard, rules)
			return err
		}
		a, b := sc("a", reports.Passed), sc("b", reports.Passed)

		It("merges every shard of a run, each once (a directory given twice is one)", func() {
			Expect(merge(reports.MergeRules{}, of("s1", "1/2", "t", "v", a), of("s2", "2/2", "t", "v", b), of("s2", "2/2", "t", "v", b))).To(Succeed())
		})

		DescribeTable("with a reason",
			func(want string, in ...reports.Shard) {
				Expect(merge(reports.MergeRules{AnyTarget: true}, in...)).To(MatchError(ContainSubstring(want)))
			},
			Entry("a missing shard", "shard 2/3 missing", of("s1", "1/3", "t", "v", a), of("s3", "3/3", "t", "v", b)),
			Entry("shards of different splits", "one N", of("s1", "1/2", "t", "v", a), of("s2", "2/3", "t", "v", b)),
			Entry("one shard from two runs", "both shard 1/2", of("s1", "1/2", "t", "v", a), of("x1", "1/2", "t", "v", b)),
			Entry("a shard with a whole run", "a whole run", of("s1", "1/1", "t", "v", a), of("w", "", "t", "v", b)),
			Entry("shards of different targets, even with AnyTarget", `judged "t" and s2 judged "u"`, of("s1", "1/2", "t", "v", a), of("s2", "2/2", "u", "v", b)),
			Entry("shards of different versions", "one command line", of("s1", "1/2", "t", "v", a), of("s2", "2/2", "t", "w", b)),
		)

		It("takes whole runs of one target; of several only when told", func() {
			Expect(merge(reports.MergeRules{}, of("w1", "", "t", "v", a), of("w2", "", "t", "w", b))).To(Succeed())
			Expect(merge(reports.MergeRules{}, of("w1", "", "t", "v", a), of("w2", "", "u", "v", b))).To(MatchError(ContainSubstring("--any-target")))
			Expect(merge(reports.MergeRules{AnyTarget: true}, of("w1", "", "t", "v", a), of("w2", "", "u", "v", b))).To(Succeed())
		})
	})
})
