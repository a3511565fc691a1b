package transport

import (
	"os"
	"testing"
)

// BenchmarkEscapedProcs measures one search of /proc for a launch's
// processes, which every target exit and every shutdown signal costs.
func BenchmarkEscapedProcs(b *testing.B) {
	token := newLaunchToken()
	b.Run("whole system", func(b *testing.B) {
		for b.Loop() {
			escapedProcs(token, 0, nil, 0)
		}
	})
	b.Run("since now", func(b *testing.B) {
		since := startTime(os.Getpid())
		for b.Loop() {
			escapedProcs(token, 0, nil, since)
		}
	})
}
