package suites

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// floodedTranscript is a fresh transcript of about n bytes, in lines.
func floodedTranscript(n int, name string) string {
	var b strings.Builder
	line := `recv   [A] {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 200) + `"}}` + "\n"
	for b.Len() < n {
		b.WriteString(line)
	}
	fmt.Fprintf(&b, "event  [A] the end of %s\n", name)
	return b.String()
}

// budgetChildEnv names, in the environment of the test binary run again,
// the file where TestCollectorBudgetChild writes its measure.
const budgetChildEnv = "MCPCONFORM_COLLECTOR_BUDGET_OUT"

// budgetScenarios is how many flooded scenarios the collection holds.
const budgetScenarios = 40

// budgetMeasure is what the collection held, measured in a process of its
// own.
type budgetMeasure struct {
	Text  int   // bytes of text the collector holds
	Held  int64 // heap in use after the collection, over the baseline
	First string
	Small string // the small scenario's transcript
}

// measureCollectorBudget collects budgetScenarios multi-megabyte
// transcripts and a small one, and measures what the collector holds.
func measureCollectorBudget() budgetMeasure {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	col := NewCollector()
	for i := range budgetScenarios {
		key := fmt.Sprint("flooded-", i)
		transcript := floodedTranscript(4<<20, key)
		col.scenario(key, func() *reports.Scenario { return &reports.Scenario{ID: key, Transcript: transcript} })
		col.addCheck(key, reports.Check{ID: key + "/x", Status: reports.Failed, Message: "Actual: " + transcript[:1<<20]})
	}
	col.scenario("small", func() *reports.Scenario { return &reports.Scenario{ID: "small", Transcript: "short"} })
	runtime.GC()
	runtime.ReadMemStats(&after)
	m := budgetMeasure{Held: int64(after.HeapInuse) - int64(before.HeapInuse)}

	got := col.Scenarios()
	for _, s := range got {
		m.Text += len(s.Transcript) + len(s.Stderr)
		for _, c := range s.Checks {
			m.Text += len(c.Message)
		}
	}
	m.First, m.Small = got[0].Transcript, got[budgetScenarios].Transcript
	return m
}

// TestCollectorBudgetChild is the collector's text budget spec's measure,
// run by that spec in a process of its own (the test binary again): the
// memory measured is the process's, and the suite's process runs other
// specs' work ahead of them (internal/ahead). Without budgetChildEnv it
// does nothing.
func TestCollectorBudgetChild(t *testing.T) {
	out := os.Getenv(budgetChildEnv)
	if out == "" {
		t.Skip("run by the collector's text budget spec")
	}
	b, err := json.Marshal(measureCollectorBudget())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

var _ = Describe("the collector's text budget", func() {
	It("holds at most CollectorTextBudget of target text, however many scenarios bring multi-megabyte transcripts", func() {
		// The memory measured is a process's: the measure is taken in one
		// of its own, where nothing else runs.
		out := filepath.Join(GinkgoT().TempDir(), "budget.json")
		child := exec.Command(os.Args[0], "-test.run=^TestCollectorBudgetChild$", "-test.count=1")
		child.Env = append(os.Environ(), budgetChildEnv+"="+out)
		output, err := child.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "the measure in a process of its own:\n%s", output)
		b, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred(), "the measure in a process of its own:\n%s", output)
		var m budgetMeasure
		Expect(json.Unmarshal(b, &m)).To(Succeed())
		text, held := m.Text, m.Held

		GinkgoWriter.Printf("collector of %d scenarios with %d MiB of text: holds %d MiB of text, heap in use +%d MiB\n",
			budgetScenarios+1, budgetScenarios*5, text>>20, held>>20)
		Expect(text).To(BeNumerically("<=", CollectorTextBudget))
		Expect(held).To(BeNumerically("<", CollectorTextBudget+16<<20), "heap in use after a collection, over the baseline")
		Expect(m.First).To(HaveSuffix("the end of flooded-0\n"), "the end of a transcript, where a failure shows, is kept")
		Expect(m.First).To(ContainSubstring("of this transcript left out to keep the run's reports under 32 MiB"))
		Expect(m.Small).To(Equal("short"), "a small transcript is not trimmed")
	})
})

var _ = Describe("ReportText", func() {
	It("keeps a message that fits, and the head of a long one with its length", func() {
		Expect(ReportText("Expected: x")).To(Equal("Expected: x"))
		long := "Expected: a result\nActual: " + strings.Repeat("r", 4<<20)
		got := ReportText(long)
		Expect(len(got)).To(BeNumerically("<=", TranscriptEntryBytes+100))
		Expect(got).To(HavePrefix("Expected: a result\nActual: rrr"))
		Expect(got).To(HaveSuffix("[cut: 4,194,331 bytes] (the report files (-o) hold more of this message)"))
	})
})

var _ = Describe("TranscriptTail", func() {
	It("returns a transcript that fits as it is", func() {
		Expect(TranscriptTail("a\nb\n", 10)).To(Equal("a\nb\n"))
	})

	It("keeps the end of a long one, from the start of a line, saying what was left out", func() {
		t := floodedTranscript(4<<20, "a flooded scenario")
		tail := TranscriptTail(t, TranscriptEntryBytes)
		Expect(len(tail)).To(BeNumerically("<=", TranscriptEntryBytes+200))
		Expect(tail).To(MatchRegexp(`^… \[the first [\d,]+ of 4,[\d,]+ bytes of this transcript are left out here; the report files \(-o\) hold its beginning as well\]\nrecv   \[A\] \{`))
		Expect(tail).To(HaveSuffix("the end of a flooded scenario\n"))
		kept := tail[strings.IndexByte(tail, '\n')+1:]
		Expect(t).To(HaveSuffix(kept))
		Expect(t[:len(t)-len(kept)]).To(HaveSuffix("\n"), "the tail starts a line")
	})

	It("cuts on a character boundary when no line ends near the cut", func() {
		t := strings.Repeat("é", 100<<10)
		tail := TranscriptTail(t, TranscriptEntryBytes)
		Expect(tail).To(HaveSuffix("éé"))
		Expect(strings.ToValidUTF8(tail, "?")).To(Equal(tail))
	})
})
