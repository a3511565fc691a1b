package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Custom headers from tool parameters (2026-07-28 streamable-http.mdx,
// "Custom Headers from Tool Parameters"; server/tools.mdx#x-mcp-header): a
// tool's inputSchema may mark a property with x-mcp-header, and a client
// over Streamable HTTP mirrors the call's value of that property into an
// Mcp-Param-{Name} header, and rejects a tool whose annotations break the
// constraints.

// HeaderParamPrefix starts the name of every mirrored parameter header.
const HeaderParamPrefix = "Mcp-Param-"

// ParamHeader is one valid x-mcp-header annotation of a tool's inputSchema.
type ParamHeader struct {
	// Name is the annotation's value: the header is Mcp-Param-{Name}.
	Name string
	// Path is the chain of properties keys from the schema root to the
	// annotated property.
	Path []string
	// Type is the property's JSON Schema type: string, integer or boolean.
	Type string
}

// HeaderRule names one constraint on x-mcp-header values.
type HeaderRule string

// The constraints of server/tools.mdx#x-mcp-header.
const (
	// HeaderRuleEmpty: "MUST NOT be empty" (and a string at all).
	HeaderRuleEmpty HeaderRule = "empty"
	// HeaderRuleToken: "MUST match HTTP field-name token syntax", which
	// excludes spaces, colons, control characters and non-ASCII.
	HeaderRuleToken HeaderRule = "token"
	// HeaderRuleUnique: "MUST be case-insensitively unique".
	HeaderRuleUnique HeaderRule = "unique"
	// HeaderRulePrimitive: "MUST only be applied to parameters with
	// primitive types (integer, string, boolean)"; number is not one.
	HeaderRulePrimitive HeaderRule = "primitive"
	// HeaderRuleReachable: only on properties reachable from the root
	// through properties keys alone (no items, composition, $ref…).
	HeaderRuleReachable HeaderRule = "reachable"
)

// HeaderViolation is one broken constraint of a tool definition.
type HeaderViolation struct {
	Rule   HeaderRule
	Detail string
}

func (v HeaderViolation) String() string { return string(v.Rule) + ": " + v.Detail }

// ToolParamHeaders reads the x-mcp-header annotations of an inputSchema: the
// valid ones, and every violation of the constraints. A tool with any
// violation MUST be rejected by a client over Streamable HTTP.
func ToolParamHeaders(inputSchema json.RawMessage) ([]ParamHeader, []HeaderViolation) {
	var root any
	if len(inputSchema) == 0 || json.Unmarshal(inputSchema, &root) != nil {
		return nil, nil
	}
	w := &headerWalk{seen: map[string]string{}}
	w.walk(root, nil, true)
	sort.Slice(w.out, func(i, j int) bool { return strings.Join(w.out[i].Path, "/") < strings.Join(w.out[j].Path, "/") })
	return w.out, w.bad
}

type headerWalk struct {
	out  []ParamHeader
	bad  []HeaderViolation
	seen map[string]string // lower-cased header name → where it was first seen
}

// walk visits a schema node; reachable says the chain from the root to it
// is made of properties keys only.
func (w *headerWalk) walk(node any, path []string, reachable bool) {
	switch n := node.(type) {
	case []any:
		for _, v := range n {
			w.walk(v, path, false)
		}
	case map[string]any:
		if raw, ok := n["x-mcp-header"]; ok {
			w.annotation(n, raw, path, reachable)
		}
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := n[k]
			switch k {
			case "x-mcp-header":
			case "properties":
				props, ok := v.(map[string]any)
				if !ok {
					continue
				}
				names := make([]string, 0, len(props))
				for name := range props {
					names = append(names, name)
				}
				sort.Strings(names)
				for _, name := range names {
					w.walk(props[name], append(append([]string(nil), path...), name), reachable)
				}
			default:
				w.walk(v, path, false)
			}
		}
	}
}

func (w *headerWalk) annotation(schema map[string]any, raw any, path []string, reachable bool) {
	where := "the schema root"
	if len(path) > 0 {
		where = "property " + strings.Join(path, ".")
	}
	name, isString := raw.(string)
	ok := true
	bad := func(rule HeaderRule, format string, args ...any) {
		ok = false
		w.bad = append(w.bad, HeaderViolation{Rule: rule, Detail: where + ": " + fmt.Sprintf(format, args...)})
	}
	switch {
	case !isString:
		bad(HeaderRuleEmpty, "x-mcp-header is %T, not a string", raw)
	case name == "":
		bad(HeaderRuleEmpty, "x-mcp-header is empty")
	case !httpToken(name):
		bad(HeaderRuleToken, "x-mcp-header %q is not an HTTP field-name token", name)
	}
	if isString && name != "" {
		if first, dup := w.seen[strings.ToLower(name)]; dup {
			bad(HeaderRuleUnique, "x-mcp-header %q repeats the one of %s (case-insensitively)", name, first)
		} else {
			w.seen[strings.ToLower(name)] = where
		}
	}
	typ, _ := schema["type"].(string)
	switch typ {
	case "string", "integer", "boolean":
	default:
		if t, present := schema["type"]; present {
			bad(HeaderRulePrimitive, "x-mcp-header on a property of type %v (only integer, string and boolean are allowed)", t)
		} else {
			bad(HeaderRulePrimitive, "x-mcp-header on a property without a type (only integer, string and boolean are allowed)")
		}
	}
	if !reachable || len(path) == 0 {
		bad(HeaderRuleReachable, "x-mcp-header where no chain of properties keys alone reaches it")
	}
	if ok {
		w.out = append(w.out, ParamHeader{Name: name, Path: path, Type: typ})
	}
}

// httpToken reports whether s is an RFC 9110 token (1*tchar).
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ParamHeaderValue is the header value for p in a call's arguments,
// converted and encoded as "Value Encoding" asks (a string as is, an
// integer in decimal, a boolean as true or false; Base64 in the sentinel
// form when the text is not a safe plain header value); present is false
// when the argument is absent or null, whose header is omitted.
func ParamHeaderValue(p ParamHeader, arguments json.RawMessage) (value string, present bool) {
	raw, ok := ParamArgument(p, arguments)
	if !ok {
		return "", false
	}
	text, ok := ParamText(raw)
	if !ok {
		return "", false
	}
	return EncodeHeaderValue(text), true
}

// ParamText is the string form of an argument value before encoding, and
// false for null.
func ParamText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0, string(raw) == "null":
		return "", false
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
	case string(raw) == "true", string(raw) == "false":
		return string(raw), true
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == float64(int64(f)) {
			return strconv.FormatInt(int64(f), 10), true // 42.0 is the integer 42
		}
	}
	return string(raw), true
}

// ParamArgument is the raw value at p's property path in a call's
// arguments; false when a step is missing or not an object.
func ParamArgument(p ParamHeader, arguments json.RawMessage) (json.RawMessage, bool) {
	cur := arguments
	for _, key := range p.Path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		next, ok := obj[key]
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// ToolParams is what a 2026-07-28 client knows of the tools it listed: the
// x-mcp-header annotations of each valid one, by name.
type ToolParams struct {
	mu    sync.Mutex
	tools map[string][]ParamHeader
}

// NewToolParams is an empty registry.
func NewToolParams() *ToolParams { return &ToolParams{tools: map[string][]ParamHeader{}} }

// Learn reads a tools/list result and keeps the annotations of every tool
// in it; it returns the tools that break a constraint, with why. Those are
// not kept: no header is mirrored for them.
func (tp *ToolParams) Learn(result json.RawMessage) map[string][]HeaderViolation {
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	rejected := map[string][]HeaderViolation{}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, t := range r.Tools {
		params, bad := ToolParamHeaders(t.InputSchema)
		if len(bad) > 0 {
			rejected[t.Name] = bad
			delete(tp.tools, t.Name)
			continue
		}
		tp.tools[t.Name] = params
	}
	return rejected
}

// Tool is the annotations of a learned valid tool.
func (tp *ToolParams) Tool(name string) ([]ParamHeader, bool) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	p, ok := tp.tools[name]
	return p, ok
}

// Headers are the Mcp-Param-* headers of a tools/call request's params.
func (tp *ToolParams) Headers(params json.RawMessage) http.Header {
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &call) != nil {
		return nil
	}
	annotated, ok := tp.Tool(call.Name)
	if !ok {
		return nil
	}
	h := http.Header{}
	for _, p := range annotated {
		if v, present := ParamHeaderValue(p, call.Arguments); present {
			h.Set(HeaderParamPrefix+p.Name, v)
		}
	}
	return h
}

// RequestEditor sees a POST once the transport has set its headers: it
// may change req.Header and return another body (nil keeps the body).
type RequestEditor func(req *http.Request, body []byte) []byte

// paramTransport is the HTTP transport of a connection: a 2026-07-28 one
// mirrors tool parameters. Every tools/list answer it receives
// (application/json or SSE) is learned, and every tools/call it sends for a
// learned tool carries the Mcp-Param-{Name} headers of its arguments.
func paramTransport(next http.RoundTripper, stateless bool) http.RoundTripper {
	if !stateless {
		return next
	}
	return &paramRoundTripper{next: next, tp: NewToolParams()}
}

// ToolParams is what a 2026-07-28 connection learned of the tools it
// listed; nil for a 2025-11-25 connection, which mirrors nothing.
func (c *HTTPClientConn) ToolParams() *ToolParams {
	if rt, ok := c.hc.Transport.(*paramRoundTripper); ok {
		return rt.tp
	}
	return nil
}

// EditRequests makes edit see every POST of a 2026-07-28 connection last,
// after the transport's own headers (the reference client's variants
// change one header or _meta field this way); nil removes it.
func (c *HTTPClientConn) EditRequests(edit RequestEditor) {
	if rt, ok := c.hc.Transport.(*paramRoundTripper); ok {
		rt.mu.Lock()
		rt.edit = edit
		rt.mu.Unlock()
	}
}

type paramRoundTripper struct {
	next http.RoundTripper
	tp   *ToolParams
	mu   sync.Mutex
	edit RequestEditor
}

func (rt *paramRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return rt.next.RoundTrip(req)
	}
	rc, err := req.GetBody()
	if err != nil {
		return rt.next.RoundTrip(req)
	}
	body, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return rt.next.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	fi := httpInspect(body)
	method := fi.method()
	if fi.isRequest() && method == "tools/call" {
		for k, vs := range rt.tp.Headers(fi.msg.Params) {
			out.Header[k] = vs
		}
	}
	rt.mu.Lock()
	edit := rt.edit
	rt.mu.Unlock()
	if edit != nil {
		if nb := edit(out, body); nb != nil {
			body = nb
		}
	}
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := rt.next.RoundTrip(out)
	if err != nil || method != "tools/list" || resp.StatusCode/100 != 2 {
		return resp, err
	}
	resp.Body = newToolsListTee(resp.Body, httpMediaType(resp.Header) == "text/event-stream", rt.tp)
	return resp, nil
}

// maxLearnedAnswer bounds what toolsListTee keeps of a tools/list answer (a
// JSON body, or an SSE event still arriving): a larger one is not learned,
// so that a flooding server costs the reader's bounds only.
const maxLearnedAnswer = 4 << 20

// toolsListTee learns the tools of a tools/list answer as the caller reads
// it, before the caller can act on the answer: a JSON body is kept (at most
// maxLearnedAnswer) and read at its end; an SSE
// stream is cut at each blank line that ends an event and the events so
// far are read at once, since the response event reaches the caller before
// the stream ends. Once the response is learned nothing more is kept.
type toolsListTee struct {
	io.ReadCloser
	tp      *ToolParams
	sse     bool
	buf     []byte // JSON: the body; SSE: what follows the last complete event
	scanned int    // SSE: bytes of buf already searched for an event's end
	done    bool
}

func newToolsListTee(body io.ReadCloser, sse bool, tp *ToolParams) *toolsListTee {
	return &toolsListTee{ReadCloser: body, tp: tp, sse: sse}
}

func (t *toolsListTee) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 && !t.done {
		if len(t.buf)+n > maxLearnedAnswer {
			t.done, t.buf = true, nil // too large to learn from
		} else {
			t.buf = append(t.buf, p[:n]...)
			if t.sse {
				t.learnEvents()
			}
		}
	}
	if err != nil {
		t.end()
	}
	return n, err
}

func (t *toolsListTee) Close() error {
	t.end()
	return t.ReadCloser.Close()
}

func (t *toolsListTee) end() {
	if !t.done && !t.sse {
		t.learnFrame(t.buf)
	}
	t.done, t.buf = true, nil
}

// learnEvents reads the complete events in buf (those up to a blank line)
// and keeps the rest; each byte is searched once.
func (t *toolsListTee) learnEvents() {
	cut := -1
	prevEOL := t.scanned > 0 && isEOL(t.buf[t.scanned-1])
	for i := t.scanned; i < len(t.buf); i++ {
		c := t.buf[i]
		if !isEOL(c) {
			prevEOL = false
			continue
		}
		if c == '\r' {
			if i+1 == len(t.buf) {
				break // a CR LF may be cut here: decide with the next read
			}
			if t.buf[i+1] == '\n' {
				i++
			}
		}
		if prevEOL {
			cut = i + 1 // a blank line: the events before it are complete
		}
		prevEOL = true
		t.scanned = i + 1
	}
	if cut < 0 {
		return
	}
	r := newSSEReader(bytes.NewReader(t.buf[:cut]))
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		if t.learnFrame([]byte(ev.Data)) {
			t.done, t.buf = true, nil
			return
		}
	}
	t.buf = append([]byte(nil), t.buf[cut:]...)
	t.scanned -= cut
}

func isEOL(c byte) bool { return c == '\n' || c == '\r' }

// learnFrame learns from a response frame and reports whether it was one.
func (t *toolsListTee) learnFrame(f []byte) bool {
	fi := httpInspect(bytes.TrimSpace(f))
	if !fi.isResponse() {
		return false
	}
	if fi.msg.Result != nil {
		t.tp.Learn(fi.msg.Result)
	}
	return true
}
