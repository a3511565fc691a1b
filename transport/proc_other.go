//go:build !linux

package transport

import "time"

// Without /proc and PR_SET_CHILD_SUBREAPER, a launch is stopped through its
// process group only (see processAttr): a descendant that leaves the group
// is not found.

func becomeSubreaper() {}

func escapedProcs(token string, leader int, known map[int]bool, since uint64) (alive, zombies []int) {
	return nil, nil
}

func startTime(pid int) uint64 { return 0 }

func waitExited(pids []int, until time.Time) {}

func signalPid(pid int, kill bool) {}

func reapIfAdopted(pid int) bool { return true }
