package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The stateless family's part of the reference server (2026-07-28): the
// rules every result of a modern request keeps whichever family serves it
// (caching hints on the cacheable results, serverInfo in _meta, -32602 for a
// resource not found, logLevel validated), the resources, prompts and
// logging capabilities at 2026-07-28, and for the HTTP faults and liberties
// a front that bends one rule of the reference's Streamable HTTP server.

// statelessFamily has no state of its own: a 2026-07-28 request carries
// what it needs (the fault that remembers keeps it on the connection).
type statelessFamily struct{ familyBase }

func newStatelessFamily(r *reference) family { return &statelessFamily{familyBase{r}} }

func (*statelessFamily) capabilities(version string, caps map[string]any) {
	if !protocol.IsStateless(version) {
		return
	}
	// The other families serve these at 2026-07-28 too; the stateless
	// family judges their modern rules (caching, resources not found,
	// logging by request). Prompts and completion declare themselves
	// at every version.
	for _, c := range []string{"resources", "logging"} {
		if _, ok := caps[c]; !ok {
			caps[c] = map[string]any{}
		}
	}
}

func (r *statelessFamily) tools() []refTool {
	return []refTool{{name: fixtures.XMcpHeader,
		description: "Echoes its region; over Streamable HTTP at 2026-07-28 the client mirrors region into Mcp-Param-Region (x-mcp-header).",
		schema: map[string]any{"type": "object", "properties": map[string]any{
			"region": map[string]any{"type": "string", "description": "A region name", "x-mcp-header": "Region"}}},
		call: r.xMcpHeader},
		{name: fixtures.LoggingTool, description: "Logs two info messages while it runs, when the request asks for logs (logLevel in _meta at 2026-07-28).",
			call: r.loggingTool},
		{name: fixtures.StreamingElicitation, description: "Answers on a response stream without asking the client anything on it (2026-07-28: questions travel in an input_required result).",
			call: r.streamingElicitation}}
}

func (*statelessFamily) faults() fault.Set    { return statelessFaults }
func (*statelessFamily) liberties() fault.Set { return statelessLiberties }

// The official server-stateless scenario's fixtures (fixtures.md §1h).

// loggingTool logs only for a request that asks (2026-07-28: a logLevel in
// _meta); in the session versions, as the level set allows.
func (r *statelessFamily) loggingTool(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	lv, send := "", true
	if isModern(ctx) {
		lv, send = modernLogLevel(r.reference, req)
	} else {
		lv, _ = p.Get("logLevel").(string)
	}
	if send && (lv == "" || slices.Index(logLevels, lv) <= slices.Index(logLevels, "info")) {
		nctx := transport.WithRelatedRequest(ctx, req.ID)
		for _, msg := range []string{"test_logging_tool started", "test_logging_tool done"} {
			_ = p.Notify(nctx, protocol.NotificationMessage, map[string]any{"level": "info", "logger": fixtures.LoggingTool, "data": msg})
		}
	}
	return textResult(ctx, "Logging tool completed.", false), nil
}

// streamingElicitation answers with a progress notification first, where
// the request gave a token, so that its answer is a stream; the fault asks
// the client a question on that stream as an independent request.
func (r *statelessFamily) streamingElicitation(ctx context.Context, p *Peer, req *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	nctx := transport.WithRelatedRequest(ctx, req.ID)
	if token, ok := progressToken(req); ok {
		_ = p.Notify(nctx, protocol.NotificationProgress, map[string]any{"progressToken": token, "progress": 1, "total": 1})
	}
	if isModern(ctx) && r.is(IndependentRequestOnStream) {
		frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "srv-streaming-1", "method": protocol.MethodElicitationCreate,
			"params": elicitationParams("Continue?", nil)})
		_ = p.SendRaw(nctx, frame)
	}
	return textResult(ctx, "Streaming elicitation completed without a question.", false), nil
}

// paramHeader is the header test_x_mcp_header's region is mirrored into.
const paramHeader = "Mcp-Param-Region"

func (r *statelessFamily) xMcpHeader(ctx context.Context, _ *Peer, _ *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error) {
	var a struct { // the tool's own arguments: its inputSchema types them, no MCP schema
		Region *string `json:"region"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Region == nil {
		return textResult(ctx, "no region", false), nil
	}
	return textResult(ctx, "region: "+*a.Region, false), nil
}

// paramHeaderMismatch validates Mcp-Param-Region of a test_x_mcp_header
// call against its body (streamable-http.mdx "Server Behavior for Custom
// Headers"); "" when it holds.
func (r *statelessFamily) paramHeaderMismatch(h http.Header, req *jsonrpc.Message) string {
	var p protocol.NamedArgumentsParams
	if req.Method != protocol.MethodToolsCall || json.Unmarshal(req.Params, &p) != nil || p.Name != fixtures.XMcpHeader {
		return ""
	}
	text, hasValue := "", false
	if raw, ok := p.Arguments["region"]; ok {
		text, hasValue = transport.ParamText(raw)
	}
	got, sent := h.Get(paramHeader), len(h.Values(paramHeader)) > 0
	switch {
	case !hasValue:
		// A null or absent value has no header, and none is expected.
		if !sent && r.is(ParamHeaderRequired) {
			return paramHeader + " header missing"
		}
		return ""
	case !sent:
		if r.is(ParamHeaderOptional) {
			return ""
		}
		return paramHeader + " header missing while the body has region"
	case !headerValueChars(got) && !r.is(ParamCharsUnchecked):
		return paramHeader + " header value has invalid characters"
	}
	decoded, ok := got, true
	switch {
	case r.is(ParamBase64Lenient):
		decoded, ok = lenientBase64(got)
	case !r.is(ParamNotDecoded):
		decoded, ok = transport.DecodeHeaderValue(got)
	}
	switch {
	case !ok:
		return paramHeader + " header value is malformed Base64"
	case decoded != text && !r.is(ParamHeaderUnchecked):
		return paramHeader + " header value " + quote(decoded) + " does not match region " + quote(text)
	}
	return ""
}

// lenientBase64 is the fault param-base64-lenient's decoding of a Base64
// sentinel: what is not of the alphabet is skipped and the padding is
// optional.
func lenientBase64(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if inner, ok2 := strings.CutSuffix(inner, "?="); ok && ok2 {
		kept := strings.Map(func(c rune) rune {
			if c < 0x80 && (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
				return c
			}
			return -1
		}, inner)
		b, err := base64.RawStdEncoding.DecodeString(kept)
		return string(b), err == nil
	}
	return transport.DecodeHeaderValue(v)
}

// headerValueChars reports a plain header value of visible ASCII, space and
// tab (streamable-http.mdx "Value Encoding", after RFC 9110).
func headerValueChars(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7E {
			return false
		}
	}
	return true
}

// cacheableMethods are the operations whose complete results carry caching
// hints (2026-07-28/server/utilities/caching.mdx#cacheable-results).
var cacheableMethods = []string{protocol.MethodServerDiscover, protocol.MethodToolsList, protocol.MethodPromptsList,
	protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList, protocol.MethodResourcesRead}

// metaLogLevel reads _meta io.modelcontextprotocol/logLevel of a request.
func metaLogLevel(req *jsonrpc.Message) (string, bool) {
	meta, _ := requestMeta(req)
	raw, ok := meta[protocol.MetaLogLevel]
	if !ok {
		return "", false
	}
	var lv string
	_ = json.Unmarshal(raw, &lv)
	return lv, true
}

// modernLogLevel is the level a 2026-07-28 request asks logs at, and whether
// it asks any: without a logLevel the server must not log for it
// (logging.mdx#per-request-log-level). A function of the core: every
// family's fixture that logs keeps the rule.
func modernLogLevel(r *reference, req *jsonrpc.Message) (lv string, send bool) {
	lv, ok := metaLogLevel(req)
	if !ok {
		return "", r.is(LogsWithoutLevel)
	}
	return lv, true
}

// decodedName is an Mcp-Name header value as the server compares it with
// the body: a Base64 sentinel is decoded first (streamable-http.mdx "Value
// Encoding"), except by the fault that compares it raw. A function of the
// core, whose header check uses it.
func decodedName(r *reference, v string) string {
	if r.is(EncodedNameNotDecoded) {
		return v
	}
	if d, ok := transport.DecodeHeaderValue(v); ok {
		return d
	}
	return v
}

// modernOnly reports a variant that implements 2026-07-28 only.
func (r *statelessFamily) modernOnly() bool { return slices.Contains(modernOnlyHTTP, r.fault) }

// layer wraps the handlers of 2026-07-28 requests (inside the core's
// version and _meta checks): the rules every modern result keeps,
// whichever family serves it.
func (r *statelessFamily) layer(next Handler) Handler {
	return func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
		if !isModern(ctx) {
			return next(ctx, p, req)
		}
		if lv, ok := metaLogLevel(req); ok && !slices.Contains(logLevels, lv) && !r.is(LogLevelUnchecked) {
			return nil, rpcError(codes.InvalidParams, "Invalid log level: "+lv, nil) // logging.mdx#error-handling
		}
		if r.is(RemembersCapabilities) {
			req = rememberCapabilities(p, req)
		}
		if h := p.Header(); h != nil {
			// Raw bytes outside visible ASCII are no header value of MCP's:
			// such a name travels Base64-encoded (streamable-http.mdx "Value Encoding").
			if v := h.Get(transport.HeaderName); !headerValueChars(v) {
				if !r.is(NameCharsUnchecked) {
					return nil, rpcError(codes.HeaderMismatch, "Header mismatch: Mcp-Name header value has invalid characters", nil)
				}
				if req.Method == protocol.MethodToolsCall && v == nameOf(req) {
					// The fault takes the raw name as it is and runs the call.
					return complete(ctx, textResult(ctx, "called "+v, false)), nil
				}
			}
			if msg := r.paramHeaderMismatch(h, req); msg != "" {
				return nil, rpcError(codes.HeaderMismatch, "Header mismatch: "+msg, nil)
			}
		}
		result, rerr := next(ctx, p, req)
		if rerr != nil {
			if req.Method != protocol.MethodResourcesRead || rerr.Code != codes.ResourceNotFound {
				return nil, rerr
			}
			if result, rerr = r.resourceNotFound(ctx, req, rerr); rerr != nil {
				return nil, rerr
			}
		}
		m, ok := result.(map[string]any)
		if !ok {
			return result, nil
		}
		if req.Method == protocol.MethodToolsList && r.is(InvalidXMcpHeader) {
			tools, _ := m["tools"].([]any)
			m["tools"] = append(tools, map[string]any{"name": "test_invalid_x_mcp_header", "description": "A tool whose annotation breaks the rules.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"region": map[string]any{"type": "string", "x-mcp-header": ""}}}})
		}
		r.cachingHints(req, m)
		r.resultServerInfo(req, m)
		if req.Method == protocol.MethodServerDiscover {
			r.discoverFaults(m)
		}
		return m, nil
	}
}

// resourceNotFound answers resources/read of an unknown URI at 2026-07-28:
// -32602, never the legacy -32002 (resources.mdx#error-handling,
// basic/index.mdx#error-codes), or the fault's answer.
func (r *statelessFamily) resourceNotFound(ctx context.Context, req *jsonrpc.Message, legacy *jsonrpc.Error) (any, *jsonrpc.Error) {
	switch {
	case r.is(ModernMissingResourceLegacyCode):
		return nil, legacy
	case r.is(ModernMissingResourceEmpty):
		return complete(ctx, map[string]any{"contents": []any{}}), nil
	case r.is(ModernMissingResourceInternal):
		return nil, rpcError(codes.InternalError, "Internal error", nil)
	case r.is(MissingResourceNoData):
		return nil, rpcError(codes.InvalidParams, "Resource not found", nil)
	}
	return nil, rpcError(codes.InvalidParams, "Resource not found", map[string]any{"uri": uriParam(req)})
}

// cachingHints gives a cacheable complete result ttlMs and cacheScope where
// its family set none (caching.mdx#cacheable-results), or the fault's.
func (r *statelessFamily) cachingHints(req *jsonrpc.Message, m map[string]any) {
	if !slices.Contains(cacheableMethods, req.Method) || m["resultType"] != "complete" {
		return
	}
	if r.is(CachingPrivate) {
		m["ttlMs"], m["cacheScope"] = 60000, "private"
	}
	if _, ok := m["ttlMs"]; !ok {
		m["ttlMs"] = 0
	}
	if _, ok := m["cacheScope"]; !ok {
		m["cacheScope"] = "public"
	}
	switch {
	case r.is(CachingHintsMissing) && req.Method == protocol.MethodResourcesRead:
		delete(m, "ttlMs")
		delete(m, "cacheScope")
	case r.is(CachingTTLNegative) && req.Method == protocol.MethodResourcesTemplatesList:
		m["ttlMs"] = -1
	case r.is(CachingScopeInvalid) && req.Method == protocol.MethodResourcesList:
		m["cacheScope"] = "shared"
	case r.is(CachingScopeVaries) && req.Method == protocol.MethodPromptsList && hasCursor(req):
		m["cacheScope"] = "private"
	}
}

func hasCursor(req *jsonrpc.Message) bool {
	var p protocol.PageParams
	_ = json.Unmarshal(req.Params, &p)
	return p.Cursor != nil
}

// resultServerInfo adds _meta io.modelcontextprotocol/serverInfo to a
// result (basic/index.mdx, "Per-response protocol fields"). server/discover
// keeps its own (the lifecycle family's faults remove it there).
func (r *statelessFamily) resultServerInfo(req *jsonrpc.Message, m map[string]any) {
	if req.Method == protocol.MethodServerDiscover || r.is(ResultNoServerInfo) {
		return
	}
	meta := map[string]any{}
	if old, ok := m["_meta"].(map[string]any); ok {
		for k, v := range old { // a copy: a family may reuse its _meta map
			meta[k] = v
		}
	}
	if _, ok := meta[protocol.MetaServerInfo]; !ok {
		meta[protocol.MetaServerInfo] = serverInfo()
	}
	m["_meta"] = meta
}

// statelessFront are the variants served through the family's HTTP front.
var statelessFront = fault.Set{StatelessOnlyHTTP, GetOpensStream, DeleteAccepted, SessionIDMinted, VersionHeaderOptional,
	MethodHeaderOptional, NameHeaderOptional, NameHeaderUnchecked, MethodHeaderCaseFolded, HeaderNamesCaseSensitive, HeaderValueUntrimmed}

// rawHeadFront are the variants whose front reads the request head as it
// came.
var rawHeadFront = fault.Set{HeaderNamesCaseSensitive, HeaderValueUntrimmed}

// listenStateless starts the HTTP front for the family's HTTP variants; ok
// is false for every other variant or transport.
func listenStateless(ctx context.Context, kind transport.Kind, addr string, v *fault.Fault, opts transport.Options) (l transport.Listener, ok bool, err error) {
	if kind != transport.HTTP || !slices.Contains(statelessFront, v) {
		return nil, false, nil
	}
	l, err = listenFrontWith(ctx, kind, addr, opts, atEndpoint(func(next http.Handler) http.Handler {
		return &slFront{v: v, next: next, events: opts.Transcript, label: opts.Session}
	}), slices.Contains(rawHeadFront, v))
	return l, true, err
}

// slFront is the HTTP front of one stateless variant.
type slFront struct {
	v      *fault.Fault
	next   http.Handler // the reference's endpoint
	events *jsonrpc.Transcript
	label  string
}

func (f *slFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	modernOnly := slices.Contains(modernOnlyHTTP, f.v)
	var head []string // the header lines as they came (rawHeadFront)
	if slices.Contains(rawHeadFront, f.v) {
		head, _ = rawHead(r)
	}
	switch {
	case r.Method == http.MethodGet && f.v == GetOpensStream:
		f.events.Eventf(f.label, "HTTP 200 GET: an SSE stream (fault %s)", f.v.Name)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		return
	case r.Method == http.MethodDelete && f.v == DeleteAccepted:
		f.events.Eventf(f.label, "HTTP 200 DELETE (fault %s)", f.v.Name)
		w.WriteHeader(http.StatusOK)
		return
	case (r.Method == http.MethodGet || r.Method == http.MethodDelete) && modernOnly:
		// Earlier Streamable HTTP Revisions: a 2026-07-28-only server has no
		// GET stream and no sessions to end.
		f.events.Eventf(f.label, "HTTP 405 %s (%s %s)", r.Method, f.v.Kind(), f.v.Name)
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case r.Method != http.MethodPost:
		f.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m protocol.RequestHead
	_ = json.Unmarshal(body, &m)
	if modernOnly {
		r.Header.Del(transport.HeaderSessionID) // ignored: there are no sessions
	}
	switch f.v {
	case VersionHeaderOptional:
		if r.Header.Get(transport.HeaderProtocolVersion) == "" {
			var v protocol.MetaRequest
			_ = json.Unmarshal(body, &v)
			var version string
			_ = json.Unmarshal(v.Params.Meta[protocol.MetaProtocolVersion], &version)
			r.Header.Set(transport.HeaderProtocolVersion, version)
		}
	case SessionIDMinted:
		w = &trWriter{ResponseWriter: w, onHeader: func(h http.Header) { h.Set(transport.HeaderSessionID, "mcpconform-minted-session") }}
	case MethodHeaderOptional:
		if r.Header.Get(transport.HeaderMethod) == "" {
			r.Header.Set(transport.HeaderMethod, m.Method)
		}
	case MethodHeaderCaseFolded:
		if got := r.Header.Get(transport.HeaderMethod); strings.EqualFold(got, m.Method) {
			r.Header.Set(transport.HeaderMethod, m.Method)
		}
	case HeaderNamesCaseSensitive:
		if len(head) > 0 && !slices.ContainsFunc(head, func(l string) bool { return strings.HasPrefix(l, transport.HeaderMethod+":") }) {
			if r.Header.Get(transport.HeaderMethod) != "" {
				f.events.Eventf(f.label, "%s spelled otherwise: taken as missing (fault %s)", transport.HeaderMethod, f.v.Name)
			}
			r.Header.Del(transport.HeaderMethod)
		}
	case HeaderValueUntrimmed:
		for _, l := range head {
			// The value after "Name:" and one space, as written.
			if v, ok := strings.CutPrefix(l, transport.HeaderName+":"); ok && v != strings.Trim(v, " \t") && v != " "+strings.Trim(v, " \t") {
				f.events.Eventf(f.label, "%s %q compared as it came (fault %s)", transport.HeaderName, v, f.v.Name)
				r.Header.Set(transport.HeaderName, strings.TrimPrefix(v, " "))
			}
		}
	case NameHeaderOptional:
		if m.Method == protocol.MethodToolsCall && r.Header.Get(transport.HeaderName) == "" {
			r.Header.Set(transport.HeaderName, transport.EncodeHeaderValue(m.Params.Name))
		}
	case NameHeaderUnchecked:
		// A mismatch only: a value of invalid characters is still refused.
		if got := r.Header.Get(transport.HeaderName); m.Method == protocol.MethodToolsCall && got != "" && headerValueChars(got) {
			r.Header.Set(transport.HeaderName, transport.EncodeHeaderValue(m.Params.Name))
		}
	}
	f.next.ServeHTTP(w, r)
}

// discoverFaults bends the DiscoverResult as the family's variants do: the
// versions of a 2026-07-28-only server, capabilities left undeclared.
func (r *statelessFamily) discoverFaults(m map[string]any) {
	if r.modernOnly() || r.is(DualEraHTTP) {
		m["supportedVersions"] = append([]string(nil), r.stateless...)
	}
	caps, _ := m["capabilities"].(map[string]any)
	for f, c := range map[*fault.Fault]string{ModernPromptsUndeclared: "prompts", ModernResourcesUndeclared: "resources", ModernLoggingUndeclared: "logging"} {
		if r.is(f) && caps != nil {
			delete(caps, c)
			if ext, ok := caps["extensions"].(map[string]any); ok && c == "resources" {
				// Skills are read as resources: a server that declares no
				// resources declares no skills either (that fault is the
				// skills family's own, skills-resources-undeclared).
				delete(ext, protocol.ExtensionSkills)
			}
		}
	}
}

// rememberCapabilities is the fault remembers-capabilities: the request as
// the server reads it, with the sampling capability an earlier request on
// the connection declared added to its own.
func rememberCapabilities(p *Peer, req *jsonrpc.Message) *jsonrpc.Message {
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil {
		return req
	}
	var meta, caps map[string]json.RawMessage
	_ = json.Unmarshal(params["_meta"], &meta)
	_ = json.Unmarshal(meta[protocol.MetaClientCapabilities], &caps)
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	p.Lock()
	known, _ := p.State["rememberedCapabilities"].(map[string]json.RawMessage)
	if known == nil {
		known = map[string]json.RawMessage{}
	}
	for k, v := range caps {
		if k == "sampling" { // the fault keeps this one only
			known[k] = v
		}
	}
	for k, v := range known {
		caps[k] = v
	}
	p.State["rememberedCapabilities"] = known
	p.Unlock()
	if meta == nil {
		return req
	}
	meta[protocol.MetaClientCapabilities], _ = json.Marshal(caps)
	params["_meta"], _ = json.Marshal(meta)
	out := *req
	out.Params, _ = json.Marshal(params)
	return &out
}
