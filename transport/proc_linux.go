package transport

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

var subreaperOnce sync.Once

// becomeSubreaper makes orphans among our descendants reparent to this
// process instead of to init: a target's child that calls setsid and whose
// parent exits stays below us, where it can be found, killed and reaped.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	ppid, pgrp int
	zombie     bool
	start      uint64 // clock ticks after boot
}

func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// "pid (comm) S ppid ...": comm may hold spaces and parentheses, so
	// parse from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	fields := bytes.Fields(b[i+2:])
	if len(fields) < 20 {
		return procStat{}, false
	}
	// fields[0] is field 3 of proc(5): state, ppid, pgrp, … starttime (22).
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	start, err3 := strconv.ParseUint(string(fields[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	state := fields[0][0]
	return procStat{ppid: ppid, pgrp: pgrp, zombie: state == 'Z' || state == 'X', start: start}, true
}

// carriesToken reports whether pid's environment holds token in LaunchEnv.
// (A zombie's environment is gone; it is found through its parent.)
func carriesToken(pid int, token []byte) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil || len(b) == 0 {
		return false
	}
	prefix := []byte(LaunchEnv + "=")
	for len(b) > 0 {
		var e []byte
		if i := bytes.IndexByte(b, 0); i >= 0 {
			e, b = b[:i], b[i+1:]
		} else {
			e, b = b, nil
		}
		if v, ok := bytes.CutPrefix(e, prefix); ok {
			for t := range bytes.SplitSeq(v, []byte(",")) {
				if bytes.Equal(t, token) {
					return true
				}
			}
		}
	}
	return false
}

// escapedProcs lists the processes that belong to a launch: those whose
// environment carries its token, the leader's descendants and its process
// group (while it is unreaped; leader is 0 once it is reaped), and the
// descendants of all of those, found by walking the ppid links of
// /proc/*/stat. known are pids found before: a child that cleared its
// environment and whose parent we killed is found that way. (The group
// counts for zombies the group signal made, whose environment is gone and
// whose parent may be us.) alive are the ones worth a signal; zombies are
// listed too, so that those adopted by us can be reaped.
//
// since is the leader's start time (0 when unknown): a process started
// before it can be neither its descendant nor carry its token, so most of
// the system costs one read of its stat.
func escapedProcs(token string, leader int, known map[int]bool, since uint64) (alive, zombies []int) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	tok := []byte(token)
	stats := map[int]procStat{}
	children := map[int][]int{}
	var roots []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || st.start < since {
			continue
		}
		stats[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
		if known[pid] || (leader > 0 && st.pgrp == leader) || (!st.zombie && carriesToken(pid, tok)) {
			roots = append(roots, pid)
		}
	}
	if leader > 0 {
		roots = append(roots, leader)
	}
	found := map[int]bool{}
	for len(roots) > 0 {
		pid := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if found[pid] {
			continue
		}
		found[pid] = true
		roots = append(roots, children[pid]...)
	}
	for pid := range found {
		st, ok := stats[pid]
		switch {
		case pid == leader, !ok:
			// The leader is its owner's to signal (through its group)
			// and to reap.
		case st.zombie:
			zombies = append(zombies, pid)
		default:
			alive = append(alive, pid)
		}
	}
	return alive, zombies
}

// startTime is when pid started, or 0 if that cannot be read.
func startTime(pid int) uint64 {
	st, _ := readProcStat(pid)
	return st.start
}

// waitExited waits until every one of pids has exited (its pidfd becomes
// readable) or until passes. Without pidfds (Linux before 5.3) it waits
// 10 ms, the only notice /proc gives being a later look.
func waitExited(pids []int, until time.Time) {
	var fds []unix.PollFd
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		switch {
		case errors.Is(err, unix.ENOSYS):
			timer := time.NewTimer(min(10*time.Millisecond, time.Until(until)))
			<-timer.C
			return
		case err != nil:
			continue // gone already
		}
		defer unix.Close(fd)
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	for len(fds) > 0 {
		ms := int(time.Until(until).Milliseconds())
		if ms <= 0 {
			return
		}
		n, err := unix.Poll(fds, ms)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		fds = slices.DeleteFunc(fds, func(p unix.PollFd) bool { return p.Revents != 0 })
	}
}

func signalPid(pid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(pid, sig)
}

// reapIfAdopted reaps pid if it is a zombie whose parent is us (an orphan
// reparented to this subreaper), and reports whether pid is gone for good:
// reaped now, or no longer there at all.
func reapIfAdopted(pid int) bool {
	st, ok := readProcStat(pid)
	if !ok {
		return true
	}
	if !st.zombie || st.ppid != os.Getpid() {
		return false
	}
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	return got == pid || err == syscall.ECHILD
}
