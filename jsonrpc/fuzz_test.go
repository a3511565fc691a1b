package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// FuzzDecode feeds arbitrary frames to the decoder every transport uses for
// what a target sends. Whatever the bytes, Decode must not panic, and a
// message it accepts must survive a round trip: the same kind, the same id
// with the same JSON type, and members read only from their exact names (a
// target that writes "ID" or "Method" did not send an id or a method).
//
// Short run for CI: go test ./jsonrpc -run '^$' -fuzz '^FuzzDecode$' -fuzztime 30s
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":-0,"error":{"code":-32601,"message":"m","data":[1,"x",null]}}`,
		`{"jsonrpc":"2.0","id":1e3,"result":null}`,
		`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","Method":"b"}`,
		`{"jsonrpc":"2.0","id":7,"error":{"Code":-32600,"MESSAGE":"x"}}`,
		`{"jsonrpc":"2.0","\u0069d":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"\u0000"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"x\"}",
		`{"id":{"nested":[1,2]},"method":"x"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`  {"jsonrpc":"2.0","id":1,"method":"ping"}  ` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}{}`,
		`"just a string"`,
		`Server starting on stdio`,
		``,
		`{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := jsonrpc.Decode(frame)
		if err != nil {
			if m != nil {
				t.Fatalf("Decode returned a message with an error: %v", err)
			}
			return
		}
		if !bytes.Equal(m.Raw, bytes.TrimSpace(frame)) {
			t.Fatalf("Raw is not the trimmed frame: %q", m.Raw)
		}
		checkExactMembers(t, m)

		kind, id := m.Kind(), m.ID
		out, err := m.Encode()
		if err != nil {
			t.Fatalf("a decoded message does not encode: %v (frame %q)", err, frame)
		}
		again, err := jsonrpc.Decode(out)
		if err != nil {
			t.Fatalf("a re-encoded message does not decode: %v (%q from %q)", err, out, frame)
		}
		if again.Kind() != kind {
			t.Fatalf("kind changed in a round trip: %s → %s (%q → %q)", kind, again.Kind(), frame, out)
		}
		if !again.ID.Equal(id) {
			t.Fatalf("id changed in a round trip: %q → %q", id, again.ID)
		}
		if jsonType(again.ID) != jsonType(id) {
			t.Fatalf("id changed JSON type: %q → %q", id, again.ID)
		}
		if again.Method != m.Method {
			t.Fatalf("method changed in a round trip: %q → %q", m.Method, again.Method)
		}
		if (again.Error == nil) != (m.Error == nil) || (m.Error != nil && again.Error.Code != m.Error.Code) {
			t.Fatalf("error changed in a round trip: %+v → %+v", m.Error, again.Error)
		}
	})
}

// checkExactMembers compares what Decode read with the members the object
// holds under their exact, case-sensitive names (JSON-RPC member names are
// case-sensitive; encoding/json matches them case-insensitively).
func checkExactMembers(t *testing.T, m *jsonrpc.Message) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(m.Raw, &members); err != nil {
		t.Fatalf("Decode accepted what is not an object: %v", err)
	}
	if _, ok := members["id"]; ok != !m.ID.IsZero() {
		t.Fatalf("id present=%v in the object, but Decode read %q", ok, m.ID)
	}
	var method string
	if raw, ok := members["method"]; ok {
		_ = json.Unmarshal(raw, &method)
	}
	if method != m.Method {
		t.Fatalf(`the member "method" is %q, but Decode read %q`, method, m.Method)
	}
	if raw, ok := members["error"]; ok && string(bytes.TrimSpace(raw)) != "null" && m.Error != nil {
		var e map[string]json.RawMessage
		if json.Unmarshal(raw, &e) == nil {
			var code int
			if c, ok := e["code"]; ok {
				_ = json.Unmarshal(c, &code)
			}
			if code != m.Error.Code {
				t.Fatalf(`the member "error.code" is %d, but Decode read %d`, code, m.Error.Code)
			}
		}
	} else if !ok && m.Error != nil {
		t.Fatalf(`no member "error", but Decode read %+v`, m.Error)
	}
	if _, ok := members["result"]; !ok && m.Result != nil {
		t.Fatalf(`no member "result", but Decode read %q`, m.Result)
	}
}

// jsonType names the JSON type of a raw value by its first byte.
func jsonType(raw []byte) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "absent"
	}
	switch c := b[0]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	default:
		return "number"
	}
}

// FuzzCutEntry checks the cut of a long transcript entry: never longer than
// the limit, the full length noted, and valid UTF-8 kept valid.
//
// Short run for CI: go test ./jsonrpc -run '^$' -fuzz '^FuzzCutEntry$' -fuzztime 10s
func FuzzCutEntry(f *testing.F) {
	f.Add([]byte("short"), 64)
	f.Add([]byte(strings.Repeat("é", 100)), 40)
	f.Add([]byte("\xff\xfe"+strings.Repeat("€", 50)), 33)
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		if limit < 32 || limit > 1<<20 {
			return // the note itself needs room
		}
		out := jsonrpc.CutEntry(raw, limit)
		if len(raw) <= limit {
			if !bytes.Equal(out, raw) {
				t.Fatalf("an entry within the limit was changed: %q → %q", raw, out)
			}
			return
		}
		if len(out) > limit {
			t.Fatalf("cut to %d bytes, over the limit %d", len(out), limit)
		}
		if want := "…[cut: " + jsonrpc.Thousands(len(raw)) + " bytes]"; !bytes.HasSuffix(out, []byte(want)) {
			t.Fatalf("no note of the full length: %q", out)
		}
		if utf8.Valid(raw) && !utf8.Valid(out) {
			t.Fatalf("valid UTF-8 cut into invalid: %q", out)
		}
	})
}
