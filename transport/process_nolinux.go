//go:build !linux

package transport

// waitExitedNoReap is not available here: the caller reaps with Wait
// directly and stops signalling the group once the leader is reaped.
func waitExitedNoReap(pid int) bool { return false }
