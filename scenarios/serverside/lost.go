package serverside

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/transport"
)

// A target that crashes, closes its connection or stops answering in the
// middle of a scenario must not pass: what it broke is a failure of the
// check the body was working towards (scenarios.T.Lost), and the checks it
// never reached are not judged. The helpers here decide when a stop is
// such a loss rather than a missing fixture or capability.

// Blocked stops the body because a prerequisite failed. When a session of
// the scenario has ended under it (the process exited, the connection
// closed), the target is lost: a failure, not a skip. Otherwise the checks
// not yet judged are skipped, saying why.
func (t *T) Blocked(format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	if gone := t.goneNote(); gone != "" {
		t.lose(reason, gone)
	}
	t.T.Blocked("%s", reason)
}

// needAnswer stops the body as lost when a request the body needed got no
// answer at all: the wait ran out, or the connection ended.
func (t *T) needAnswer(s *client.Session, what string, err error) {
	if !Unanswered(s, err) {
		return
	}
	why := fmt.Sprintf("no answer within %s", t.Env.Timing.ResponseTimeout)
	if gone := t.goneNote(); gone != "" {
		why = gone
	}
	detail := err.Error()
	if !strings.HasPrefix(detail, what) {
		detail = what + ": " + detail
	}
	t.lose(detail, why)
}

// lose fails the running check with what the target did at which step.
func (t *T) lose(what, why string) {
	expected := "the target to keep answering until the scenario is judged"
	if step := t.LastStep(); step != "" {
		expected += " (step: " + step + ")"
	}
	t.Lost(expected, why+" ("+what+")")
}

// exitReporter is a connection whose target is a process mcpconform started.
type exitReporter interface {
	Exited() <-chan struct{}
	ExitCode() int
}

// goneNote describes the first session of the scenario whose connection
// has ended, "" when every session is still up.
func (t *T) goneNote() string {
	for _, s := range t.sessions {
		select {
		case <-s.Done():
		default:
			continue
		}
		note := fmt.Sprintf("the connection of session %s ended", s.Label())
		if err := s.Err(); err != nil && !errors.Is(err, transport.ErrClosed) {
			note += ": " + err.Error()
		}
		if p, ok := transport.As[exitReporter](s.Conn()); ok {
			select {
			case <-p.Exited():
				note = fmt.Sprintf("the target process of session %s exited with status %d", s.Label(), p.ExitCode())
			default:
			}
		}
		return note
	}
	return ""
}
