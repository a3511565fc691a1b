package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Versions the checks apply to.
var (
	legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}
	modernVersions = []string{"2026-07-28"}
	allVersions    = append(append([]string(nil), legacyVersions...), modernVersions...)
)

// isErrorCode reports a JSON-RPC error response with this code.
func isErrorCode(m *jsonrpc.Message, code int) bool {
	return m != nil && m.Error != nil && m.Error.Code == code
}

// httpRejection returns the HTTP status when the request was refused at the
// HTTP level without a JSON-RPC body.
func httpRejection(err error) (int, bool) {
	var hs *transport.HTTPStatusError
	if errors.As(err, &hs) {
		return hs.Status, true
	}
	return 0, false
}

// statusNote describes the HTTP status of a request, when there is one.
func statusNote(s *client.Session, id jsonrpc.ID) (int, string) {
	if st, ok := s.Status(id); ok {
		return st, fmt.Sprintf(" (HTTP %d)", st)
	}
	return 0, ""
}

// field reads one member of a JSON object result.
func field(raw json.RawMessage, name string) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	v, ok := obj[name]
	return v, ok
}

// stringField reads a string member, "" when absent or not a string.
func stringField(raw json.RawMessage, name string) string {
	v, ok := field(raw, name)
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// validateResult checks a result against the generated types of the
// version. Versions without a schema of their own (2025-06-18 and older)
// are judged against 2025-11-25, the nearest of the same era; a method the
// version's schema does not know is not judged here.
func validateResult(version, method string, raw json.RawMessage) error {
	if !protocol.HasSchema(version) && protocol.IsStateful(version) {
		version = protocol.LatestStateful
	}
	err := protocol.ValidateResult(version, method, raw)
	if errors.Is(err, protocol.ErrUnknownMethod) || errors.Is(err, protocol.ErrUnknownVersion) {
		return nil
	}
	return err
}

// parseTime reads an ISO 8601 (RFC 3339) timestamp.
func parseTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// gone reports a session that has ended: the connection failed, or an HTTP
// session answered 404 (Streamable HTTP session management).
func gone(s *client.Session, err error) bool {
	if err != nil {
		return true
	}
	select {
	case <-s.Done():
		return true
	default:
	}
	if ls, ok := transport.As[interface{ LastStatus() int }](s.Conn()); ok {
		return ls.LastStatus() == 404
	}
	return false
}

// rawRefusal reports the HTTP status of the POST that carried the last raw
// frame, when it refused it (4xx/5xx): over Streamable HTTP that status is
// the required answer and a JSON-RPC error body is optional
// (2025-11-25/basic/transports.mdx#sending-messages-to-the-server).
func rawRefusal(s *client.Session) (int, bool) {
	if ls, ok := transport.As[interface{ LastStatus() int }](s.Conn()); ok {
		if st := ls.LastStatus(); st >= 400 {
			return st, true
		}
	}
	return 0, false
}

// probeMethod is a harmless request every server answers: ping, or
// server/discover where ping no longer exists (2026-07-28).
func probeMethod(s *client.Session) string {
	if s.Stateless() {
		return protocol.MethodServerDiscover
	}
	return protocol.MethodPing
}

// barrier sends the probe request and waits for its answer: frames the
// server sent on the same ordered connection before it are in by then.
func barrier(t *T, s *client.Session) {
	method := probeMethod(s)
	if _, err := t.Request(s, method, map[string]any{}); err != nil {
		t.Blocked("%s (used as a barrier) was not answered: %v", method, err)
	}
}
