package transportrules

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

const (
	transportsPage = "2025-11-25/basic/transports.mdx"
	sessionSpec    = transportsPage + "#session-management"
)

var httpOnly = []transport.Kind{transport.HTTP}

var (
	sessionIDVisibleASCII = &scenarios.Check{ID: "transport-session/id-visible-ascii", Level: scenarios.Must, Spec: sessionSpec,
		Quote:  "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).",
		Title:  "the Mcp-Session-Id the server assigns at initialize (if any) holds only visible ASCII",
		Faults: []*fault.Fault{server.SessionIDNotASCII}}
	sessionMissingID400 = &scenarios.Check{ID: "transport-session/missing-id-400", Level: scenarios.Should, Spec: sessionSpec,
		Quote: "Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request.",
		Title: "after initialize, a POST without Mcp-Session-Id is refused with 400 by a server that assigned one " +
			"(serving it is not judged here: a server may serve requests outside the session)",
		Faults: []*fault.Fault{server.MissingSession404}}
	sessionEnded404 = &scenarios.Check{ID: "transport-session/ended-404", Level: scenarios.Must, Spec: sessionSpec,
		Quote: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.",
		Title: "after a DELETE the server accepted, a request with that session id gets 404 " +
			"(a server that answers DELETE with 405 does not let clients end sessions: nothing ended, passed with a note)",
		Faults:    []*fault.Fault{server.EndedSession400},
		Liberties: []*fault.Fault{server.DeleteNotAllowed}}
	sessionUnknown404 = &scenarios.Check{ID: "transport-session/unknown-404", Level: scenarios.Should, Spec: sessionSpec,
		Quote: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.",
		Title: "a request with a session id the server never issued gets 404 (inferred, hence SHOULD: to the server an id it does not know " +
			"is one it ended or never had, and 404 is what tells a client to initialize again)",
		Faults: []*fault.Fault{server.UnknownSession400}}
)

var sessionScenario = &scenarios.Scenario{
	ID:         "transport-session",
	Title:      "Streamable HTTP sessions: visible-ASCII ids, 400 without the id, 404 for an unknown one and once ended by DELETE",
	Family:     "transportrules",
	Side:       scenarios.ServerSide,
	Versions:   protocol.JudgedStateful(),
	Transports: httpOnly,
	Purpose: "The official server-initialize (session id charset) and server-session-lifecycle scenarios. After the handshake, " +
		"tools/list is POSTed without the session id, then the session is ended with DELETE and tools/list is POSTed with it. " +
		"A server that assigns no session id is not judged here.",
	Checks: []*scenarios.Check{sessionIDVisibleASCII, sessionMissingID400, sessionUnknown404, sessionEnded404},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		raw := newRaw(t, s)
		if raw.sid == "" {
			t.SkipRest("the server assigned no session id at initialize (sessions are optional: MAY)")
		}
		t.Step("judge the session id %q", raw.sid)
		bad := -1
		for i := 0; i < len(raw.sid); i++ {
			if c := raw.sid[i]; c < 0x21 || c > 0x7e {
				bad = i
				break
			}
		}
		t.Judge(sessionIDVisibleASCII, bad < 0, "only bytes 0x21–0x7E", fmt.Sprintf("%q (byte %d is outside)", raw.sid, bad))

		t.Step("POST tools/list without Mcp-Session-Id")
		a, err := raw.send(http.MethodPost, http.Header{transport.HeaderSessionID: {""}},
			request(jsonrpc.StringID("mcpconform-no-session"), protocol.MethodToolsList, map[string]any{}), nil)
		switch {
		case err != nil:
			t.Fail(sessionMissingID400, "HTTP 400", err.Error())
		case a.status >= 200 && a.status < 300:
			t.PassWith(sessionMissingID400, fmt.Sprintf("served without the session id (HTTP %d): this server does not require it", a.status))
		default:
			t.Judge(sessionMissingID400, a.status == http.StatusBadRequest, "HTTP 400 Bad Request", fmt.Sprintf("HTTP %d %.200s", a.status, a.body))
		}

		t.Step("POST tools/list with a session id the server never issued")
		issued := raw.sid
		raw.sid = "mcpconform-unknown-session-" + issued
		a, err = raw.send(http.MethodPost, nil, request(jsonrpc.StringID("mcpconform-unknown-session"), protocol.MethodToolsList, map[string]any{}), nil)
		raw.sid = issued
		if err != nil {
			t.Fail(sessionUnknown404, "HTTP 404 Not Found", err.Error())
		} else {
			t.Judge(sessionUnknown404, a.status == http.StatusNotFound, "HTTP 404 Not Found", fmt.Sprintf("HTTP %d %.200s", a.status, a.body))
		}

		t.Step("DELETE the session")
		a, err = raw.send(http.MethodDelete, nil, nil, nil)
		switch {
		case err != nil:
			t.Skip(sessionEnded404, "DELETE failed: "+err.Error())
			return
		case a.status == http.StatusMethodNotAllowed:
			// The liberty the page grants: the session goes on, so there is
			// no ended session to answer 404 for.
			t.PassWith(sessionEnded404, "DELETE answered 405: the server does not let clients end sessions (MAY), so none ended")
			return
		case a.status < 200 || a.status >= 300:
			t.Skip(sessionEnded404, fmt.Sprintf("the server did not accept the DELETE (HTTP %d), so the session may not have ended", a.status))
			return
		}
		t.Step("POST tools/list with the ended session's id")
		a, err = raw.send(http.MethodPost, nil, request(jsonrpc.StringID("mcpconform-ended-session"), protocol.MethodToolsList, map[string]any{}), nil)
		if err != nil {
			t.Fail(sessionEnded404, "HTTP 404 Not Found", err.Error())
			return
		}
		t.Judge(sessionEnded404, a.status == http.StatusNotFound, "HTTP 404 Not Found", fmt.Sprintf("HTTP %d %.200s", a.status, a.body))
	}),
}

var (
	protocolVersionInvalid400 = &scenarios.Check{ID: "transport-protocol-version/invalid-400", Level: scenarios.Must, Spec: transportsPage + "#protocol-version-header",
		Quote:  "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request.",
		Title:  "a request in the session whose MCP-Protocol-Version is 1999-01-01 gets HTTP 400",
		Faults: []*fault.Fault{server.ProtocolVersionUnchecked}}
)

var protocolVersionScenario = &scenarios.Scenario{
	ID:         "transport-protocol-version",
	Title:      "an unsupported MCP-Protocol-Version header is refused with 400",
	Family:     "transportrules",
	Side:       scenarios.ServerSide,
	Versions:   protocol.Where(func(v protocol.Version) bool { return v.Judged && v.Era == protocol.Stateful && v.VersionHeader }),
	Transports: httpOnly,
	Checks:     []*scenarios.Check{protocolVersionInvalid400},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		raw := newRaw(t, s)
		t.Step("POST ping with MCP-Protocol-Version: 1999-01-01")
		id := jsonrpc.StringID("mcpconform-bad-version")
		a, err := raw.send(http.MethodPost, http.Header{transport.HeaderProtocolVersion: {"1999-01-01"}},
			request(id, protocol.MethodPing, map[string]any{}), id)
		if err != nil {
			t.Fail(protocolVersionInvalid400, "HTTP 400 Bad Request", err.Error())
			return
		}
		t.Judge(protocolVersionInvalid400, a.status == http.StatusBadRequest, "HTTP 400 Bad Request", fmt.Sprintf("HTTP %d %.200s", a.status, a.body))
	}),
}

var (
	originForeignRefused = &scenarios.Check{ID: "transport-origin/foreign-refused", Level: scenarios.Must, Spec: transportsPage + "#security-warning",
		// The sentence every version's page has; the 403 came with 2025-11-25.
		Quote: "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks",
		Title: "an initialize POSTed with Origin: http://mcpconform-rebinding.example (at 2026-07-28 the probe request) is refused: " +
			"with HTTP 403 at 2025-11-25 and 2026-07-28, whose pages add \"If the Origin header is present and invalid, servers MUST " +
			"respond with HTTP 403 Forbidden.\" (the body may be a JSON-RPC error or nothing); with any 4xx at 2025-06-18 and 2025-03-26, " +
			"whose pages name no status",
		Faults:    []*fault.Fault{server.ForeignOriginAccepted, server.OriginRefused400},
		Liberties: []*fault.Fault{server.Origin403NoBody}}
	originForeignHostRefused = &scenarios.Check{ID: "transport-origin/foreign-host-refused", Level: scenarios.Must, Spec: transportsPage + "#security-warning",
		Quote: "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks",
		Title: "the same request with Host: mcpconform-rebinding.example and Origin: http://mcpconform-rebinding.example (what a " +
			"browser sends once the attacker's name resolves to the server: the Origin agrees with the Host) is refused with an " +
			"HTTP 4xx (the status is foreign-refused's to judge)",
		// foreign-origin-accepted accepts every Origin, this one's too.
		Faults:    []*fault.Fault{server.ForeignHostAccepted, server.ForeignOriginAccepted},
		Liberties: []*fault.Fault{server.Origin403NoBody}}
	originOwnAccepted = &scenarios.Check{ID: "transport-origin/own-origin-accepted", Level: scenarios.Should, Spec: transportsPage + "#security-warning",
		Quote: "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks",
		Title: "a request whose Origin is the endpoint's own (scheme, host and port of its URL, the Host unchanged) is served: an " +
			"initialize answered 2xx with a result and notifications/initialized accepted in its session (at 2026-07-28 the " +
			"probe request answered) (inferred, hence SHOULD: validation exists to refuse other sites, and the page asks " +
			"nothing of an Origin that is valid)",
		Faults: []*fault.Fault{server.OwnOriginRefused}}
)

// foreignHost is a site no local server serves; foreignOrigin is its
// origin.
const (
	foreignHost   = "mcpconform-rebinding.example"
	foreignOrigin = "http://" + foreignHost
)

// originProbe sends the request that opens a conversation (initialize, at
// 2026-07-28 the version's probe) with extra headers, outside any session;
// a session the server opens for it is ended at once unless keep is set
// (then the caller ends it). The answer's session id is in its header.
func originProbe(t *serverside.T, s *client.Session, raw *rawHTTP, what string, extra http.Header, keep bool) (*rawAnswer, error) {
	raw.sid = ""
	id := jsonrpc.StringID("mcpconform-origin-" + what)
	if t.Version().Era == protocol.Stateless {
		h := extra.Clone()
		h.Set(transport.HeaderMethod, t.Version().Probe)
		return raw.send(http.MethodPost, h, request(id, t.Version().Probe, map[string]any{"_meta": s.RequestMeta()}), id)
	}
	params := map[string]any{"protocolVersion": t.Env.Version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpconform", "version": "0"}}
	h := extra.Clone()
	h.Set(transport.HeaderProtocolVersion, "")
	a, err := raw.send(http.MethodPost, h, request(id, protocol.MethodInitialize, params), id)
	if err == nil && !keep {
		endSession(raw, a)
	}
	return a, err
}

// endSession ends a session an answer opened.
func endSession(raw *rawHTTP, a *rawAnswer) {
	if sid := a.header.Get(transport.HeaderSessionID); sid != "" {
		raw.sid = sid
		_, _ = raw.send(http.MethodDelete, nil, nil, nil)
		raw.sid = ""
	}
}

// ownOrigin is the origin of the endpoint's URL.
func ownOrigin(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

var originScenario = &scenarios.Scenario{
	ID:         "transport-origin",
	Title:      "a foreign Origin is refused with 403, with or without a foreign Host; the endpoint's own Origin is served (DNS rebinding protection)",
	Family:     "transportrules",
	Side:       scenarios.ServerSide,
	Versions:   append(protocol.JudgedStateful(), protocol.V20260728), // the same sentence on 2026-07-28's page
	Transports: httpOnly,
	Official:   "dns-rebinding-protection",
	Purpose: "The official dns-rebinding-protection scenario: a web page on a foreign site reaching a local server. The Origin " +
		"is a name no local server is configured for, so the server is judged as a local one with its default policy: an " +
		"initialize (at 2026-07-28 the probe request) with that Origin, then with that Host and Origin both (the request a " +
		"browser sends after a DNS rebinding), must be refused; the same request with the endpoint's own origin must be served.",
	Checks: []*scenarios.Check{originForeignRefused, originForeignHostRefused, originOwnAccepted},
	Run: serverside.Body(func(t *serverside.T) {
		want, ok := "HTTP 403 Forbidden", func(st int) bool { return st == http.StatusForbidden }
		if t.Env.Version == protocol.V20250618 || t.Env.Version == protocol.V20250326 {
			// The page of this version names no status (it came with 2025-11-25).
			want, ok = "an HTTP 4xx refusal", func(st int) bool { return st >= 400 && st < 500 }
		}
		s := t.Connect("A", client.Options{})
		raw := newRaw(t, s)
		if t.Version().Era == protocol.Stateless {
			// The same rule on the 2026-07-28 page, judged on its probe:
			// every request stands alone there.
			id := jsonrpc.StringID("mcpconform-foreign-origin")
			t.Step("POST %s with Origin: %s", t.Version().Probe, foreignOrigin)
			resp, err := t.Do(s, client.Call{ID: id, Method: t.Version().Probe, Params: map[string]any{},
				Header: http.Header{"Origin": {foreignOrigin}}})
			status, refused := judge.HTTPRejection(err)
			if !refused {
				status, refused = s.Status(id)
			}
			if !refused && err != nil {
				t.Abort("no HTTP answer to %s with a foreign Origin: %v", t.Version().Probe, err)
			}
			if !refused {
				t.Fail(originForeignRefused, want, judge.Describe(resp, err))
			} else {
				t.Judge(originForeignRefused, ok(status), want, fmt.Sprintf("HTTP %d (%s)", status, judge.Describe(resp, err)))
			}
		} else {
			t.Step("POST initialize with Origin: %s", foreignOrigin)
			a, err := originProbe(t, s, raw, "foreign", http.Header{"Origin": {foreignOrigin}}, false)
			if err != nil {
				// No HTTP answer at all: nothing to judge (a target that cannot be
				// reached violates nothing; the handshake's scenario says so).
				t.Abort("no HTTP answer to initialize with a foreign Origin: %v", err)
			}
			t.Judge(originForeignRefused, ok(a.status), want, fmt.Sprintf("HTTP %d %.200s", a.status, a.body))
		}

		what := protocol.MethodInitialize
		if t.Version().Era == protocol.Stateless {
			what = t.Version().Probe
		}
		t.Step("POST %s with Host: %s and Origin: %s", what, foreignHost, foreignOrigin)
		a, err := originProbe(t, s, raw, "foreign-host", http.Header{"Host": {foreignHost}, "Origin": {foreignOrigin}}, false)
		if err != nil {
			t.Fail(originForeignHostRefused, "an HTTP 4xx refusal", err.Error())
		} else {
			t.Judge(originForeignHostRefused, a.status >= 400 && a.status < 500, "an HTTP 4xx refusal", fmt.Sprintf("HTTP %d %.200s", a.status, a.body))
		}

		own := ownOrigin(raw.url)
		t.Step("POST %s with Origin: %s (the endpoint's own)", what, own)
		a, err = originProbe(t, s, raw, "own", http.Header{"Origin": {own}}, true)
		served := "HTTP 2xx with a result"
		switch {
		case err != nil:
			t.Fail(originOwnAccepted, served, err.Error())
			return
		case a.status < 200 || a.status >= 300 || a.answer == nil || a.answer.Error != nil:
			what := fmt.Sprintf("HTTP %d %.200s", a.status, a.body)
			if a.answer != nil {
				what = fmt.Sprintf("HTTP %d, %s", a.status, judge.Describe(a.answer, nil))
			}
			endSession(raw, a)
			t.Fail(originOwnAccepted, served, what)
			return
		case t.Version().Era == protocol.Stateless:
			t.Pass(originOwnAccepted)
			return
		}
		defer endSession(raw, a)
		var init protocol.InitializeResult
		_ = json.Unmarshal(a.answer.Result, &init)
		raw.sid, raw.version = a.header.Get(transport.HeaderSessionID), init.ProtocolVersion
		t.Step("POST notifications/initialized with Origin: %s", own)
		note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": protocol.NotificationInitialized})
		n, err := raw.send(http.MethodPost, http.Header{"Origin": {own}}, note, nil)
		raw.sid = ""
		if err != nil {
			t.Fail(originOwnAccepted, "HTTP 2xx for notifications/initialized", err.Error())
			return
		}
		t.Judge(originOwnAccepted, n.status >= 200 && n.status < 300, "HTTP 2xx for notifications/initialized",
			fmt.Sprintf("HTTP %d %.200s", n.status, n.body))
	}),
}
