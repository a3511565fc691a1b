package clientside

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// Script is the fake server a client-side scenario plays: what it offers,
// what it holds for the body, and what it tells the client in
// MCP_CONFORMANCE_CONTEXT. Handlers are scenario-wide, not per connection:
// over stateless Streamable HTTP (2026-07-28) every request is a connection
// of its own, so anything a handler keeps between rounds lives in the
// handler's closure.
type Script struct {
	// Hold hands the client's requests of these methods to the body on
	// every connection (Conn.Held) instead of answering them.
	Hold []string
	// Tools are listed by tools/list and served by tools/call.
	Tools []Tool
	// Prompts are listed by prompts/list and served by prompts/get.
	Prompts []Prompt
	// Handlers add or replace request handlers by method.
	Handlers map[string]server.Handler
	// Capabilities are the server capabilities initialize and
	// server/discover declare; nil declares those of what is offered.
	Capabilities map[string]any
	// Context is handed to the client as MCP_CONFORMANCE_CONTEXT (JSON,
	// with "name" set to the scenario id); nil hands none.
	Context map[string]any
	// Protect, when set, serves the fake server behind OAuth (protected.go)
	// over Streamable HTTP.
	Protect *Protection
	// Tell, when set, is the scenario name the client is given in
	// MCP_CONFORMANCE_SCENARIO instead of the scenario's own: an official
	// scenario whose moves the client must make (mcpconform's own
	// authorization scenarios need auth/metadata-default's).
	Tell string
}

// Tool is one tool of the fake server.
type Tool struct {
	Name        string
	Description string
	// InputSchema defaults to an object schema without properties.
	InputSchema map[string]any
	// Extra fields of the tool's definition (annotations, execution…).
	Extra map[string]any
	// Call answers tools/call; nil answers an empty text result.
	Call server.Handler
}

// Prompt is one prompt of the fake server.
type Prompt struct {
	Name      string
	Arguments []map[string]any
	// Get answers prompts/get.
	Get server.Handler
}

// AsIs marks a result the driver must send exactly as given: without it a
// result served under 2026-07-28 rules gets resultType "complete" when it
// has none (basic/index.mdx#resulttype), which a scenario that sends a
// result without resultType on purpose must prevent.
type AsIs map[string]any

// Received is one message the client under test sent, in arrival order
// over all of the scenario's connections.
type Received struct {
	Conn   string
	Msg    *jsonrpc.Message
	Header http.Header // the HTTP request's header; nil off HTTP
	At     time.Time
}

// Log is every request and notification the client sent to the fake
// server, on any connection (held requests excepted: the body has them),
// bounded as the inboxes are: a client flooding notifications (1.36 GB
// over stdio, 1.82 GB over WebSocket in 30 s, issue 21) costs at most
// LogLimit messages and LogBytes. The log keeps the start of the
// conversation, which the checks judge (initialize first, the first
// tools/call): it keeps the first LogPerMethod notifications of each
// method, at most LogMethodBytes of them (a flood is of one method or a
// few: the notifications/initialized behind it is still kept), and counts
// the rest; once full, further
// notifications are only counted, and requests, which each ask for an
// answer and which the checks wait for, are kept up to twice the bounds
// and only counted beyond (Dropped).
type Log struct {
	mu      sync.Mutex
	entries []Received
	bytes   int            // the kept entries' estimated size
	total   int            // every message logged, kept or only counted
	dropped map[string]int // messages only counted, by kind and method
	kept    map[string]int // notifications kept, by method
	keptB   map[string]int // their bytes
	changed chan struct{}
	// onFirstDrop is told, once, when the log starts dropping.
	onFirstDrop func(LogDrop)
}

// LogLimit and LogBytes bound a scenario's log, LogPerMethod and
// LogMethodBytes the notifications of each method in it; requests are kept
// up to twice LogLimit and LogBytes (see Log).
const (
	LogLimit       = peer.DefaultInboxLimit
	LogBytes       = peer.DefaultInboxBytes
	LogPerMethod   = 1000
	LogMethodBytes = 1 << 20
)

// LogDrop is what a log dropped: how many messages of each kind and method
// were only counted.
type LogDrop struct {
	Kept, KeptBytes int
	Dropped         map[string]int // "notification notifications/message": 123456
}

// Total is how many messages were dropped.
func (d LogDrop) Total() int {
	n := 0
	for _, c := range d.Dropped {
		n += c
	}
	return n
}

// String says what was dropped, for a transcript or a verdict, the most
// frequent first (at most three named).
func (d LogDrop) String() string {
	if len(d.Dropped) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(d.Dropped))
	for k := range d.Dropped {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if d.Dropped[a] != d.Dropped[b] {
			return d.Dropped[b] - d.Dropped[a]
		}
		return strings.Compare(a, b)
	})
	var named []string
	for i, k := range kinds {
		if i == 3 {
			named = append(named, fmt.Sprintf("%d more kind(s)", len(kinds)-i))
			break
		}
		named = append(named, fmt.Sprintf("%s ×%s", k, jsonrpc.Thousands(d.Dropped[k])))
	}
	return fmt.Sprintf("the fake server's log kept %s messages (%s bytes) and only counted %s more: %s",
		jsonrpc.Thousands(d.Kept), jsonrpc.Thousands(d.KeptBytes), jsonrpc.Thousands(d.Total()), strings.Join(named, ", "))
}

func newLog() *Log { return &Log{changed: make(chan struct{})} }

// entrySize estimates what an entry holds: the message and its header.
func entrySize(r Received) int {
	n := 64 + peer.MessageSize(r.Msg)
	for k, vs := range r.Header {
		n += len(k) + 16
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}

func (l *Log) add(r Received) {
	size := entrySize(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	factor, notification := 1, !r.Msg.IsRequest()
	if !notification {
		factor = 2
	}
	if l.kept == nil {
		l.kept, l.keptB = map[string]int{}, map[string]int{}
	}
	method := r.Msg.Method
	if len(l.entries) >= factor*LogLimit || l.bytes+size > factor*LogBytes ||
		(notification && (l.kept[method] >= LogPerMethod || l.keptB[method]+size > LogMethodBytes)) {
		first := l.dropped == nil
		if first {
			l.dropped = map[string]int{}
		}
		l.dropped[string(r.Msg.Kind())+" "+r.Msg.Method]++
		if first && l.onFirstDrop != nil {
			l.onFirstDrop(LogDrop{Kept: len(l.entries), KeptBytes: l.bytes, Dropped: maps.Clone(l.dropped)})
		}
		// No wake-up: nothing a waiter can see changed (Total did; settle
		// looks at it when its wait ends).
		return
	}
	l.entries = append(l.entries, r)
	l.bytes += size
	if notification {
		l.kept[method]++
		l.keptB[method] += size
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// Total is how many messages the log was given, kept or only counted.
func (l *Log) Total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Dropped is what the log only counted; its String is "" when nothing was
// dropped.
func (l *Log) Dropped() LogDrop {
	if l == nil {
		return LogDrop{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return LogDrop{Kept: len(l.entries), KeptBytes: l.bytes, Dropped: maps.Clone(l.dropped)}
}

// Entries is a copy of the log so far.
func (l *Log) Entries() []Received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// Requests are the logged requests of method, in order.
func (l *Log) Requests(method string) []Received {
	var out []Received
	for _, r := range l.Entries() {
		if r.Msg.IsRequest() && r.Msg.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// WaitFor waits until done(entries) holds or ctx ends; it reports whether
// it held.
func (l *Log) WaitFor(ctx context.Context, done func([]Received) bool) bool {
	for {
		l.mu.Lock()
		ok, changed := done(l.entries), l.changed
		l.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// Call is the tools/call request a tool handler serves, read.
type Call struct {
	Name      string
	Arguments map[string]any
	// Params holds every params member (inputResponses, requestState, _meta…).
	Params map[string]json.RawMessage
}

// ReadCall reads a tools/call or prompts/get request's params.
func ReadCall(req *jsonrpc.Message) Call {
	var c Call
	_ = json.Unmarshal(req.Params, &c.Params)
	_ = json.Unmarshal(c.Params["name"], &c.Name)
	_ = json.Unmarshal(c.Params["arguments"], &c.Arguments)
	return c
}

// Has reports whether params carry member.
func (c Call) Has(member string) bool { _, ok := c.Params[member]; return ok }

// handlers builds the fake server's request handlers for the scenario.
func (t *T) handlers(s Script) map[string]server.Handler {
	h := defaultHandlers()
	h[protocol.MethodInitialize] = t.initialize(s)
	if protocol.IsStateless(t.Env.Version) {
		// A server of an older version has no server/discover: -32601,
		// which a dual-era client's probe reads as "initialize instead".
		h[protocol.MethodServerDiscover] = t.discover(s)
	}
	if len(s.Tools) > 0 {
		h[protocol.MethodToolsList] = func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			tools := make([]any, 0, len(s.Tools))
			for _, tool := range s.Tools {
				tools = append(tools, tool.definition())
			}
			return map[string]any{"tools": tools}, nil
		}
		h[protocol.MethodToolsCall] = func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			name := ReadCall(req).Name
			for _, tool := range s.Tools {
				if tool.Name != name {
					continue
				}
				if tool.Call == nil {
					return map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}, nil
				}
				return tool.Call(ctx, p, req)
			}
			return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "Unknown tool: " + name}
		}
	}
	if len(s.Prompts) > 0 {
		h[protocol.MethodPromptsList] = func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			prompts := make([]any, 0, len(s.Prompts))
			for _, pr := range s.Prompts {
				def := map[string]any{"name": pr.Name}
				if pr.Arguments != nil {
					// The schema's arguments is an array: never null.
					def["arguments"] = pr.Arguments
				}
				prompts = append(prompts, def)
			}
			return map[string]any{"prompts": prompts}, nil
		}
		h[protocol.MethodPromptsGet] = func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			name := ReadCall(req).Name
			for _, pr := range s.Prompts {
				if pr.Name == name && pr.Get != nil {
					return pr.Get(ctx, p, req)
				}
			}
			return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "Unknown prompt: " + name}
		}
	}
	for m, handler := range s.Handlers {
		h[m] = handler
	}
	return h
}

func (tool Tool) definition() map[string]any {
	schema := tool.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	def := map[string]any{"name": tool.Name, "inputSchema": schema}
	if tool.Description != "" {
		def["description"] = tool.Description
	}
	for k, v := range tool.Extra {
		def[k] = v
	}
	return def
}

// capabilities are the server capabilities the script declares.
func (s Script) capabilities() map[string]any {
	if s.Capabilities != nil {
		return s.Capabilities
	}
	caps := map[string]any{"tools": map[string]any{}}
	if len(s.Prompts) > 0 {
		caps["prompts"] = map[string]any{}
	}
	return caps
}

// FakeServerInfo is what the fake server calls itself.
var FakeServerInfo = map[string]any{"name": "mcpconform-fake-server", "version": "0.1.0"}

// initialize answers as a server that speaks only the scenario's version:
// with that version whatever the client asked for (lifecycle.mdx, Version
// Negotiation: the same version when supported, "Otherwise, the server MUST
// respond with another protocol version it supports"), so a run at 2025-06-18
// judges a 2025-06-18 session, and a client that does not speak it
// disconnects.
func (t *T) initialize(s Script) server.Handler {
	return func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		var p protocol.InitializeParams
		_ = json.Unmarshal(req.Params, &p)
		requested := ""
		if p.ProtocolVersion != nil {
			requested = *p.ProtocolVersion
		}
		if protocol.IsStateless(t.Env.Version) {
			// A server of 2026-07-28 only names the versions it supports in
			// any error to initialize (basic/versioning.mdx, Backward
			// Compatibility). A version it does not implement gets the
			// refusal a dual-era client reads as "speak 2026-07-28", and
			// the one the official request-metadata scenario gives; its own
			// version, which it implements without initialize, is no
			// unsupported version: initialize is simply no method of it.
			data, _ := json.Marshal(map[string]any{"supported": []string{t.Env.Version}, "requested": requested})
			if requested == t.Env.Version {
				return nil, &jsonrpc.Error{Code: codes.MethodNotFound, Data: data,
					Message: "Method not found: initialize is no method of " + t.Env.Version + "; send requests with per-request _meta"}
			}
			return nil, &jsonrpc.Error{Code: codes.UnsupportedProtocolVersion, Message: "Unsupported protocol version: this server speaks " + t.Env.Version, Data: data}
		}
		return map[string]any{
			"protocolVersion": t.Env.Version,
			"capabilities":    s.capabilities(),
			"serverInfo":      FakeServerInfo,
		}, nil
	}
}

// discover answers server/discover with the scenario's version only: the
// client is judged at that version.
func (t *T) discover(s Script) server.Handler {
	return func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
		return map[string]any{
			"supportedVersions": []string{t.Env.Version},
			"capabilities":      s.capabilities(),
			"_meta":             map[string]any{protocol.MetaServerInfo: FakeServerInfo},
		}, nil // the caching hints are the middleware's (logged)
	}
}

// cacheable are the methods whose complete results carry caching hints
// at 2026-07-28 (server/utilities/caching.mdx#cacheable-results: "Servers
// MUST include caching hints on results with resultType: "complete"").
var cacheable = []string{protocol.MethodServerDiscover, protocol.MethodToolsList, protocol.MethodPromptsList,
	protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList, protocol.MethodResourcesRead}

// The fake server's caching hints: its lists are the same for every
// caller ("public" suits "lists of tools, prompts, and resource templates
// when they are identical for all users"), and immediately stale (ttlMs
// 0), so that a client re-fetches rather than keeps one scenario's answer.
const (
	fakeTTLMs      = 0
	fakeCacheScope = "public"
)

// completeResult wraps every handler: it completes a 2026-07-28 result: resultType "complete" where it has none,
// and on a cacheable complete result the caching hints it lacks. An AsIs
// result is sent as given, on purpose (a deliberate deviation the guard
// notes under the scenario's name).
func (t *T) completeResult(next server.Handler) server.Handler {
	return func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		result, rpcErr := next(ctx, p, req)
		if asIs, ok := result.(AsIs); ok {
			return peer.Deviant{Result: map[string]any(asIs), By: "scenario " + t.Scenario().ID + ": a result sent as is"}, rpcErr
		}
		if rpcErr != nil || !protocol.IsStateless(t.Env.Version) {
			return result, rpcErr
		}
		if r, ok := result.(map[string]any); ok {
			if _, ok := r["resultType"]; !ok {
				r["resultType"] = "complete"
			}
			if r["resultType"] == "complete" && slices.Contains(cacheable, req.Method) {
				if _, ok := r["ttlMs"]; !ok {
					r["ttlMs"] = fakeTTLMs
				}
				if _, ok := r["cacheScope"]; !ok {
					r["cacheScope"] = fakeCacheScope
				}
			}
		}
		return result, nil
	}
}

// logMessage logs every request and notification the client sends, with
// its HTTP header, in the read loop of its connection: in arrival order,
// before any handler runs (requests held for the body excepted).
func (t *T) logMessage(held []string) func(p *server.Peer, msg *jsonrpc.Message) {
	return func(p *server.Peer, msg *jsonrpc.Message) {
		t.judgeVersion(p, msg)
		switch {
		case msg.IsRequest() && slices.Contains(held, msg.Method):
		case msg.IsRequest(), msg.IsNotification():
			t.log.add(Received{Conn: p.ID, Msg: msg, Header: p.Header().Clone(), At: time.Now()})
		}
	}
}

// Log is what the client sent to the fake server so far.
func (t *T) Log() *Log { return t.log }

// contextEnv is the MCP_CONFORMANCE_CONTEXT entry for the script, if any.
func (t *T) contextEnv(s Script) (string, error) {
	var extra map[string]any
	if s.Protect != nil && s.Protect.Context != nil {
		extra = s.Protect.Context(t.protected)
	}
	if s.Context == nil && extra == nil {
		return "", nil
	}
	ctx := map[string]any{}
	for k, v := range s.Context {
		ctx[k] = v
	}
	for k, v := range extra {
		ctx[k] = v
	}
	ctx["name"] = t.told(s)
	b, err := json.Marshal(ctx)
	if err != nil {
		return "", fmt.Errorf("the scenario's context: %w", err)
	}
	return "MCP_CONFORMANCE_CONTEXT=" + string(b), nil
}

// told is the scenario name the client is given.
func (t *T) told(s Script) string {
	if s.Tell != "" {
		return s.Tell
	}
	return t.officialName()
}
