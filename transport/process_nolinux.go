//go:build !linux

package transport

import "os"

// growPipe keeps the pipe as it is: its size is fixed here.
func growPipe(*os.File) {}

// waitExitedNoReap is not available here: the caller reaps with Wait
// directly and stops signalling the group once the leader is reaped.
func waitExitedNoReap(pid int) bool { return false }
