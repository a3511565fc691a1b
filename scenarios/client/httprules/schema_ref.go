package httprules

import (
	"context"
	"fmt"
	"github.com/mcpconform/mcpconform/fixtures"
	"net"
	"net/http"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/clientside"
)

const (
	refTool    = fixtures.ClientLookupUser
	canaryPath = "/canary/profile-schema.json"
)

var refNotFetched = &scenarios.Check{ID: "client-json-schema-ref/not-fetched", Level: scenarios.Must, Spec: refSpec,
	Title:        "the client never fetches the network URI a tool's inputSchema $refs (a canary on loopback)",
	Quote:        "Implementations MUST NOT automatically dereference $ref values that resolve to a network URI.",
	Faults:       []*fault.Fault{client.FetchesNetworkRef},
	Requirements: []string{"sep-2106-no-network-ref-deref"}}

var schemaRefScenario = &scenarios.Scenario{
	ID:       "client-json-schema-ref",
	Official: "json-schema-ref-no-deref",
	Title:    "a network $ref in a tool's inputSchema is not dereferenced",
	Family:   family,
	Side:     scenarios.ClientSide,
	Versions: versions,
	Needs:    []scenarios.Need{scenarios.NeedsFixture(fixtures.ClientLookupUser, "the client lists tools")},
	Purpose: "The fake server lists " + refTool + ", whose inputSchema has a same-document $ref and a $ref to a canary URL served " +
		"on loopback by mcpconform (apart from the fake server, so it applies on every transport). Any request to the canary, until " +
		"the client exits or a quiet window after its last move, fails.",
	Checks: []*scenarios.Check{refNotFetched},
	Run: clientside.Body(func(t *clientside.T) {
		canary, hits := serveCanary(t)
		t.Serve(clientside.Script{Tools: []clientside.Tool{{Name: refTool, Description: "Look up a user profile by id", InputSchema: map[string]any{
			"$schema":    "https://json-schema.org/draft/2020-12/schema",
			"type":       "object",
			"$defs":      map[string]any{"userId": map[string]any{"type": "string", "pattern": "^[a-z0-9-]+$"}},
			"properties": map[string]any{"id": map[string]any{"$ref": "#/$defs/userId"}, "profile": map[string]any{"$ref": canary}},
			"required":   []any{"id"},
		}}}})
		t.Step("wait for the client to list the tools, then watch the canary %s", canary)
		out := t.Settle(func(r []clientside.Received) bool {
			return len(clientside.Requests(r, protocol.MethodToolsList, "")) > 0
		})
		if len(t.Log().Requests(protocol.MethodToolsList)) == 0 {
			t.Missed("tools/list", out)
		}
		if t.ExitCode() < 0 {
			// Still running: a fetch may come late.
			ctx, cancel := context.WithTimeout(t.Ctx, t.QuietWindow())
			select {
			case <-hits.first:
			case <-ctx.Done():
			}
			cancel()
		}
		got := hits.list()
		t.Judge(refNotFetched, len(got) == 0, "no request to "+canary, fmt.Sprintf("%d requests: %s", len(got), listed(got)))
	}),
}

type canaryHits struct {
	mu    sync.Mutex
	hits  []string
	first chan struct{}
}

func (c *canaryHits) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.hits...)
}

// serveCanary serves the canary schema on a loopback port of its own for
// the scenario's life and records every request to it.
func serveCanary(t *clientside.T) (string, *canaryHits) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Abort("could not serve the canary: %v", err)
	}
	hits := &canaryHits{first: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.mu.Lock()
		if len(hits.hits) == 0 {
			close(hits.first)
		}
		hits.hits = append(hits.hits, fmt.Sprintf("%s %s (User-Agent %q)", r.Method, r.URL.Path, r.UserAgent()))
		hits.mu.Unlock()
		t.Transcript().Eventf("canary", "%s %s: the client dereferenced the network $ref", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"displayName":{"type":"string"}}}`))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String() + canaryPath, hits
}
