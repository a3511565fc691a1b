package surface

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

// The official sse-retry: the server primes the tool call's SSE stream with
// an event id and retry 500, closes it without the response, and delivers
// the response on the GET that resumes it.
const (
	reconnectionTool = "test_reconnection"
	sseRetry         = 500 * time.Millisecond
	// retrySlack is how much earlier than the retry a reconnection may
	// come: the official suite's 450 ms for 500. The wait measured (the
	// stream's end to the GET's arrival) is never shorter than the one the
	// client made; the slack absorbs a client whose timer starts at the
	// retry field, a moment before the stream ends.
	retrySlack = 50 * time.Millisecond
	pollSpec   = "2025-11-25/basic/transports.mdx#sending-messages-to-the-server"
)

var (
	sseRetryReconnects = &scenarios.Check{ID: "client-sse-retry/reconnects", Level: scenarios.Should, Spec: pollSpec,
		Title:  "when the server closes the tool call's SSE stream after a primed event id, the client reconnects with GET",
		Quote:  `The client SHOULD then "poll" the SSE stream by attempting to reconnect.`,
		Faults: []*fault.Fault{client.NeverResumes}}
	sseRetryWaits = &scenarios.Check{ID: "client-sse-retry/waits-retry", Level: scenarios.Must, Spec: pollSpec,
		Title:     "the reconnection comes no sooner than the retry (500 ms; 450 ms accepted, as the official suite does)",
		Quote:     "The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect.",
		Faults:    []*fault.Fault{client.ResumeIgnoresRetry},
		Liberties: []*fault.Fault{client.ResumesLate}}
	sseRetryLastEventID = &scenarios.Check{ID: "client-sse-retry/last-event-id", Level: scenarios.Should,
		Spec:   "2025-11-25/basic/transports.mdx#resumability-and-redelivery",
		Title:  "the GET that resumes the stream carries Last-Event-ID: the priming event's id",
		Quote:  "it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID header to indicate the last event ID it received.",
		Faults: []*fault.Fault{client.ResumeWithoutLastEventID}}
)

var sseRetryScenario = &scenarios.Scenario{
	ID:         "client-sse-retry",
	Official:   "sse-retry",
	Title:      "the client resumes a tool call's SSE stream the server closed: after the retry, with GET and Last-Event-ID",
	Family:     family,
	Side:       scenarios.ClientSide,
	Versions:   withModes,
	Transports: []transport.Kind{transport.HTTP},
	Needs:      []scenarios.Need{scenarios.NeedsOther("the client calls " + reconnectionTool)},
	Purpose: "The fake server's " + reconnectionTool + " sends on its POST's SSE stream a priming event (an id, retry 500, empty " +
		"data) and closes the stream without the response; the response waits for the GET that resumes the stream.",
	Checks: []*scenarios.Check{sseRetryReconnects, sseRetryWaits, sseRetryLastEventID},
	Run: clientside.Body(func(t *clientside.T) {
		var (
			mu       sync.Mutex
			resumer  transport.StreamResumer
			deferErr error
		)
		resumptions := func() []transport.Resumption {
			mu.Lock()
			defer mu.Unlock()
			if resumer == nil {
				return nil
			}
			return resumer.Resumptions()
		}
		t.Serve(clientside.Script{Tools: []clientside.Tool{{
			Name:        reconnectionTool,
			Description: "Closes its SSE stream after a priming event and answers on the resumed stream",
			Call: func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				sr, ok := transport.As[transport.StreamResumer](p.Transport())
				if !ok {
					return nil, &jsonrpc.Error{Code: -32603, Message: "no resumable stream on this transport"}
				}
				err := sr.DeferToResumption(ctx, req.ID, sseRetry)
				mu.Lock()
				resumer, deferErr = sr, err
				mu.Unlock()
				if err != nil {
					return textResult("the stream could not be closed for resumption: " + err.Error()), nil
				}
				return textResult("Reconnection test completed"), nil
			},
		}}})
		t.Step("wait for the client to call %s, and to resume its stream", reconnectionTool)
		out := t.Settle(func(r []clientside.Received) bool {
			rs := resumptions()
			return len(rs) > 0 && rs[0].Delivered
		})
		if len(clientside.ToolCalls(t.Log().Entries(), reconnectionTool)) == 0 {
			t.Missed("a tools/call of "+reconnectionTool, out)
		}
		mu.Lock()
		err := deferErr
		mu.Unlock()
		if err != nil {
			// A POST answered as one JSON body (the client's Accept lacks
			// text/event-stream) has no stream to prime; the Accept header
			// is the HTTP rules' affair.
			t.SkipRest("the fake server could not close the call's stream for resumption: " + err.Error())
		}
		rs := resumptions()
		if len(rs) == 0 {
			t.Abort("the tool call was made but never deferred (a defect in mcpconform)")
		}
		r := rs[0]
		if r.GETs == 0 {
			t.Fail(sseRetryReconnects, "a GET that resumes the stream after its event "+r.PrimingEventID,
				"none; "+t.DescribeEnd(out))
			t.Blocked("the client did not reconnect")
		}
		t.Pass(sseRetryReconnects)
		waited := r.Resumed.Sub(r.Closed)
		if r.Closed.IsZero() || r.Resumed.Before(r.Closed) {
			t.Fail(sseRetryWaits, fmt.Sprintf("a GET at least %s after the stream closed", sseRetry),
				"the GET came before the stream had even closed, on the priming event")
		} else {
			t.Judge(sseRetryWaits, waited >= sseRetry-retrySlack,
				fmt.Sprintf("a GET at least %s after the stream closed (retry %s)", sseRetry-retrySlack, sseRetry),
				fmt.Sprintf("the GET came %s after", waited.Round(time.Millisecond)))
		}
		switch {
		case r.LastEventID == r.PrimingEventID:
			t.Pass(sseRetryLastEventID)
		case r.LastEventID == "":
			t.Fail(sseRetryLastEventID, "Last-Event-ID: "+r.PrimingEventID, "a GET without Last-Event-ID")
		default:
			t.Fail(sseRetryLastEventID, "Last-Event-ID: "+r.PrimingEventID, "Last-Event-ID: "+r.LastEventID)
		}
	}),
}
