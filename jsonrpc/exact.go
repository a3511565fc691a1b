package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSON-RPC member names are case-sensitive, but encoding/json matches object
// keys to struct fields case-insensitively: left alone, a target sending
// {"ID":1,"Method":"ping"} would be read as a valid request, and
// {"method":"a","Method":"b"} as method "b". Decoding therefore takes a slow,
// exact path whenever an object holds a key that matches a member only when
// case is ignored; the common, well-formed frame pays one scan of its keys.

var (
	messageMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	errorMembers   = []string{"code", "message", "data"}
)

// UnmarshalJSON reads a message from its exactly named members only.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message // without this method
	raw := m.Raw
	*m = Message{}
	defer func() { m.Raw = raw }()
	if !hasFoldedKey(b, messageMembers) {
		return json.Unmarshal(b, (*plain)(m))
	}
	return unmarshalExact(b, map[string]any{
		"jsonrpc": &m.JSONRPC, "id": &m.ID, "method": &m.Method,
		"params": &m.Params, "result": &m.Result, "error": &m.Error,
	})
}

// UnmarshalJSON reads an error object from its exactly named members only.
func (e *Error) UnmarshalJSON(b []byte) error {
	type plain Error
	*e = Error{}
	if !hasFoldedKey(b, errorMembers) {
		return json.Unmarshal(b, (*plain)(e))
	}
	return unmarshalExact(b, map[string]any{"code": &e.Code, "message": &e.Message, "data": &e.Data})
}

// unmarshalExact decodes the members of object b whose names are exactly the
// keys of fields into the values fields points to. Of duplicate names the
// last counts, as with encoding/json.
func unmarshalExact(b []byte, fields map[string]any) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	for name, dst := range fields {
		if raw, ok := members[name]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasFoldedKey reports whether the JSON object b has a key that equals one
// of names only when case is ignored (the folding encoding/json applies).
// b must be valid JSON; anything else reports false.
func hasFoldedKey(b []byte, names []string) bool {
	found := false
	eachKey(b, func(key string) bool {
		for _, n := range names {
			if key != n && strings.EqualFold(key, n) {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// eachKey calls fn with each top-level key of the valid JSON object b,
// unescaped, until fn returns false.
func eachKey(b []byte, fn func(key string) bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return // '}' or malformed
		}
		end := stringEnd(b, i)
		if end < 0 {
			return
		}
		key := string(b[i+1 : end-1])
		if bytes.IndexByte(b[i:end], '\\') >= 0 {
			if json.Unmarshal(b[i:end], &key) != nil {
				return
			}
		}
		if !fn(key) {
			return
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipValue(b, skipSpace(b, i+1))
		if i < 0 {
			return
		}
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] ('"'),
// or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for ; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
	}
	return j
}
