// Package resources is the server resources family (scenarios.md S8): resources/list, read (text, binary), templates, subscribe and unsubscribe, and missing resources.
package resources

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{readTextScenario, readBinaryScenario, templatesReadScenario, everyScenario, notFoundScenario, subscribeScenario}
}

const resourcesSpec = "2025-11-25/server/resources.mdx"

// The rules of subscriptions and of a resource not found here are those of
// the session versions (2026-07-28 removed resources/subscribe and answers
// a missing resource with -32602: the stateless family judges those);
// reading a text, a binary and a template resource is judged at every
// version.
var versions = protocol.JudgedStateful()

// uriTemplateRead is fixtures.DataTemplate expanded with the id 123.
const uriTemplateRead = "test://template/123/data"

// contents are the items of a ReadResourceResult, none for an error.
func contents(resp *jsonrpc.Message) []protocol.ResourceContents {
	var r protocol.ReadResult
	if resp != nil && resp.Error == nil {
		_ = json.Unmarshal(resp.Result, &r)
	}
	return r.Contents
}

// listAll fetches every page of a list method (at most 50 pages) and
// returns the values of field in its items. The items are read raw, not as
// the views: an item without the field (or with one that is no string)
// gives no value, where a view would give "".
func listAll(t *serverside.T, s *client.Session, method, key, field string) (map[string]bool, error) {
	out := map[string]bool{}
	cursor := ""
	for range 50 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := t.Request(s, method, params)
		if err != nil || resp.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, judge.Describe(resp, err))
		}
		var page map[string]json.RawMessage
		_ = json.Unmarshal(resp.Result, &page)
		var items []map[string]any
		_ = json.Unmarshal(page[key], &items)
		for _, it := range items {
			if v, ok := it[field].(string); ok {
				out[v] = true
			}
		}
		var next string
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" {
			break
		}
		cursor = next
	}
	return out, nil
}

// requireListed skips the rest when the target does not list the fixture.
func requireListed(t *serverside.T, s *client.Session, method, key, field, fixture string) {
	t.Step("%s to find %s", method, fixture)
	got, err := listAll(t, s, method, key, field)
	if err != nil {
		t.Blocked("%v", err)
	}
	if !got[fixture] {
		t.SkipRest(fmt.Sprintf("the target lists no %s (the official fixture this scenario reads)", fixture))
	}
}

func read(t *serverside.T, s *client.Session, uri string) (*jsonrpc.Message, error) {
	t.Step("resources/read %s", uri)
	return t.Request(s, protocol.MethodResourcesRead, map[string]any{"uri": uri})
}

var readTextContent = &scenarios.Check{ID: "resources-read-text/content", Level: scenarios.Must, Spec: resourcesSpec + "#resource-contents",
	Quote:  "Resources can contain either text or binary data:",
	Title:  "reading test://static-text answers a result whose contents hold a text item for that URI (an error or empty contents fails)",
	Faults: []*fault.Fault{server.StaticTextError}}

var readTextScenario = &scenarios.Scenario{
	ID: "resources-read-text", Title: "a listed text resource reads as text", Family: "resources", Side: scenarios.ServerSide,
	Versions: protocol.Judged(), Needs: []scenarios.Need{scenarios.NeedsCapability("resources"), scenarios.NeedsFixture(fixtures.StaticText, "listed; reads as one text item")},
	Checks: []*scenarios.Check{readTextContent},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		requireListed(t, s, protocol.MethodResourcesList, "resources", "uri", fixtures.StaticText)
		resp, err := read(t, s, fixtures.StaticText)
		c := contents(resp)
		ok := err == nil && len(c) > 0 && c[0].URI == fixtures.StaticText && c[0].Text != nil && c[0].Blob == nil
		t.Judge(readTextContent, ok, "contents[0] with uri "+fixtures.StaticText+" and a text field", judge.Describe(resp, err))
	}),
}

var readBinaryBase64 = &scenarios.Check{ID: "resources-read-binary/blob-base64", Level: scenarios.Must, Spec: resourcesSpec + "#security-considerations",
	Quote:  "Binary data MUST be properly encoded",
	Title:  "reading test://static-binary answers contents whose first item holds a blob for that URI that is valid base64",
	Faults: []*fault.Fault{server.BlobNotBase64}}

var readBinaryScenario = &scenarios.Scenario{
	ID: "resources-read-binary", Title: "a listed binary resource reads as base64", Family: "resources", Side: scenarios.ServerSide,
	Versions: protocol.Judged(), Needs: []scenarios.Need{scenarios.NeedsCapability("resources"), scenarios.NeedsFixture(fixtures.StaticBinary, "listed; reads as one base64 blob")},
	Checks: []*scenarios.Check{readBinaryBase64},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		requireListed(t, s, protocol.MethodResourcesList, "resources", "uri", fixtures.StaticBinary)
		resp, err := read(t, s, fixtures.StaticBinary)
		c := contents(resp)
		if err != nil || len(c) == 0 || c[0].Blob == nil || c[0].URI != fixtures.StaticBinary {
			t.Fail(readBinaryBase64, "contents[0] with uri "+fixtures.StaticBinary+" and a blob", judge.Describe(resp, err))
			return
		}
		_, derr := base64.StdEncoding.DecodeString(*c[0].Blob)
		t.Judge(readBinaryBase64, derr == nil, "a blob in base64 (RFC 4648, with padding)",
			fmt.Sprintf("%q: %v", judge.Abbreviate(*c[0].Blob, 80), derr))
	}),
}

var templatesReadSubstituted = &scenarios.Check{ID: "resources-templates-read/substituted", Level: scenarios.Must, Spec: resourcesSpec + "#resource-templates",
	Quote:  "Resource templates allow servers to expose parameterized resources using URI templates.",
	Title:  "reading test://template/123/data through the listed template answers text naming the id 123",
	Faults: []*fault.Fault{server.TemplateNotSubstituted}}

var templatesReadScenario = &scenarios.Scenario{
	ID: "resources-templates-read", Title: "a resource template is listed and read with its variable filled in", Family: "resources", Side: scenarios.ServerSide,
	Versions: protocol.Judged(), Needs: []scenarios.Need{scenarios.NeedsCapability("resources"),
		scenarios.NeedsFixture(fixtures.DataTemplate, "listed; reading "+uriTemplateRead+" answers text naming 123")},
	Checks: []*scenarios.Check{templatesReadSubstituted},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		requireListed(t, s, protocol.MethodResourcesTemplatesList, "resourceTemplates", "uriTemplate", fixtures.DataTemplate)
		resp, err := read(t, s, uriTemplateRead)
		c := contents(resp)
		ok := err == nil && len(c) > 0 && c[0].Text != nil && strings.Contains(*c[0].Text, "123") && !strings.Contains(*c[0].Text, "{id}")
		t.Judge(templatesReadSubstituted, ok, "contents[0].text naming 123 (the id substituted)", judge.Describe(resp, err))
	}),
}

var notFoundCode = &scenarios.Check{ID: "resources-not-found/code", Level: scenarios.Should, Spec: resourcesSpec + "#error-handling",
	Quote: "Servers SHOULD return standard JSON-RPC errors for common failure cases:",
	Title: "reading a resource that does not exist answers error -32002 (Resource not found), not a result " +
		"(an empty contents included) nor another code",
	Faults: []*fault.Fault{server.MissingResourceEmptyContents, server.MissingResourceInternalError}}

var notFoundScenario = &scenarios.Scenario{
	ID: "resources-not-found", Title: "a missing resource is an error -32002, never an empty contents", Family: "resources", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("resources"), scenarios.NeedsFixture(fixtures.NotFoundResource, "must not exist")},
	Checks: []*scenarios.Check{notFoundCode},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		resp, err := read(t, s, fixtures.NotFoundResource)
		if err == nil && resp.Error == nil && len(contents(resp)) > 0 {
			t.SkipRest("the target has a resource " + fixtures.NotFoundResource + ": nothing to judge")
		}
		t.Judge(notFoundCode, err == nil && judge.IsErrorCode(resp, codes.ResourceNotFound), "error -32002", judge.Describe(resp, err))
	}),
}

var (
	subscribeAccepted = &scenarios.Check{ID: "resources-subscribe/accepted", Level: scenarios.Must, Spec: resourcesSpec + "#subscriptions",
		Quote:  "Clients can subscribe to specific resources and receive notifications when they change:",
		Title:  "a server that declares resources.subscribe answers resources/subscribe with a result",
		Faults: []*fault.Fault{server.SubscribeRefused}}
	unsubscribeAccepted = &scenarios.Check{ID: "resources-subscribe/unsubscribe-accepted", Level: scenarios.Must, Spec: resourcesSpec + "#subscriptions",
		Quote:  "The protocol supports optional subscriptions to resource changes.",
		Title:  "resources/unsubscribe of a subscribed resource is answered with a result",
		Faults: []*fault.Fault{server.UnsubscribeRefused}}
	noUpdateAfterUnsubscribe = &scenarios.Check{ID: "resources-subscribe/no-update-after-unsubscribe", Level: scenarios.Should, Spec: resourcesSpec + "#subscriptions",
		Quote: "Clients can subscribe to specific resources and receive notifications when they change:",
		Title: "once resources/unsubscribe is answered, no notifications/resources/updated for that resource arrives within the " +
			"quiet window (inferred: notifications follow the subscription)",
		Faults:    []*fault.Fault{server.UpdatedAfterUnsubscribe},
		Liberties: []*fault.Fault{server.NoResourceUpdates}}
)

var subscribeScenario = &scenarios.Scenario{
	ID: "resources-subscribe", Title: "subscribe and unsubscribe, and no updates after unsubscribing", Family: "resources", Side: scenarios.ServerSide,
	Versions: versions, Needs: []scenarios.Need{scenarios.NeedsCapability("resources.subscribe", "declared true"),
		scenarios.NeedsFixture(fixtures.WatchedResource, "listed; subscribed to, then unsubscribed from")},
	Purpose: "The client subscribes to the watched resource, lets in an update for the quiet window (servers may send none), " +
		"unsubscribes, and watches a quiet window for updates of that resource.",
	Checks: []*scenarios.Check{subscribeAccepted, unsubscribeAccepted, noUpdateAfterUnsubscribe},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		caps, _ := s.ServerCapabilities["resources"].(map[string]any)
		if sub, _ := caps["subscribe"].(bool); !sub {
			t.SkipRest("the server does not declare resources.subscribe (resources.mdx#capabilities)")
		}
		requireListed(t, s, protocol.MethodResourcesList, "resources", "uri", fixtures.WatchedResource)
		updated := func(m *jsonrpc.Message) bool {
			return m.Method == protocol.NotificationResourcesUpdated && judge.StringField(m.Params, "uri") == fixtures.WatchedResource
		}
		mark := s.Inbox().Mark()
		t.Step("resources/subscribe %s", fixtures.WatchedResource)
		resp, err := t.Request(s, protocol.MethodResourcesSubscribe, map[string]any{"uri": fixtures.WatchedResource})
		if !t.Judge(subscribeAccepted, err == nil && resp.Error == nil, "a result", judge.Describe(resp, err)) {
			t.Blocked("the subscription was refused")
		}
		// Updates are the server's to send when the resource changes, and
		// the fixture need not change at all ("updates may be sent"). An
		// update sent at once on subscribing is let in for the quiet window,
		// so that one crossing the unsubscribe over another stream (HTTP's
		// GET stream) is not taken for an update after it.
		t.Step("wait up to %s for notifications/resources/updated", t.QuietWindow())
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			qctx, qcancel := contextWithin(ctx, t.QuietWindow())
			defer qcancel()
			if _, werr := s.Inbox().WaitFrom(qctx, mark, updated); werr != nil {
				t.Step("no update arrived within %s; servers need not send one", t.QuietWindow())
			}
		}()
		t.Step("resources/unsubscribe %s", fixtures.WatchedResource)
		resp, err = t.Request(s, protocol.MethodResourcesUnsubscribe, map[string]any{"uri": fixtures.WatchedResource})
		if !t.Judge(unsubscribeAccepted, err == nil && resp.Error == nil, "a result", judge.Describe(resp, err)) {
			t.Blocked("the unsubscription was refused")
		}
		after := s.Inbox().Mark()
		// One more exchange first, so that a server that sends late on its
		// next request's occasion is seen too.
		t.BarrierOrEnd(s)
		t.Step("watch %s for notifications/resources/updated", t.QuietWindow())
		func() {
			ctx, cancel := t.Wait()
			defer cancel()
			qctx, qcancel := contextWithin(ctx, t.QuietWindow())
			defer qcancel()
			if m, werr := s.Inbox().WaitFrom(qctx, after, updated); werr == nil {
				t.Fail(noUpdateAfterUnsubscribe, "no notifications/resources/updated for "+fixtures.WatchedResource+" after unsubscribing", string(m.Params))
				return
			}
			t.BarrierOrEnd(s)
			late := s.Inbox().Matching(after, updated)
			t.Judge(noUpdateAfterUnsubscribe, len(late) == 0, "no notifications/resources/updated for "+fixtures.WatchedResource+" after unsubscribing",
				fmt.Sprintf("%d arrived", len(late)))
		}()
	}),
}

// contextWithin bounds ctx by d more.
func contextWithin(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}
