package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference server's resources (2025-11-25/server/resources.mdx and
// the same page of the older versions), with the official suite's fixture
// URIs: test://static-text, test://static-binary, test://watched-resource
// and the template test://template/{id}/data. resources/list and
// resources/templates/list page (utilities/pagination.mdx).

// Resource fixtures.

// resourcePage is how many resources a page holds (3 resources: 2 pages).
const resourcePage = 2

// A 1×1 transparent PNG: the binary fixture.
var staticPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

var templateURI = regexp.MustCompile(`^test://template/([^/]+)/data$`)

func referenceResources() []map[string]any {
	return []map[string]any{
		{"uri": fixtures.StaticText, "name": "static-text", "mimeType": "text/plain", "description": "A fixed text."},
		{"uri": fixtures.StaticBinary, "name": "static-binary", "mimeType": "image/png", "description": "A 1×1 PNG."},
		{"uri": fixtures.WatchedResource, "name": "watched-resource", "mimeType": "text/plain", "description": "Changes; subscribe to hear of it."},
	}
}

func referenceTemplates() []map[string]any {
	return []map[string]any{
		{"uriTemplate": fixtures.DataTemplate, "name": "template-data", "mimeType": "application/json", "description": "Data of one id."},
	}
}

// resourcesFamily serves resources; a subscription is kept on its
// connection, so the family has no state of its own.
type resourcesFamily struct{ familyBase }

func newResourcesFamily(r *reference) family { return &resourcesFamily{familyBase{r}} }

func (r *resourcesFamily) handlers() map[string]Handler {
	return map[string]Handler{
		protocol.MethodResourcesList:          r.resourcesList,
		protocol.MethodResourcesTemplatesList: r.resourcesTemplatesList,
		protocol.MethodResourcesRead:          r.resourcesRead,
		protocol.MethodResourcesSubscribe:     r.resourcesSubscribe,
		protocol.MethodResourcesUnsubscribe:   r.resourcesUnsubscribe,
	}
}

// Resources are judged at the session versions only: at 2026-07-28
// subscriptions are gone and reads answer other codes (another family's
// concern), so nothing is declared there.
func (*resourcesFamily) capabilities(version string, caps map[string]any) {
	if !protocol.IsStateless(version) {
		caps["resources"] = map[string]any{"subscribe": true, "listChanged": false}
	}
}

func (*resourcesFamily) faults() fault.Set    { return resourceFaults }
func (*resourcesFamily) liberties() fault.Set { return resourceLiberties }

// page cuts items at cursor; the cursor is opaque to the client. An
// invalid one is -32602 (utilities/pagination.mdx#error-handling).
func (r *resourcesFamily) page(key string, items []map[string]any, params json.RawMessage) (map[string]any, *jsonrpc.Error) {
	var p protocol.PageParams
	_ = json.Unmarshal(params, &p)
	size, encode, decode := resourcePage, encodeCursor, decodeCursor
	switch {
	case r.is(ResourcePagesOfOne):
		size = 1
		encode = func(n int) string { return "page-" + strconv.Itoa(n) }
		decode = func(s string) (int, bool) {
			n, err := strconv.Atoi(strings.TrimPrefix(s, "page-"))
			return n, err == nil && strings.HasPrefix(s, "page-")
		}
	case r.is(ResourcesUnpaginated):
		size = len(items)
		decode = func(string) (int, bool) { return 0, false }
	}
	start := 0
	if p.Cursor != nil {
		n, ok := decode(*p.Cursor)
		if !ok || n <= 0 || n >= len(items) {
			if !r.is(InvalidCursorAccepted) {
				return nil, rpcError(codes.InvalidParams, "Invalid cursor", nil)
			}
			n = 0
		}
		start = n
	}
	end := min(start+size, len(items))
	out := make([]any, 0, end-start)
	for _, it := range items[start:end] {
		out = append(out, it)
	}
	result := map[string]any{key: out}
	switch {
	case end < len(items):
		result["nextCursor"] = encode(end)
	case r.is(LastPageNeverEnds) && start > 0:
		result["nextCursor"] = encode(start) // the same last page again, for ever
	}
	return result, nil
}

func encodeCursor(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(n)))
}

func decodeCursor(s string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(b), "offset:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
	return n, err == nil
}

func (r *resourcesFamily) resourcesList(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(ListChangedUndeclared) {
		_ = p.Notify(ctx, protocol.NotificationResourcesListChanged, map[string]any{})
	}
	res, err := r.page("resources", referenceResources(), req.Params)
	if err != nil {
		return nil, err
	}
	return complete(ctx, res), nil
}

func (r *resourcesFamily) resourcesTemplatesList(ctx context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	res, err := r.page("resourceTemplates", referenceTemplates(), req.Params)
	if err != nil {
		return nil, err
	}
	return complete(ctx, res), nil
}

func uriParam(req *jsonrpc.Message) string {
	var p protocol.ReadResourceParams
	_ = json.Unmarshal(req.Params, &p)
	return p.URI
}

func (r *resourcesFamily) resourcesRead(ctx context.Context, _ *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	uri := uriParam(req)
	var item map[string]any
	switch {
	case uri == fixtures.StaticText && r.is(StaticTextError):
		return nil, rpcError(codes.InternalError, "Internal error", nil)
	case uri == fixtures.StaticText:
		item = map[string]any{"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."}
	case uri == fixtures.StaticBinary:
		blob := base64.StdEncoding.EncodeToString(staticPNG)
		if r.is(BlobNotBase64) {
			blob = "PNG raw bytes!" // what a server that forgot to encode sends
		}
		item = map[string]any{"uri": uri, "mimeType": "image/png", "blob": blob}
	case uri == fixtures.WatchedResource:
		item = map[string]any{"uri": uri, "mimeType": "text/plain", "text": "watched at " + time.Now().UTC().Format(time.RFC3339Nano)}
		switch {
		case r.is(ReadURINotEchoed):
			item["uri"] = "test://another-resource"
		case r.is(ReadContentsNoText):
			delete(item, "text")
		}
	case templateURI.MatchString(uri):
		id := templateURI.FindStringSubmatch(uri)[1]
		if r.is(TemplateNotSubstituted) {
			id = "{id}"
		}
		text, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		item = map[string]any{"uri": uri, "mimeType": "application/json", "text": string(text)}
	case r.is(MissingResourceEmptyContents):
		return complete(ctx, map[string]any{"contents": []any{}}), nil
	case r.is(MissingResourceInternalError):
		return nil, rpcError(codes.InternalError, "Internal error", nil)
	default:
		// resources.mdx#error-handling: resource not found, with the URI.
		return nil, rpcError(codes.ResourceNotFound, "Resource not found", map[string]any{"uri": uri})
	}
	return complete(ctx, map[string]any{"contents": []any{item}}), nil
}

func (r *resourcesFamily) resourcesSubscribe(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(SubscribeRefused) {
		return nil, rpcError(codes.MethodNotFound, "Method not found: "+req.Method, nil)
	}
	uri := uriParam(req)
	p.Set("subscribed:"+uri, true)
	if uri == fixtures.WatchedResource && !r.is(NoResourceUpdates) {
		// The watched resource changes as the subscription starts: the
		// client hears of it before the answer, on the request's own stream
		// over HTTP (resources.mdx#subscriptions), so no update can cross
		// a later unsubscribe.
		_ = p.Notify(transport.WithRelatedRequest(ctx, req.ID), protocol.NotificationResourcesUpdated, map[string]any{"uri": uri})
	}
	return map[string]any{}, nil
}

func (r *resourcesFamily) resourcesUnsubscribe(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	if r.is(UnsubscribeRefused) {
		return nil, rpcError(codes.MethodNotFound, "Method not found: "+req.Method, nil)
	}
	uri := uriParam(req)
	p.Set("subscribed:"+uri, false)
	if r.is(UpdatedAfterUnsubscribe) {
		// On the next request, once the answer is surely in.
		armAfterRequests(p, 1, func() {
			_ = p.Notify(p.Context(), protocol.NotificationResourcesUpdated, map[string]any{"uri": uri})
		})
	}
	return map[string]any{}, nil
}
