package lifecycle

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Lifecycle, versions and JSON-RPC hygiene: scenarios.md S6.

const (
	lifecycleSpec = "2025-11-25/basic/lifecycle.mdx"
	messagesSpec  = "2025-11-25/basic/index.mdx#messages"
)

var (
	versionNegotiationUnsupportedVersionHandled = &scenarios.Check{ID: "lifecycle-version-negotiation/unsupported-version-handled", Level: scenarios.Must, Spec: lifecycleSpec + "#version-negotiation",
		Title:  "an unsupported version is answered with another supported version, or with an error (the page's own example)",
		Faults: []*fault.Fault{server.NegotiationEchoesUnsupported}}
)

var versionNegotiationScenario = &scenarios.Scenario{
	ID:       "lifecycle-version-negotiation",
	Title:    "an unsupported requested version is not accepted as is",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateful(),
	Purpose: "The client asks for version 1999-01-01. The lifecycle page says the server MUST answer with another version it supports; " +
		"its error-handling example shows an error with data.supported instead. Both readings are accepted.",
	Checks: []*scenarios.Check{versionNegotiationUnsupportedVersionHandled},
	Run: serverside.Body(func(t *serverside.T) {
		const bogus = "1999-01-01"
		s := t.Connect("A", client.Options{})
		t.Step("send initialize with protocolVersion %s", bogus)
		resp, err := t.Request(s, protocol.MethodInitialize, s.InitializeParams(bogus))
		const want = "a result whose protocolVersion is a version the server supports (not " + bogus + "), or a JSON-RPC error"
		switch {
		case err != nil:
			t.Fail(versionNegotiationUnsupportedVersionHandled, want, judge.Describe(resp, err))
		case resp.Error != nil:
			t.Pass(versionNegotiationUnsupportedVersionHandled)
		default:
			got := judge.StringField(resp.Result, "protocolVersion")
			t.Judge(versionNegotiationUnsupportedVersionHandled, got != "" && got != bogus,
				want, fmt.Sprintf("protocolVersion %q", got))
		}
	}),
}

var (
	pingEmptyResult = &scenarios.Check{ID: "lifecycle-ping/empty-result", Level: scenarios.Must, Spec: "2025-11-25/basic/utilities/ping.mdx#behavior-requirements",
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

var (
	beforeInitializeRequestRejected = &scenarios.Check{ID: "lifecycle-before-initialize/request-rejected", Level: scenarios.Should, Spec: lifecycleSpec + "#initialization",
		Title:  "a request other than ping sent before initialize is answered with an error (or refused at the HTTP level)",
		Faults: []*fault.Fault{server.ServesBeforeInitialize}}
)

var beforeInitializeScenario = &scenarios.Scenario{
	ID:       "lifecycle-before-initialize",
	Title:    "requests before initialization are not served",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.JudgedStateful(),
	Purpose:  "Initialization MUST be the first interaction; a server should refuse tools/list sent before initialize.",
	Checks:   []*scenarios.Check{beforeInitializeRequestRejected},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Connect("A", client.Options{})
		t.Step("send tools/list before initialize")
		resp, err := t.Request(s, protocol.MethodToolsList, nil)
		if status, ok := judge.HTTPRejection(err); ok {
			t.Judge(beforeInitializeRequestRejected, status >= 400, "an HTTP 4xx or a JSON-RPC error", judge.Describe(resp, err))
			return
		}
		t.Judge(beforeInitializeRequestRejected, err == nil && resp.Error != nil,
			"a JSON-RPC error", judge.Describe(resp, err))
	}),
}

var (
	malformedJsonParseError = &scenarios.Check{ID: "lifecycle-malformed-json/parse-error", Level: scenarios.Must, Spec: messagesSpec,
		Title:  "malformed JSON is answered with error -32700 and a null id (over HTTP: a 4xx status, body optional)",
		Faults: []*fault.Fault{server.ParseErrorSilent}}
	malformedJsonSurvives = &scenarios.Check{ID: "lifecycle-malformed-json/survives", Level: scenarios.Must, Spec: messagesSpec,
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
			return s.SendRaw(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping" mcpconform-not-json}`))
		}()
		if status, ok := judge.HTTPRejection(sendErr); ok {
			t.Judge(malformedJsonParseError, status >= 400 && status < 500,
				"an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
		} else if status, ok := serverside.RawRefusal(s); sendErr == nil && ok {
			t.Judge(malformedJsonParseError, status < 500, "an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
		} else if sendErr != nil {
			t.Abort("could not send to the target: %v", sendErr)
		} else {
			ctx, cancel := t.Wait()
			m, err := s.Inbox().WaitFrom(ctx, mark, client.NullIDResponse)
			cancel()
			switch {
			case err != nil:
				t.Fail(malformedJsonParseError, "error -32700 with id null", "no response: "+err.Error())
			default:
				ok := judge.IsErrorCode(m, codes.ParseError) && (m.ID.IsZero() || m.ID.IsNull())
				t.Judge(malformedJsonParseError, ok, "error -32700 with id null", string(m.Raw))
			}
		}
		t.Step("check the server still answers")
		t.SurvivesProbe(s, malformedJsonSurvives)
	}),
}

var (
	invalidRequestInvalidRequestError = &scenarios.Check{ID: "lifecycle-invalid-request/invalid-request-error", Level: scenarios.Must, Spec: messagesSpec,
		Title:  "a request whose method is not a string is answered with error -32600 (JSON-RPC 2.0 §5.1); over HTTP a 4xx status",
		Faults: []*fault.Fault{server.InvalidRequestWrongCode}}
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
			return s.SendRaw(ctx, frame)
		}()
		if status, ok := judge.HTTPRejection(sendErr); ok {
			t.Judge(invalidRequestInvalidRequestError, status >= 400 && status < 500,
				"an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
			return
		} else if status, ok := serverside.RawRefusal(s); sendErr == nil && ok {
			t.Judge(invalidRequestInvalidRequestError, status < 500, "an HTTP 4xx status", fmt.Sprintf("HTTP %d", status))
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
			t.Fail(invalidRequestInvalidRequestError, "error -32600", "no response: "+err.Error())
			return
		}
		t.Judge(invalidRequestInvalidRequestError, judge.IsErrorCode(m, codes.InvalidRequest),
			"error -32600", string(m.Raw))
	}),
}

var (
	unknownMethodMethodNotFound = &scenarios.Check{ID: "lifecycle-unknown-method/method-not-found", Level: scenarios.Must, Spec: messagesSpec,
		Title:  "a request for a method the server does not implement is answered with error -32601 (2026-07-28 over HTTP: with status 404)",
		Faults: []*fault.Fault{server.UnknownMethodInvalidRequest}}
)

var unknownMethodScenario = &scenarios.Scenario{
	ID:       "lifecycle-unknown-method",
	Title:    "an unknown method gets -32601",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	Checks:   []*scenarios.Check{unknownMethodMethodNotFound},
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
	}),
}

var (
	idEchoIdsExact = &scenarios.Check{ID: "lifecycle-id-echo/ids-exact", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#responses",
		Title:  "responses carry the request's id unchanged: strings stay strings (even numeric ones), numbers stay numbers",
		Faults: []*fault.Fault{server.IdNumericStringUnquoted}}
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
				t.Fail(idEchoIdsExact, "a response with id "+id.String(), judge.Describe(nil, err))
				return
			}
			m, err := s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool { return m.Method == "" && (m.Result != nil || m.Error != nil) })
			cancel()
			if err != nil {
				t.Fail(idEchoIdsExact, "a response with id "+id.String(), "no response: "+err.Error())
				return
			}
			if !m.ID.Equal(id) {
				t.Fail(idEchoIdsExact, "a response with id "+id.String(), "a response with id "+m.ID.String())
				return
			}
		}
		t.Pass(idEchoIdsExact)
	}),
}

var (
	notificationSilentNoResponse = &scenarios.Check{ID: "lifecycle-notification-silent/no-response", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#notifications",
		Title:  "the receiver of a notification (even an unknown one) sends no response",
		Faults: []*fault.Fault{server.AnswersNotifications}}
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
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			if err := s.Notify(ctx, "notifications/mcpconform-unknown", map[string]any{}); err != nil {
				// Streamable HTTP lets a server refuse a notification it cannot
				// accept with an HTTP error status (transports.mdx, "Sending
				// Messages to the Server"); that is not a JSON-RPC response.
				if _, ok := judge.HTTPRejection(err); !ok {
					t.Abort("could not send to the target: %v", err)
				}
			}
		}()
		// A request sent after the notification is a barrier: once its
		// response is in, anything answering the notification is too (on
		// ordered transports), so no waiting on a clock is needed.
		t.Step("send a request as a barrier")
		t.Barrier(s)
		stray := s.Inbox().Matching(mark, func(m *jsonrpc.Message) bool { return m.Method == "" })
		actual := "no response"
		if len(stray) > 0 {
			actual = string(stray[0].Raw)
		}
		t.Judge(notificationSilentNoResponse, len(stray) == 0, "no response", actual)
	}),
}
