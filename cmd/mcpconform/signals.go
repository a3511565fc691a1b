package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/transport"
)

// Grace periods of an interrupted run. The run waits runGrace for the
// scenarios in flight to unwind (its targets are closed on the way, with
// the short waits of transport.Hurry); whatever is still running then is
// stopped by transport.StopAll with stopGrace (hurriedStopGrace after a
// second signal) between SIGTERM and SIGKILL. All in all a run is gone a few
// seconds after SIGTERM, well inside the `timeout -k 5` of a CI job.
const (
	runGrace         = 2 * time.Second
	stopGrace        = time.Second
	hurriedStopGrace = 100 * time.Millisecond
	// signalSeenWait bounds how long the run waits to learn which signal
	// stopped it, should another handler (Ginkgo's, with -v) have acted
	// before this one.
	signalSeenWait = time.Second
)

// runSignals watches SIGINT, SIGTERM and SIGHUP for a whole judging run.
// SIGHUP (the terminal or the ssh session went away) ends a run as SIGTERM
// does: by default it would kill mcpconform at once, with no report and
// the targets' setsid children left running. The first signal stops the
// run (the scenarios in flight see their context end, the rest never
// start), a second stops waiting for them; the targets are stopped and the
// report written after either, and the signals are caught until the
// process exits, so a repeated signal cannot kill it half-way.
type runSignals struct {
	ch     chan os.Signal
	stderr io.Writer
	seen   chan struct{} // closed on the first signal

	mu    sync.Mutex
	first string
	count int
	// stop is called on the first signal, giveUp on the second.
	stop, giveUp func()
}

// stops sets what the signals stop: the first stops the run (stop), a
// second stops waiting for what still runs (giveUp). They run apart, so
// that later signals are still caught while the run unwinds.
func (s *runSignals) stops(stop, giveUp func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop, s.giveUp = stop, giveUp
}

func catchSignals(stderr io.Writer) *runSignals {
	s := &runSignals{ch: make(chan os.Signal, 8), stderr: stderr, seen: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go s.loop()
	return s
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

func (s *runSignals) loop() {
	for sig := range s.ch {
		name := signalName(sig)
		s.mu.Lock()
		s.count++
		n := s.count
		stop, giveUp := s.stop, s.giveUp
		if n == 1 {
			s.first = name
			close(s.seen)
		}
		s.mu.Unlock()
		switch {
		case n == 1 && stop != nil:
			go stop()
		case n == 2 && giveUp != nil:
			giveUp()
		}
		// Nothing more will be judged: every shutdown wait shrinks.
		transport.Hurry()
		switch n {
		case 1:
			fmt.Fprintf(s.stderr, "mcpconform: %s: stopping the target and writing the report of what was judged so far\n", name)
		case 2:
			fmt.Fprintf(s.stderr, "mcpconform: %s again: hurrying; the targets are still stopped and the report still written\n", name)
		}
	}
}

// interruptedBy names the first signal the run received, or "" if none
// arrived. stopped says the run was stopped: then the signal is waited for
// briefly, should another handler have acted before this one.
func (s *runSignals) interruptedBy(stopped bool) string {
	if stopped {
		t := time.NewTimer(signalSeenWait)
		defer t.Stop()
		select {
		case <-s.seen:
		case <-t.C:
			return "a signal"
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// stopGrace is the SIGTERM-to-SIGKILL grace for what is left running.
func (s *runSignals) stopGrace() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count > 1 {
		return hurriedStopGrace
	}
	return stopGrace
}
