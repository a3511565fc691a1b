package serverside

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
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

// NotImplementedAnswer tells whether the answer to the version's handshake
// says the target does not implement that version, with the evidence: an
// UnsupportedProtocolVersionError (-32022), no server/discover at all
// (-32601), or over HTTP a refusal of server/discover whose body is not a
// modern JSON-RPC error — an initialize-era server
// (2026-07-28/basic/transports/streamable-http.mdx#backward-compatibility:
// "If the body is empty or is not a recognized modern JSON-RPC error, fall
// back to initialize"). A DiscoverResult whose supportedVersions lacks the
// version says so too. Such a target is not judged at that version; it has
// not failed.
func NotImplementedAnswer(v protocol.Version, resp *jsonrpc.Message, err error) (string, bool) {
	discover := v.Handshake == protocol.MethodServerDiscover
	if resp != nil && resp.Error != nil {
		switch {
		case resp.Error.Code == codes.UnsupportedProtocolVersion,
			discover && resp.Error.Code == codes.MethodNotFound:
			return fmt.Sprintf("%s answered %d %s", v.Handshake, resp.Error.Code, resp.Error.Message), true
		}
	}
	var hs *transport.HTTPStatusError
	if discover && errors.As(err, &hs) && (hs.Status == 400 || hs.Status == 404 || hs.Status == 405) && !modernRefusal(hs) {
		return fmt.Sprintf("server/discover answered %s, not a modern JSON-RPC error: an initialize-era server", hs), true
	}
	if discover && resp != nil && resp.Error == nil && err == nil {
		var dr struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(resp.Result, &dr) == nil && dr.SupportedVersions != nil && !slices.Contains(dr.SupportedVersions, v.Name) {
			return fmt.Sprintf("server/discover lists supportedVersions %q, without %s", dr.SupportedVersions, v.Name), true
		}
	}
	return "", false
}

// modernRefusal: an HTTP refusal whose body is an error a modern server
// sends (the version, capability and header errors, or -32601 with 404).
func modernRefusal(hs *transport.HTTPStatusError) bool {
	var body struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(hs.Body), &body) != nil || body.Error == nil {
		return false
	}
	switch body.Error.Code {
	case codes.UnsupportedProtocolVersion, codes.MissingRequiredClientCapability, codes.HeaderMismatch:
		return true
	case codes.MethodNotFound:
		return hs.Status == 404
	}
	return false
}
