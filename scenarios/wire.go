package scenarios

import "sync"

// WireLedger collects what the target sent that its schema refuses, across
// every session of every scenario on one transport and version, so that one
// check (wire-schema, which runs last there) can judge all of the traffic.
type WireLedger struct {
	mu      sync.Mutex
	entries []WireViolation
}

// WireViolation is one message that does not validate.
type WireViolation struct {
	Scenario string // the scenario whose session received it
	What     string // "result of tools/list", "notification notifications/tasks/status"
	Err      string // with its JSON path
	Raw      []byte
}

// Add records violations; a nil ledger records nothing.
func (l *WireLedger) Add(v ...WireViolation) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.entries = append(l.entries, v...)
	l.mu.Unlock()
}

// All returns what was recorded so far.
func (l *WireLedger) All() []WireViolation {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]WireViolation(nil), l.entries...)
}
