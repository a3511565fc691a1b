package reports_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/heapwatch"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// bigTranscript is n bytes of transcript lines, most short, some of 64 KiB
// (the longest an entry gets), ending with a line that names it.
func bigTranscript(n int, name string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i%50 == 49 {
			fmt.Fprintf(&b, "%9.3fs recv   [A] %s\n", float64(i)/1000, strings.Repeat("p", 64<<10))
			continue
		}
		fmt.Fprintf(&b, "%9.3fs recv   [A] {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":%d}}\n", float64(i)/1000, i)
	}
	fmt.Fprintf(&b, "   99.999s event  [A] the end of %s\n", name)
	return b.String()
}

var _ = Describe("the run's text budget", Serial, func() {
	// Serial: the memory measured is the process's.

	readRun := func(dir string) *reports.Run {
		GinkgoHelper()
		f, err := os.Open(filepath.Join(dir, reports.JSONFile))
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		r, err := reports.ReadJSON(f)
		Expect(err).NotTo(HaveOccurred())
		return r
	}
	textSize := func(r *reports.Run) int {
		n := 0
		for _, s := range r.Scenarios {
			n += len(s.Transcript) + len(s.Stderr)
			for _, c := range s.Checks {
				n += len(c.Message)
			}
		}
		return n
	}

	It("bounds the report files and the memory to write them, however many scenarios carry multi-megabyte transcripts", func() {
		// One 4 MB transcript shared by every scenario: building the run
		// costs 4 MB, writing it unbounded would cost hundreds.
		transcript := bigTranscript(4<<20, "a flooded scenario")
		stderr := strings.Repeat("stderr line of a noisy target\n", 20000)
		r := &reports.Run{Side: "server", Transport: "stdio", SpecVersion: "2025-11-25", Started: time.Now()}
		const scenarios = 40
		for i := range scenarios {
			r.Scenarios = append(r.Scenarios, reports.Scenario{
				ID: fmt.Sprintf("lifecycle-flood-%d", i), Family: "lifecycle",
				Checks: []reports.Check{{ID: "lifecycle/x", Level: "MUST", Status: reports.Failed,
					Message: "Expected: a result\nActual: " + transcript[:1<<20]}},
				Transcript: transcript, Stderr: stderr,
			})
		}
		small := bigTranscript(2000, "a small scenario")
		r.Scenarios = append(r.Scenarios, reports.Scenario{ID: "lifecycle-small", Family: "lifecycle",
			Checks: []reports.Check{{ID: "lifecycle/y", Status: reports.Passed}}, Transcript: small})

		dir := GinkgoT().TempDir()
		heap := watchHeap()
		_, err := reports.WriteAll(dir, r)
		base, peak := heap.Stop()
		Expect(err).NotTo(HaveOccurred())

		var total int64
		sizes := map[string]int64{}
		for _, name := range []string{reports.JUnitFile, reports.JSONFile, reports.MarkdownFile, reports.HTMLFile} {
			fi, err := os.Stat(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			sizes[name] = fi.Size()
			total += fi.Size()
		}
		GinkgoWriter.Printf("reports of %d scenarios with %d MiB of text: %d MiB on disk; heap in use %d MiB at the start, peak %d MiB (+%d MiB)\n",
			scenarios+1, textSize(r)>>20, total>>20, base>>20, peak>>20, (peak-base)>>20)
		for name, size := range sizes {
			Expect(size).To(BeNumerically("<", reports.RunTextBudget+2<<20), name)
		}
		AddReportEntry("report budget: peak heap over baseline while writing (MiB)", (peak-base)>>20)
		Expect(total).To(BeNumerically("<", 3*reports.RunTextBudget+4<<20), "the four files together")
		// Measured: +1,597 MiB before the budget, about +78 MiB with it
		// (results.json written scenario by scenario; report.html still
		// renders the page into a buffer first).
		Expect(peak-base).To(BeNumerically("<", 12*reports.RunTextBudget), "peak heap in use over the baseline while writing")

		written := readRun(dir)
		Expect(textSize(written)).To(BeNumerically("<=", reports.RunTextBudget))
		Expect(written.Scenarios[scenarios].Transcript).To(Equal(small), "a small transcript is not trimmed")
		flooded := written.Scenarios[0]
		Expect(flooded.Transcript).To(MatchRegexp(`… \[trimmed: [\d,]+ of [\d,]+ bytes of this transcript left out to keep the run's reports under 16 MiB; the largest texts are trimmed first\]`))
		Expect(flooded.Transcript).To(HaveSuffix("the end of a flooded scenario\n"), "the end of a transcript, where a failure shows, is kept")
		Expect(flooded.Transcript).To(HavePrefix(transcript[:100]), "and its beginning")
		Expect(flooded.Checks[0].Message).To(ContainSubstring("of this message left out"))
	})

	It("trims the largest texts first and leaves the others whole", func() {
		huge := bigTranscript(3*reports.RunTextBudget, "the huge one")
		r := &reports.Run{Side: "server", Transport: "http", SpecVersion: "2025-11-25"}
		r.Scenarios = append(r.Scenarios, reports.Scenario{ID: "huge", Transcript: huge, Stderr: "short stderr"})
		mid := bigTranscript(1<<20, "a middling one")
		for i := range 8 {
			r.Scenarios = append(r.Scenarios, reports.Scenario{ID: fmt.Sprint("mid-", i), Transcript: mid})
		}
		dir := GinkgoT().TempDir()
		_, err := reports.WriteAll(dir, r)
		Expect(err).NotTo(HaveOccurred())
		written := readRun(dir)
		Expect(written.Scenarios[0].Transcript).To(ContainSubstring("[trimmed: "))
		Expect(written.Scenarios[0].Stderr).To(Equal("short stderr"))
		for _, s := range written.Scenarios[1:] {
			Expect(s.Transcript).To(Equal(mid))
		}
		Expect(textSize(written)).To(BeNumerically("<=", reports.RunTextBudget))
		Expect(textSize(written)).To(BeNumerically(">", reports.RunTextBudget-64<<10), "what fits is kept")
		Expect(r.Scenarios[0].Transcript).To(Equal(huge), "the caller's run is not changed")
	})
})

var _ = Describe("TrimToBudget", func() {
	It("trims scenarios in place, for a collector that holds them, and says whether it cut", func() {
		a := &reports.Scenario{ID: "a", Transcript: strings.Repeat("a\n", 3<<20), Stderr: "e"}
		b := &reports.Scenario{ID: "b", Transcript: "short", Checks: []reports.Check{{Message: strings.Repeat("m", 1<<20)}}}
		Expect(reports.TrimToBudget(16<<20, a, b)).To(BeFalse(), "within the budget nothing changes")
		Expect(a.Transcript).To(HaveLen(6 << 20))

		Expect(reports.TrimToBudget(2<<20, a, b)).To(BeTrue())
		Expect(len(a.Transcript) + len(a.Stderr) + len(b.Transcript) + len(b.Checks[0].Message)).To(BeNumerically("<=", 2<<20))
		Expect(a.Transcript).To(ContainSubstring("of this transcript left out to keep the run's reports under 2 MiB"))
		Expect(b.Checks[0].Message).To(ContainSubstring("of this message left out"))
		Expect(b.Transcript).To(Equal("short"))
		Expect(a.Stderr).To(Equal("e"))
		Expect(a.Transcript).To(HavePrefix("a\na\n"))
		Expect(a.Transcript).To(HaveSuffix("a\na\n"), "cut on line boundaries")
	})
})

// watchHeap samples the heap until the spec ends or stop is called.
func watchHeap() *heapwatch.Watch {
	w := heapwatch.Start(2 * time.Millisecond)
	DeferCleanup(func() { w.Stop() })
	return w
}
