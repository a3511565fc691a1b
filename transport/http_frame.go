package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// Header names used by Streamable HTTP. Go canonicalises header keys, so
// "MCP-Protocol-Version" goes on the wire as "Mcp-Protocol-Version"; header
// names are case-insensitive (RFC 9110).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderLastEventID     = "Last-Event-ID"
)

// StatelessVersion is the newest protocol revision that runs Streamable
// HTTP without sessions, as the version table says.
var StatelessVersion = newestStateless()

func newestStateless() string {
	vs := protocol.JudgedStateless()
	if len(vs) == 0 {
		panic("transport: the version table has no stateless version")
	}
	return vs[0]
}

// httpFrameInfo is what the HTTP transport needs to know about a frame. It is
// derived leniently: a frame that does not parse is still carried.
type httpFrameInfo struct {
	msg *jsonrpc.Message // nil when the frame does not parse as an object
	// idKey is the id's raw JSON when it is a string or a number (the only id
	// types JSON-RPC allows for requests), else "".
	idKey string
	// nullID is true for an explicit "id": null.
	nullID bool
	// rawIDKey is the id of a frame that is JSON but not a valid message,
	// when it is a string or a number.
	rawIDKey string
}

// httpRouteKey is the key a session routes a response to its POST by: the
// id's raw JSON, except that a string id is rewritten in one canonical
// form, so that a response whose engine writes the same string with other
// escapes ("\u03a9" for "Ω") still finds its POST, as JSON-RPC matches ids
// by value.
func httpRouteKey(key string) string {
	if !strings.HasPrefix(key, `"`) {
		return key
	}
	var s string
	if json.Unmarshal([]byte(key), &s) != nil {
		return key
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return key
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func lenientIDKey(frame []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(frame, &fields) != nil {
		return ""
	}
	if key := string(bytes.TrimSpace(fields["id"])); routable(key) {
		return key
	}
	return ""
}

// routable reports an id the transport can route a response by: a string
// or a number. Whether MCP allows it (integers only) is for the peer to judge.
func routable(key string) bool {
	return key != "" && (key[0] == '"' || key[0] == '-' || (key[0] >= '0' && key[0] <= '9'))
}

// modernMeta reports whether a body carries the 2026-07-28 per-request
// _meta protocol version, which selects stateless handling even when the
// header names a version the server does not know
// (2026-07-28/basic/versioning.mdx: "A request carrying modern per-request
// _meta is served statelessly").
func modernMeta(frame []byte) bool {
	var body struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &body) != nil {
		return false
	}
	_, ok := body.Params.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

func httpInspect(frame []byte) httpFrameInfo {
	m, err := jsonrpc.Decode(frame)
	if err != nil {
		// Not a valid message, but its id may still be readable (a request
		// whose method is a number): the engine's error then carries it.
		return httpFrameInfo{rawIDKey: lenientIDKey(frame)}
	}
	fi := httpFrameInfo{msg: m}
	key := m.ID.Key()
	switch {
	case key == "null":
		fi.nullID = true
	case routable(key):
		fi.idKey = key
	}
	return fi
}

// isRequest: a method and an id (of any JSON type).
func (fi httpFrameInfo) isRequest() bool { return fi.msg != nil && fi.msg.IsRequest() }

func (fi httpFrameInfo) isNotification() bool { return fi.msg != nil && fi.msg.IsNotification() }

// isResponse: no method, and a result or an error member (an error response
// may carry id null or, out of spec, no id at all).
func (fi httpFrameInfo) isResponse() bool {
	return fi.msg != nil && fi.msg.Method == "" && (fi.msg.Result != nil || fi.msg.Error != nil)
}

func (fi httpFrameInfo) method() string {
	if fi.msg == nil {
		return ""
	}
	return fi.msg.Method
}

// describe names a frame for transcript events: "tools/call id=1",
// "notifications/initialized", "response id=1", "unparsable frame".
func (fi httpFrameInfo) describe() string {
	switch {
	case fi.msg == nil:
		return "unparsable frame"
	case fi.isRequest():
		return fmt.Sprintf("%s id=%s", fi.msg.Method, fi.msg.ID.Key())
	case fi.isNotification():
		return fi.msg.Method
	case fi.isResponse():
		if fi.msg.ID.IsZero() {
			return "response without id"
		}
		return "response id=" + fi.msg.ID.Key()
	default:
		return "invalid message"
	}
}

// isJSONRPCMessage reports whether a body is a JSON-RPC message (used to
// decide whether a non-2xx body is a frame or a plain HTTP error).
func httpIsJSONRPC(body []byte) bool {
	fi := httpInspect(body)
	return fi.msg != nil && (fi.msg.JSONRPC != "" || fi.isRequest() || fi.isNotification() || fi.isResponse())
}

// mcpNameSource returns the body value mirrored into Mcp-Name for this
// method (2026-07-28 streamable-http.mdx "Standard Request Headers":
// params.name for tools/call and prompts/get, params.uri for resources/read;
// ext-tasks "Streamable HTTP: Routing Headers": params.taskId for tasks/get,
// tasks/update, tasks/cancel), and whether the method has one.
func mcpNameSource(method string, params json.RawMessage) (string, bool) {
	var field string
	switch {
	case method == "tools/call", method == "prompts/get":
		field = "name"
	case method == "resources/read":
		field = "uri"
	case strings.HasPrefix(method, "tasks/"):
		field = "taskId"
	default:
		return "", false
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	raw, ok := p[field]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// EncodeHeaderValue applies the 2026-07-28 "Value Encoding" rule to a value
// mirrored into Mcp-Name or Mcp-Param-*: values that are not plain visible
// ASCII (space and tab allowed inside), that have leading or trailing white
// space, or that look like the sentinel itself are sent as
// "=?base64?{base64 of UTF-8}?=".
func EncodeHeaderValue(v string) string {
	if httpHeaderSafe(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// DecodeHeaderValue undoes EncodeHeaderValue; ok is false for a malformed
// base64 sentinel.
func DecodeHeaderValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

func httpHeaderSafe(v string) bool {
	if v == "" {
		return true
	}
	if v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x20 && c != '\t') || c > 0x7E {
			return false
		}
	}
	return true
}

// mediaType is the lower-cased media type of a Content-Type value ("" if
// absent or unparsable).
func httpMediaType(h http.Header) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	return mt
}

// accepts reports whether an Accept header value admits the media type
// (exactly, via type/*, or via */*). An absent header accepts everything.
func httpAccepts(h http.Header, media string) bool {
	values := h.Values("Accept")
	if len(values) == 0 {
		return true
	}
	major, _, _ := strings.Cut(media, "/")
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok && strings.Trim(q, "0.") == "" {
				continue // q=0: explicitly not acceptable
			}
			if mt == media || mt == "*/*" || mt == major+"/*" {
				return true
			}
		}
	}
	return false
}

// trimBody shortens a response body for HTTPStatusError.
func httpTrimBody(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 512 {
		b = b[:512]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
