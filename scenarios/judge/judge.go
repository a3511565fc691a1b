// Package judge holds side-neutral helpers for judging what a peer sent:
// error codes, result fields, schema validation, timestamps, the task status
// graph, and compact descriptions of answers for failure messages.
package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// IsErrorCode reports a JSON-RPC error response with this code.
func IsErrorCode(m *jsonrpc.Message, code int) bool {
	return m != nil && m.Error != nil && m.Error.Code == code
}

// HTTPRejection returns the HTTP status when the request was refused at the
// HTTP level without a JSON-RPC body.
func HTTPRejection(err error) (int, bool) {
	var hs *transport.HTTPStatusError
	if errors.As(err, &hs) {
		return hs.Status, true
	}
	return 0, false
}

// Field reads one member of a JSON object result.
func Field(raw json.RawMessage, name string) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	v, ok := obj[name]
	return v, ok
}

// StringField reads a string member, "" when absent or not a string.
func StringField(raw json.RawMessage, name string) string {
	v, ok := Field(raw, name)
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

func IsEmptyObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return false
	}
	delete(obj, "_meta") // _meta is allowed on every result
	return len(obj) == 0 && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
}

// ValidateResult checks a result against the generated types of the
// version. Versions without a schema of their own (2025-06-18 and older)
// are judged against the nearest of the same era; a method the version's
// schema does not know is not judged here.
func ValidateResult(version, method string, raw json.RawMessage) error {
	err := protocol.ValidateResult(protocol.SchemaFor(version), method, raw)
	if errors.Is(err, protocol.ErrUnknownMethod) || errors.Is(err, protocol.ErrUnknownVersion) {
		return nil
	}
	return err
}

// ParseTime reads an ISO 8601 (RFC 3339) timestamp.
func ParseTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// Describe renders a response for a failure message: compact and free of
// ports so CI can group failures (the transcript keeps the full detail).
func Describe(m *jsonrpc.Message, err error) string {
	switch {
	case err != nil:
		return "no JSON-RPC response: " + MaskAddresses(err.Error())
	case m == nil:
		return "no response"
	case m.Error != nil:
		s := fmt.Sprintf("error %d %q", m.Error.Code, m.Error.Message)
		if len(m.Error.Data) > 0 {
			s += " data=" + Abbreviate(string(m.Error.Data), 200)
		}
		return s
	default:
		return "result " + Abbreviate(string(m.Result), 300)
	}
}

var hostPort = regexp.MustCompile(`(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|localhost):\d+`)

// MaskAddresses replaces host:port pairs (ephemeral ports differ per run).
func MaskAddresses(s string) string { return hostPort.ReplaceAllString(s, "$1:PORT") }

// Abbreviate cuts s to about n bytes without splitting a character.
func Abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
