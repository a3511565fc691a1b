package transport

import (
	"crypto/rand"
	"encoding/hex"
	"maps"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// LaunchEnv names the environment variable that carries a per-launch token
// into every process mcpconform starts (stdio targets, clients under test).
// Children inherit it through setsid and double forks, which is how their
// descendants are found and stopped even once they have left the process
// group (on Linux; elsewhere only the group is signalled).
const LaunchEnv = "MCPCONFORM_LAUNCH"

const (
	// sweepWait bounds how long stopping a tree keeps killing and reaping
	// processes that escaped the group (a fork bomb could otherwise hold it).
	sweepWait = 2 * time.Second
	// hurriedWait replaces every shutdown wait once the run is interrupted.
	hurriedWait = 250 * time.Millisecond
)

// procTree is one launched process, its group and every descendant that
// escaped it. Signalling goes through it so that the group is signalled
// only while its leader is unreaped (its pgid cannot be reused until then).
type procTree struct {
	leader *os.Process
	pid    int
	token  string
	since  uint64          // the leader's start time, which bounds the search
	exited <-chan struct{} // closed by the owner once the leader is reaped and the tree swept

	mu     sync.Mutex // held while signalling and while reaping the leader
	reaped bool
	// seen holds every pid of the tree found so far: only those are reaped
	// with wait4 when they turn out to be orphans adopted by us, so the wait
	// status of a child os/exec waits for is never stolen.
	seen map[int]bool
}

// newLaunchToken returns a fresh random token for LaunchEnv.
func newLaunchToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// launchEnv returns the environment of a process about to be launched: ours,
// extra, and last (so it wins) LaunchEnv holding the tokens of the launches
// we belong to ourselves, if any, followed by token, comma-separated. A
// process that a launched mcpconform launches in turn thus still belongs to
// the outer launch as well.
func launchEnv(extra []string, token string) []string {
	tokens := token
	if inherited := os.Getenv(LaunchEnv); inherited != "" {
		tokens = inherited + "," + token
	}
	return append(append(os.Environ(), extra...), LaunchEnv+"="+tokens)
}

// prepareLaunch makes this process a subreaper (once) and returns a token.
func prepareLaunch() string {
	becomeSubreaper()
	return newLaunchToken()
}

func newProcTree(p *os.Process, token string, exited <-chan struct{}) *procTree {
	t := &procTree{leader: p, pid: p.Pid, token: token, since: startTime(p.Pid), exited: exited, seen: map[int]bool{}}
	registry.add(t)
	return t
}

// signal sends SIGTERM (or SIGKILL) to the leader's group, while the leader
// is unreaped, and to every process that escaped the group.
func (t *procTree) signal(kill bool) error {
	// Find them before the group signal turns some into zombies, whose
	// environment no longer shows the token.
	alive := t.scan()
	t.mu.Lock()
	var err error
	if !t.reaped {
		if kill {
			err = killGroup(t.leader)
		} else {
			err = terminateGroup(t.leader)
		}
	}
	t.mu.Unlock()
	for _, pid := range alive {
		signalPid(pid, kill)
	}
	return err
}

// leaderExited is called by the owner once the leader is a zombie (or, where
// that cannot be observed, when wait is about to reap it): it kills what is
// left in the group, reaps the leader with wait, then kills and reaps every
// descendant that escaped the group. It returns wait's error.
func (t *procTree) leaderExited(zombie bool, wait func() error) error {
	var err error
	if zombie {
		// Find the tree before the group kill turns some into zombies.
		t.scan()
		// The leader is a zombie, so its pgid is still ours; reaping it
		// returns at once, and under the lock no signal can reach a
		// reused pgid.
		t.mu.Lock()
		_ = killGroup(t.leader)
		err = wait()
		t.reaped = true
		t.mu.Unlock()
	} else {
		err = wait()
		t.mu.Lock()
		t.reaped = true
		t.mu.Unlock()
	}
	t.sweep()
	return err
}

// sweep SIGKILLs every escaped descendant until none is left (or sweepWait
// has passed) and reaps those adopted by us.
func (t *procTree) sweep() {
	deadline := time.Now().Add(sweepWait)
	for {
		killed := t.signalEscaped(true)
		t.reapAdopted()
		if len(killed) == 0 || time.Now().After(deadline) {
			return
		}
		// Once the killed have exited, their children are reparented to
		// us: look again then.
		waitExited(killed, deadline)
	}
}

// scan finds the tree's processes, remembers them all for reapAdopted and
// returns those still running.
func (t *procTree) scan() []int {
	t.mu.Lock()
	leader := t.pid
	if t.reaped {
		leader = 0 // its pid may belong to someone else now
	}
	known := maps.Clone(t.seen)
	t.mu.Unlock()
	alive, zombies := escapedProcs(t.token, leader, known, t.since)
	t.mu.Lock()
	for _, pid := range alive {
		t.seen[pid] = true
	}
	for _, pid := range zombies {
		t.seen[pid] = true
	}
	t.mu.Unlock()
	return alive
}

// signalEscaped signals the tree's processes but its leader that are still
// running and returns how many it found.
func (t *procTree) signalEscaped(kill bool) []int {
	alive := t.scan()
	for _, pid := range alive {
		signalPid(pid, kill)
	}
	return alive
}

// reapAdopted reaps the zombies among the pids seen that are ours, until a
// pass reaps nothing: reaping one may hand us its own zombie children.
func (t *procTree) reapAdopted() {
	for {
		t.mu.Lock()
		pids := make([]int, 0, len(t.seen))
		for pid := range t.seen {
			pids = append(pids, pid)
		}
		t.mu.Unlock()
		progress := false
		for _, pid := range pids {
			if reapIfAdopted(pid) {
				t.mu.Lock()
				delete(t.seen, pid)
				t.mu.Unlock()
				progress = true
			}
		}
		if !progress {
			return
		}
	}
}

// stop is the forced shutdown of StopAll: SIGTERM to the tree, grace, then
// SIGKILL to the tree, then waiting for the owner to reap the leader.
// It reports whether the tree was still running.
func (t *procTree) stop(grace time.Duration) bool {
	if isClosed(t.exited) {
		return false
	}
	_ = t.signal(false)
	if waitClosed(t.exited, grace) {
		return true
	}
	_ = t.signal(true)
	waitClosed(t.exited, sweepWait)
	return true
}

func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ch:
		return true
	case <-tm.C:
		return false
	}
}

// registry holds every tree still running, for StopAll.
var registry = &treeRegistry{live: map[*procTree]struct{}{}}

type treeRegistry struct {
	mu   sync.Mutex
	live map[*procTree]struct{}
}

func (r *treeRegistry) add(t *procTree) {
	r.mu.Lock()
	r.live[t] = struct{}{}
	r.mu.Unlock()
	go func() {
		<-t.exited
		r.mu.Lock()
		delete(r.live, t)
		r.mu.Unlock()
	}()
}

func (r *treeRegistry) snapshot() []*procTree {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*procTree, 0, len(r.live))
	for t := range r.live {
		out = append(out, t)
	}
	return out
}

// StopAll stops every process this package started that is still running
// (stdio targets, clients under test and whatever they spawned): SIGTERM,
// grace, then SIGKILL, all trees at once. It is the safety net of an
// interrupted run, whose scenarios may have been abandoned before closing
// their connections. It returns how many were still running.
func StopAll(grace time.Duration) int {
	var wg sync.WaitGroup
	var running atomic.Int32
	for _, t := range registry.snapshot() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if t.stop(grace) {
				running.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(running.Load())
}

var hurried atomic.Bool

// Hurry shortens every shutdown wait from now on (stdin close, SIGTERM,
// Process.Stop's grace) to a quarter of a second: the run was interrupted,
// nothing more will be judged, and the user is waiting.
func Hurry() { hurried.Store(true) }

// shutdownWait is d, or hurriedWait once Hurry was called.
func shutdownWait(d time.Duration) time.Duration {
	if hurried.Load() && d > hurriedWait {
		return hurriedWait
	}
	return d
}
