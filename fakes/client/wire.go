package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// WireRule names a rule of the wire that every message the server sends must
// keep, whatever the scenario. The names are those of the wire-rules checks
// that judge them.
type WireRule string

const (
	// RuleJSONRPCOnly: every frame is a JSON-RPC message (over stdio,
	// nothing else on stdout: no banner, no line over the reader's limit).
	RuleJSONRPCOnly WireRule = "jsonrpc-only"
	// RuleUTF8: every frame is UTF-8.
	RuleUTF8 WireRule = "utf8"
	// RuleJSONRPCVersion: every message has "jsonrpc": "2.0".
	RuleJSONRPCVersion WireRule = "jsonrpc-version"
	// RuleRequestID: a request has a string or integer id, never null.
	RuleRequestID WireRule = "request-id"
	// RuleResponseID: a response answers a request the client sent: its id
	// is, as a JSON value, the id of one of the session's requests.
	RuleResponseID WireRule = "response-id"
	// RuleOneResponse: one response per request, never a second one.
	RuleOneResponse WireRule = "one-response"
	// RuleNegotiatedCapabilities: sampling, elicitation and roots requests
	// only to a client that declared the capability.
	RuleNegotiatedCapabilities WireRule = "negotiated-capabilities"
	// RuleNegotiatedVersion: nothing of a newer version than the session's
	// (a method its schema lacks, a capability its initialize result lacks)
	// where a newer version's schema has it.
	RuleNegotiatedVersion WireRule = "negotiated-version"
	// RuleContentType: an HTTP answer that carries JSON-RPC has Content-Type
	// application/json or text/event-stream.
	RuleContentType WireRule = "content-type"
	// RuleWSTextFrames: one message per WebSocket text frame.
	RuleWSTextFrames WireRule = "ws-text-frames"
	// RuleWSSubprotocol: the WebSocket handshake selects subprotocol "mcp".
	RuleWSSubprotocol WireRule = "ws-subprotocol"
)

// WireRules lists every rule, in the order the checks are listed.
var WireRules = []WireRule{RuleJSONRPCOnly, RuleUTF8, RuleJSONRPCVersion, RuleRequestID, RuleResponseID, RuleOneResponse,
	RuleNegotiatedCapabilities, RuleNegotiatedVersion, RuleContentType, RuleWSTextFrames, RuleWSSubprotocol}

// WireBreach is one frame (or transport fact) that broke a wire rule.
type WireBreach struct {
	Rule WireRule
	What string // what was seen: "a line that is not JSON", "jsonrpc is \"1.0\" in the result of tools/list"
	Raw  []byte // the start of the frame, at most WireRawKeep bytes; nil for transport facts
	// Also counts further breaches of the same rule in this session that
	// were not kept (on the last kept breach of the rule only).
	Also int
}

// WireBreachKeep is how many breaches of each rule a session keeps; the
// rest are counted.
const WireBreachKeep = 10

// WireRawKeep is how much of a frame a breach keeps.
const WireRawKeep = 200

// capabilityOf maps the server-to-client requests to the client capability
// each needs (2025-11-25/client/sampling.mdx, elicitation.mdx, roots.mdx).
var capabilityOf = map[string]string{
	protocol.MethodSamplingCreateMessage: "sampling",
	protocol.MethodElicitationCreate:     "elicitation",
	protocol.MethodRootsList:             "roots",
}

// wireLog keeps what a session saw that breaks the wire rules, bounded per
// rule.
type wireLog struct {
	mu     sync.Mutex
	kept   map[WireRule][]WireBreach
	counts map[WireRule]int
	// declared is the client capabilities the session declared (initialize
	// params, or the per-request _meta of stateless versions); nil before.
	declared map[string]any
	sent     bool // the session declared its capabilities
	// requests counts the session's own requests by id (jsonrpc.ID.Key),
	// answers the responses to them; methods names each id's first request.
	requests, answers map[string]int
	methods           map[string]string
	// untracked is set once requests holds maxTrackedIDs ids: a response
	// to an id not among them is no longer judged a stray.
	untracked bool
}

// maxTrackedIDs bounds the request ids a session remembers.
const maxTrackedIDs = 100_000

func (w *wireLog) add(rule WireRule, what string, raw []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kept == nil {
		w.kept, w.counts = map[WireRule][]WireBreach{}, map[WireRule]int{}
	}
	w.counts[rule]++
	if len(w.kept[rule]) >= WireBreachKeep {
		return
	}
	if len(raw) > WireRawKeep {
		raw = raw[:WireRawKeep]
	}
	// what can quote target text of any size (a method, an id).
	what = string(jsonrpc.CutEntry([]byte(what), 1<<10))
	w.kept[rule] = append(w.kept[rule], WireBreach{Rule: rule, What: what, Raw: bytes.Clone(raw)})
}

func (w *wireLog) all() []WireBreach {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []WireBreach
	for _, rule := range WireRules {
		kept := w.kept[rule]
		for i, b := range kept {
			if i == len(kept)-1 {
				b.Also = w.counts[rule] - len(kept)
			}
			out = append(out, b)
		}
	}
	return out
}

// declare records the capabilities the session declares to the server.
func (w *wireLog) declare(caps map[string]any) {
	w.mu.Lock()
	w.declared, w.sent = caps, true
	w.mu.Unlock()
}

func (w *wireLog) declaredCapability(name string) (map[string]any, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sent {
		return nil, false
	}
	v, ok := w.declared[name]
	if !ok {
		return nil, false
	}
	m, _ := v.(map[string]any)
	return m, true
}

// noteSent records the ids of the requests in a frame the session sends
// (a request, a batch of them, or a frame broken on purpose that carries an
// id and no result or error: a server may answer it with that id). It runs
// before the frame is written, so no answer can come first.
func (w *wireLog) noteSent(frame []byte) {
	trimmed := bytes.TrimSpace(frame)
	var objects []map[string]json.RawMessage
	switch {
	case len(trimmed) > 0 && trimmed[0] == '{':
		var one map[string]json.RawMessage
		if json.Unmarshal(trimmed, &one) != nil {
			return
		}
		objects = append(objects, one)
	case len(trimmed) > 0 && trimmed[0] == '[':
		if json.Unmarshal(trimmed, &objects) != nil {
			return
		}
	default:
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range objects {
		id, hasID := o["id"]
		_, hasMethod := o["method"]
		_, hasResult := o["result"]
		_, hasError := o["error"]
		if !hasID || (!hasMethod && (hasResult || hasError)) {
			continue // a notification, or our answer to the server
		}
		key := jsonrpc.ID(id).Key()
		if w.requests == nil {
			w.requests, w.answers, w.methods = map[string]int{}, map[string]int{}, map[string]string{}
		}
		if _, known := w.requests[key]; !known && len(w.requests) >= maxTrackedIDs {
			w.untracked = true
			continue
		}
		w.requests[key]++
		if _, named := w.methods[key]; !named {
			var method string
			_ = json.Unmarshal(o["method"], &method)
			w.methods[key] = string(jsonrpc.CutEntry([]byte(method), 200))
		}
	}
}

// answered judges one response from the server: it must answer a request
// of the session, and no request more often than it was sent. An error
// with id null answers a request whose id could not be read
// (2025-11-25/basic/index.mdx#error-responses) and is not judged here.
func (w *wireLog) answered(id json.RawMessage, isError bool, frame []byte) (method string) {
	rid := jsonrpc.ID(id)
	key := rid.Key()
	if rid.IsNull() && isError {
		return ""
	}
	kind, a := "result", "a"
	if isError {
		kind, a = "error response", "an"
	}
	w.mu.Lock()
	sent := w.requests[key]
	method = w.methods[key]
	untracked := w.untracked
	if sent > 0 {
		w.answers[key]++
	}
	again := sent > 0 && w.answers[key] > sent
	w.mu.Unlock()
	switch {
	case sent == 0 && !untracked:
		w.add(RuleResponseID, fmt.Sprintf("%s %s with id %s, which is the id of no request the client sent", a, kind, id), frame)
	case again:
		w.add(RuleOneResponse, fmt.Sprintf("a second %s to the request %s with id %s (answered already)", kind, method, id), frame)
	}
	return method
}

// note turns what the transport saw into a breach.
func (w *wireLog) note(n transport.WireNote) {
	rule, ok := map[transport.WireNoteKind]WireRule{
		transport.NoteContentType:  RuleContentType,
		transport.NoteBinaryFrame:  RuleWSTextFrames,
		transport.NoteSubprotocol:  RuleWSSubprotocol,
		transport.NoteOverlongLine: RuleJSONRPCOnly,
	}[n.Kind]
	if ok {
		w.add(rule, n.Detail, nil)
	}
}

// WireBreaches lists what the server sent in this session that breaks the
// wire rules: the first WireBreachKeep of each rule, the last of them
// counting the rest (Also). Over stdio this includes the lines the
// transport discarded for exceeding its length limit (NoteOverlongLine).
func (s *Session) WireBreaches() []WireBreach {
	return s.wire.all()
}

// classify is the read loop's decoder: it judges every frame the server
// sends against the wire rules (the answers to our own requests included,
// and before the handshake too), then decodes it as usual.
func (s *Session) classify(frame []byte) (*jsonrpc.Message, int) {
	s.inspect(frame)
	return peer.Decode(frame)
}

// inspect records the wire rules a frame breaks.
func (s *Session) inspect(frame []byte) {
	if !utf8.Valid(frame) {
		s.wire.add(RuleUTF8, fmt.Sprintf("a frame that is not valid UTF-8 (the first invalid byte at offset %d)", invalidUTF8At(frame)), frame)
	}
	trimmed := bytes.TrimSpace(frame)
	if !json.Valid(trimmed) {
		if jsonrpc.TooDeep(trimmed) {
			// JSON all the same (RFC 8259 section 9 lets a parser limit
			// nesting, and MCP sets no limit): the decoder's limit is this
			// client's, not a breach by the server.
			s.opts.Transcript.Eventf(s.opts.Label, "a frame the server sent is %v: it cannot be read here, and the wire rules do not judge it", jsonrpc.ErrTooDeep)
			return
		}
		what := "a frame that is not JSON"
		if s.kind.ProcessesPerSession() > 0 {
			what = "a line on stdout that is not JSON"
		}
		s.wire.add(RuleJSONRPCOnly, what, frame)
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		if trimmed[0] == '[' && protocol.Features(s.opts.Version).Batches && isBatch(trimmed) {
			return // a JSON-RPC batch, which 2025-03-26 allows
		}
		s.wire.add(RuleJSONRPCOnly, "JSON that is not a JSON-RPC message object", frame)
		return
	}
	method, hasMethod := fields["method"]
	id, hasID := fields["id"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	var name string
	switch {
	case hasMethod && json.Unmarshal(method, &name) != nil:
		s.wire.add(RuleJSONRPCOnly, fmt.Sprintf("a message whose method is %s, not a string", method), frame)
		return
	case hasMethod:
	case hasResult && hasError:
		s.wire.add(RuleJSONRPCOnly, "a response with both result and error", frame)
		return
	case hasResult && !hasID:
		s.wire.add(RuleJSONRPCOnly, "a result without an id", frame)
		return
	case !hasResult && !hasError:
		s.wire.add(RuleJSONRPCOnly, "a JSON object that is neither a request, a notification nor a response", frame)
		return
	}
	// A request, a notification or a response.
	what := describeFields(fields)
	if v, ok := fields["jsonrpc"]; !ok {
		s.wire.add(RuleJSONRPCVersion, "no jsonrpc member in the "+what, frame)
	} else if version := ""; json.Unmarshal(v, &version) != nil || version != jsonrpc.Version {
		s.wire.add(RuleJSONRPCVersion, fmt.Sprintf("jsonrpc is %s in the %s", v, what), frame)
	}
	if !hasMethod && hasID {
		if s.wire.answered(id, hasError, frame) == protocol.MethodInitialize && hasResult {
			s.judgeDeclaredVersion(fields["result"], frame)
		}
	}
	if hasMethod {
		if since := protocol.NewerThan(s.opts.Version, name); since != "" {
			s.wire.add(RuleNegotiatedVersion, fmt.Sprintf("%s, which %s does not have (it came with %s)", name, s.opts.Version, since), frame)
		}
	}
	if !hasMethod || !hasID {
		return
	}
	// A request from the server.
	if !jsonrpc.ID(id).Valid() {
		s.wire.add(RuleRequestID, fmt.Sprintf("the request %s has id %s", name, id), frame)
	}
	if capability, ok := capabilityOf[name]; ok {
		s.judgeCapability(name, capability, fields["params"], frame)
	}
}

// judgeCapability records a request for a client capability the session
// did not declare (2025-11-25/basic/lifecycle.mdx#operation), and an
// elicitation in a mode the client did not declare
// (2025-11-25/client/elicitation.mdx#capabilities: an empty elicitation
// capability means form mode only).
func (s *Session) judgeCapability(method, capability string, params json.RawMessage, frame []byte) {
	declared, ok := s.wire.declaredCapability(capability)
	if !ok {
		s.wire.add(RuleNegotiatedCapabilities, fmt.Sprintf("%s sent to a client that did not declare the %s capability", method, capability), frame)
		return
	}
	if f := protocol.Features(s.opts.Version); method != protocol.MethodElicitationCreate || !f.ElicitationModes || f.Era != protocol.Stateful {
		return
	}
	var p protocol.ElicitParams
	_ = json.Unmarshal(params, &p)
	if p.Mode == "" {
		p.Mode = "form"
	}
	_, form := declared["form"]
	_, url := declared["url"]
	if !form && !url {
		form = true
	}
	if (p.Mode == "form" && !form) || (p.Mode == "url" && !url) {
		s.wire.add(RuleNegotiatedCapabilities, fmt.Sprintf("elicitation/create in %s mode sent to a client whose elicitation capability does not declare it", p.Mode), frame)
	}
}

// judgeDeclaredVersion records the capabilities an initialize result
// declares that the negotiated version's schema lacks and a newer one has
// (2025-11-25/basic/lifecycle.mdx#operation: "Respect the negotiated
// protocol version"): two levels deep, as the schemas type them.
func (s *Session) judgeDeclaredVersion(result json.RawMessage, frame []byte) {
	var r struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	} // read by hand: only the two levels of capability keys matter here
	if json.Unmarshal(result, &r) != nil {
		return // the wire-schema check judges a result that is no object
	}
	version := s.opts.Version
	if v, ok := protocol.Lookup(r.ProtocolVersion); ok && v.Judged {
		version = v.Name
	}
	var newer []string
	for _, k := range slices.Sorted(maps.Keys(r.Capabilities)) {
		if since := protocol.NewerThan(version, protocol.MethodInitialize, "capabilities", k); since != "" {
			newer = append(newer, fmt.Sprintf("%s (%s)", k, since))
			continue
		}
		var sub map[string]json.RawMessage
		if json.Unmarshal(r.Capabilities[k], &sub) != nil {
			continue
		}
		for _, k2 := range slices.Sorted(maps.Keys(sub)) {
			if since := protocol.NewerThan(version, protocol.MethodInitialize, "capabilities", k, k2); since != "" {
				newer = append(newer, fmt.Sprintf("%s.%s (%s)", k, k2, since))
			}
		}
	}
	if len(newer) > 0 {
		s.wire.add(RuleNegotiatedVersion, fmt.Sprintf("the initialize result at %s declares capabilities of newer versions: %s",
			version, strings.Join(newer, ", ")), frame)
	}
}

// watchSent is the session's connection as the peer writes to it: every
// frame is noted (noteSent) before it is written.
type watchSent struct {
	transport.Conn
	wire *wireLog
}

func (c watchSent) Send(ctx context.Context, frame []byte) error {
	c.wire.noteSent(frame)
	return c.Conn.Send(ctx, frame)
}

// Unwrap gives access to the transport's optional interfaces.
func (c watchSent) Unwrap() transport.Conn { return c.Conn }

// watchSentHeaders is watchSent on a connection that sends with header
// overrides (HTTP): a frame sent that way, by the session or by a scenario
// that finds the method on the session's connection, is noted too.
type watchSentHeaders struct {
	watchSent
	hs headerSender
}

func (c watchSentHeaders) SendWithHeaders(ctx context.Context, frame []byte, h http.Header) error {
	c.wire.noteSent(frame)
	return c.hs.SendWithHeaders(ctx, frame, h)
}

// watchSends wraps the session's (recorded) connection so that every frame
// it sends is noted first.
func watchSends(c transport.Conn, w *wireLog) transport.Conn {
	ws := watchSent{Conn: c, wire: w}
	if hs, ok := transport.As[headerSender](c); ok {
		return watchSentHeaders{watchSent: ws, hs: hs}
	}
	return ws
}

// noteDeclared records the capabilities a request declares: the params of
// initialize, or the per-request _meta of stateless versions.
func (s *Session) noteDeclared(method string, params json.RawMessage) {
	if len(params) == 0 {
		return
	}
	// Params that are no object, or whose capabilities or _meta are none,
	// declare nothing.
	var meta protocol.Meta
	var initParams protocol.InitializeParams
	var caps map[string]any
	if json.Unmarshal(params, &meta) != nil {
		return
	}
	if _ = json.Unmarshal(params, &initParams); initParams.Capabilities != nil && json.Unmarshal(initParams.Capabilities, &caps) != nil {
		return
	}
	if method == protocol.MethodInitialize {
		s.wire.declare(caps)
		return
	}
	var perRequest map[string]any
	if json.Unmarshal(meta.Meta[protocol.MetaClientCapabilities], &perRequest) == nil && perRequest != nil {
		s.wire.declare(perRequest)
	}
}

// describeFields names a message for the report by its members.
func describeFields(fields map[string]json.RawMessage) string {
	var method string
	_ = json.Unmarshal(fields["method"], &method)
	_, hasID := fields["id"]
	switch {
	case method != "" && hasID:
		return "request " + method
	case method != "":
		return "notification " + method
	case fields["error"] != nil:
		return "error response"
	default:
		return "result"
	}
}

// isBatch reports a JSON array of JSON-RPC objects.
func isBatch(b []byte) bool {
	var items []map[string]json.RawMessage
	return json.Unmarshal(b, &items) == nil && len(items) > 0
}

// invalidUTF8At is the offset of the first byte that is not UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}
