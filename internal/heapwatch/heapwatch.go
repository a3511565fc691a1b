// Package heapwatch samples the Go heap in use while a test pushes bytes at
// mcpconform, so a test can assert that the peak stays under a bound (a
// memory bound, unlike a time bound, is a fair assertion).
package heapwatch

import (
	"runtime"
	"sync"
	"time"
)

// Watch keeps the heap in use at its start and the peak since.
type Watch struct {
	base, peak uint64
	done       chan struct{}
	stopped    chan struct{}
	once       sync.Once
}

// Start collects garbage, takes the baseline and samples every interval
// until Stop.
func Start(interval time.Duration) *Watch {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w := &Watch{base: ms.HeapInuse, peak: ms.HeapInuse, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			w.peak = max(w.peak, ms.HeapInuse)
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// Stop ends the sampling (idempotent) and returns the baseline and peak.
func (w *Watch) Stop() (base, peak uint64) {
	w.once.Do(func() { close(w.done) })
	<-w.stopped
	return w.base, w.peak
}
