package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// RunTextBudget bounds the target-controlled text of one report file: the
// transcripts, stderr and check messages of all its scenarios together. A
// transcript is capped per scenario (jsonrpc.DefaultTranscriptLimit), but a
// run has hundreds of scenarios and three files repeat every transcript:
// 3.9 MB lines once made 436 MB of reports and 1.2 GB of memory. 16 MiB per
// file keeps the directory under about 50 MiB and the memory needed to write
// it under about 100 MiB, while a normal run (kilobytes per scenario) is
// never trimmed.
const RunTextBudget = 16 << 20

// trimmedText is one text of a run that budgetRun may cut.
type trimmedText struct {
	what string  // "transcript", "stderr", "message"
	s    *string // in the copy of the run
}

// budgetRun returns r itself when the transcripts, stderr and check messages
// of its scenarios fit in budget bytes together; otherwise a copy (r is not
// changed) trimmed by TrimToBudget.
func budgetRun(r *Run, budget int) *Run {
	if textBytes(r.Scenarios) <= budget {
		return r
	}
	cp := *r
	cp.Scenarios = append([]Scenario(nil), r.Scenarios...)
	ptrs := make([]*Scenario, len(cp.Scenarios))
	for i := range cp.Scenarios {
		s := &cp.Scenarios[i]
		s.Checks = append([]Check(nil), s.Checks...)
		ptrs[i] = s
	}
	TrimToBudget(budget, ptrs...)
	return &cp
}

func textBytes(scenarios []Scenario) int {
	n := 0
	for i := range scenarios {
		s := &scenarios[i]
		n += len(s.Transcript) + len(s.Stderr)
		for j := range s.Checks {
			n += len(s.Checks[j].Message)
		}
	}
	return n
}

// TrimToBudget trims, in place, the transcripts, stderr and check messages
// of scenarios so that together they fit in budget bytes, and reports
// whether it cut anything. The largest texts are cut first, to one common
// size at which the whole fits: a big transcript gives way before any small
// one is touched. Each cut text keeps its head and its end (where a failure
// shows) and says in its middle how much was left out and why.
//
// WriteAll applies it to a copy of the run. A collector holding a run's
// scenarios in memory can apply it as they arrive (with a budget of, say,
// twice RunTextBudget), so that a long run's memory is bounded before the
// reports are written too.
func TrimToBudget(budget int, scenarios ...*Scenario) bool {
	var texts []trimmedText
	total := 0
	for _, s := range scenarios {
		texts = append(texts, trimmedText{"transcript", &s.Transcript}, trimmedText{"stderr", &s.Stderr})
		total += len(s.Transcript) + len(s.Stderr)
		for j := range s.Checks {
			texts = append(texts, trimmedText{"message", &s.Checks[j].Message})
			total += len(s.Checks[j].Message)
		}
	}
	if total <= budget {
		return false
	}
	limit := budgetCap(texts, budget)
	for _, t := range texts {
		if len(*t.s) > limit {
			*t.s = trimText(*t.s, limit, t.what, budget)
		}
	}
	return true
}

// budgetCap is the largest size such that every text cut to it (with room
// for the note a cut adds) fits in budget.
func budgetCap(texts []trimmedText, budget int) int {
	sizes := make([]int, len(texts))
	for i, t := range texts {
		sizes[i] = len(*t.s)
	}
	sort.Ints(sizes)
	fits := func(c int) bool {
		sum := 0
		for _, n := range sizes {
			if n > c {
				sum += c + trimNoteReserve
			} else {
				sum += n
			}
			if sum > budget {
				return false
			}
		}
		return true
	}
	lo, hi := 0, sizes[len(sizes)-1]
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// trimNoteReserve is room for the note a cut adds.
const trimNoteReserve = 256

// trimText cuts s to about limit bytes: its first quarter and its last
// three quarters, each ending on a line break where one is near, and a
// note between them.
func trimText(s string, limit int, what string, budget int) string {
	headEnd := cutBefore(s, max(0, limit)/4)
	tailStart := cutAfter(s, len(s)-(max(0, limit)-headEnd))
	note := fmt.Sprintf("\n… [trimmed: %s of %s bytes of this %s left out to keep the run's reports under %d MiB; the largest texts are trimmed first]\n",
		jsonrpc.Thousands(tailStart-headEnd), jsonrpc.Thousands(len(s)), what, budget>>20)
	return s[:headEnd] + note + s[tailStart:]
}

// cutBefore returns an index ≤ n ending a line (just after '\n') if one is
// within the last quarter before n, else n moved back to a character
// boundary.
func cutBefore(s string, n int) int {
	if i := strings.LastIndexByte(s[:n], '\n'); i >= 0 && i+1 >= n-n/4 {
		return i + 1
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return n
}

// cutAfter returns an index ≥ n starting a line if one begins within a
// quarter of what follows n, else n moved forward to a character boundary.
func cutAfter(s string, n int) int {
	rest := len(s) - n
	if i := strings.IndexByte(s[n:], '\n'); i >= 0 && i < rest/4 {
		return n + i + 1
	}
	for n < len(s) && !isRuneStart(s[n]) {
		n++
	}
	return n
}
