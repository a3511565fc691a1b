package stateless

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// Streamable HTTP at 2026-07-28: what a server that implements only this
// revision answers to the traffic of earlier ones, and the standard request
// headers a server validates against the body.

var httpOnly = []transport.Kind{transport.HTTP}

const earlierRevisions = httpSpec + "#earlier-streamable-http-revisions"

var (
	httpGet405 = &scenarios.Check{ID: "stateless-http-methods/get-405", Level: scenarios.Should, Spec: earlierRevisions,
		Quote: "HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`.",
		Title: "a server whose server/discover lists 2026-07-28-era versions only, and whose endpoint refuses a 2025-11-25 initialize, " +
			"answers an older client's GET (Accept: text/event-stream) with 405",
		Faults:    []*fault.Fault{server.GetOpensStream},
		Liberties: []*fault.Fault{server.StatelessOnlyHTTP}}
	httpDelete405 = &scenarios.Check{ID: "stateless-http-methods/delete-405", Level: scenarios.Should, Spec: earlierRevisions,
		Quote:     "HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`.",
		Title:     "such a server answers an older client's DELETE of its session with 405",
		Faults:    []*fault.Fault{server.DeleteAccepted},
		Liberties: []*fault.Fault{server.StatelessOnlyHTTP}}
	httpSessionIgnored = &scenarios.Check{ID: "stateless-http-methods/session-id-ignored", Level: scenarios.Should, Spec: earlierRevisions,
		Quote:     "An `Mcp-Session-Id` header on a request: ignore it, and do not mint or echo session IDs.",
		Title:     "such a server answers a 2026-07-28 server/discover that carries an Mcp-Session-Id as any other, with no Mcp-Session-Id in the response",
		Faults:    []*fault.Fault{server.SessionIDMinted},
		Liberties: []*fault.Fault{server.StatelessOnlyHTTP}}
)

var httpVersionRequired = &scenarios.Check{ID: "stateless-http-methods/version-header-required", Level: scenarios.Must, Spec: httpSpec + "#protocol-version-header",
	Quote: "A server that does not support such clients **MUST** reject a request without the header per [Server Validation](#server-validation).",
	Title: "a server whose server/discover does not list 2025-03-26, and whose endpoint does not negotiate 2025-03-26 in an " +
		"initialize, refuses a POST without MCP-Protocol-Version with HTTP 400 and error -32020 (a required standard header missing)",
	Faults: []*fault.Fault{server.VersionHeaderOptional},
	// DualEraHTTP runs the whole scenario: GET and DELETE, served by its
	// 2025-11-25 sessions, must not be judged by the 405 rule.
	Liberties:    []*fault.Fault{server.StatelessOnlyHTTP, server.DualEraHTTP},
	Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}

// oldSession is the session id an older client would send.
const oldSession = "mcpconform-old-session"

var httpMethodsScenario = &scenarios.Scenario{
	ID:         "stateless-http-methods",
	Title:      "a 2026-07-28-only server answers the HTTP traffic of earlier revisions",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: httpOnly,
	Purpose: "server/discover says which versions the server supports, and a 2025-03-26 initialize (without the header, as " +
		"such clients send it) whether the endpoint also serves an earlier revision. A server that does not support 2025-03-26 " +
		"clients must refuse a POST without MCP-Protocol-Version (clients before 2025-06-18 sent none). The rules of earlier revisions' traffic are " +
		"for a server that supports only " +
		"this revision, so a server that lists an earlier version too (it serves that version's GET streams and sessions), or " +
		"whose endpoint answers a 2025-11-25 client's initialize (a dual-era server, whatever server/discover lists), is " +
		"not judged. Otherwise a GET and a DELETE as an older client sends them (MCP-Protocol-Version 2025-11-25, an " +
		"Mcp-Session-Id) must get 405, and a 2026-07-28 POST with an Mcp-Session-Id is answered as usual and mints no session.",
	Checks: []*scenarios.Check{httpVersionRequired, httpGet405, httpDelete405, httpSessionIgnored},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("send server/discover to read supportedVersions")
		resp, err := t.Request(s, protocol.MethodServerDiscover, map[string]any{})
		if err != nil || resp.Error != nil {
			t.Blocked("server/discover answered %s", judge.Describe(resp, err))
		}
		var d protocol.DiscoverResult
		_ = json.Unmarshal(resp.Result, &d)
		if len(d.SupportedVersions) == 0 {
			t.SkipRest("server/discover lists no supportedVersions, so whether the server supports only this revision is unknown " +
				"(lifecycle-discover/result-schema judges the result)")
		}
		raw := newRawHTTP(t, s)
		// server/discover's list is what the server shows modern clients;
		// whether the same endpoint serves an earlier revision is observed:
		// a dual-era server answers a legacy client's initialize
		// (versioning.mdx, Compatibility Matrix: "Legacy | Dual-era | Works.
		// The server answers initialize"). The oldest version is asked for,
		// so the answer also says whether 2025-03-26 clients are served.
		t.Step("POST initialize as a %s client opens (no MCP-Protocol-Version, no _meta)", protocol.V20250326)
		legacy, legacyNote := raw.legacyInitialize(s, protocol.V20250326)
		switch {
		case slices.Contains(d.SupportedVersions, protocol.V20250326):
			t.Skip(httpVersionRequired, "the server lists 2025-03-26: it MAY take a request without MCP-Protocol-Version as 2025-03-26")
		case legacy == protocol.V20250326:
			t.Skip(httpVersionRequired, "the endpoint answers a 2025-03-26 initialize ("+legacyNote+"): it supports clients of "+
				"2025-03-26, so it MAY take a request without MCP-Protocol-Version as 2025-03-26")
		default:
			t.Step("POST server/discover without MCP-Protocol-Version")
			id := jsonrpc.StringID("mcpconform-no-version-1")
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodServerDiscover,
				"params": map[string]any{"_meta": s.RequestMeta()}})
			a := raw.do(http.MethodPost, http.Header{transport.HeaderMethod: {protocol.MethodServerDiscover}}, body, id)
			t.Judge(httpVersionRequired, a.status == http.StatusBadRequest && a.answer != nil && judge.IsErrorCode(a.answer, codes.HeaderMismatch),
				"HTTP 400 with error -32020", a.String())
		}
		if i := slices.IndexFunc(d.SupportedVersions, func(v string) bool { return !protocol.IsStateless(v) }); i >= 0 {
			t.SkipRest(fmt.Sprintf("the server supports %s too (supportedVersions %v): the rule is of a server that supports "+
				"only this revision, and GET and DELETE belong to that version's transport", d.SupportedVersions[i], d.SupportedVersions))
		}
		if legacy != "" {
			t.SkipRest("the endpoint answers an initialize (" + legacyNote + "): the server is dual-era (versioning.mdx: \"A " +
				"dual-era server MAY serve both eras concurrently on the same endpoint\"), not one that supports only this " +
				"revision, and GET and DELETE belong to the earlier revision's transport")
		}
		old := http.Header{transport.HeaderProtocolVersion: {protocol.V20251125}, transport.HeaderSessionID: {oldSession}}
		t.Step("GET the MCP endpoint as a 2025-11-25 client opens its stream")
		a := raw.do(http.MethodGet, old, nil, jsonrpc.ID{})
		t.Judge(httpGet405, a.status == http.StatusMethodNotAllowed, "HTTP 405", a.String())
		t.Step("DELETE the MCP endpoint as a 2025-11-25 client ends its session")
		a = raw.do(http.MethodDelete, old, nil, jsonrpc.ID{})
		t.Judge(httpDelete405, a.status == http.StatusMethodNotAllowed, "HTTP 405", a.String())

		t.Step("POST server/discover at %s with Mcp-Session-Id %s", t.Env.Version, oldSession)
		id := jsonrpc.StringID("mcpconform-session-1")
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodServerDiscover,
			"params": map[string]any{"_meta": s.RequestMeta()}})
		a = raw.do(http.MethodPost, http.Header{transport.HeaderProtocolVersion: {t.Env.Version},
			transport.HeaderMethod: {protocol.MethodServerDiscover}, transport.HeaderSessionID: {oldSession}}, body, id)
		ok := a.status == http.StatusOK && a.answer != nil && a.answer.Error == nil && a.header.Get(transport.HeaderSessionID) == ""
		t.Judge(httpSessionIgnored, ok, "HTTP 200, a DiscoverResult, no Mcp-Session-Id header", a.String())
	}),
}

var (
	headerMethodMissing = &scenarios.Check{ID: "stateless-http-headers/method-missing", Level: scenarios.Must, Spec: httpSpec + "#server-validation",
		Quote: "When rejecting a request due to header validation failure, servers **MUST** return HTTP status `400 Bad Request` and " +
			"**MUST** include a JSON-RPC error response using the following error code:",
		Title:        "a tools/list POST without the Mcp-Method header (a required standard header missing) gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.MethodHeaderOptional, server.HeaderMismatchAccepted},
		Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}
	headerMethodCase = &scenarios.Check{ID: "stateless-http-headers/method-case-sensitive", Level: scenarios.Must, Spec: httpSpec + "#case-sensitivity",
		Quote: "Header _values_ (such as method names) are case-sensitive.",
		Title: "a tools/list POST with Mcp-Method: TOOLS/LIST does not match its body (values are compared as they are), so it gets " +
			"HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.MethodHeaderCaseFolded, server.HeaderMismatchAccepted},
		Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}
	headerNameMissing = &scenarios.Check{ID: "stateless-http-headers/name-missing", Level: scenarios.Must, Spec: httpSpec + "#server-validation",
		Quote: "When rejecting a request due to header validation failure, servers **MUST** return HTTP status `400 Bad Request` and " +
			"**MUST** include a JSON-RPC error response using the following error code:",
		Title:        "a tools/call POST of test_simple_text without the Mcp-Name header gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.NameHeaderOptional, server.HeaderMismatchAccepted},
		Liberties:    []*fault.Fault{server.UnknownToolFirst},
		Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}
	headerNameMismatch = &scenarios.Check{ID: "stateless-http-headers/name-mismatch", Level: scenarios.Must, Spec: httpSpec + "#server-validation",
		Quote: "Servers that process the request body **MUST** reject requests where the values specified in the headers do not match " +
			"the corresponding values in the request body.",
		Title:        "a tools/call POST of test_simple_text whose Mcp-Name names another tool gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.NameHeaderUnchecked, server.HeaderMismatchAccepted},
		Liberties:    []*fault.Fault{server.UnknownToolFirst},
		Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}
	headerNameChars = &scenarios.Check{ID: "stateless-http-headers/name-invalid-chars", Level: scenarios.Must, Spec: httpSpec + "#server-validation",
		Quote:        "A header value contains invalid characters.",
		Title:        "a tools/call of a non-ASCII name whose Mcp-Name carries that name as raw UTF-8 (not Base64-encoded) gets HTTP 400 and error -32020",
		Faults:       []*fault.Fault{server.NameCharsUnchecked},
		Requirements: []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code"}}
	headerNameDecoded = &scenarios.Check{ID: "stateless-http-headers/encoded-name-decoded", Level: scenarios.Must, Spec: httpSpec + "#value-encoding",
		Quote: "In particular, servers **MUST** decode an encoded `Mcp-Name` or `Mcp-Param-{Name}` value before comparing it to the " +
			"corresponding request body value during Server Validation.",
		Title: "a tools/call of a non-ASCII name, whose Mcp-Name the client sends Base64-encoded (=?base64?…?=), is not refused " +
			"with -32020 (the unknown tool's own error is what it gets)",
		Faults:       []*fault.Fault{server.EncodedNameNotDecoded},
		Requirements: []string{"sep-2243-server-decode-base64"}}
)

var (
	headerNamesAnyCase = &scenarios.Check{ID: "stateless-http-headers/names-case-insensitive", Level: scenarios.Must, Spec: httpSpec + "#case-sensitivity",
		Quote: "Clients and servers **MUST** use case-insensitive comparisons for header names.",
		Title: "tools/list POSTed with its method header spelled mcp-method, and again spelled MCP-METHOD (sent over a raw " +
			"connection, as written), is served: HTTP 2xx with a result",
		Faults:       []*fault.Fault{server.HeaderNamesCaseSensitive},
		Requirements: []string{"sep-2243-header-name-case-insensitive"}}
	headerValueWhitespace = &scenarios.Check{ID: "stateless-http-headers/value-whitespace-accepted", Level: scenarios.Must, Spec: httpSpec + "#value-encoding",
		Source: "seps/2243-http-standardization.md",
		Quote:  "| Extra whitespace in header | `Mcp-Name:  foo `        | `\"params\": {\"name\": \"foo\"}` | Server MUST accept (trim whitespace per HTTP spec)  |",
		Title: "a tools/call of test_simple_text whose Mcp-Name value has spaces around the name (sent over a raw connection, as " +
			"written) is served as the call with its plain header was: no error -32020 (RFC 9110, which the page's Value Encoding " +
			"follows, leaves leading and trailing whitespace out of a field value)",
		Faults: []*fault.Fault{server.HeaderValueUntrimmed}}
)

// Tool names no server lists: the calls change nothing whatever the
// server makes of their headers.
const (
	otherTool    = "mcpconform_other_tool"
	nonASCIITool = "mcpconform_outil_é"
)

var httpHeadersScenario = &scenarios.Scenario{
	ID:         "stateless-http-headers",
	Official:   "http-header-validation",
	Title:      "the standard request headers are validated against the body",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs:      []scenarios.Need{scenarios.NeedsFixture(fixtures.SimpleText, "no arguments")},
	Purpose: "POSTs whose standard headers are missing or contradict the body must be refused with 400 and HeaderMismatch " +
		"(-32020): tools/list without Mcp-Method and with Mcp-Method: TOOLS/LIST (values are case-sensitive), tools/call of test_simple_text without Mcp-Name, and with Mcp-Name " + otherTool +
		". A tools/call of " + nonASCIITool + " with its name as raw UTF-8 in Mcp-Name must be refused too (invalid characters); " +
		"with its Mcp-Name Base64-encoded as the page asks, the server must decode it, so it is no mismatch. Over a raw connection, " +
		"where the header is sent as written (Go's client would canonicalize its name and trim its value), tools/list with " +
		"mcp-method and with MCP-METHOD, and tools/call of test_simple_text with spaces around its Mcp-Name, must be served. " +
		"(Mcp-Method contradicting the body is lifecycle-header-mismatch.)",
	Checks: []*scenarios.Check{headerMethodMissing, headerMethodCase, headerNameMissing, headerNameMismatch, headerNameChars, headerNameDecoded,
		headerNamesAnyCase, headerValueWhitespace},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		send := func(n int, method string, params any, header http.Header) (resp *jsonrpc.Message, status int, note string, err error) {
			id := jsonrpc.StringID(fmt.Sprintf("mcpconform-headers-%d", n))
			resp, err = t.Do(s, client.Call{ID: id, Method: method, Params: params, Header: header})
			skipIfVersionRefused(t, resp, err)
			status, note = serverside.StatusNote(s, id)
			return resp, status, note, err
		}
		mismatch := func(check *scenarios.Check, resp *jsonrpc.Message, status int, note string, err error) {
			ok := err == nil && judge.IsErrorCode(resp, codes.HeaderMismatch) && status == http.StatusBadRequest
			t.Judge(check, ok, "HTTP 400 with error -32020", judge.Describe(resp, err)+note)
		}
		t.Step("send tools/list without the Mcp-Method header")
		resp, status, note, err := send(1, protocol.MethodToolsList, map[string]any{}, http.Header{transport.HeaderMethod: {""}})
		mismatch(headerMethodMissing, resp, status, note, err)

		t.Step("send tools/list with Mcp-Method: TOOLS/LIST")
		resp, status, note, err = send(5, protocol.MethodToolsList, map[string]any{}, http.Header{transport.HeaderMethod: {"TOOLS/LIST"}})
		mismatch(headerMethodCase, resp, status, note, err)

		call := func(name string) map[string]any { return map[string]any{"name": name, "arguments": map[string]any{}} }
		// The Mcp-Name checks call a tool the target has: the official
		// fixture test_simple_text, which only answers a text. A call of a
		// tool it lacks may be refused on its body before its headers are
		// compared (the page orders neither), and would tell nothing.
		simple := t.Fixture(fixtures.SimpleText, nil)
		simpleCall := map[string]any{"name": simple.Tool, "arguments": simple.Arguments}
		t.Step("send tools/call of %s with its headers", simple.Tool)
		plain, _, _, plainErr := send(7, protocol.MethodToolsCall, simpleCall, nil)
		nameChecked := func(check *scenarios.Check, resp *jsonrpc.Message, status int, note string, err error) {
			if plainErr == nil && plain != nil && plain.Error != nil && plain.Error.Code != codes.HeaderMismatch &&
				resp != nil && resp.Error != nil && resp.Error.Code == plain.Error.Code {
				t.Skip(check, fmt.Sprintf("the call with its headers got the same error %d (%s): %s is refused on its body, so whether "+
					"Mcp-Name is compared cannot be told; the check needs a tool the target has (the fixture test_simple_text, or "+
					"--fixture test_simple_text=TOOL)", resp.Error.Code, judge.Abbreviate(resp.Error.Message, 80), simple.Tool))
				return
			}
			mismatch(check, resp, status, note, err)
		}
		t.Step("send tools/call of %s without the Mcp-Name header", simple.Tool)
		resp, status, note, err = send(2, protocol.MethodToolsCall, simpleCall, http.Header{transport.HeaderName: {""}})
		nameChecked(headerNameMissing, resp, status, note, err)

		t.Step("send tools/call of %s with Mcp-Name: %s", simple.Tool, otherTool)
		resp, status, note, err = send(3, protocol.MethodToolsCall, simpleCall, http.Header{transport.HeaderName: {otherTool}})
		nameChecked(headerNameMismatch, resp, status, note, err)

		raw := newRawHTTP(t, s)
		served := func(a rawAnswer) bool {
			return a.err == nil && a.status >= 200 && a.status < 300 && a.answer != nil && a.answer.Error == nil
		}
		listBody := func(n int) ([]byte, jsonrpc.ID) {
			id := jsonrpc.StringID(fmt.Sprintf("mcpconform-headers-%d", n))
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodToolsList,
				"params": map[string]any{"_meta": s.RequestMeta()}})
			return b, id
		}
		t.Step("POST tools/list with mcp-method: tools/list, then MCP-METHOD: tools/list, over a raw connection")
		body, id := listBody(8)
		lower := raw.doRaw([]string{"mcp-method: " + protocol.MethodToolsList}, body, id)
		body, id = listBody(9)
		upper := raw.doRaw([]string{"MCP-METHOD: " + protocol.MethodToolsList}, body, id)
		t.Judge(headerNamesAnyCase, served(lower) && served(upper), "HTTP 2xx with a result for each",
			"mcp-method: "+lower.String()+"; MCP-METHOD: "+upper.String())

		spaced := "   " + simple.Tool + "  "
		t.Step("POST tools/call of %s with Mcp-Name: %q over a raw connection", simple.Tool, spaced)
		id = jsonrpc.StringID("mcpconform-headers-10")
		body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodToolsCall,
			"params": map[string]any{"name": simple.Tool, "arguments": simple.Arguments, "_meta": s.RequestMeta()}})
		a := raw.doRaw([]string{transport.HeaderMethod + ": " + protocol.MethodToolsCall, transport.HeaderName + ":" + spaced}, body, id)
		switch {
		case a.err != nil:
			t.Fail(headerValueWhitespace, "the call served", a.String())
		case plainErr == nil && plain != nil && plain.Error != nil && a.answer != nil && a.answer.Error != nil && a.answer.Error.Code == plain.Error.Code:
			t.PassWith(headerValueWhitespace, fmt.Sprintf("refused as the call with its plain header was (error %d)", plain.Error.Code))
		default:
			t.Judge(headerValueWhitespace, a.status >= 200 && a.status < 300 && a.answer != nil && !judge.IsErrorCode(a.answer, codes.HeaderMismatch),
				"HTTP 2xx and no error -32020", a.String())
		}

		t.Step("send tools/call of %s (Mcp-Name: %s)", nonASCIITool, transport.EncodeHeaderValue(nonASCIITool))
		encoded, _, encodedNote, err := send(4, protocol.MethodToolsCall, call(nonASCIITool), nil)
		if err != nil && serverside.Unanswered(s, err) {
			t.Blocked("tools/call was not answered: %v", err)
		}
		t.Judge(headerNameDecoded, !judge.IsErrorCode(encoded, codes.HeaderMismatch),
			"any answer but error -32020 (the decoded Mcp-Name matches the body)", judge.Describe(encoded, err)+encodedNote)

		t.Step("send tools/call of %s with its name as raw UTF-8 in Mcp-Name", nonASCIITool)
		resp, status, note, err = send(6, protocol.MethodToolsCall, call(nonASCIITool), http.Header{transport.HeaderName: {nonASCIITool}})
		// No server lists a tool of a non-ASCII name, so a server may refuse
		// the call on its body (unknown tool) before it looks at the header's
		// characters: the spec orders neither. Refused as the well-encoded
		// call was, the header cannot be told to have been checked or not.
		if resp != nil && resp.Error != nil && encoded != nil && encoded.Error != nil &&
			resp.Error.Code == encoded.Error.Code && resp.Error.Code != codes.HeaderMismatch {
			t.Skip(headerNameChars, fmt.Sprintf("the raw and the Base64-encoded Mcp-Name got the same error %d (%s): the call was refused on "+
				"its body, so whether the header's characters are checked cannot be told without a tool of a non-ASCII name",
				resp.Error.Code, judge.Abbreviate(resp.Error.Message, 80)))
			return
		}
		mismatch(headerNameChars, resp, status, note, err)
	}),
}

// rawHTTP sends hand-made requests to the target's MCP endpoint, for what
// the fake client never sends (another revision's GET and DELETE) or reads
// (the response's headers). Each exchange is noted in the transcript.
type rawHTTP struct {
	t      *serverside.T
	url    string
	header http.Header  // the target's own headers (--header, tokens)
	hc     *http.Client // never follows a redirect: a 3xx is the target's answer
}

func newRawHTTP(t *serverside.T, s *client.Session) *rawHTTP {
	target, _ := t.Env.Target.(client.Target)
	h := &rawHTTP{t: t, url: target.URL, header: target.Header.Clone(), hc: transport.NewHTTPClient(nil)}
	if c, ok := transport.As[*transport.HTTPClientConn](s.Conn()); ok {
		h.url = c.URL()
	}
	return h
}

// rawAnswer is the status, the header and, for a request, its answer.
type rawAnswer struct {
	status   int
	header   http.Header
	redirect string // transport.RedirectNote of a 3xx
	answer   *jsonrpc.Message
	err      error
}

func (a rawAnswer) String() string {
	if a.err != nil {
		return a.err.Error()
	}
	out := fmt.Sprintf("HTTP %d", a.status)
	if a.redirect != "" {
		out += " " + a.redirect
	}
	if ct := a.header.Get("Content-Type"); ct != "" {
		out += " (" + ct + ")"
	}
	if sid := a.header.Get(transport.HeaderSessionID); sid != "" {
		out += fmt.Sprintf(", Mcp-Session-Id %q", sid)
	}
	if a.answer != nil {
		out += ", " + judge.Describe(a.answer, nil)
	}
	return out
}

// do sends one request. With want set, the body is read for the answer
// with that id (JSON, or SSE); otherwise (a GET's stream) only the status
// and header are: they say enough.
func (h *rawHTTP) do(method string, extra http.Header, body []byte, want jsonrpc.ID) rawAnswer {
	ctx, cancel := h.t.Wait()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.url, bytes.NewReader(body))
	if err != nil {
		h.t.Abort("%v", err)
	}
	for k, v := range h.header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range extra {
		req.Header.Set(k, v[0])
	}
	tr := h.t.Transcript()
	tr.Eventf("raw", "%s %s (%s)%s", method, h.url, headerNote(req.Header), bodyNote(body))
	resp, err := h.hc.Do(req)
	if err != nil {
		tr.Eventf("raw", "%s: %v", method, err)
		return rawAnswer{err: err}
	}
	defer resp.Body.Close()
	a := rawAnswer{status: resp.StatusCode, header: resp.Header, redirect: transport.RedirectNote(resp)}
	if want.IsZero() {
		tr.Eventf("raw", "%s", a)
		return a
	}
	a.answer = readAnswer(resp, want)
	tr.Eventf("raw", "%s", a)
	return a
}

// readAnswer reads a response's body (JSON, or SSE) for the answer with id
// want.
func readAnswer(resp *http.Response, want jsonrpc.ID) *jsonrpc.Message {
	rb := bufio.NewReader(io.LimitReader(resp.Body, 4<<20))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return readSSEAnswer(rb, want)
	}
	if b, _ := io.ReadAll(rb); len(b) > 0 {
		var m jsonrpc.Message
		if json.Unmarshal(b, &m) == nil && m.ID.Key() == want.Key() {
			return &m
		}
	}
	return nil
}

// doRaw POSTs body over a connection of its own with the header lines
// written as given (Go's client would canonicalize a name and trim a
// value), after the target's own headers, Accept, Content-Type and
// MCP-Protocol-Version. The answer with id want is read as do reads it.
func (h *rawHTTP) doRaw(lines []string, body []byte, want jsonrpc.ID) rawAnswer {
	ctx, cancel := h.t.Wait()
	defer cancel()
	u, err := url.Parse(h.url)
	if err != nil {
		h.t.Abort("%v", err)
	}
	tr := h.t.Transcript()
	tr.Eventf("raw", "POST %s over a raw connection (%s)%s", h.url, strings.Join(lines, ", "), bodyNote(body))
	conn, err := dialRaw(ctx, u)
	if err != nil {
		tr.Eventf("raw", "POST: %v", err)
		return rawAnswer{err: err}
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	for k, vs := range h.header {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(&head, "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n%s: %s\r\n",
		transport.HeaderProtocolVersion, h.t.Env.Version)
	for _, l := range lines {
		head.WriteString(l + "\r\n")
	}
	fmt.Fprintf(&head, "Content-Length: %d\r\nConnection: close\r\n\r\n", len(body))
	if _, err := io.WriteString(conn, head.String()+string(body)); err != nil {
		tr.Eventf("raw", "POST: %v", err)
		return rawAnswer{err: err}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		tr.Eventf("raw", "POST: %v", err)
		return rawAnswer{err: err}
	}
	defer resp.Body.Close()
	a := rawAnswer{status: resp.StatusCode, header: resp.Header, redirect: transport.RedirectNote(resp)}
	a.answer = readAnswer(resp, want)
	tr.Eventf("raw", "%s", a)
	return a
}

// dialRaw opens a connection to the URL's host (TLS for https).
func dialRaw(ctx context.Context, u *url.URL) (net.Conn, error) {
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "https" {
		d := &tls.Dialer{Config: &tls.Config{ServerName: u.Hostname()}}
		return d.DialContext(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// legacyInitialize sends the initialize a client of version opens with
// (no MCP-Protocol-Version, no _meta) and returns the initialize-era
// version an InitializeResult negotiated, or "" when none came, with what
// was answered. A session it opened is ended at once.
func (h *rawHTTP) legacyInitialize(s *client.Session, version string) (negotiated, note string) {
	id := jsonrpc.StringID("mcpconform-legacy-initialize-1")
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodInitialize,
		"params": s.InitializeParams(version)})
	a := h.do(http.MethodPost, nil, body, id)
	if a.answer == nil || a.answer.Error != nil || len(a.answer.Result) == 0 {
		return "", a.String()
	}
	var r protocol.InitializeResult
	_ = json.Unmarshal(a.answer.Result, &r)
	if !protocol.IsStateful(r.ProtocolVersion) {
		return "", a.String()
	}
	if sid := a.header.Get(transport.HeaderSessionID); sid != "" {
		h.do(http.MethodDelete, http.Header{transport.HeaderProtocolVersion: {r.ProtocolVersion}, transport.HeaderSessionID: {sid}}, nil, jsonrpc.ID{})
	}
	return r.ProtocolVersion, fmt.Sprintf("HTTP %d, protocolVersion %s", a.status, r.ProtocolVersion)
}

// readSSEAnswer reads events until the response with id want, or the end.
func readSSEAnswer(r *bufio.Reader, want jsonrpc.ID) *jsonrpc.Message {
	var data []string
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && len(data) > 0:
			var m jsonrpc.Message
			if json.Unmarshal([]byte(strings.Join(data, "\n")), &m) == nil && m.Method == "" && m.ID.Key() == want.Key() {
				return &m
			}
			data = nil
		}
		if err != nil {
			return nil
		}
	}
}

func headerNote(h http.Header) string {
	var parts []string
	for _, k := range []string{transport.HeaderProtocolVersion, transport.HeaderMethod, transport.HeaderSessionID} {
		if v := h.Get(k); v != "" {
			parts = append(parts, k+": "+v)
		}
	}
	return strings.Join(parts, ", ")
}

func bodyNote(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return fmt.Sprintf(" %.300s", b)
}

var streamNoRequests = &scenarios.Check{ID: "stateless-streaming/no-server-requests", Level: scenarios.Must, Spec: httpSpec + "#receiving-messages",
	Quote: "The server **MUST NOT** send independent JSON-RPC _requests_ on this stream.",
	Title: "while test_streaming_elicitation answers (declaring elicitation, with a progress token so that a stream is likely), " +
		"no JSON-RPC request arrives from the server: questions travel in an input_required result",
	Faults:       []*fault.Fault{server.IndependentRequestOnStream},
	Requirements: []string{"sep-2575-http-server-no-independent-requests-on-stream"}}

var streamingScenario = &scenarios.Scenario{
	ID:         "stateless-streaming",
	Title:      "no server-to-client request on a response stream",
	Family:     family,
	Side:       scenarios.ServerSide,
	Versions:   versions,
	Transports: httpOnly,
	Needs:      []scenarios.Need{scenarios.NeedsFixture(fixtures.StreamingElicitation, "the official server-stateless fixture")},
	Purpose: "test_streaming_elicitation is called declaring the elicitation capability and a progress token; whatever its " +
		"response stream holds (notifications, the result or an input_required result), it holds no request of the server.",
	Checks: []*scenarios.Check{streamNoRequests},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}})
		tool := t.RequireTool(s, fixtures.StreamingElicitation, nil).Tool
		mark := s.Inbox().Mark()
		t.Step("call %s with a progress token", tool)
		resp, err := t.Do(s, client.Call{Method: protocol.MethodToolsCall, Params: map[string]any{"name": tool, "arguments": map[string]any{}},
			Meta: map[string]any{"progressToken": "mcpconform-stream-1"}})
		skipIfVersionRefused(t, resp, err)
		if serverside.Unanswered(s, err) {
			t.Blocked("%s was not answered: %v", tool, err)
		}
		var asked []string
		for _, m := range s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool { return m.Method != "" && !m.ID.IsZero() }) {
			asked = append(asked, m.Method+" (id "+m.ID.Key()+")")
		}
		t.Judge(streamNoRequests, len(asked) == 0, "no request from the server", strings.Join(asked, "; ")+"; answer: "+judge.Describe(resp, err))
	}),
}
