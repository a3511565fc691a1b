package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference client's 2026-07-28 request rules beyond the per-request
// _meta the session adds and the x-mcp-header parameters the HTTP transport
// mirrors (transport.ToolParams): a request refused with -32022 is retried
// at a version the refusal lists, and the family's variants edit requests
// on their way out.

// variant reports whether f is the run's variant and acts in this scenario.
func (rc *referenceRun) variant(f *fault.Fault) bool {
	return rc.is(f) && slices.Contains(headerScenario[f], rc.opts.Scenario)
}

// prepareRequests sets up what every later request carries; discover calls
// it before the first request, and sends server/discover only when it
// returns true (optional over HTTP, recommended over stdio).
func (rc *referenceRun) prepareRequests() (discover bool) {
	if rc.variant(CapabilityNotObject) {
		// The session's _meta carries this very map.
		rc.capabilities["roots"] = true
	}
	hc, isHTTP := transport.As[*transport.HTTPClientConn](rc.session.Conn())
	if isHTTP && hc.Stateless() {
		if edit := rc.requestEditor(hc.ToolParams()); edit != nil {
			hc.EditRequests(edit)
		}
	}
	switch rc.target.Kind {
	case transport.HTTP:
		return !rc.variant(SkipsDiscover)
	case transport.Stdio:
		return !rc.variant(StdioNoProbe)
	}
	return true
}

// retryVersion reports whether a refusal is an UnsupportedProtocolVersion
// error whose supported list holds the version this client speaks: the
// request is then retried at it (basic/versioning.mdx: "The client SHOULD
// select a mutually supported version from the supported list and retry
// the request"). A list without it is surfaced as the error it is.
func (rc *referenceRun) retryVersion(resp *jsonrpc.Message) bool {
	if resp == nil || resp.Error == nil || resp.Error.Code != codes.UnsupportedProtocolVersion {
		return false
	}
	var data protocol.UnsupportedVersionData
	_ = json.Unmarshal(resp.Error.Data, &data)
	if !slices.Contains(data.Supported, rc.opts.Version) {
		return false
	}
	if rc.variant(NoVersionRetry) {
		rc.logf("refused with %d; not retrying (fault %s)", resp.Error.Code, NoVersionRetry.Name)
		return false
	}
	if rc.variant(FallsBackToInitialize) {
		rc.logf("refused with %d; falling back to initialize at %s (fault %s)", resp.Error.Code, protocol.V20251125, FallsBackToInitialize.Name)
		ctx, cancel := rc.step(context.Background())
		defer cancel()
		_, _ = rc.session.Do(ctx, Call{Method: protocol.MethodInitialize, Params: rc.session.InitializeParams(protocol.V20251125),
			NoMeta: true, Header: http.Header{transport.HeaderProtocolVersion: {""}, transport.HeaderMethod: {""}}})
		return false
	}
	rc.logf("refused with %d; the server lists %s, retrying at it", resp.Error.Code, rc.opts.Version)
	return true
}

// ContextFirstProtocolVersion is the key of $MCP_CONFORMANCE_CONTEXT that
// asks the client to open with a version other than the one it speaks (one
// the scenario's server does not implement) and then negotiate: the
// reference client sends its first request at it, and retries a -32022
// refusal at a version the refusal lists (client-request-metadata's
// retry-supported-version needs a refusal to judge).
const ContextFirstProtocolVersion = "firstProtocolVersion"

// readOpeningVersion keeps the context's firstProtocolVersion, if any, for
// the first request of a 2026-07-28 session.
func (rc *referenceRun) readOpeningVersion() error {
	if rc.opts.Context == "" || !rc.session.Stateless() {
		return nil
	}
	var sc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rc.opts.Context), &sc); err != nil {
		return fmt.Errorf("$%s is not the JSON object expected: %w", EnvContext, err)
	}
	raw, ok := sc[ContextFirstProtocolVersion]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, &rc.openAt); err != nil {
		return fmt.Errorf("$%s: %s is %s, not a string", EnvContext, ContextFirstProtocolVersion, raw)
	}
	return nil
}

// opening is c as the session's first request: at the context's
// firstProtocolVersion, in _meta and (over HTTP) MCP-Protocol-Version
// alike. ok is false for every later request, or without that version.
func (rc *referenceRun) opening(c Call) (_ Call, ok bool) {
	if rc.opened || rc.openAt == "" {
		rc.opened = true
		return c, false
	}
	rc.opened = true
	rc.logf("opening with protocol version %s (the context's %s), then negotiating", rc.openAt, ContextFirstProtocolVersion)
	c.Meta = map[string]any{protocol.MetaProtocolVersion: rc.openAt}
	c.Header = http.Header{transport.HeaderProtocolVersion: {rc.openAt}}
	return c, true
}

// requestEditor is what the run's variant changes in each POST, or nil.
func (rc *referenceRun) requestEditor(tp *transport.ToolParams) transport.RequestEditor {
	active := false
	for f := range headerScenario {
		active = active || rc.variant(f)
	}
	if !active {
		return nil
	}
	return func(req *http.Request, body []byte) []byte {
		var msg jsonrpc.Message // the request this client is about to send
		_ = json.Unmarshal(body, &msg)
		h := req.Header
		var out []byte
		switch {
		case rc.variant(MetaNoCapabilities):
			out = withoutMeta(body, protocol.MetaClientCapabilities)
		case rc.variant(MetaNoClientInfo):
			out = withoutMeta(body, protocol.MetaClientInfo)
		case rc.variant(NoVersionHeader):
			h.Del(transport.HeaderProtocolVersion)
		case rc.variant(VersionHeaderMismatch):
			h.Set(transport.HeaderProtocolVersion, protocol.V20251125)
		case rc.variant(McpMethodUppercase):
			if h.Get(transport.HeaderMethod) != "" {
				h.Set(transport.HeaderMethod, strings.ToUpper(msg.Method))
			}
		case rc.variant(NoMcpName):
			h.Del(transport.HeaderName)
		case rc.variant(McpNameRaw):
			if v := h.Get(transport.HeaderName); v != "" {
				if plain, ok := transport.DecodeHeaderValue(v); ok && nonASCIIOnly(plain) {
					h.Set(transport.HeaderName, plain)
				}
			}
		case msg.Method == protocol.MethodToolsCall:
			rc.editParams(tp, msg.Params, h)
		}
		if rc.variant(LowercaseHeaderNames) {
			var keys []string
			for k := range h {
				if strings.HasPrefix(strings.ToLower(k), "mcp-") {
					keys = append(keys, k)
				}
			}
			for _, k := range keys {
				vs := h[k]
				delete(h, k)
				h[strings.ToLower(k)] = vs // written as given: Go sends a header name as its map key spells it
			}
		}
		return out
	}
}

// editParams applies the Mcp-Param-* variants to a tools/call's headers.
func (rc *referenceRun) editParams(tp *transport.ToolParams, params json.RawMessage, h http.Header) {
	var call protocol.CallToolParams
	_ = json.Unmarshal(params, &call)
	args, _ := json.Marshal(call.Arguments)
	annotated, _ := tp.Tool(call.Name)
	if rc.variant(NoParamHeaders) {
		for k := range h {
			if strings.HasPrefix(http.CanonicalHeaderKey(k), transport.HeaderParamPrefix) {
				delete(h, k)
			}
		}
		return
	}
	if rc.variant(ParamUnannotated) {
		top := map[string]bool{}
		for _, p := range annotated {
			top[p.Path[0]] = true
		}
		for k, raw := range call.Arguments {
			if text, ok := transport.ParamText(raw); ok && !top[k] {
				h.Set(transport.HeaderParamPrefix+k, transport.EncodeHeaderValue(text))
			}
		}
		return
	}
	for _, p := range annotated {
		name := transport.HeaderParamPrefix + p.Name
		raw, present := transport.ParamArgument(p, args)
		text, notNull := transport.ParamText(raw)
		switch {
		case !present:
		case rc.variant(ParamNullSent) && !notNull:
			h.Set(name, "null")
		case rc.variant(ParamBooleanCapitalized) && p.Type == "boolean" && notNull:
			h.Set(name, strings.ToUpper(text[:1])+text[1:])
		case rc.variant(ParamNoBase64) && notNull && nonASCIIOnly(text):
			h.Set(name, text)
		case rc.variant(ParamSentinelPlain) && notNull && strings.HasPrefix(text, "=?base64?") && strings.HasSuffix(text, "?="):
			h.Set(name, text)
		}
	}
}

// nonASCIIOnly reports a text whose one reason to be encoded is a byte
// beyond ASCII: no control character, no white space at either end (those
// would not survive as a raw header at all).
func nonASCIIOnly(s string) bool {
	if s == "" || s != strings.TrimSpace(s) {
		return false
	}
	wide := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == 0x7f:
			return false
		case c > 0x7f:
			wide = true
		}
	}
	return wide
}

// withoutMeta is a request body without one _meta key.
func withoutMeta(body []byte, key string) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil {
		return nil
	}
	delete(meta, key)
	params["_meta"], _ = json.Marshal(meta)
	msg["params"], _ = json.Marshal(params)
	out, err := json.Marshal(msg)
	if err != nil {
		return nil
	}
	return out
}
