package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Variants in the versions the server implements. Whether a server that
// does not implement a version is a failure depends on whether the user
// asked for that version by name: the same behaviour is a fault when the
// self-test names the version, and a liberty when it does not.
var (
	// DropsOldest implements 2025-11-25 and 2025-06-18 but not 2025-03-26:
	// asked for it, initialize answers 2025-11-25.
	DropsOldest = &fault.Fault{Name: "drops-2025-03-26", Liberty: true, Versions: []string{protocol.V20250326},
		Freedom:     `lifecycle.mdx: "Otherwise, the server MUST respond with another protocol version it supports."`,
		Description: "does not implement 2025-03-26 and negotiates 2025-11-25 instead"}
	// StatefulOnly implements the session versions only: every 2026-07-28
	// request, server/discover included, is refused with -32022.
	StatefulOnly = &fault.Fault{Name: "stateful-only", Liberty: true,
		Freedom:     `versioning.mdx: a server answers a version it does not implement with UnsupportedProtocolVersionError (-32022)`,
		Description: "implements 2025-11-25, 2025-06-18 and 2025-03-26 only; refuses 2026-07-28 with -32022, server/discover included"}
	// DiscoverVersionRefused is StatefulOnly judged where the user named
	// 2026-07-28: the target does not implement the version asked for.
	DiscoverVersionRefused = &fault.Fault{Name: "refuses-2026-07-28", Versions: protocol.From(protocol.V20260728),
		Description: "refuses every 2026-07-28 request with -32022 although 2026-07-28 was asked for"}
	// InitializeEraHTTP is an initialize-era Streamable HTTP server, as the
	// TypeScript SDK's (@modelcontextprotocol/server-everything): a
	// 2026-07-28 request, which carries no Mcp-Session-Id, is answered
	// HTTP 400 with the JSON-RPC error -32000 "Bad Request: Server not
	// initialized" and id null, a body that is no modern error.
	InitializeEraHTTP = &fault.Fault{Name: "initialize-era-http", Liberty: true, Transports: []transport.Kind{transport.HTTP},
		Freedom: `streamable-http.mdx, "Backward Compatibility": "If the body is empty or is not a recognized modern JSON-RPC error, ` +
			`fall back to initialize and continue with the legacy version for subsequent requests."`,
		Description: `implements 2025-11-25, 2025-06-18 and 2025-03-26 only, over HTTP as the TypeScript SDK does: every 2026-07-28 request, ` +
			`server/discover included, gets HTTP 400 {"code":-32000,"message":"Bad Request: Server not initialized"} with id null`}
	// LegacyHTTPRefused is InitializeEraHTTP judged where the user named
	// 2026-07-28.
	LegacyHTTPRefused = &fault.Fault{Name: "initialize-era-http-at-2026-07-28", Versions: protocol.From(protocol.V20260728),
		Transports:  []transport.Kind{transport.HTTP},
		Description: "answers 2026-07-28 requests as an initialize-era HTTP server does (400, -32000, id null) although 2026-07-28 was asked for"}
	// DiscoverListsOlderVersions answers server/discover with a
	// DiscoverResult whose supportedVersions are the session versions only,
	// and refuses every other 2026-07-28 request with -32022, as go-sdk's
	// stateful HTTP server does.
	DiscoverListsOlderVersions = &fault.Fault{Name: "discover-lists-older-versions", Liberty: true,
		Freedom: `discover.mdx, "DiscoverResult": "supportedVersions: Protocol versions the server supports. ` +
			`The client should choose one of these for subsequent requests."`,
		Description: "implements 2025-11-25, 2025-06-18 and 2025-03-26 only: answers server/discover with a DiscoverResult listing those, " +
			"and every other 2026-07-28 request with -32022, as go-sdk's stateful server does"}
	// DiscoverOmitsVersion is DiscoverListsOlderVersions judged where the
	// user named 2026-07-28.
	DiscoverOmitsVersion = &fault.Fault{Name: "discover-omits-2026-07-28", Versions: protocol.From(protocol.V20260728),
		Description: "lists only the 2025 versions in server/discover, and refuses the rest of 2026-07-28, although 2026-07-28 was asked for"}
	// InitUnknownVersion answers initialize with a string that is no MCP
	// revision at all.
	// Over HTTP the client then sends that string in MCP-Protocol-Version
	// and every later request is refused, which other checks see as well.
	InitUnknownVersion = &fault.Fault{Name: "init-unknown-version", Versions: legacy,
		Transports:  []transport.Kind{transport.Stdio, transport.WS},
		Description: `answers initialize with protocolVersion "2025-13-45", no MCP revision`}
)

var versionFaults = fault.Set{DiscoverVersionRefused, LegacyHTTPRefused, DiscoverOmitsVersion, InitUnknownVersion}

var versionLiberties = fault.Set{DropsOldest, StatefulOnly, InitializeEraHTTP, DiscoverListsOlderVersions}

// implementedVersions are the versions a variant implements, newest first.
func implementedVersions(v *fault.Fault) (stateful, stateless []string) {
	stateful, stateless = protocol.JudgedStateful(), protocol.JudgedStateless()
	switch v {
	case DropsOldest, DualEraHTTP:
		stateful = slices.DeleteFunc(stateful, func(s string) bool { return s == protocol.V20250326 })
	case StatefulOnly, DiscoverVersionRefused, InitializeEraHTTP, LegacyHTTPRefused, DiscoverListsOlderVersions, DiscoverOmitsVersion:
		stateless = nil
	}
	if slices.Contains(modernOnlyHTTP, v) {
		stateful = nil // 2026-07-28 only: an initialize is refused (reference.go, initialize)
	}
	return stateful, stateless
}

// discoversUnimplemented reports a request the variant answers although
// its version is not one the variant implements: server/discover, for the
// variants whose DiscoverResult lists the session versions only.
func (r *reference) discoversUnimplemented(req *jsonrpc.Message) bool {
	return (r.is(DiscoverListsOlderVersions) || r.is(DiscoverOmitsVersion)) && req.Method == protocol.MethodServerDiscover
}

// initializeEraBody is the TypeScript SDK's answer to a request without a
// session before initialize (webStandardStreamableHttp validateSession).
const initializeEraBody = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`

// listenInitializeEra serves the reference over Streamable HTTP as an
// initialize-era server: a POST that is a 2026-07-28 request (its
// MCP-Protocol-Version is 2026-07-28, or it has no Mcp-Session-Id and
// carries the per-request _meta protocol version) gets initializeEraBody
// with 400; everything else is the reference's session mode.
func listenInitializeEra(ctx context.Context, addr string, opts transport.Options) (transport.Listener, error) {
	return listenFront(ctx, transport.HTTP, addr, opts, atEndpoint(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodPost {
				body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
				if err != nil {
					http.Error(w, "cannot read body", http.StatusBadRequest)
					return
				}
				req.Body = io.NopCloser(bytes.NewReader(body))
				if protocol.IsStateless(req.Header.Get(transport.HeaderProtocolVersion)) ||
					(req.Header.Get(transport.HeaderSessionID) == "" && carriesModernMeta(body)) {
					opts.Transcript.Eventf(opts.Session, "HTTP 400 POST: a 2026-07-28 request to an initialize-era server")
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = io.WriteString(w, initializeEraBody)
					return
				}
			}
			next.ServeHTTP(w, req)
		})
	}))
}

// carriesModernMeta reports a JSON-RPC message whose params._meta names a
// protocol version: a 2026-07-28 request.
func carriesModernMeta(body []byte) bool {
	var m protocol.MetaRequest
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m.Params.Meta[protocol.MetaProtocolVersion]
	return ok
}
