package server

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The transport-rules family's part of the reference server: the fixture
// test_reconnection (the official server-sse-polling scenario's) and, for
// its faults and liberties, an HTTP front that bends one rule of the
// reference's Streamable HTTP server.

// reconnectionRetry is the retry field of test_reconnection's priming event
// (the official suite's sse-retry uses 500 ms too).
const reconnectionRetry = 500 * time.Millisecond

// transportRulesFamily has no state of its own: its variants live in its
// HTTP front (listenTransportRules), each made per listener.
type transportRulesFamily struct{ familyBase }

func newTransportRulesFamily(r *reference) family { return &transportRulesFamily{familyBase{r}} }

func (r *transportRulesFamily) tools() []refTool {
	return []refTool{{name: fixtures.Reconnection,
		description: "Over Streamable HTTP, closes its SSE stream after a priming event and answers once the client resumes with GET and Last-Event-ID.",
		call:        r.reconnection}}
}

func (*transportRulesFamily) faults() fault.Set    { return transportRulesFaults }
func (*transportRulesFamily) liberties() fault.Set { return transportRulesLiberties }

// reconnection defers its answer to a resumed stream where the transport
// can (a session-mode HTTP POST answered with SSE); elsewhere it answers at
// once, as there is no stream to poll.
func (r *transportRulesFamily) reconnection(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	if !r.is(NoPrimingEvent) {
		if sr, ok := transport.As[transport.StreamResumer](p.Transport()); ok {
			// An error (a stateless POST, a JSON answer) leaves the answer on
			// the POST: the result is delivered either way.
			_ = sr.DeferToResumption(ctx, req.ID, reconnectionRetry)
		}
	}
	return textResult(ctx, "Reconnection test completed", false), nil
}

// listenTransportRules starts the HTTP front for the family's variants over
// HTTP; ok is false for every other variant or transport.
func listenTransportRules(ctx context.Context, kind transport.Kind, addr string, v *fault.Fault, opts transport.Options) (l transport.Listener, ok bool, err error) {
	if kind != transport.HTTP || v == nil || (!slices.Contains(transportRulesFaults, v) && !slices.Contains(transportRulesLiberties, v)) || v == NoPrimingEvent {
		return nil, false, nil
	}
	l, err = listenFront(ctx, kind, addr, opts, atEndpoint(func(next http.Handler) http.Handler {
		return &trFront{v: v, next: next, events: opts.Transcript, label: opts.Session, ended: map[string]bool{}, lists: map[string]time.Time{}}
	}))
	return l, true, err
}

// notASCIIPrefix makes session-id-not-ascii's ids break the charset.
// concurrentWindow: tools/list POSTs this close together count as
// concurrent for concurrent-posts-refused.
const concurrentWindow = 150 * time.Millisecond

const notASCIIPrefix = "mcp session "

// multipleStreamsID starts the request ids of transport-multiple-streams.
const multipleStreamsID = "mcpconform-multiple-streams-"

var retryLine = regexp.MustCompile(`(?m)^retry: *[0-9]*\r?\n`)

// trFront is the HTTP front of one variant.
type trFront struct {
	v      *fault.Fault
	next   http.Handler // the reference's endpoint
	events *jsonrpc.Transcript
	label  string

	mu    sync.Mutex
	ended map[string]bool      // session ids ended by DELETE (ended-session-400)
	lists map[string]time.Time // last tools/list POST by session (concurrent-posts-refused)
}

func (f *trFront) refuse(w http.ResponseWriter, status int, why string) {
	f.events.Eventf(f.label, "HTTP %d %s (fault %s)", status, why, f.v.Name)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"`+why+`"},"id":null}`)
}

func (f *trFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(transport.HeaderSessionID)
	var method, id string
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m protocol.RequestHead
		_ = json.Unmarshal(body, &m)
		method = m.Method
		var withID struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &withID)
		_ = json.Unmarshal(withID.ID, &id)
	}
	switch f.v {
	case SessionIDNotASCII:
		if s, ok := strings.CutPrefix(sid, notASCIIPrefix); ok {
			r.Header.Set(transport.HeaderSessionID, s)
		}
		w = &trWriter{ResponseWriter: w, onHeader: func(h http.Header) {
			if s := h.Get(transport.HeaderSessionID); s != "" {
				h.Set(transport.HeaderSessionID, notASCIIPrefix+s)
			}
		}}
	case EndedSession400:
		f.mu.Lock()
		ended := f.ended[sid]
		if r.Method == http.MethodDelete && sid != "" {
			f.ended[sid] = true
		}
		f.mu.Unlock()
		if ended {
			f.refuse(w, http.StatusBadRequest, "session ended")
			return
		}
	case UnknownSession400:
		f.mu.Lock()
		known := sid == "" || f.ended[sid] // ended: here, ids issued
		f.mu.Unlock()
		if !known {
			f.refuse(w, http.StatusBadRequest, "unknown session")
			return
		}
		w = &trWriter{ResponseWriter: w, onHeader: func(h http.Header) {
			if s := h.Get(transport.HeaderSessionID); s != "" {
				f.mu.Lock()
				f.ended[s] = true
				f.mu.Unlock()
			}
		}}
	case MissingSession404:
		if r.Method == http.MethodPost && sid == "" && method != "initialize" {
			f.refuse(w, http.StatusNotFound, "no session")
			return
		}
	case ProtocolVersionUnchecked:
		if v := r.Header.Get(transport.HeaderProtocolVersion); v != "" && !slices.Contains(transport.DefaultSupportedVersions, v) {
			r.Header.Del(transport.HeaderProtocolVersion)
		}
	case ForeignOriginAccepted:
		r.Header.Del("Origin")
	case ForeignHostAccepted:
		// The same-origin test DNS rebinding defeats: the attacker's name is
		// in both headers.
		if u, err := url.Parse(r.Header.Get("Origin")); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
			r.Header.Del("Origin")
		}
	case OwnOriginRefused:
		if o := r.Header.Get("Origin"); o != "" && strings.EqualFold(o, "http://"+r.Host) {
			f.refuse(w, http.StatusForbidden, "Origin not allowed")
			return
		}
	case OriginRefused400:
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			f.refuse(w, http.StatusBadRequest, "Origin not allowed")
			return
		}
	case Origin403NoBody:
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			f.events.Eventf(f.label, "HTTP 403 %s: Origin %q, empty body (liberty %s)", r.Method, o, f.v.Name)
			w.WriteHeader(http.StatusForbidden)
			return
		}
	case DeleteNotAllowed:
		if r.Method == http.MethodDelete {
			f.events.Eventf(f.label, "HTTP 405 DELETE (liberty %s)", f.v.Name)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
	case NoRetryField:
		w = &trWriter{ResponseWriter: w, filter: func(b []byte) []byte { return retryLine.ReplaceAll(b, nil) }}
	case ResumptionDropsResult:
		if r.Method == http.MethodGet && r.Header.Get(transport.HeaderLastEventID) != "" {
			f.events.Eventf(f.label, "GET with Last-Event-ID: an SSE stream that ends at once (fault %s)", f.v.Name)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			return
		}
	case ConcurrentPostsRefused:
		// Refused by time, not by overlap: the reference answers tools/list
		// at once, so three POSTs sent together need not overlap.
		// At 2026-07-28 there is no session to key on: only the requests of
		// transport-multiple-streams (their ids) count, so a parallel run's
		// other scenarios are served.
		key := sid
		if key == "" && strings.HasPrefix(id, multipleStreamsID) {
			key = multipleStreamsID
		}
		if method == "tools/list" && key != "" {
			now := time.Now()
			f.mu.Lock()
			busy := now.Sub(f.lists[key]) < concurrentWindow
			f.lists[key] = now
			f.mu.Unlock()
			if busy {
				f.refuse(w, http.StatusConflict, "another tools/list is in progress")
				return
			}
		}
	}
	f.next.ServeHTTP(w, r)
}

// loopbackOrigin is the reference's own Origin policy (http(s) on a
// loopback host).
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// trWriter rewrites the header before it goes out, and the body as it is
// written.
type trWriter struct {
	http.ResponseWriter
	onHeader func(http.Header)
	filter   func([]byte) []byte
	started  bool
}

func (w *trWriter) start() {
	if !w.started {
		w.started = true
		if w.onHeader != nil {
			w.onHeader(w.Header())
		}
	}
}

func (w *trWriter) WriteHeader(status int) {
	w.start()
	w.ResponseWriter.WriteHeader(status)
}

func (w *trWriter) Write(b []byte) (int, error) {
	w.start()
	if w.filter != nil {
		if _, err := w.ResponseWriter.Write(w.filter(b)); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *trWriter) Flush() {
	w.start()
	if fl, ok := w.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (w *trWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
