package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// Lifecycle, versions and JSON-RPC hygiene: scenarios.md S6.

const (
	lifecycleSpec = "2025-11-25/basic/lifecycle.mdx"
	messagesSpec  = "2025-11-25/basic/index.mdx#messages"
)

var (
	versionNegotiationUnsupportedVersionHandled = &scenarios.Check{ID: "lifecycle-version-negotiation/unsupported-version-handled", Level: scenarios.Must, Spec: lifecycleSpec + "#version-negotiation",
		Quote: "If the server supports the requested protocol version, it MUST respond with the same version. " +
			"Otherwise, the server MUST respond with another protocol version it supports.",
		Title: "an unsupported version is answered with another version the server supports, or, as the page's own error example " +
			"does (the page contradicts itself; both readings pass), with an error whose data.supported lists the versions it supports; any other error fails",
		Faults:    []*fault.Fault{server.NegotiationEchoesUnsupported, server.NegotiationWrongError},
		Liberties: []*fault.Fault{server.NegotiationErrorSupported}}
)

var versionNegotiationScenario = &scenarios.Scenario{
	ID:       "lifecycle-version-negotiation",
	Title:    "an unsupported requested version is not accepted as is",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateful(),
	Purpose: "The client asks for version 1999-01-01. The lifecycle page says the server MUST answer with another version it supports; " +
		"its error-handling example shows an error with data.supported instead. Both readings are accepted; an error that names no " +
		"supported version follows neither.",
	Checks: []*scenarios.Check{versionNegotiationUnsupportedVersionHandled},
	Run: serverside.Body(func(t *serverside.T) {
		const bogus = "1999-01-01"
		s := t.Connect("A", client.Options{})
		t.Step("send initialize with protocolVersion %s", bogus)
		resp, err := t.Request(s, protocol.MethodInitialize, s.InitializeParams(bogus))
		const want = "a result whose protocolVersion is a version the server supports (not " + bogus + "), " +
			"or an error whose data.supported lists the versions it supports (lifecycle.mdx, Error Handling)"
		switch {
		case err != nil:
			t.Fail(versionNegotiationUnsupportedVersionHandled, want, judge.Describe(resp, err))
		case resp.Error != nil:
			// The decode's error is not read: data that is no object, or a
			// supported that is no array of strings, lists no version
			// (or ""), and requested is the -32022 data's, not judged here.
			var data protocol.UnsupportedVersionData
			_ = json.Unmarshal(resp.Error.Data, &data)
			ok := len(data.Supported) > 0 && !slices.Contains(data.Supported, bogus) && !slices.Contains(data.Supported, "")
			t.Judge(versionNegotiationUnsupportedVersionHandled, ok, want, judge.Describe(resp, err))
		default:
			got := judge.StringField(resp.Result, "protocolVersion")
			t.Judge(versionNegotiationUnsupportedVersionHandled, got != "" && got != bogus,
				want, fmt.Sprintf("protocolVersion %q", got))
		}
	}),
}

var (
	pingEmptyResult = &scenarios.Check{ID: "lifecycle-ping/empty-result", Level: scenarios.Must, Spec: "2025-11-25/basic/utilities/ping.mdx#behavior-requirements",
		Quote:  "The receiver MUST respond promptly with an empty response:",
		Title:  "the receiver responds promptly with an empty result",
		Faults: []*fault.Fault{server.PingError}}
)

var pingScenario = &scenarios.Scenario{
	ID:       "lifecycle-ping",
	Title:    "ping is answered with an empty result",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateful(),
	Checks:   []*scenarios.Check{pingEmptyResult},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("send ping")
		resp, err := t.Request(s, protocol.MethodPing, nil)
		empty := err == nil && resp.Error == nil && judge.IsEmptyObject(resp.Result)
		t.Judge(pingEmptyResult, empty, "result {}", judge.Describe(resp, err))
	}),
}

// StrictLifecycle is the opt-in profile of lifecycle rules that the spec
// asks of the client but that a strict server may enforce too.
const StrictLifecycle = "strict-lifecycle"

var (
	beforeInitializeAnswered = &scenarios.Check{ID: "lifecycle-before-initialize/answered", Level: scenarios.Must, Spec: messagesSpec,
		Quote:     "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title:     "a request sent before initialize is answered, with a result or an error (JSON-RPC 2.0: the Server MUST reply with a Response), or refused at the HTTP level",
		Faults:    []*fault.Fault{server.SilentBeforeInitialize},
		Liberties: []*fault.Fault{server.ServesWithoutInitialize}}
	beforeInitializeRequestRejected = &scenarios.Check{ID: "lifecycle-before-initialize/request-rejected", Level: scenarios.Should, Spec: lifecycleSpec + "#initialization",
		Quote: "The initialization phase MUST be the first interaction between client and server.",
		Title: "opt-in (the page restricts the client, not the server, and a stateless server serves without initialize): " +
			"a request other than ping sent before initialize is refused with an error, or at the HTTP level",
		Profile: StrictLifecycle,
		Faults:  []*fault.Fault{server.ServesBeforeInitialize}}
)

var beforeInitializeScenario = &scenarios.Scenario{
	ID:       "lifecycle-before-initialize",
	Title:    "requests before initialization are answered (and, under strict-lifecycle, not served)",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateful(),
	Purpose: "tools/list is sent before initialize. Every request gets a response (JSON-RPC 2.0). Whether it is served is the server's " +
		"choice: the lifecycle page tells the client not to send it (\"The client SHOULD NOT send requests other than pings before the " +
		"server has responded to the initialize request\") and a stateless server serves it; the strict-lifecycle profile asks for a refusal.",
	Checks: []*scenarios.Check{beforeInitializeAnswered, beforeInitializeRequestRejected},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list before initialize")
		resp, err := t.Request(s, protocol.MethodToolsList, nil)
		if status, ok := judge.HTTPRejection(err); ok {
			t.Pass(beforeInitializeAnswered)
			t.Judge(beforeInitializeRequestRejected, status >= 400, "an HTTP 4xx or a JSON-RPC error", judge.Describe(resp, err))
			return
		}
		if err != nil {
			t.Fail(beforeInitializeAnswered, "a response: a result or a JSON-RPC error", judge.Describe(resp, err))
			t.NotJudged(beforeInitializeRequestRejected, "the request was not answered at all (see "+beforeInitializeAnswered.ID+")")
			return
		}
		t.Pass(beforeInitializeAnswered)
		t.Judge(beforeInitializeRequestRejected, resp.Error != nil, "a JSON-RPC error", judge.Describe(resp, err))
	}),
}

var (
	malformedJsonParseError = &scenarios.Check{ID: "lifecycle-malformed-json/parse-error", Level: scenarios.Must, Spec: messagesSpec,
		Quote:  "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title:  "malformed JSON is answered with error -32700 and a null id (over HTTP: a 4xx status, body optional; a JSON-RPC body, when there is one, carries -32700)",
		Faults: []*fault.Fault{server.ParseErrorSilent, server.ParseErrorWrongCode}}
	malformedJsonSurvives = &scenarios.Check{ID: "lifecycle-malformed-json/survives", Level: scenarios.Must, Spec: messagesSpec,
		Quote:  "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title:  "after malformed input the server still answers requests on the same connection",
		Faults: []*fault.Fault{server.CrashOnMalformedJson}}
)

var malformedJSONScenario = &scenarios.Scenario{
	ID:       "lifecycle-malformed-json",
	Title:    "malformed JSON gets a parse error and the server keeps serving",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Purpose: "Messages MUST follow JSON-RPC 2.0, whose section 5 answers unparsable input with error -32700 and id null. " +
		"Over HTTP the transport page asks for an HTTP error status, with the JSON-RPC error body optional.",
	Checks: []*scenarios.Check{malformedJsonParseError, malformedJsonSurvives},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		mark := s.Inbox().Mark()
		t.Step("send a frame that is not JSON")
		sendErr := func() error {
			ctx, cancel := t.Wait()
			defer cancel()
			// Invalid at a definite byte, not merely incomplete, so a server
			// that decodes a JSON stream rather than lines sees it at once.
			return s.SendRaw(t.Deliberately(ctx, "a frame that is not JSON"), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping" mcpconform-not-json}`))
		}()
		judgeRawAnswer(t, s, mark, sendErr, malformedJsonParseError, "error -32700 with id null", func(m *jsonrpc.Message) bool {
			return judge.IsErrorCode(m, codes.ParseError) && (m.ID.IsZero() || m.ID.IsNull())
		})
		t.Step("check the server still answers")
		t.SurvivesProbe(s, malformedJsonSurvives)
	}),
}

var (
	invalidRequestInvalidRequestError = &scenarios.Check{ID: "lifecycle-invalid-request/invalid-request-error", Level: scenarios.Must, Spec: messagesSpec,
		Quote:  "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title:  "a request whose method is not a string is answered with error -32600 (JSON-RPC 2.0 §5.1); over HTTP a 4xx status, whose JSON-RPC body, when there is one, carries -32600",
		Faults: []*fault.Fault{server.InvalidRequestWrongCode, server.InvalidRequestInvalidParams}}
)

var invalidRequestScenario = &scenarios.Scenario{
	ID:       "lifecycle-invalid-request",
	Title:    "a JSON object that is not a valid request gets -32600",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Checks:   []*scenarios.Check{invalidRequestInvalidRequestError},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		mark := s.Inbox().Mark()
		t.Step("send a request whose method is a number")
		frame := []byte(`{"jsonrpc":"2.0","id":"mcpconform-invalid-1","method":42}`)
		sendErr := func() error {
			ctx, cancel := t.Wait()
			defer cancel()
			return s.SendRaw(t.Deliberately(ctx, "a request whose method is a number"), frame)
		}()
		judgeRawAnswer(t, s, mark, sendErr, invalidRequestInvalidRequestError, "error -32600", func(m *jsonrpc.Message) bool {
			return judge.IsErrorCode(m, codes.InvalidRequest)
		})
	}),
}

// isResponse matches a response of any kind: after a raw frame nothing else
// was asked, so the first one is the answer to it.
func isResponse(m *jsonrpc.Message) bool {
	return m.Method == "" && (m.Error != nil || m.Result != nil)
}

// judgeRawAnswer judges the answer to a raw frame sent after mark. Over
// Streamable HTTP an HTTP 4xx refusal is an answer on its own and its
// JSON-RPC body is optional (transports.mdx, "Sending Messages to the
// Server"); but a body, when there is one, is a JSON-RPC response and right
// must hold of it as of any. On the other transports, and for an HTTP 2xx,
// the answer is the JSON-RPC response itself.
func judgeRawAnswer(t *serverside.T, s *client.Session, mark int, sendErr error, check *scenarios.Check, want string, right func(*jsonrpc.Message) bool) {
	var (
		status int
		body   *jsonrpc.Message
	)
	var hs *transport.HTTPStatusError
	switch {
	case errors.As(sendErr, &hs):
		// Refused; a JSON-RPC body came with the error when it answered no id.
		status = hs.Status
		if m, err := jsonrpc.Decode([]byte(hs.Body)); err == nil && isResponse(m) {
			body = m
		}
	case sendErr != nil:
		t.Abort("could not send to the target: %v", sendErr)
	default:
		if st, ok := serverside.RawRefusal(s); ok {
			// The transport returns no error for a refusal only when its
			// body is a JSON-RPC message, which it delivers like any other.
			status = st
			ctx, cancel := t.Wait()
			body, _ = s.Inbox().WaitFrom(ctx, mark, isResponse)
			cancel()
		}
	}
	if status != 0 {
		httpWant := "an HTTP 4xx status, and a JSON-RPC body, if any, with " + want
		actual := fmt.Sprintf("HTTP %d", status)
		if body != nil {
			actual += " with " + string(body.Raw)
		}
		t.Judge(check, status >= 400 && status < 500 && (body == nil || right(body)), httpWant, actual)
		return
	}
	ctx, cancel := t.Wait()
	defer cancel()
	m, err := s.Inbox().WaitFrom(ctx, mark, isResponse)
	if err != nil {
		t.Fail(check, want, "no response: "+err.Error())
		return
	}
	t.Judge(check, right(m), want, string(m.Raw))
}

var (
	unknownMethodMethodNotFound = &scenarios.Check{ID: "lifecycle-unknown-method/method-not-found", Level: scenarios.Must, Spec: messagesSpec,
		Quote:        "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.",
		Title:        "a request for a method the server does not implement is answered with error -32601 (2026-07-28 over HTTP: with status 404)",
		Faults:       []*fault.Fault{server.UnknownMethodInvalidRequest},
		Requirements: []string{"sep-2575-http-server-method-not-found-404"}}
	// initialize is left out: a dual-era server takes it for a legacy
	// client's (versioning.mdx: "An initialize request selects legacy
	// semantics").
	unknownMethodRemoved = &scenarios.Check{ID: "lifecycle-unknown-method/removed-methods", Level: scenarios.Must,
		Spec: "2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header",
		Quote: "If the server does not implement the requested RPC method, it **MUST** respond with `404 Not Found` and a " +
			"JSON-RPC error with code `-32601` (`Method not found`).",
		Title: "ping, logging/setLevel, resources/subscribe and resources/unsubscribe, which 2026-07-28 removed (changelog), sent " +
			"with its _meta, are each answered with error -32601 (over HTTP with status 404)",
		Versions:     []string{protocol.V20260728},
		Faults:       []*fault.Fault{server.RemovedMethodsServed, server.UnknownMethodInvalidRequest},
		Requirements: []string{"sep-2575-http-server-method-not-found-404"}}
)

// removedMethods are the requests 2026-07-28 removed, with params valid in
// the revision that had them.
var removedMethods = []struct {
	method string
	params map[string]any
}{
	{protocol.MethodPing, nil},
	{"logging/setLevel", map[string]any{"level": "info"}},
	{"resources/subscribe", map[string]any{"uri": "mcpconform://removed-method/probe"}},
	{"resources/unsubscribe", map[string]any{"uri": "mcpconform://removed-method/probe"}},
}

var unknownMethodScenario = &scenarios.Scenario{
	ID:       "lifecycle-unknown-method",
	Title:    "an unknown method gets -32601",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Checks:   []*scenarios.Check{unknownMethodMethodNotFound, unknownMethodRemoved},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("call the method mcpconform/no-such-method")
		id := jsonrpc.StringID("mcpconform-unknown-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: "mcpconform/no-such-method", Params: map[string]any{}})
		status, note := serverside.StatusNote(s, id)
		ok := err == nil && judge.IsErrorCode(resp, codes.MethodNotFound)
		want := "error -32601"
		if s.Stateless() && status != 0 {
			// 2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header
			want += " with HTTP 404"
			ok = ok && status == 404
		}
		t.Judge(unknownMethodMethodNotFound, ok, want, judge.Describe(resp, err)+note)
		judgeRemovedMethods(t, s)
	}),
}

// judgeRemovedMethods sends each method 2026-07-28 removed with its _meta.
func judgeRemovedMethods(t *serverside.T, s *client.Session) {
	if !unknownMethodRemoved.JudgedAt(t.Env.Version) {
		t.Skip(unknownMethodRemoved, "a rule of 2026-07-28")
		return
	}
	var bad, seen []string
	for i, m := range removedMethods {
		t.Step("call %s, removed at %s", m.method, t.Env.Version)
		id := jsonrpc.StringID(fmt.Sprintf("mcpconform-removed-%d", i+1))
		// Raw: a result of a removed method is no message of this version's schema.
		params := map[string]any{"_meta": s.RequestMeta()}
		for k, v := range m.params {
			params[k] = v
		}
		resp, err := rawRequest(t, s, id, m.method, params, nil)
		status, note := serverside.StatusNote(s, id)
		got := m.method + ": " + judge.Describe(resp, err) + note
		if err != nil || !judge.IsErrorCode(resp, codes.MethodNotFound) || (status != 0 && status != http.StatusNotFound) {
			bad = append(bad, got)
			continue
		}
		seen = append(seen, got)
	}
	t.Judge(unknownMethodRemoved, len(bad) == 0, "error -32601 (over HTTP with status 404) for each", strings.Join(append(bad, seen...), "; "))
}

var (
	idEchoIdsExact = &scenarios.Check{ID: "lifecycle-id-echo/ids-exact", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#responses",
		Quote: "Result responses MUST include the same ID as the request they correspond to.",
		Title: "responses carry the request's id as the same JSON value: strings stay strings (even numeric ones) with the same text, " +
			"however escaped; numbers stay numbers with the same value",
		Faults:    []*fault.Fault{server.IdNumericStringUnquoted},
		Liberties: []*fault.Fault{server.EscapesNonASCIIIds}}
)

var idEchoScenario = &scenarios.Scenario{
	ID:       "lifecycle-id-echo",
	Title:    "response ids echo request ids exactly",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Checks:   []*scenarios.Check{idEchoIdsExact},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		method := t.Version().Probe
		params := map[string]any{}
		if s.Stateless() {
			params["_meta"] = s.RequestMeta()
		}
		ids := []jsonrpc.ID{jsonrpc.StringID("mcpconform-Ω-7"), jsonrpc.StringID("42"), jsonrpc.NumberID(9007199254740991), jsonrpc.NumberID(0)}
		for _, id := range ids {
			// Sent raw so that no correlation happens on our side: whatever
			// id comes back is compared as a JSON value with the one sent.
			t.Step("send %s with id %s", method, id)
			req, err := jsonrpc.NewRequest(id, method, params)
			if err != nil {
				t.Abort("%v", err)
			}
			frame, _ := req.Encode()
			mark := s.Inbox().Mark()
			ctx, cancel := t.Wait()
			if err := s.SendRaw(ctx, frame); err != nil {
				cancel()
				t.Fail(idEchoIdsExact, "a response with id "+id.String(), judge.Describe(nil, err))
				return
			}
			m, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && (m.Result != nil || m.Error != nil) })
			cancel()
			if err != nil {
				t.Fail(idEchoIdsExact, "a response with id "+id.String(), "no response: "+err.Error())
				return
			}
			if !sameID(m.ID, id) {
				t.Fail(idEchoIdsExact, "a response with id "+id.String(), "a response with id "+m.ID.String())
				return
			}
		}
		t.Pass(idEchoIdsExact)
	}),
}

// sameID compares two ids as JSON values (jsonrpc.ID.Equal, the one
// comparison of ids everywhere): strings by their text, however escaped
// ("\u03a9" is "Ω"), numbers by their value; a string never equals a number
// ("42" is not 42).
func sameID(got, want jsonrpc.ID) bool { return got.Equal(want) }

var (
	notificationSilentNoResponse = &scenarios.Check{ID: "lifecycle-notification-silent/no-response", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#notifications",
		Quote: "The receiver MUST NOT send a response.",
		Title: "the receiver of a notification (even an unknown one) sends no response; over Streamable HTTP refusing the POST " +
			"with an HTTP error status, whose body may be a JSON-RPC error without an id, is not a response",
		Faults:    []*fault.Fault{server.AnswersNotifications},
		Liberties: []*fault.Fault{server.RefusesUnknownNotifications}}
)

var notificationScenario = &scenarios.Scenario{
	ID:       "lifecycle-notification-silent",
	Title:    "notifications are never answered",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Checks:   []*scenarios.Check{notificationSilentNoResponse},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		mark := s.Inbox().Mark()
		t.Step("send the unknown notification notifications/mcpconform-unknown")
		// Streamable HTTP lets a server refuse a notification it cannot
		// accept with an HTTP error status, whose body MAY be a JSON-RPC
		// error that has no id (transports.mdx, "Sending Messages to the
		// Server"): that body is the refusal, not a response.
		refused := func() bool {
			ctx, cancel := t.Wait()
			defer cancel()
			if err := s.Notify(ctx, "notifications/mcpconform-unknown", map[string]any{}); err != nil {
				if _, ok := judge.HTTPRejection(err); !ok {
					t.Abort("could not send to the target: %v", err)
				}
				return false // no JSON-RPC body came with it
			}
			_, ok := serverside.RawRefusal(s)
			return ok
		}()
		// A request sent after the notification is a barrier: once its
		// response is in, anything answering the notification is too (on
		// ordered transports), so no waiting on a clock is needed.
		t.Step("send a request as a barrier")
		t.Barrier(s)
		stray := s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool { return m.Method == "" })
		if i := slices.IndexFunc(stray, func(m *jsonrpc.Message) bool {
			return m.Error != nil && (m.ID.IsZero() || m.ID.IsNull())
		}); refused && i >= 0 {
			t.Transcript().Eventf("", "the HTTP refusal of the notification carried %s as its body, which the transport page allows", stray[i].Raw)
			stray = slices.Delete(stray, i, i+1)
		}
		actual := "no response"
		if len(stray) > 0 {
			actual = string(stray[0].Raw)
		}
		t.Judge(notificationSilentNoResponse, len(stray) == 0, "no response", actual)
	}),
}
