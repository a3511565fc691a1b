package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suites"
)

// progressMode is --progress: how a judging run shows its progress.
type progressMode string

const (
	progressAuto  progressMode = "auto"  // a live line on a terminal, plain lines otherwise
	progressLine  progressMode = "line"  // the live line, wherever stdout goes
	progressPlain progressMode = "plain" // one line per scenario (CI logs)
)

func (m *progressMode) String() string { return string(*m) }
func (m *progressMode) Type() string   { return "mode" }
func (m *progressMode) Set(v string) error {
	switch mode := progressMode(v); mode {
	case progressAuto, progressLine, progressPlain:
		*m = mode
		return nil
	}
	return fmt.Errorf("must be auto, line or plain")
}

// liveWanted decides the mode of a run whose progress goes to out. auto
// takes the live line only on a terminal that can redraw a line (not
// TERM=dumb) and when NO_COLOR does not ask for plain output; -v prints
// Ginkgo's own output on stderr, which a redrawn line would garble.
func liveWanted(mode progressMode, out io.Writer, getenv func(string) string, verbose bool) (live bool, width int) {
	f, isFile := rawOf(out).(*os.File)
	if isFile && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			width = w
		}
	} else {
		isFile = false
	}
	switch {
	case mode == progressPlain || verbose:
		return false, 0
	case mode == progressLine:
		return true, width
	}
	if !isFile || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false, 0
	}
	return true, width
}

// liveProgress draws one line, rewritten in place, that says how far a run
// is: "scenario n/N · transport · version · elapsed · failures so far".
// The scenarios that fail, warn, err or were interrupted are printed as
// lines of their own above it as they finish, so what failed stays on
// screen; anything else written to it is printed the same way. close
// clears the line before the run's counts are printed.
type liveProgress struct {
	mu      sync.Mutex
	w       io.Writer  // the terminal, for the line's own \r and erase
	text    io.Writer  // the same, cleaned: for every text drawn on it
	width   int        // columns; 0 when unknown (the line is not cut)
	total   func() int // scenarios the run selected (0 until the plan is built)
	now     func() time.Time
	started time.Time

	done, failed, warnings, errors int
	at                             string // transport · version of the last scenario done
	// running are the scenarios started and not done, by config and id,
	// with when they started: the line names the one waited on longest.
	running map[suites.ScenarioStarted]time.Time
	shown   bool // the live line is on screen
	stop    chan struct{}
	stopped chan struct{}
}

// newLiveProgress starts a live line on w. tick, if positive, redraws it
// that often so that the elapsed time moves while a long scenario runs.
func newLiveProgress(w io.Writer, width int, total func() int, now func() time.Time, tick time.Duration) *liveProgress {
	raw := rawOf(w)
	p := &liveProgress{w: raw, text: reports.NewTerminalWriter(raw), width: width, total: total, now: now, started: now(),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	if tick <= 0 {
		close(p.stopped)
		return p
	}
	// The goroutine keeps its own copy: close sets p.stop to nil before it
	// closes the channel, and a nil channel never becomes ready.
	stop := p.stop
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.redraw()
			}
		}
	}()
	return p
}

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// ScenarioDone counts a finished scenario and redraws the line.
func (p *liveProgress) ScenarioDone(ev suites.ScenarioDone) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.failed += ev.Counts.Failed
	p.warnings += ev.Counts.Warning
	p.errors += ev.Counts.Errored
	p.at = string(ev.Transport) + " · " + ev.Version
	delete(p.running, suites.ScenarioStarted{Config: ev.Config, Transport: ev.Transport, Version: ev.Version, Scenario: ev.Scenario})
	if ev.Line != "" && (ev.NotJudged || ev.Word != "PASS" && ev.Word != "SKIP") {
		p.permanentLocked(ev.Line + "\n")
	}
	p.drawLocked()
}

// ScenarioStarted notes a scenario that began; the line names the one that
// has run longest.
func (p *liveProgress) ScenarioStarted(ev suites.ScenarioStarted) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running == nil {
		p.running = map[suites.ScenarioStarted]time.Time{}
	}
	p.running[ev] = p.now()
}

// longestRunning is the scenario started earliest of those running, with
// how long it has run; ok is false when none runs.
func (p *liveProgress) longestRunning() (ev suites.ScenarioStarted, d time.Duration, ok bool) {
	var first time.Time
	for r, at := range p.running {
		// Ties (a clock too coarse to tell) go to the smaller key, so the
		// line does not flicker between them.
		if !ok || at.Before(first) || at.Equal(first) && r.Config+r.Scenario < ev.Config+ev.Scenario {
			ev, first, ok = r, at, true
		}
	}
	return ev, p.now().Sub(first), ok
}

// Write prints b as permanent lines above the live line.
func (p *liveProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.permanentLocked(string(b))
	p.drawLocked()
	return len(b), nil
}

func (p *liveProgress) redraw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawLocked()
}

func (p *liveProgress) permanentLocked(text string) {
	if p.shown {
		io.WriteString(p.w, clearLine)
		p.shown = false
	}
	io.WriteString(p.text, text)
}

// drawLocked rewrites the live line; before the plan is known there is no
// N to show, and nothing is drawn.
func (p *liveProgress) drawLocked() {
	if p.stop == nil {
		return // closed
	}
	total := p.total()
	if total == 0 {
		return
	}
	line := p.lineLocked(total)
	if p.width > 0 {
		// A line longer than the terminal wraps, and \r would then
		// redraw only its last row.
		line = cutRunes(line, p.width-1)
	}
	// One write: the erase and the cleaned line reach the terminal
	// together, so a redraw is never seen half done.
	io.WriteString(p.w, clearLine+reports.CleanTerminal(line))
	p.shown = true
}

func (p *liveProgress) lineLocked(total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %d/%d", p.done, total)
	if p.at != "" {
		b.WriteString(" · " + p.at)
	}
	b.WriteString(" · " + elapsed(p.now().Sub(p.started)))
	fmt.Fprintf(&b, " · %d failed", p.failed)
	if p.warnings > 0 {
		fmt.Fprintf(&b, ", %d warnings", p.warnings)
	}
	if p.errors > 0 {
		fmt.Fprintf(&b, ", %d not judged", p.errors)
	}
	if r, d, ok := p.longestRunning(); ok {
		fmt.Fprintf(&b, " · waiting on %s (%s %s, %s)", r.Scenario, r.Transport, r.Version, elapsed(d))
	}
	return b.String()
}

// close stops the redrawing and clears the line, so that what follows
// starts on a clean line.
func (p *liveProgress) close() {
	p.mu.Lock()
	stop := p.stop
	p.stop = nil
	p.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, clearLine)
		p.shown = false
	}
}

// elapsed reads "4.2s" under a minute, "3m12s" after.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Truncate(100*time.Millisecond).Seconds())
	}
	return d.Truncate(time.Second).String()
}

func cutRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// rawOf is the writer under a cleaning console writer, or w itself.
func rawOf(w io.Writer) io.Writer {
	if t, ok := w.(*reports.TerminalWriter); ok {
		return t.Raw()
	}
	return w
}

// Above returns a writer to w (stderr, say) whose text is printed above
// the live line: the line is cleared first and drawn again after, so a
// message in the middle of a run (a signal's) does not land on its row.
func (p *liveProgress) Above(w io.Writer) io.Writer { return aboveLine{p: p, w: w} }

type aboveLine struct {
	p *liveProgress
	w io.Writer
}

func (a aboveLine) Write(b []byte) (int, error) {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	if a.p.shown {
		io.WriteString(a.p.w, clearLine)
		a.p.shown = false
	}
	n, err := cleaned(a.w).Write(b)
	a.p.drawLocked()
	return n, err
}

// cleaned is w as a cleaning writer (w may be one already).
func cleaned(w io.Writer) io.Writer {
	if _, ok := w.(*reports.TerminalWriter); ok {
		return w
	}
	return reports.NewTerminalWriter(w)
}

// runProgress is where a judging run's progress goes: out itself (plain
// lines), or a live line drawn on out. errOut is where messages in the
// middle of the run go: above the live line when there is one. done
// clears the live line.
func runProgress(out, errOut io.Writer, mode progressMode, verbose bool, col *suites.Collector) (progress, messages io.Writer, done func()) {
	live, width := liveWanted(mode, out, os.Getenv, verbose)
	if !live {
		return out, errOut, func() {}
	}
	p := newLiveProgress(out, width, col.PlannedScenarios, time.Now, time.Second)
	return p, p.Above(errOut), p.close
}
