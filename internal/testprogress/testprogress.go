// Package testprogress prints how far a long Ginkgo suite is while
// `go test -json` runs it (the README's test command reads that stream with
// gotestsum). go test shows a package's output only once the package ends,
// unless -json streams it; a suite that runs for minutes would otherwise
// say nothing until then. Under plain `go test` or the ginkgo CLI it prints
// nothing.
//
// A suite opts in with one line in a _test file of its package:
//
//	var _ = testprogress.Register()
//
// or, when it runs through internal/ahead (whose preview of the specs
// loses top-level nodes registered at init), by passing Register to
// ahead's RunSpecs.
package testprogress

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// EveryEnv names the environment variable that sets how often a progress
// line is printed while specs run (a Go duration; default Every).
const EveryEnv = "MCPCONFORM_TEST_PROGRESS_EVERY"

// Every is how often a line is printed while a suite runs: often enough
// that a reader knows it is alive, rarely enough for a CI log.
const Every = 20 * time.Second

// Register registers the suite-level reporting nodes; call it at the top
// level of a _test file (var _ = testprogress.Register()).
func Register() bool {
	var t *Tracker
	ginkgo.ReportBeforeSuite(func(r ginkgo.Report) {
		if !underJSON() || r.SuiteConfig.DryRun {
			// A dry run (a preview of the specs, as internal/ahead takes
			// before the real run) runs no spec: nothing to track.
			t = nil
			return
		}
		every := Every
		if d, err := time.ParseDuration(os.Getenv(EveryEnv)); err == nil && d > 0 {
			every = d
		}
		t = NewTracker(os.Stdout, r.SuiteDescription, r.PreRunStats.SpecsThatWillRun, time.Now)
		t.Tick(every)
	})
	ginkgo.ReportBeforeEach(func(r ginkgo.SpecReport) {
		if t != nil && runs(r) {
			t.SpecStarted(r.FullText())
		}
	})
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) {
		if t != nil && runs(r) {
			t.SpecDone(r.FullText(), r.State.Is(types.SpecStateFailureStates))
		}
	})
	ginkgo.ReportAfterSuite("progress", func(ginkgo.Report) {
		if t != nil {
			t.Stop()
		}
	})
	return true
}

// runs tells a spec that runs from one a focus or label filter left out:
// those are reported too, as skipped without a message, where a spec that
// calls Skip has the message it gave.
func runs(r ginkgo.SpecReport) bool {
	return !(r.State.Is(types.SpecStateSkipped) && r.Failure.Message == "")
}

// underJSON reports whether go test -json runs the test binary: go test
// then passes -test.v=test2json.
func underJSON() bool {
	f := flag.Lookup("test.v")
	return f != nil && f.Value.String() == "test2json"
}

// Tracker counts a suite's specs and prints its progress lines.
type Tracker struct {
	mu       sync.Mutex
	w        io.Writer
	suite    string
	total    int
	now      func() time.Time
	started  time.Time
	done     int
	failed   int
	running  string
	runSince time.Time
	stop     chan struct{}
	stopped  chan struct{}
}

// NewTracker starts tracking a suite of total specs; lines go to w.
func NewTracker(w io.Writer, suite string, total int, now func() time.Time) *Tracker {
	return &Tracker{w: w, suite: suite, total: total, now: now, started: now()}
}

// Tick prints a progress line every d until Stop.
func (t *Tracker) Tick(d time.Duration) {
	t.stop, t.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(t.stopped)
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
				t.Print()
			}
		}
	}()
}

// Stop ends the ticking and prints the suite's last line.
func (t *Tracker) Stop() {
	if t.stop != nil {
		close(t.stop)
		<-t.stopped
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running = ""
	t.printLocked("")
}

// SpecStarted notes the spec now running.
func (t *Tracker) SpecStarted(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running, t.runSince = text, t.now()
}

// SpecDone counts a finished spec; a failure is printed at once.
func (t *Tracker) SpecDone(text string, failed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done++
	t.running = ""
	if failed {
		t.failed++
		t.printLocked("failed: " + text)
	}
}

// Print prints the current progress line.
func (t *Tracker) Print() {
	t.mu.Lock()
	defer t.mu.Unlock()
	note := ""
	if t.running != "" {
		note = fmt.Sprintf("running for %s: %s", t.now().Sub(t.runSince).Truncate(time.Second), t.running)
	}
	t.printLocked(note)
}

// printLocked writes one line, starting on a line of its own (Ginkgo's
// dots may have left the current line open).
func (t *Tracker) printLocked(note string) {
	line := fmt.Sprintf("\n[progress] %s: %d/%d specs · %s · %d failed", t.suite, t.done, t.total,
		t.now().Sub(t.started).Truncate(time.Second), t.failed)
	if note != "" {
		if r := []rune(note); len(r) > 160 {
			note = string(r[:159]) + "…"
		}
		line += " · " + note
	}
	fmt.Fprintln(t.w, line)
}
