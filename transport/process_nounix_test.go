//go:build !unix

package transport

import "os"

// processGone reports whether pid no longer runs.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
