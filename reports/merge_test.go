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
		}, everyShard)
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
		run, err := reports.Merge([]reports.Shard{{Dir: "s1", Run: one}, {Dir: "s2", Run: other}}, reports.MergeOrder{})
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Transport).To(Equal("http,stdio"))
		Expect([]string{run.Scenarios[0].Transport, run.Scenarios[1].Transport}).To(Equal([]string{"http", "stdio"}))
		Expect(run.Scenarios[0].Side).To(Equal("server"))
		Expect(run.Scenarios[0].Checks[0].Expected).To(BeFalse(), "the merge's baseline decides")
		Expect(one.Scenarios[0].Checks[0].Expected).To(BeTrue(), "the input keeps its mark")
		Expect(one.Scenarios[0].Transport).To(BeEmpty(), "the input is not completed in place")
	})

	It("refuses shards of two sides, and one scenario judged differently in two shards", func() {
		_, err := reports.Merge([]reports.Shard{{Dir: "s1", Run: shard("server")}, {Dir: "s2", Run: shard("client")}}, everyShard)
		Expect(err).To(MatchError(ContainSubstring("shards of one run judge one side")))
		_, err = reports.Merge([]reports.Shard{
			{Dir: "s1", Run: shard("server", sc("a", reports.Passed))},
			{Dir: "s2", Run: shard("server", sc("a", reports.Failed))},
		}, everyShard)
		Expect(err).To(MatchError(ContainSubstring("each scenario runs in one shard")))
		_, err = reports.Merge(nil, everyShard)
		Expect(err).To(HaveOccurred())
	})
})
