package transportrules

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

const sendingSpec = transportsPage + "#sending-messages-to-the-server"

var (
	ssePollingPrimingEvent = &scenarios.Check{ID: "transport-sse-polling/priming-event", Level: scenarios.Should, Spec: sendingSpec,
		Quote:  "The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID).",
		Title:  "the SSE stream of the test_reconnection call starts with an event that has an id and empty data",
		Faults: []*fault.Fault{server.NoPrimingEvent}}
	ssePollingRetryField = &scenarios.Check{ID: "transport-sse-polling/retry-field", Level: scenarios.Should, Spec: sendingSpec,
		Quote:  "If the server does close the _connection_ prior to terminating the _SSE stream_, it SHOULD send an SSE event with a standard retry field before closing the connection.",
		Title:  "a POST stream closed before its response carried a retry field first (judged when the server closes it early)",
		Faults: []*fault.Fault{server.NoRetryField}}
	ssePollingResumedResult = &scenarios.Check{ID: "transport-sse-polling/resumed-result", Level: scenarios.Should, Spec: sendingSpec,
		Quote: "The SSE stream SHOULD eventually include a JSON-RPC _response_ for the JSON-RPC _request_ sent in the POST body.",
		Title: "after the client waits retry and resumes with GET and Last-Event-ID, the tool's result arrives (a result, not isError) " +
			"(judged when the server closes the POST stream before the response)",
		Faults: []*fault.Fault{server.ResumptionDropsResult}}
)

var ssePollingScenario = &scenarios.Scenario{
	ID:         "transport-sse-polling",
	Title:      "SSE polling: a priming event, a retry field, and the result after GET with Last-Event-ID",
	Family:     "transportrules",
	Side:       scenarios.ServerSide,
	Versions:   []string{protocol.V20251125}, // polling and priming events came with 2025-11-25
	Transports: httpOnly,
	Needs:      []scenarios.Need{scenarios.NeedsFixture(fixtures.Reconnection, "closes the SSE stream mid-call and answers on the resumed stream")},
	Official:   "server-sse-polling",
	Purpose: "The official server-sse-polling scenario: tools/call of test_reconnection is POSTed accepting SSE; the server " +
		"primes the stream, may close it before the response, and the client then waits the retry delay and resumes with GET " +
		"and Last-Event-ID. A server that answers with application/json opens no stream: nothing is judged.",
	Checks: []*scenarios.Check{ssePollingPrimingEvent, ssePollingRetryField, ssePollingResumedResult},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		fx := t.RequireTool(s, fixtures.Reconnection, map[string]any{})
		raw := newRaw(t, s)
		id := jsonrpc.StringID("mcpconform-reconnection")
		t.Step("POST tools/call %s accepting SSE", fx.Tool)
		a, err := raw.send(http.MethodPost, nil, request(id, protocol.MethodToolsCall, map[string]any{"name": fx.Tool, "arguments": fx.Arguments}), id)
		if err != nil || a.status != http.StatusOK {
			why := "the call failed: "
			if err != nil {
				why += err.Error()
			} else {
				why += fmt.Sprintf("HTTP %d %.200s", a.status, a.body)
			}
			t.Blocked("%s", why)
		}
		if !strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") {
			t.SkipRest("the server answered with " + a.header.Get("Content-Type") + ", not an SSE stream: there is no stream to prime or poll (MUST either…or)")
		}
		if len(a.events) == 0 || !a.events[0].hasID || a.events[0].data != "" {
			first := "no event"
			if len(a.events) > 0 {
				first = fmt.Sprintf("id=%q (present: %t) data=%.100q", a.events[0].id, a.events[0].hasID, a.events[0].data)
			}
			t.Fail(ssePollingPrimingEvent, "a first event with an id and an empty data field", first)
		} else {
			t.Pass(ssePollingPrimingEvent)
		}
		if a.answer != nil {
			reason := "the server answered on the POST stream without closing it first: no polling to judge"
			t.Skip(ssePollingRetryField, reason)
			t.Skip(ssePollingResumedResult, reason)
			judgeResult(t, nil, a.answer)
			return
		}
		if !a.ended {
			t.Blocked("the POST stream neither answered nor ended within %s", t.Env.Timing.ResponseTimeout)
		}
		retry, last := -1, ""
		for _, ev := range a.events {
			if r := ev.retryMillis(); r >= 0 {
				retry = r
			}
			if ev.hasID {
				last = ev.id
			}
		}
		t.Judge(ssePollingRetryField, retry >= 0, "a retry field before the stream closed", fmt.Sprintf("%d events, none with a retry field", len(a.events)))
		if last == "" {
			t.Fail(ssePollingResumedResult, "an event id to resume from", "the stream closed before the response and no event had an id")
			return
		}
		// The client MUST respect the retry field: wait it out (bounded by
		// the step's deadline) before reconnecting.
		if retry > 0 {
			t.Step("wait %d ms (the retry field)", retry)
			ctx, cancel := t.Wait()
			timer := time.NewTimer(time.Duration(retry) * time.Millisecond)
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
			timer.Stop()
			cancel()
		}
		t.Step("GET with Last-Event-ID: %s", last)
		g, err := raw.send(http.MethodGet, http.Header{transport.HeaderLastEventID: {last}}, nil, id)
		if err != nil {
			t.Fail(ssePollingResumedResult, "the tool's result on the resumed stream", err.Error())
			return
		}
		if g.answer == nil {
			what := fmt.Sprintf("HTTP %d, %d events, no response to %s", g.status, len(g.events), id)
			if g.status >= 300 {
				what = fmt.Sprintf("HTTP %d %.200s", g.status, g.body)
			} else if !g.ended {
				what += fmt.Sprintf(" within %s", t.Env.Timing.ResponseTimeout)
			}
			t.Fail(ssePollingResumedResult, "the tool's result on the resumed stream", what)
			return
		}
		judgeResult(t, ssePollingResumedResult, g.answer)
	}),
}

// judgeResult judges a tool's answer: a result that is not isError (the
// fixture succeeds). A nil check only notes a failed call.
func judgeResult(t *serverside.T, c *scenarios.Check, m *jsonrpc.Message) {
	// Only isError is read, not the whole protocol.ToolResult: a result
	// whose content is malformed (wire-schema's to judge) still succeeds
	// here when it is no isError, and one whose isError is no boolean fails.
	var res struct {
		IsError bool `json:"isError"`
	}
	ok := m.Error == nil && json.Unmarshal(m.Result, &res) == nil && !res.IsError
	if c == nil {
		if !ok {
			t.Step("the call answered %s", judge.Describe(m, nil))
		}
		return
	}
	t.Judge(c, ok, "a tool result without isError", judge.Describe(m, nil))
}

var (
	multipleStreamsEachAnswered = &scenarios.Check{ID: "transport-multiple-streams/each-answered", Level: scenarios.Must, Spec: sendingSpec,
		Quote: "If the input is a JSON-RPC _request_, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.",
		Title: "three tools/list requests POSTed at once in one session (at 2026-07-28, which has no sessions, three standalone " +
			"requests) are each answered on their own POST, with their own id (the 2026-07-28 page keeps the rule: \"If the body is " +
			"a JSON-RPC _request_, the server **MUST** return either `Content-Type: application/json` (a single JSON object) or " +
			"`Content-Type: text/event-stream` (an SSE response stream).\")",
		Faults: []*fault.Fault{server.ConcurrentPostsRefused}}
)

var multipleStreamsScenario = &scenarios.Scenario{
	ID:         "transport-multiple-streams",
	Title:      "three concurrent POSTs, each answered on its own stream",
	Family:     "transportrules",
	Side:       scenarios.ServerSide,
	Versions:   append(protocol.JudgedStateful(), protocol.V20260728), // every request its own POST there, concurrent ones too
	Transports: httpOnly,
	Purpose: "The official server-sse-multiple-streams scenario: the client MAY remain connected to several SSE streams; three " +
		"tools/list POSTs are open at once and each must carry its own response. At 2026-07-28 each carries its own _meta and " +
		"standard headers, as the official scenario sends them there.",
	Official: "server-sse-multiple-streams",
	Checks:   []*scenarios.Check{multipleStreamsEachAnswered},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		raw := newRaw(t, s)
		t.Step("POST three tools/list requests at once")
		var wg sync.WaitGroup
		var mu sync.Mutex
		var bad []string
		for i := 1; i <= 3; i++ {
			wg.Go(func() {
				id := jsonrpc.StringID(fmt.Sprintf("mcpconform-multiple-streams-%d", i))
				params, header := map[string]any{}, http.Header(nil)
				if t.Version().Era == protocol.Stateless {
					params["_meta"] = s.RequestMeta()
					header = http.Header{transport.HeaderMethod: {protocol.MethodToolsList}}
				}
				a, err := raw.send(http.MethodPost, header, request(id, protocol.MethodToolsList, params), id)
				var what string
				switch {
				case err != nil:
					what = err.Error()
				case a.status != http.StatusOK:
					what = fmt.Sprintf("HTTP %d %.200s", a.status, a.body)
				case a.answer == nil:
					what = fmt.Sprintf("HTTP 200 (%s) without the response", a.header.Get("Content-Type"))
				case a.answer.Error != nil:
					what = judge.Describe(a.answer, nil)
				default:
					return
				}
				mu.Lock()
				bad = append(bad, fmt.Sprintf("%s: %s", id, what))
				mu.Unlock()
			})
		}
		wg.Wait()
		t.Judge(multipleStreamsEachAnswered, len(bad) == 0, "each POST answered 200 with its own tools/list result", strings.Join(bad, "; "))
	}),
}
