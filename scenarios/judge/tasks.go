package judge

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
)

// The task status graph, 2025-11-25/basic/utilities/tasks.mdx#task-status-lifecycle
// (the same graph governs the 2026-07-28 tasks extension).

// LegalNext is the task status graph (tasks.mdx#task-status-lifecycle).
func LegalNext(from, to string) bool {
	if from == to {
		return true // seeing the same status again is no transition
	}
	switch from {
	case "working":
		return to == "input_required" || client.IsTerminal(to)
	case "input_required":
		return to == "working" || client.IsTerminal(to)
	}
	return false // terminal statuses never change
}

// IllegalStep finds the first illegal step in a sequence of statuses.
func IllegalStep(statuses []string) (string, bool) {
	for i := 1; i < len(statuses); i++ {
		if !LegalNext(statuses[i-1], statuses[i]) {
			return fmt.Sprintf("%s → %s (in %s)", statuses[i-1], statuses[i], strings.Join(statuses, " → ")), true
		}
	}
	return "", false
}
