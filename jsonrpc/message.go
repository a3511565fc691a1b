// Package jsonrpc is the JSON-RPC 2.0 message model the rest of mcpconform is
// built on. Messages keep their raw bytes and their ids stay raw JSON, so that
// a conformance check can see exactly what the peer sent (an id of "1" is not
// an id of 1) and can send deliberately broken frames.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is the only value the "jsonrpc" member may take.
const Version = "2.0"

// ID is a request id kept as its raw JSON text: a string or a number, never
// rewritten, so a report shows what was sent. Ids are compared as JSON
// values (Equal, Key; id.go): "\u0026" is "&", and "42" is not 42.
type ID json.RawMessage

// NumberID makes an id from an integer.
func NumberID(n int64) ID { return ID(strconv.AppendInt(nil, n, 10)) }

// StringID makes an id from a string.
func StringID(s string) ID { b, _ := json.Marshal(s); return ID(b) }

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return len(id) == 0 }

// IsNull reports whether the id is JSON null (seen on error responses to unparsable requests).
func (id ID) IsNull() bool { return string(id) == "null" }

// Valid reports whether the id is one a request may carry: a JSON string or
// an integer, never null (2025-11-25/basic/index.mdx#requests).
func (id ID) Valid() bool {
	b := bytes.TrimSpace(id)
	switch {
	case len(b) == 0:
		return false
	case b[0] == '"':
		return json.Valid(b)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		return !bytes.ContainsAny(b, ".eE") && json.Valid(b)
	}
	return false
}

// String is the raw JSON text of the id.
func (id ID) String() string { return string(id) }

// MarshalJSON writes the id verbatim.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id) == 0 {
		return []byte("null"), nil
	}
	return id, nil
}

// UnmarshalJSON keeps the id verbatim.
func (id *ID) UnmarshalJSON(b []byte) error {
	*id = append((*id)[:0], b...)
	return nil
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Message is any JSON-RPC message: request, notification or response.
// Raw holds the bytes it was decoded from (or encoded to).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`

	Raw []byte `json:"-"`
}

// Kind names what a message is.
type Kind string

const (
	KindRequest      Kind = "request"
	KindNotification Kind = "notification"
	KindResponse     Kind = "response"
	KindInvalid      Kind = "invalid"
)

// Kind classifies the message by the members present.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && !m.ID.IsZero():
		return KindRequest
	case m.Method != "":
		return KindNotification
	case !m.ID.IsZero() && (m.Result != nil || m.Error != nil):
		return KindResponse
	default:
		return KindInvalid
	}
}

// IsRequest, IsNotification and IsResponse are shorthands for Kind.
func (m *Message) IsRequest() bool      { return m.Kind() == KindRequest }
func (m *Message) IsNotification() bool { return m.Kind() == KindNotification }
func (m *Message) IsResponse() bool     { return m.Kind() == KindResponse }

// ErrNotObject is returned for frames that are valid JSON but not an object
// (batches were removed from MCP in 2025-06-18).
var ErrNotObject = errors.New("frame is not a JSON object")

// Decode parses one frame. It rejects non-JSON and non-objects; it does not
// judge the message (a check does that, with the raw bytes at hand).
func Decode(frame []byte) (*Message, error) {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if json.Valid(trimmed) {
			return nil, ErrNotObject
		}
		if TooDeep(trimmed) {
			return nil, fmt.Errorf("frame is %w", ErrTooDeep)
		}
		return nil, fmt.Errorf("frame is not valid JSON: %q", abbreviate(trimmed, 80))
	}
	var m Message
	if err := json.Unmarshal(trimmed, &m); err != nil {
		if depthError(err) {
			return nil, fmt.Errorf("frame is %w", ErrTooDeep)
		}
		return nil, fmt.Errorf("frame is not a valid JSON-RPC object: %w", err)
	}
	m.Raw = append([]byte(nil), trimmed...)
	return &m, nil
}

// MaxDepth is the nesting limit of encoding/json's decoder, which every
// frame goes through: JSON nested deeper is valid JSON (RFC 8259 section 9
// lets a parser "set limits on the maximum depth of nesting"), but this
// decoder cannot read it.
const MaxDepth = 10000

// ErrTooDeep is wrapped by Decode's error for a frame nested deeper than
// MaxDepth; TooDeep tells such a frame apart from one that is not JSON.
var ErrTooDeep = fmt.Errorf("JSON nested deeper than the decoder's limit of %d levels", MaxDepth)

// TooDeep reports whether encoding/json rejects b because it is nested
// deeper than MaxDepth (rather than because it is not JSON). It is for a
// frame json.Valid refused: it decodes b again.
func TooDeep(b []byte) bool {
	var v json.RawMessage
	return depthError(json.Unmarshal(b, &v))
}

// depthError reports whether err is encoding/json's "exceeded max depth".
func depthError(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) && strings.HasSuffix(se.Error(), "exceeded max depth")
}

// Encode serialises the message and stores the bytes in Raw.
func (m *Message) Encode() ([]byte, error) {
	if m.JSONRPC == "" {
		m.JSONRPC = Version
	}
	// Without HTML escaping: json.Marshal would rewrite an id "a&b" as
	// "a\u0026b", and ids are compared byte for byte.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	m.Raw = b
	return b, nil
}

// NewRequest builds a request; params may be nil or anything json.Marshal accepts.
func NewRequest(id ID, method string, params any) (*Message, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("params of %s: %w", method, err)
	}
	return &Message{JSONRPC: Version, ID: id, Method: method, Params: raw}, nil
}

// NewNotification builds a notification.
func NewNotification(method string, params any) (*Message, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("params of %s: %w", method, err)
	}
	return &Message{JSONRPC: Version, Method: method, Params: raw}, nil
}

// NewResult builds a success response.
func NewResult(id ID, result any) (*Message, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	if string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	return &Message{JSONRPC: Version, ID: id, Result: raw}, nil
}

// NewError builds an error response; a missing id becomes null as JSON-RPC requires.
func NewError(id ID, code int, message string, data any) *Message {
	e := &Error{Code: code, Message: message}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	if id.IsZero() {
		id = ID("null")
	}
	return &Message{JSONRPC: Version, ID: id, Error: e}
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(params)
}

func abbreviate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
