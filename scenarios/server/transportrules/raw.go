package transportrules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

// Raw HTTP for the rules the fake client keeps by design (it always sends
// the session id, a supported version, no Origin): each request is built
// here, its exchange noted in the transcript under the label "raw".

const rawLabel = "raw"

// rawHTTP sends hand-made requests to the target's MCP endpoint.
type rawHTTP struct {
	t       *serverside.T
	url     string
	header  http.Header  // the target's own headers (--header, tokens)
	version string       // MCP-Protocol-Version to send ("" none)
	sid     string       // Mcp-Session-Id to send ("" none)
	hc      *http.Client // never follows a redirect: a 3xx is the target's answer
}

// newRaw prepares raw requests in the session s (its URL, session id and
// negotiated version).
func newRaw(t *serverside.T, s *client.Session) *rawHTTP {
	target, _ := t.Env.Target.(client.Target)
	h := &rawHTTP{t: t, url: target.URL, header: target.Header.Clone(), hc: transport.NewHTTPClient(nil)}
	if c, ok := transport.As[*transport.HTTPClientConn](s.Conn()); ok {
		h.url, h.sid, h.version = c.URL(), c.SessionID(), c.ProtocolVersion()
	}
	if h.version == "" {
		h.version = t.Env.Version
	}
	return h
}

// rawAnswer is what came back: the status, the header, and for a request
// the JSON-RPC answer found in a JSON body or an SSE stream.
type rawAnswer struct {
	status int
	header http.Header
	body   string     // start of a refusal's body
	events []sseEvent // the SSE events read, in order
	answer *jsonrpc.Message
	ended  bool // the body ended (false: the wait ran out first)
}

// send makes one request; extra overrides headers (an empty value removes
// one). When want is set, the body is read until the answer with that id
// (or its end, or the step's deadline); otherwise only a refusal's body is
// read.
func (h *rawHTTP) send(method string, extra http.Header, body []byte, want jsonrpc.ID) (*rawAnswer, error) {
	ctx, cancel := h.t.Wait()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
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
	if h.version != "" {
		req.Header.Set(transport.HeaderProtocolVersion, h.version)
	}
	if h.sid != "" {
		req.Header.Set(transport.HeaderSessionID, h.sid)
	}
	for k, v := range extra {
		if http.CanonicalHeaderKey(k) == "Host" && len(v) > 0 {
			// Go sends the request's Host field, never a Host header.
			req.Host = v[0]
			continue
		}
		if len(v) == 0 || v[0] == "" {
			req.Header.Del(k)
		} else {
			req.Header[http.CanonicalHeaderKey(k)] = v
		}
	}
	tr := h.t.Transcript()
	tr.Eventf(rawLabel, "%s %s %s%s%s", method, h.url, hostNote(req), describeHeaders(req.Header), bodyNote(body))
	resp, err := h.hc.Do(req)
	if err != nil {
		tr.Eventf(rawLabel, "%s: %v", method, err)
		return nil, err
	}
	defer resp.Body.Close()
	a := &rawAnswer{status: resp.StatusCode, header: resp.Header}
	tr.Eventf(rawLabel, "HTTP %d (%s)%s%s", resp.StatusCode, resp.Header.Get("Content-Type"), sidNote(resp.Header), redirectNote(resp))
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		a.body, a.ended = string(b), true
		return a, nil
	}
	if want.IsZero() && method != http.MethodGet {
		return a, nil
	}
	// The Content-Type is the wire-rules family's to judge: a stream is read
	// as one when it says so or, without a JSON type, when it looks like one.
	ct := resp.Header.Get("Content-Type")
	rb := bufio.NewReader(resp.Body)
	if strings.HasPrefix(ct, "text/event-stream") || !strings.HasPrefix(ct, "application/json") && looksLikeSSE(rb) {
		r := newSSE(rb)
		for {
			ev, err := r.next()
			if err != nil {
				a.ended = errors.Is(err, io.EOF)
				return a, nil
			}
			a.events = append(a.events, ev)
			tr.Eventf(rawLabel, "SSE event id=%q retry=%q data=%.200s", ev.id, ev.retry, ev.data)
			if m, ok := decodeAnswer(ev.data, want); ok {
				a.answer = m
				return a, nil
			}
			h.refuseRequest(ev.data)
		}
	}
	b, _ := io.ReadAll(io.LimitReader(rb, 4<<20))
	a.ended = ctx.Err() == nil
	tr.Eventf(rawLabel, "body %.300s", b)
	if m, ok := decodeAnswer(string(b), want); ok {
		a.answer = m
	}
	return a, nil
}

// looksLikeSSE peeks at a body whose Content-Type does not say what it is.
func looksLikeSSE(b *bufio.Reader) bool {
	head, _ := b.Peek(6)
	for _, prefix := range []string{"event:", "data:", "id:", "retry:", ":"} {
		if strings.HasPrefix(string(head), prefix) {
			return true
		}
	}
	return false
}

// refuseRequest answers a request the server sent on a stream (a server may
// ask the client something before it answers) with -32601, as a client
// without that feature does, so the server's answer is not held up by it.
func (h *rawHTTP) refuseRequest(data string) {
	var m jsonrpc.Message
	if json.Unmarshal([]byte(data), &m) != nil || m.Method == "" || m.ID.IsZero() {
		return
	}
	refusal, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID,
		"error": map[string]any{"code": codes.MethodNotFound, "message": "not supported by this raw client: " + m.Method}})
	go func() { _, _ = h.send(http.MethodPost, nil, refusal, jsonrpc.ID{}) }()
}

func decodeAnswer(data string, want jsonrpc.ID) (*jsonrpc.Message, bool) {
	var m jsonrpc.Message
	if want.IsZero() || json.Unmarshal([]byte(data), &m) != nil || m.Method != "" {
		return nil, false
	}
	return &m, m.ID.Key() == want.Key()
}

func describeHeaders(h http.Header) string {
	var parts []string
	for _, k := range []string{transport.HeaderSessionID, transport.HeaderProtocolVersion, "Origin", transport.HeaderLastEventID} {
		if v := h.Get(k); v != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", k, v))
		}
	}
	if len(parts) == 0 {
		return "(no session, version or Origin header)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// hostNote names a Host the request sends instead of its URL's.
func hostNote(req *http.Request) string {
	if req.Host == "" || req.Host == req.URL.Host {
		return ""
	}
	return "Host: " + req.Host + " "
}

func bodyNote(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return fmt.Sprintf(" %.300s", b)
}

func redirectNote(resp *http.Response) string {
	if n := transport.RedirectNote(resp); n != "" {
		return " " + n
	}
	return ""
}

func sidNote(h http.Header) string {
	if v := h.Get(transport.HeaderSessionID); v != "" {
		return fmt.Sprintf(" Mcp-Session-Id: %q", v)
	}
	return ""
}

// request is a JSON-RPC request body.
func request(id jsonrpc.ID, method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	return b
}

// sseEvent is one event of a stream: its id, retry and data fields as sent
// (hasID: an id field was present, even empty).
type sseEvent struct {
	id, retry, data string
	hasID           bool
}

type sseScanner struct{ sc *bufio.Scanner }

func newSSE(r io.Reader) *sseScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &sseScanner{sc: sc}
}

// next returns the next event (one with any field), io.EOF at the end.
func (s *sseScanner) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	seen := false
	for s.sc.Scan() {
		line := strings.TrimSuffix(s.sc.Text(), "\r")
		if line == "" {
			if seen {
				ev.data = strings.Join(data, "\n")
				return ev, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		seen = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id, ev.hasID = value, true
		case "retry":
			ev.retry = value
		case "data":
			data = append(data, value)
		}
	}
	if err := s.sc.Err(); err != nil {
		return ev, err
	}
	if seen {
		ev.data = strings.Join(data, "\n")
		return ev, nil
	}
	return ev, io.EOF
}

// retryMillis is the event's retry field as a number (-1: none or not one).
func (e sseEvent) retryMillis() int {
	n, err := strconv.Atoi(e.retry)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
