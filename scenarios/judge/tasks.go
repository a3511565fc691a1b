package judge

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// LegalNext is the task status graph (protocol.TaskTransitionLegal), for
// statuses as the wire gives them.
func LegalNext(from, to string) bool {
	return protocol.TaskTransitionLegal(protocol.TaskStatus(from), protocol.TaskStatus(to))
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
