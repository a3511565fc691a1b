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

// Grace periods of an interrupted run. Ginkgo waits ginkgoGrace for the
// scenario in flight to unwind (its targets are closed on the way, with
// the short waits of transport.Hurry); whatever is still running then is
// stopped by transport.StopAll with stopGrace (hurriedStopGrace after a
// second signal) between SIGTERM and SIGKILL. All in all a run is gone a few
// seconds after SIGTERM, well inside the `timeout -k 5` of a CI job.
const (
	ginkgoGrace      = 2 * time.Second
	stopGrace        = time.Second
	hurriedStopGrace = 100 * time.Millisecond
	// signalSeenWait bounds how long the run waits to learn which signal
	// Ginkgo's own handler reacted to.
	signalSeenWait = time.Second
)

// runSignals watches SIGINT, SIGTERM and SIGHUP for a whole judging run.
// SIGHUP (the terminal or the ssh session went away) ends a run as SIGTERM
// does: by default it would kill mcpconform at once, with no report and
// the targets' setsid children left running. Ginkgo has
// a handler of its own, which stops the specs (the first signal cancels
// the scenario in flight; a second abandons it and skips cleanup nodes, a
// third skips reporting): none of that may skip stopping the targets or
// writing the report, so the run does both itself after the specs, and
// keeps catching the signals until it exits, so a repeated signal cannot
// kill it half-way.
type runSignals struct {
	ch     chan os.Signal
	stderr io.Writer
	seen   chan struct{} // closed on the first signal

	mu    sync.Mutex
	first string
	count int
	// relayed counts the SIGTERMs sent to this process in place of a
	// SIGHUP, which are not signals of their own.
	relayed int
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
		if sig == syscall.SIGTERM && s.relayed > 0 {
			s.relayed--
			s.mu.Unlock()
			continue
		}
		if sig == syscall.SIGHUP {
			// Ginkgo's handler stops the specs on SIGINT and SIGTERM
			// only: it is told with a SIGTERM, which this loop then
			// takes for the relay it is, not for a second signal.
			if self, err := os.FindProcess(os.Getpid()); err == nil && self.Signal(syscall.SIGTERM) == nil {
				s.relayed++
			}
		}
		s.count++
		n := s.count
		if n == 1 {
			s.first = name
			close(s.seen)
		}
		s.mu.Unlock()
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
// arrived. ginkgoSaw says Ginkgo reported an interrupt: then the signal is
// waited for briefly, should Ginkgo's handler have run before ours.
func (s *runSignals) interruptedBy(ginkgoSaw bool) string {
	if ginkgoSaw {
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
