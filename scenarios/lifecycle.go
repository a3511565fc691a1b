package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Lifecycle, versions and JSON-RPC hygiene: scenarios.md S6.

const (
	lifecycleSpec = "2025-11-25/basic/lifecycle.mdx"
	messagesSpec  = "2025-11-25/basic/index.mdx#messages"
)

func init() {
	Register(
		initializeScenario,
		versionNegotiationScenario,
		pingScenario,
		beforeInitializeScenario,
		malformedJSONScenario,
		invalidRequestScenario,
		unknownMethodScenario,
		idEchoScenario,
		notificationScenario,
	)
}

var initializeScenario = &Scenario{
	ID:       "lifecycle-initialize",
	Title:    "initialize answers with the requested version and a valid result",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: legacyVersions,
	Purpose:  "The client sends initialize with a version the server should support; the result must echo it and validate against InitializeResult.",
	Checks: []Check{
		{ID: "lifecycle-initialize/result-schema", Level: Must, Spec: lifecycleSpec + "#initialization",
			Title: "the initialize result validates against InitializeResult (protocolVersion, capabilities, serverInfo)"},
		{ID: "lifecycle-initialize/version-echoed", Level: Must, Spec: lifecycleSpec + "#version-negotiation",
			Title: "a supported requested version is answered with the same version"},
	},
	Run: func(t *T) {
		s := t.Connect("A", client.Options{})
		t.Step("send initialize with protocolVersion %s", t.Env.Version)
		resp, err := t.Request(s, protocol.MethodInitialize, s.InitializeParams(t.Env.Version))
		if err != nil || resp.Error != nil {
			t.Fail("lifecycle-initialize/result-schema", "an InitializeResult", Describe(resp, err))
			t.Blocked("initialize was not answered with a result")
		}
		if verr := validateResult(t.Env.Version, protocol.MethodInitialize, resp.Result); verr != nil {
			t.Fail("lifecycle-initialize/result-schema", "a result valid against InitializeResult", verr.Error())
		} else {
			t.Pass("lifecycle-initialize/result-schema")
		}
		got := stringField(resp.Result, "protocolVersion")
		t.Judge("lifecycle-initialize/version-echoed", got == t.Env.Version,
			fmt.Sprintf("protocolVersion %q (the version requested)", t.Env.Version),
			fmt.Sprintf("protocolVersion %q", got))
	},
}

var versionNegotiationScenario = &Scenario{
	ID:       "lifecycle-version-negotiation",
	Title:    "an unsupported requested version is not accepted as is",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: legacyVersions,
	Purpose: "The client asks for version 1999-01-01. The lifecycle page says the server MUST answer with another version it supports; " +
		"its error-handling example shows an error with data.supported instead. Both readings are accepted.",
	Checks: []Check{
		{ID: "lifecycle-version-negotiation/unsupported-version-handled", Level: Must, Spec: lifecycleSpec + "#version-negotiation",
			Title: "an unsupported version is answered with another supported version, or with an error (the page's own example)"},
	},
	Run: func(t *T) {
		const bogus = "1999-01-01"
		s := t.Connect("A", client.Options{})
		t.Step("send initialize with protocolVersion %s", bogus)
		resp, err := t.Request(s, protocol.MethodInitialize, s.InitializeParams(bogus))
		const want = "a result whose protocolVersion is a version the server supports (not " + bogus + "), or a JSON-RPC error"
		switch {
		case err != nil:
			t.Fail("lifecycle-version-negotiation/unsupported-version-handled", want, Describe(resp, err))
		case resp.Error != nil:
			t.Pass("lifecycle-version-negotiation/unsupported-version-handled")
		default:
			got := stringField(resp.Result, "protocolVersion")
			t.Judge("lifecycle-version-negotiation/unsupported-version-handled", got != "" && got != bogus,
				want, fmt.Sprintf("protocolVersion %q", got))
		}
	},
}

var pingScenario = &Scenario{
	ID:       "lifecycle-ping",
	Title:    "ping is answered with an empty result",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: legacyVersions,
	Checks: []Check{
		{ID: "lifecycle-ping/empty-result", Level: Must, Spec: "2025-11-25/basic/utilities/ping.mdx#behavior-requirements",
			Title: "the receiver responds promptly with an empty result"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{})
		t.Step("send ping")
		resp, err := t.Request(s, protocol.MethodPing, nil)
		empty := err == nil && resp.Error == nil && isEmptyObject(resp.Result)
		t.Judge("lifecycle-ping/empty-result", empty, "result {}", Describe(resp, err))
	},
}

var beforeInitializeScenario = &Scenario{
	ID:       "lifecycle-before-initialize",
	Title:    "requests before initialization are not served",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: legacyVersions,
	Purpose:  "Initialization MUST be the first interaction; a server should refuse tools/list sent before initialize.",
	Checks: []Check{
		{ID: "lifecycle-before-initialize/request-rejected", Level: Should, Spec: lifecycleSpec + "#initialization",
			Title: "a request other than ping sent before initialize is answered with an error (or refused at the HTTP level)"},
	},
	Run: func(t *T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list before initialize")
		resp, err := t.Request(s, protocol.MethodToolsList, nil)
		if status, ok := httpRejection(err); ok {
			t.Judge("lifecycle-before-initialize/request-rejected", status >= 400, "an HTTP 4xx or a JSON-RPC error", Describe(resp, err))
			return
		}
		t.Judge("lifecycle-before-initialize/request-rejected", err == nil && resp.Error != nil,
			"a JSON-RPC error", Describe(resp, err))
	},
}

var malformedJSONScenario = &Scenario{
	ID:       "lifecycle-malformed-json",
	Title:    "malformed JSON gets a parse error and the server keeps serving",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: allVersions,
	Purpose: "Messages MUST follow JSON-RPC 2.0, whose section 5 answers unparsable input with error -32700 and id null. " +
		"Over HTTP the transport page asks for an HTTP error status, with the JSON-RPC error body optional.",
	Checks: []Check{
		{ID: "lifecycle-malformed-json/parse-error", Level: Must, Spec: messagesSpec,
			Title: "malformed JSON is answered with error -32700 and a null id (over HTTP: a 4xx status, body optional)"},
		{ID: "lifecycle-malformed-json/survives", Level: Must, Spec: messagesSpec,
			Title: "after malformed input the server still answers requests on the same connection"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{})
		mark := s.Inbox().Mark()
		t.Step("send a frame that is not JSON")
		sendErr := func() error {
			ctx, cancel := t.Wait()
			defer cancel()
			// Invalid at a definite byte, not merely incomplete, so a server
			// that decodes a JSON stream rather than lines sees it at once.
			return s.SendRaw(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping" mcpconform-not-json}`))
		}()
		if status, ok := httpRejection(sendErr); ok {
			t.Judge("lifecycle-malformed-json/parse-error", status >= 400 && status < 500,
				"an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
		} else if status, ok := rawRefusal(s); sendErr == nil && ok {
			t.Judge("lifecycle-malformed-json/parse-error", status < 500, "an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
		} else if sendErr != nil {
			t.Abort("could not send to the target: %v", sendErr)
		} else {
			ctx, cancel := t.Wait()
			m, err := s.Inbox().WaitFrom(ctx, mark, client.NullIDResponse)
			cancel()
			switch {
			case err != nil:
				t.Fail("lifecycle-malformed-json/parse-error", "error -32700 with id null", "no response: "+err.Error())
			default:
				ok := isErrorCode(m, codes.ParseError) && (m.ID.IsZero() || m.ID.IsNull())
				t.Judge("lifecycle-malformed-json/parse-error", ok, "error -32700 with id null", string(m.Raw))
			}
		}
		t.Step("check the server still answers")
		survivesProbe(t, s, "lifecycle-malformed-json/survives")
	},
}

// survivesProbe judges that the session still answers: any response, a
// result or an error, proves the server is alive and reading.
func survivesProbe(t *T, s *client.Session, checkID string) {
	method := probeMethod(s)
	id := jsonrpc.StringID("mcpconform-alive-1")
	resp, err := t.Do(s, client.Call{ID: id, Method: method, Params: map[string]any{}})
	status, note := statusNote(s, id)
	// Over HTTP a 404 means the session is gone (streamable HTTP session management).
	t.Judge(checkID, err == nil && status != 404, "a response to "+method+" on the same session", Describe(resp, err)+note)
}

var invalidRequestScenario = &Scenario{
	ID:       "lifecycle-invalid-request",
	Title:    "a JSON object that is not a valid request gets -32600",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: allVersions,
	Checks: []Check{
		{ID: "lifecycle-invalid-request/invalid-request-error", Level: Must, Spec: messagesSpec,
			Title: "a request whose method is not a string is answered with error -32600 (JSON-RPC 2.0 §5.1); over HTTP a 4xx status"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{})
		mark := s.Inbox().Mark()
		t.Step("send a request whose method is a number")
		frame := []byte(`{"jsonrpc":"2.0","id":"mcpconform-invalid-1","method":42}`)
		sendErr := func() error {
			ctx, cancel := t.Wait()
			defer cancel()
			return s.SendRaw(ctx, frame)
		}()
		if status, ok := httpRejection(sendErr); ok {
			t.Judge("lifecycle-invalid-request/invalid-request-error", status >= 400 && status < 500,
				"an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
			return
		} else if status, ok := rawRefusal(s); sendErr == nil && ok {
			t.Judge("lifecycle-invalid-request/invalid-request-error", status < 500, "an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
			return
		} else if sendErr != nil {
			t.Abort("could not send to the target: %v", sendErr)
		}
		ctx, cancel := t.Wait()
		defer cancel()
		m, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
			return m.Method == "" && (m.Error != nil || m.Result != nil)
		})
		if err != nil {
			t.Fail("lifecycle-invalid-request/invalid-request-error", "error -32600", "no response: "+err.Error())
			return
		}
		t.Judge("lifecycle-invalid-request/invalid-request-error", isErrorCode(m, codes.InvalidRequest),
			"error -32600", string(m.Raw))
	},
}

var unknownMethodScenario = &Scenario{
	ID:       "lifecycle-unknown-method",
	Title:    "an unknown method gets -32601",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: allVersions,
	Checks: []Check{
		{ID: "lifecycle-unknown-method/method-not-found", Level: Must, Spec: messagesSpec,
			Title: "a request for a method the server does not implement is answered with error -32601 (2026-07-28 over HTTP: with status 404)"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{})
		t.Step("call the method mcpconform/no-such-method")
		id := jsonrpc.StringID("mcpconform-unknown-1")
		resp, err := t.Do(s, client.Call{ID: id, Method: "mcpconform/no-such-method", Params: map[string]any{}})
		status, note := statusNote(s, id)
		ok := err == nil && isErrorCode(resp, codes.MethodNotFound)
		want := "error -32601"
		if s.Stateless() && status != 0 {
			// 2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header
			want += " with HTTP 404"
			ok = ok && status == 404
		}
		t.Judge("lifecycle-unknown-method/method-not-found", ok, want, Describe(resp, err)+note)
	},
}

var idEchoScenario = &Scenario{
	ID:       "lifecycle-id-echo",
	Title:    "response ids echo request ids exactly",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: allVersions,
	Checks: []Check{
		{ID: "lifecycle-id-echo/ids-exact", Level: Must, Spec: "2025-11-25/basic/index.mdx#responses",
			Title: "responses carry the request's id unchanged: strings stay strings (even numeric ones), numbers stay numbers"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{})
		method := probeMethod(s)
		params := map[string]any{}
		if s.Stateless() {
			params["_meta"] = s.RequestMeta()
		}
		ids := []jsonrpc.ID{jsonrpc.StringID("mcpconform-Ω-7"), jsonrpc.StringID("42"), jsonrpc.NumberID(9007199254740991), jsonrpc.NumberID(0)}
		for _, id := range ids {
			// Sent raw so that no correlation happens on our side: whatever
			// id comes back is compared byte for byte.
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
				t.Fail("lifecycle-id-echo/ids-exact", "a response with id "+id.String(), Describe(nil, err))
				return
			}
			m, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && (m.Result != nil || m.Error != nil) })
			cancel()
			if err != nil {
				t.Fail("lifecycle-id-echo/ids-exact", "a response with id "+id.String(), "no response: "+err.Error())
				return
			}
			if !m.ID.Equal(id) {
				t.Fail("lifecycle-id-echo/ids-exact", "a response with id "+id.String(), "a response with id "+m.ID.String())
				return
			}
		}
		t.Pass("lifecycle-id-echo/ids-exact")
	},
}

var notificationScenario = &Scenario{
	ID:       "lifecycle-notification-silent",
	Title:    "notifications are never answered",
	Family:   "lifecycle",
	Side:     ServerSide,
	Versions: allVersions,
	Checks: []Check{
		{ID: "lifecycle-notification-silent/no-response", Level: Must, Spec: "2025-11-25/basic/index.mdx#notifications",
			Title: "the receiver of a notification (even an unknown one) sends no response"},
	},
	Run: func(t *T) {
		s := t.Open("A", client.Options{})
		mark := s.Inbox().Mark()
		t.Step("send the unknown notification notifications/mcpconform-unknown")
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			if err := s.Notify(ctx, "notifications/mcpconform-unknown", map[string]any{}); err != nil {
				// Streamable HTTP lets a server refuse a notification it cannot
				// accept with an HTTP error status (transports.mdx, "Sending
				// Messages to the Server"); that is not a JSON-RPC response.
				if _, ok := httpRejection(err); !ok {
					t.Abort("could not send to the target: %v", err)
				}
			}
		}()
		// A request sent after the notification is a barrier: once its
		// response is in, anything answering the notification is too (on
		// ordered transports), so no waiting on a clock is needed.
		t.Step("send a request as a barrier")
		barrier(t, s)
		stray := s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool { return m.Method == "" })
		actual := "no response"
		if len(stray) > 0 {
			actual = string(stray[0].Raw)
		}
		t.Judge("lifecycle-notification-silent/no-response", len(stray) == 0, "no response", actual)
	},
}

func isEmptyObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return false
	}
	delete(obj, "_meta") // _meta is allowed on every result
	return len(obj) == 0 && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
}
