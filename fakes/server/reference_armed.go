package server

import "sync"

// A few faults misbehave only after the fact: a notification after the
// answer it belongs to. Timers would race a busy client's bookkeeping, so
// such a fault is armed instead: it fires when the session receives its
// n-th request from then on (the checks send one after they start
// watching), before that request is handled.

const armedKey = "armed-after-requests"

type armed struct {
	mu   sync.Mutex
	left int
	fire func()
}

// armAfterRequests makes fire run when the session's n-th next request
// arrives.
func armAfterRequests(p *Peer, n int, fire func()) {
	p.Set(armedKey, &armed{left: n, fire: fire})
}

// fireArmed counts one request against what is armed on the session.
func fireArmed(p *Peer) {
	a, ok := p.Get(armedKey).(*armed)
	if !ok {
		return
	}
	a.mu.Lock()
	a.left--
	due := a.left == 0
	a.mu.Unlock()
	if due {
		p.Set(armedKey, nil)
		a.fire()
	}
}
