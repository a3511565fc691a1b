// Package httprules is the client rules of 2026-07-28 over Streamable HTTP and per-request _meta (scenarios.md C3), with the official client scenarios request-metadata, http-standard-headers, http-custom-headers, http-invalid-tool-headers and json-schema-ref-no-deref.
package httprules

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
	"github.com/mcpconform/mcpconform/transport"
)

const (
	family     = "httprules"
	metaSpec   = "2026-07-28/basic/index.mdx#meta"
	httpSpec   = "2026-07-28/basic/transports/streamable-http.mdx"
	toolsSpec  = "2026-07-28/server/tools.mdx#x-mcp-header"
	refSpec    = "2026-07-28/basic/index.mdx#ref-resolution"
	versionDoc = "2026-07-28/basic/versioning.mdx#protocol-version-negotiation"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{requestMetadataScenario, standardHeadersScenario, customHeadersScenario, invalidToolsScenario,
		headerMismatchScenario, schemaRefScenario}
}

var (
	versions = protocol.From(protocol.V20260728)
	httpOnly = []transport.Kind{transport.HTTP}
)

// metaOf is a request's _meta, by key.
func metaOf(m *jsonrpc.Message) map[string]json.RawMessage {
	var p protocol.Meta
	_ = json.Unmarshal(m.Params, &p)
	return p.Meta
}

func metaString(m *jsonrpc.Message, key string) (string, bool) {
	raw, ok := metaOf(m)[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isObject reports a JSON object (not null, not an array).
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &m) == nil
}

// requests are the logged requests, in order.
func requests(entries []clientside.Received) []clientside.Received {
	var out []clientside.Received
	for _, r := range entries {
		if r.Msg.IsRequest() {
			out = append(out, r)
		}
	}
	return out
}

// header is a POST's header value; the names were read case-insensitively
// (Go's server keys them canonically).
func header(r clientside.Received, name string) (string, bool) {
	vs := r.Header.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

func describe(r clientside.Received) string {
	return fmt.Sprintf("%s id=%s", r.Msg.Method, r.Msg.ID)
}

// listed says the first few items and how many there are.
func listed(items []string) string {
	sort.Strings(items)
	if len(items) > 6 {
		return fmt.Sprintf("%s … (%d in all)", strings.Join(items[:6], "; "), len(items))
	}
	return strings.Join(items, "; ")
}

// notHTTP skips the checks that read HTTP headers off HTTP.
func notHTTP(t *clientside.T, checks ...*scenarios.Check) bool {
	if t.Env.Transport == transport.HTTP {
		return false
	}
	for _, c := range checks {
		t.Skip(c, fmt.Sprintf("no HTTP headers over %s", t.Env.Transport))
	}
	return true
}
