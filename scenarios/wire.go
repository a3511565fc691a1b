package scenarios

import (
	"sync"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// WireLedger collects what the target sent that its schema refuses, and the
// wire rules it broke, across every session of every scenario on one
// transport and version, so that the scenarios that run last there
// (wire-schema, wire-rules) can judge all of the traffic.
type WireLedger struct {
	mu      sync.Mutex
	entries []WireViolation       // the first WireViolationKeep
	total   int                   // every violation recorded, kept or only counted
	rules   map[string]*ruleTally // breaches of the wire rules, by rule
}

// WireViolation is one message that does not validate.
type WireViolation struct {
	Scenario string // the scenario whose session received it
	What     string // "result of tools/list", "notification notifications/tasks/status"
	Err      string // with its JSON path
	Raw      []byte
}

// WireViolationKeep is how many schema violations a ledger keeps, each
// message cut to WireViolationBytes (and its error to WireTextBytes);
// beyond it they are only counted. A target that sends every message
// invalid would otherwise have the ledger hold all of its traffic for the
// whole run, and the wire-schema check shows only the first few anyway.
const (
	WireViolationKeep  = 1000
	WireViolationBytes = 4 << 10
	// WireTextBytes bounds the texts a ledger keeps with each entry (a
	// violation's error, a breach's description), which may quote what the
	// target sent: a method that is not a string, an id, a jsonrpc value.
	WireTextBytes = 1 << 10
)

// cutText is s cut to WireTextBytes (jsonrpc.CutEntry), or s itself.
func cutText(s string) string {
	if len(s) <= WireTextBytes {
		return s
	}
	return string(jsonrpc.CutEntry([]byte(s), WireTextBytes))
}

// Add records violations, keeping the first WireViolationKeep (cut) and
// counting the rest; a nil ledger records nothing.
func (l *WireLedger) Add(v ...WireViolation) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range v {
		l.total++
		if len(l.entries) >= WireViolationKeep {
			continue
		}
		x.Raw = jsonrpc.CutEntry(x.Raw, WireViolationBytes)
		x.Err = cutText(x.Err)
		l.entries = append(l.entries, x)
	}
}

// Count records n violations a session saw but did not keep (see
// client.Session.SchemaViolationsDropped): counted, like those beyond
// WireViolationKeep.
func (l *WireLedger) Count(n int) {
	if l == nil || n <= 0 {
		return
	}
	l.mu.Lock()
	l.total += n
	l.mu.Unlock()
}

// Violations returns the schema violations kept so far and how many were
// recorded in all (kept or only counted).
func (l *WireLedger) Violations() (kept []WireViolation, total int) {
	if l == nil {
		return nil, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]WireViolation(nil), l.entries...), l.total
}

// All returns the schema violations kept so far (Violations without the
// count).
func (l *WireLedger) All() []WireViolation {
	kept, _ := l.Violations()
	return kept
}

// WireBreach is one place where what the target sent broke a wire rule that
// every message must keep (a line on stdout that is not JSON-RPC, invalid
// UTF-8, a jsonrpc member other than "2.0", a null request id, a request
// for a capability the client never declared, an HTTP Content-Type, a
// binary WebSocket frame…). wire-rules, which runs last on each transport
// and version, judges them all.
type WireBreach struct {
	Scenario string // the scenario whose session saw it
	Rule     string // the rule broken: the name of the check that judges it ("utf8", "request-id")
	What     string // what was seen, for the report
	Raw      []byte // the start of the frame, when there is one
	// Also counts further breaches of the same rule that the session saw
	// but did not keep.
	Also int
}

// WireBreachKeep is how many breaches of one rule a ledger keeps; beyond it
// they are only counted.
const WireBreachKeep = 20

// ruleTally is what a ledger knows of one rule.
type ruleTally struct {
	kept  []WireBreach
	total int
}

// AddBreach records breaches of the wire rules, keeping the first
// WireBreachKeep of each rule (their texts cut to WireTextBytes, their
// frames to WireViolationBytes) and counting the rest; a nil ledger records
// nothing.
func (l *WireLedger) AddBreach(b ...WireBreach) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rules == nil {
		l.rules = map[string]*ruleTally{}
	}
	for _, x := range b {
		t := l.rules[x.Rule]
		if t == nil {
			t = &ruleTally{}
			l.rules[x.Rule] = t
		}
		t.total += 1 + max(x.Also, 0)
		if len(t.kept) < WireBreachKeep {
			x.What = cutText(x.What)
			x.Raw = jsonrpc.CutEntry(x.Raw, WireViolationBytes)
			t.kept = append(t.kept, x)
		}
	}
}

// Breaches returns the breaches of one rule kept so far and how many were
// recorded in all (kept or only counted).
func (l *WireLedger) Breaches(rule string) (kept []WireBreach, total int) {
	if l == nil {
		return nil, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.rules[rule]
	if t == nil {
		return nil, 0
	}
	return append([]WireBreach(nil), t.kept...), t.total
}
