package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// ReferenceOptions configure the reference server.
type ReferenceOptions struct {
	// Variant is one of Faults() or Liberties(); nil serves the
	// reference itself.
	Variant    *fault.Fault
	Transcript *jsonrpc.Transcript
	// HoldTaskRequests delivers a task's own requests (its elicitation)
	// only on a pending tasks/result, as the TypeScript SDK does, instead
	// of at once. Both are conformant (tasks.mdx#input-required-status);
	// the variant proves the fake client copes with either.
	HoldTaskRequests bool
	// OnOwnInvalid is told of every message the reference sends that the
	// schema of the version in use refuses (peer.Guard), a deliberate one
	// of the variant's (fault.Fault.Invalid) included with its Deviation.
	// Nil writes those that are not deliberate to stderr (peer.HarnessMarker),
	// where the run that judges a reference process finds them.
	OnOwnInvalid func(peer.OwnInvalid)
}

// Reference identity.
const (
	ReferenceName    = "mcpconform-reference"
	ReferenceVersion = "0.1.0"
)

var (
	// Methods that exist only in the legacy, session-based versions
	// (2026-07-28/basic/transports/streamable-http.mdx answers them -32601).
	legacyOnlyMethods = []string{protocol.MethodInitialize, protocol.MethodPing, "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)

// reference is the core of the reference server: what every family shares
// (the variant, the versions it implements), the tasks v1 store, and the
// handlers of the lifecycle, the core's tools and the wire. Each family is
// a type of its own that embeds it (reference_families.go).
type reference struct {
	fault *fault.Fault
	hold  bool
	// The versions this variant implements, newest first.
	stateful, stateless []string
	tasks               *taskStore
	// families are this reference's own (reference_families.go); tools are
	// the fixture tools it lists, the core's then the families'.
	families []family
	tools    []refTool
}

// modernKey marks a request served under 2026-07-28 rules.
type modernKey struct{}

func isModern(ctx context.Context) bool { v, _ := ctx.Value(modernKey{}).(bool); return v }

// NewReference builds the conformant reference server, or one of its faults.
// It serves both eras: an initialize request selects the legacy rules for
// that connection, a request carrying per-request _meta the 2026-07-28 rules.
func NewReference(opts ReferenceOptions) (*Engine, error) {
	if opts.Variant != nil && !slices.Contains(Variants(), opts.Variant) {
		return nil, fmt.Errorf("%s %q is not one of the reference server's", opts.Variant.Kind(), opts.Variant.Name)
	}
	r := &reference{fault: opts.Variant, hold: opts.HoldTaskRequests}
	r.stateful, r.stateless = implementedVersions(opts.Variant)
	r.tasks = newTaskStore(r)
	r.buildFamilies()
	e := &Engine{
		Transcript: opts.Transcript,
		Requests: map[string]Handler{
			protocol.MethodInitialize:     r.initialize,
			protocol.MethodPing:           r.ping,
			protocol.MethodServerDiscover: r.discover,
			protocol.MethodToolsList:      r.toolsList,
			protocol.MethodToolsCall:      r.toolsCall,
			protocol.MethodTasksGet:       r.tasks.get,
			protocol.MethodTasksResult:    r.tasks.result,
			protocol.MethodTasksList:      r.tasks.list,
			protocol.MethodTasksCancel:    r.tasks.cancel,
		},
		Notifications: map[string]NotificationHandler{
			protocol.NotificationInitialized: func(ctx context.Context, p *Peer, _ *jsonrpc.Message) {
				p.Set("initialized", true)
				if v, _ := p.Get("version").(string); r.is(NewerNotificationSent) && !protocol.Features(v).Defines(protocol.NotificationElicitationComplete) {
					_ = p.Notify(ctx, protocol.NotificationElicitationComplete, map[string]any{"elicitationId": "mcpconform-newer-1"})
				}
			},
			protocol.NotificationCancelled: func(context.Context, *Peer, *jsonrpc.Message) {},
		},
		OtherNotifications: r.otherNotification,
		NotFound:           r.notFound,
		OnInvalid:          r.invalid,
		Outgoing:           r.outgoing,
		OnPeer:             r.tasks.addPeer,
		OnPeerDone:         r.tasks.removePeer,
		OnStrayResponse:    r.strayResponse,
		RespondAfterCancel: opts.Variant == RespondsAfterCancel,
		NumericIDs:         opts.Variant == IntegerRequestIDs,
	}
	r.familyHandlers(e.Requests)
	r.familyNotifications(e.Notifications)
	e.WrapConn = r.wrapConn
	e.Guard = func(p *Peer) *peer.Guard { return r.guard(p, opts.OnOwnInvalid) }
	e.Middleware = func(next Handler) Handler { return r.middleware(r.familyLayers(next)) }
	if r.is(RefusesUnknownNotifications) {
		e.RefuseNotification = func(method string) *jsonrpc.Error {
			if _, known := e.Notifications[method]; known {
				return nil
			}
			return rpcError(codes.MethodNotFound, "Unknown notification: "+method, nil)
		}
	}
	return e, nil
}

func (r *reference) is(f *fault.Fault) bool { return r.fault == f }

// guard holds what the reference sends on one connection to the schema of
// the version in use there: an answer's is the version of the request it
// answers (the per-request _meta of 2026-07-28, else the version the
// connection's initialize negotiated), anything else the connection's.
func (r *reference) guard(p *Peer, report func(peer.OwnInvalid)) *peer.Guard {
	if report == nil {
		report = func(o peer.OwnInvalid) {
			if o.Deviation == nil {
				fmt.Fprintln(os.Stderr, o.Line())
			}
		}
	}
	return &peer.Guard{
		Version: func(o peer.Outbound) string {
			if o.Answering != nil {
				if meta, ok := requestMeta(o.Answering); ok {
					var v string
					if _ = json.Unmarshal(meta[protocol.MetaProtocolVersion], &v); slices.Contains(r.stateless, v) {
						return v
					}
					if v != "" {
						return "" // refused: its error is judged by shape only
					}
				}
			}
			if v, ok := p.Get("version").(string); ok {
				return v
			}
			v, _ := p.Get("modernVersion").(string)
			return v
		},
		Exempt: func(o peer.Outbound) *peer.Deviation { return deviation(r.fault, o.What()) },
		Report: report,
	}
}

func rpcError(code int, msg string, data any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: code, Message: msg}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// requestMeta reads params._meta.
func requestMeta(req *jsonrpc.Message) (map[string]json.RawMessage, bool) {
	var params protocol.Meta
	if len(req.Params) == 0 || json.Unmarshal(req.Params, &params) != nil || params.Meta == nil {
		return nil, false
	}
	return params.Meta, true
}

func (r *reference) middleware(next Handler) Handler {
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		fireArmed(p)
		r.beforeFirstAnswer(ctx, p)
		meta, _ := requestMeta(req)
		rawVersion, modern := meta[protocol.MetaProtocolVersion]
		if !modern {
			return r.legacyGate(ctx, p, req, next)
		}
		var version string
		_ = json.Unmarshal(rawVersion, &version)
		if r.is(DiscoverAnyVersion) && req.Method == protocol.MethodServerDiscover && p.Header() == nil {
			version = protocol.V20260728 // the stdio probe: answered whatever version it declares
		}
		if slices.Contains(r.stateful, version) && !slices.Contains(r.stateless, version) {
			// A version it implements, but through initialize, is no
			// unsupported version: -32022 would refuse a version its own
			// supported list names. server/discover says what it supports;
			// anything else is a request outside a session.
			if req.Method == protocol.MethodServerDiscover {
				return next(ctx, p, req)
			}
			return r.legacyGate(ctx, p, req, next)
		}
		if !slices.Contains(r.stateless, version) && !r.discoversUnimplemented(req) {
			supported := append(append([]string(nil), r.stateless...), r.stateful...)
			if r.is(UnsupportedVersionWrongCode) {
				return nil, rpcError(codes.InvalidParams, "Unsupported protocol version", map[string]any{"supported": supported, "requested": version})
			}
			return nil, rpcError(codes.UnsupportedProtocolVersion, "Unsupported protocol version",
				map[string]any{"supported": supported, "requested": version})
		}
		if _, ok := meta[protocol.MetaClientCapabilities]; !ok && !r.is(MissingMetaAccepted) {
			return nil, r.metaRefusal(p, req, protocol.MetaClientCapabilities)
		}
		if _, ok := meta[protocol.MetaClientInfo]; !ok && r.is(ClientInfoRequired) {
			return nil, r.metaRefusal(p, req, protocol.MetaClientInfo)
		}
		if h := p.Header(); h != nil {
			if got := h.Get("MCP-Protocol-Version"); r.is(VersionHeaderUnsupportedFirst) && got != "" && got != version &&
				!slices.Contains(r.stateless, got) && !slices.Contains(r.stateful, got) {
				supported := append(append([]string(nil), r.stateless...), r.stateful...)
				return nil, rpcError(codes.UnsupportedProtocolVersion, "Unsupported protocol version",
					map[string]any{"supported": supported, "requested": got})
			}
			if r.is(UnknownToolFirst) && req.Method == protocol.MethodToolsCall {
				if name := nameOf(req); r.findTool(name) == nil {
					return nil, rpcError(codes.InvalidParams, "Unknown tool: "+name, nil)
				}
			}
			if msg := r.headerMismatch(h, version, req); msg != "" {
				return nil, rpcError(codes.HeaderMismatch, "Header mismatch: "+msg, nil)
			}
		}
		if slices.Contains(legacyOnlyMethods, req.Method) && (req.Method == protocol.MethodInitialize || !r.is(RemovedMethodsServed)) {
			return r.notFound(ctx, p, req)
		}
		p.Set("modernVersion", version)
		return next(context.WithValue(ctx, modernKey{}, true), p, req)
	}
}

// metaRefusalKey marks, in a connection's State, the id of the
// server/discover refusal the fault meta-refusal-without-id sends without it.
const metaRefusalKey = "metaRefusalWithoutID"

// metaRefusal is the -32602 of a 2026-07-28 request that lacks a required
// _meta field (basic/index.mdx#meta).
func (r *reference) metaRefusal(p *Peer, req *jsonrpc.Message, field string) *jsonrpc.Error {
	if r.is(MetaRefusalWithoutID) && req.Method == protocol.MethodServerDiscover {
		p.Set(metaRefusalKey, req.ID.Key())
	}
	return rpcError(codes.InvalidParams, "Missing required _meta field "+field, nil)
}

// legacyGate refuses requests before initialize (2025-11-25/basic/lifecycle.mdx#initialization).
func (r *reference) legacyGate(ctx context.Context, p *Peer, req *jsonrpc.Message, next Handler) (any, *jsonrpc.Error) {
	switch req.Method {
	case protocol.MethodInitialize:
		if refusal := r.refuseNegotiation(req); refusal != nil {
			return nil, refusal
		}
		return next(ctx, p, req)
	case protocol.MethodPing:
		return next(ctx, p, req)
	case protocol.MethodServerDiscover:
		switch {
		case r.is(DiscoverWithoutVersionServed):
			return next(ctx, p, req)
		case r.is(DiscoverWithoutVersionLegacy) && p.Header() == nil:
			return r.notFound(ctx, p, req) // a legacy server knows no server/discover
		}
		return nil, r.metaRefusal(p, req, protocol.MetaProtocolVersion)
	}
	if p.Get("version") == nil && !r.is(ServesBeforeInitialize) && !r.is(ServesWithoutInitialize) {
		if r.is(SilentBeforeInitialize) {
			return peer.NoAnswer, nil
		}
		return nil, rpcError(codes.InvalidRequest, "Server not initialized: send initialize first", nil)
	}
	return next(ctx, p, req)
}

// refuseNegotiation is the error of the variants that answer initialize
// with an unsupported version by refusing it rather than negotiating
// another (lifecycle.mdx#version-negotiation, and its error example); nil
// lets initialize negotiate.
func (r *reference) refuseNegotiation(req *jsonrpc.Message) *jsonrpc.Error {
	if !r.is(NegotiationWrongError) && !r.is(NegotiationErrorSupported) {
		return nil
	}
	var params protocol.InitializeVersion
	supported := r.stateful
	if json.Unmarshal(req.Params, &params) != nil || params.ProtocolVersion == "" || slices.Contains(supported, params.ProtocolVersion) {
		return nil
	}
	if r.is(NegotiationWrongError) {
		return rpcError(codes.InternalError, "Initialization failed", nil)
	}
	return rpcError(codes.InvalidParams, "Unsupported protocol version",
		map[string]any{"supported": supported, "requested": params.ProtocolVersion})
}

// headerMismatch compares the 2026-07-28 standard headers with the body.
func (r *reference) headerMismatch(h http.Header, version string, req *jsonrpc.Message) string {
	if got := h.Get("MCP-Protocol-Version"); got != version && (got == "" || !r.is(VersionHeaderUnchecked)) {
		return "MCP-Protocol-Version header " + quote(got) + " does not match _meta " + quote(version)
	}
	if r.is(HeaderMismatchAccepted) {
		return ""
	}
	if got := h.Get("Mcp-Method"); got != req.Method && !(r.is(MethodHeaderUncheckedOnTasks) && (isTasksMethod(got) || isTasksMethod(req.Method))) {
		return "Mcp-Method header " + quote(got) + " does not match method " + quote(req.Method)
	}
	if want := nameOf(req); want != "" {
		v := h.Get("Mcp-Name")
		if !r.is(HeaderValueUntrimmed) { // its front passes the value on as it came
			v = strings.TrimSpace(v)
		}
		if got := decodedName(r, v); got != want {
			return "Mcp-Name header " + quote(got) + " does not match " + quote(want)
		}
	}
	return ""
}

func quote(s string) string { return "'" + s + "'" }

// isTasksMethod reports a method of the tasks extension (tasks/get, …).
func isTasksMethod(method string) bool { return strings.HasPrefix(method, "tasks/") }

// nameOf is the body value the Mcp-Name header mirrors.
func nameOf(req *jsonrpc.Message) string {
	switch {
	case req.Method == protocol.MethodToolsCall || req.Method == protocol.MethodPromptsGet:
		var p protocol.NamedArgumentsParams
		_ = json.Unmarshal(req.Params, &p)
		return p.Name
	case req.Method == protocol.MethodResourcesRead:
		var p protocol.ReadResourceParams
		_ = json.Unmarshal(req.Params, &p)
		return p.URI
	case strings.HasPrefix(req.Method, "tasks/"):
		var p protocol.RelatedTask
		_ = json.Unmarshal(req.Params, &p)
		return p.TaskID
	}
	return ""
}

func (r *reference) notFound(_ context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(UnknownMethodInvalidRequest) {
		return nil, rpcError(codes.InvalidRequest, "Invalid request: "+req.Method, nil)
	}
	return nil, rpcError(codes.MethodNotFound, "Method not found: "+req.Method, nil)
}

func (r *reference) otherNotification(ctx context.Context, p *Peer, msg *jsonrpc.Message) {
	if r.is(AnswersNotifications) {
		p.ReplyError(ctx, jsonrpc.ID("null"), codes.MethodNotFound, "Method not found: "+msg.Method, nil)
	}
}

func (r *reference) invalid(ctx context.Context, p *Peer, frame []byte, code int) {
	switch {
	case code == codes.ParseError && r.is(ParseErrorSilent):
		return
	case code == codes.InvalidRequest && r.is(InvalidRequestWrongCode):
		code = codes.InternalError
	case code == codes.ParseError && r.is(ParseErrorWrongCode),
		code == codes.InvalidRequest && r.is(InvalidRequestInvalidParams):
		code = codes.InvalidParams
	}
	p.ReplyError(ctx, idOf(frame), code, invalidMessage(code), nil)
	if code == codes.ParseError && r.is(CrashOnMalformedJson) {
		p.Close()
	}
}

func (r *reference) outgoing(p *Peer, msg *jsonrpc.Message) *jsonrpc.Message {
	msg = r.wireFaultOutgoing(p, msg)
	if msg.Error != nil && !msg.ID.IsZero() && r.is(MetaRefusalWithoutID) && p.Get(metaRefusalKey) == msg.ID.Key() {
		msg.ID = nil
	}
	if r.is(IdNumericStringUnquoted) && msg.Method == "" {
		var s string
		if json.Unmarshal(msg.ID, &s) == nil && s != "" && strings.Trim(s, "0123456789") == "" {
			msg.ID = jsonrpc.ID(s)
		}
	}
	if r.is(EscapesNonASCIIIds) && msg.Method == "" && strings.HasPrefix(msg.ID.Key(), `"`) {
		var s string
		if json.Unmarshal(msg.ID, &s) == nil {
			msg.ID = asciiJSONString(s)
		}
	}
	return msg
}

// asciiJSONString writes s as a JSON string with every non-ASCII character
// escaped as \uXXXX (a surrogate pair beyond the BMP), the way Python's
// json.dumps writes strings by default.
func asciiJSONString(s string) jsonrpc.ID {
	b, _ := json.Marshal(s)
	var out []byte
	for _, c := range string(b) {
		switch {
		case c < utf8.RuneSelf:
			out = append(out, byte(c))
		case c > 0xFFFF:
			hi, lo := utf16.EncodeRune(c)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		default:
			out = fmt.Appendf(out, `\u%04x`, c)
		}
	}
	return jsonrpc.ID(out)
}

// capabilities for a negotiated version: tasks exist from 2025-11-25 on
// (2025-11-25/basic/utilities/tasks.mdx#server-capabilities).
func (r *reference) capabilities(version string) map[string]any {
	caps := map[string]any{"tools": map[string]any{"listChanged": false}}
	if protocol.Features(version).TasksV1 || r.is(NewerCapabilityDeclared) {
		caps["tasks"] = map[string]any{
			"list": map[string]any{}, "cancel": map[string]any{},
			"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
		}
	}
	r.familyCapabilities(version, caps)
	return caps
}

func (r *reference) strayResponse(p *Peer, _ *jsonrpc.Message) {
	if r.is(CrashOnLateAnswer) {
		p.Close()
	}
}

func serverInfo() map[string]any {
	return map[string]any{"name": ReferenceName, "version": ReferenceVersion}
}

func (r *reference) initialize(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.InitializeOffer
	if err := json.Unmarshal(req.Params, &params); err != nil || params.ProtocolVersion == "" {
		return nil, rpcError(codes.InvalidParams, "initialize needs protocolVersion, capabilities and clientInfo", nil)
	}
	version := params.ProtocolVersion
	if len(r.stateful) == 0 {
		// A modern-only server "SHOULD name the protocol versions it
		// supports in any error it returns to an initialize request"
		// (2026-07-28/basic/versioning.mdx). A version it implements,
		// without initialize, is no unsupported version: -32022 would
		// refuse a version its own supported list names.
		data := map[string]any{"supported": append([]string(nil), r.stateless...), "requested": version}
		if slices.Contains(r.stateless, version) {
			return nil, rpcError(codes.MethodNotFound, "Method not found: initialize is no method of "+version+"; send requests with per-request _meta", data)
		}
		return nil, rpcError(codes.UnsupportedProtocolVersion, "Unsupported protocol version: this server implements no initialize-era version", data)
	}
	switch {
	case r.is(NegotiationEchoesUnsupported):
	case !slices.Contains(r.stateful, version):
		version = r.stateful[0] // the latest we support (lifecycle.mdx#version-negotiation)
	case r.is(InitUnknownVersion):
		version = "2025-13-45"
	case r.is(InitWrongVersion):
		version = "2025-03-26"
		if params.ProtocolVersion == version {
			version = "2025-06-18"
		}
	}
	p.Set("version", version)
	p.Set("clientCapabilities", params.Capabilities)
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    r.capabilities(version),
		"serverInfo":      serverInfo(),
	}
	if r.is(InitMissingCapabilities) {
		delete(result, "capabilities")
	}
	return result, nil
}

func (r *reference) ping(context.Context, *Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(PingError) {
		return nil, rpcError(codes.InternalError, "ping failed", nil)
	}
	return map[string]any{}, nil
}

func (r *reference) discover(context.Context, *Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
	result := map[string]any{
		"resultType":        "complete",
		"supportedVersions": append(append([]string(nil), r.stateless...), r.stateful...),
		"capabilities":      r.capabilities(protocol.V20260728),
		"_meta":             map[string]any{protocol.MetaServerInfo: serverInfo()},
		"ttlMs":             0,
		"cacheScope":        "public",
	}
	if r.is(DiscoverMissingVersions) {
		delete(result, "supportedVersions")
	}
	if r.is(DiscoverNoServerInfo) {
		delete(result, "_meta")
	}
	return result, nil
}

// complete adds resultType to results served under 2026-07-28 rules.
func complete(ctx context.Context, result map[string]any) map[string]any {
	if isModern(ctx) {
		result["resultType"] = "complete"
	}
	return result
}
