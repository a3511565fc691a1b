//go:build !linux

package transport

// Without /proc and PR_SET_CHILD_SUBREAPER, a launch is stopped through its
// process group only (see processAttr): a descendant that leaves the group
// is not found.

func becomeSubreaper() {}

func escapedProcs(token string, leader int, known map[int]bool) (alive, zombies []int) {
	return nil, nil
}

func signalPid(pid int, kill bool) {}

func reapIfAdopted(pid int) bool { return true }
