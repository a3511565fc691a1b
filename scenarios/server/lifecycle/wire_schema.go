package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Every message of every session judged against the JSON schema of the
// version in use, as the official suite's wire-schema-valid check does for
// its own traffic.

var (
	wireSchemaMessagesValid = &scenarios.Check{ID: "wire-schema/messages-valid", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#schema",
		Quote: "The full specification of the protocol is defined as a TypeScript schema. " +
			"This is the source of truth for all protocol messages and structures.",
		Title: "every result and every server notification or request after the handshake, in every session of every scenario " +
			"on this transport and version, validates against the schema of the version in use (reported with the scenario and JSON path)",
		// Faults whose invalid messages other checks judge too are listed:
		// the ledger sees every session, so wire-schema fails on them as well.
		Faults: []*fault.Fault{server.ToolMissingInputSchema, server.StatusNotificationNoTTL,
			server.NotificationMissingFields, server.TtlMissing,
			server.CachingHintsMissing, server.CachingTTLNegative, server.CachingScopeInvalid,
			// Answers to requests sent raw (prompts-get-every, the MRTR
			// flows, resources-read-every) are held to the schema too.
			server.PromptSystemRole, server.PromptContentUnknownType, server.ReadContentsNoText,
			server.MRTRElicitationInvalid, server.MRTROnToolsList, server.MRTRResultTypeMissing,
			server.MRTRRootsWrongMethod, server.MRTRSamplingInvalid,
			// The tasks extension's: a fractional ttlMs, a CallToolResult
			// that says resultType "task".
			server.FractionalMs, server.SyncResultSaysTask},
		// the extension's schema allows resultType "task" only on a CreateTaskResult and fixes "complete" on tasks/*
		Requirements: []string{"sep-2663-no-task-result-type-on-others", "sep-2663-result-type-complete-on-tasks-get",
			"sep-2663-result-type-complete-on-tasks-update", "sep-2663-result-type-complete-on-tasks-cancel"}}
)

var wireSchemaScenario = &scenarios.Scenario{
	ID:       "wire-schema",
	Title:    "what the server sends, in every scenario, validates against the schema of the version in use",
	Family:   "lifecycle",
	Side:     scenarios.ServerSide,
	Versions: protocol.Judged(),
	// Last on each transport and version: it judges the ledger the other
	// scenarios' sessions filled.
	Last: true,
	Purpose: "Every session of every scenario validates what the server sends (results, notifications, requests) by " +
		"strictly decoding it into the types generated from the official schema of the version in use, and the driver " +
		"adds what fails to a ledger per transport and version. This scenario runs last there: the fake client lists " +
		"what the server offers (tools, prompts, resources, templates, as declared), and the check judges that " +
		"traffic together with the ledger.",
	Checks: []*scenarios.Check{wireSchemaMessagesValid},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{Capabilities: map[string]any{"elicitation": map[string]any{}}})
		// The handshake's own result is judged by lifecycle-initialize and
		// lifecycle-discover; this check starts after it.
		handshake := len(s.SchemaViolations())
		lists := []struct{ capability, method string }{
			{"tools", protocol.MethodToolsList},
			{"prompts", protocol.MethodPromptsList},
			{"resources", protocol.MethodResourcesList},
			{"resources", protocol.MethodResourcesTemplatesList},
		}
		for _, l := range lists {
			if !s.HasCapability(l.capability) {
				continue
			}
			t.Step("%s (every page)", l.method)
			cursor := ""
			for range 20 {
				params := map[string]any{}
				if cursor != "" {
					params["cursor"] = cursor
				}
				resp, err := t.Request(s, l.method, params)
				if err != nil || resp.Error != nil {
					break // judged by the families that own these methods
				}
				var page protocol.Page
				_ = json.Unmarshal(resp.Result, &page)
				if page.NextCursor == nil || *page.NextCursor == "" {
					break
				}
				cursor = *page.NextCursor
			}
		}
		if !s.Stateless() {
			// ping; the stateless barrier would be server/discover, whose
			// result lifecycle-discover judges.
			t.Barrier(s)
		}
		var all []scenarios.WireViolation
		for _, v := range s.SchemaViolations()[handshake:] {
			all = append(all, scenarios.WireViolation{Scenario: t.Scenario().ID, What: v.What, Err: v.Err.Error(), Raw: v.Raw})
		}
		// Both the session and the ledger keep the first violations and
		// only count the rest.
		unkept := s.SchemaViolationsDropped()
		kept, total := t.Env.Wire.Violations()
		all = append(all, kept...)
		unkept += total - len(kept)
		t.Step("%d invalid message(s) in this scenario and the ledger", len(all)+unkept)
		if len(all) > 0 || unkept > 0 {
			t.Fail(wireSchemaMessagesValid, "every message the server sent valid against the "+protocol.SchemaFor(t.Env.Version)+" schema",
				describeWire(all)+describeUnkept(unkept))
			return
		}
		t.Pass(wireSchemaMessagesValid)
	}),
}

// wireShown is how many distinct violations describeWire spells out.
const wireShown = 3

// wireRawLimit bounds the excerpt of each message shown.
const wireRawLimit = 300

// describeUnkept says how many more violations were seen than were kept
// for describeWire to sum up; empty for none.
func describeUnkept(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("\nand %s more invalid message(s) counted but not kept (a session keeps its first %s, the ledger of a transport and version its first %s)",
		jsonrpc.Thousands(n), jsonrpc.Thousands(client.MaxKeptViolations), jsonrpc.Thousands(scenarios.WireViolationKeep))
}

// describeWire sums up schema violations, bounded: the first few distinct
// ones in full (the scenario that saw it, the message, the JSON path and
// reason, an excerpt of the message, how often it was seen), then a count
// of the rest.
func describeWire(all []scenarios.WireViolation) string {
	groups := judge.GroupBy(all,
		func(v scenarios.WireViolation) string { return v.What + "\x00" + v.Err },
		func(v scenarios.WireViolation) string { return v.Scenario },
		func(scenarios.WireViolation) int { return 1 })
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid message(s), %d distinct", len(all), len(groups))
	for i, g := range groups {
		if i == wireShown {
			rest := 0
			for _, later := range groups[i:] {
				rest += later.N
			}
			fmt.Fprintf(&b, "\nand %d more invalid message(s) (%d distinct)", rest, len(groups)-i)
			break
		}
		fmt.Fprintf(&b, "\n- in %s: the %s is invalid: %s%s", g.First.Scenario, g.First.What, g.First.Err, g.Seen())
		if len(g.First.Raw) > 0 {
			raw := string(g.First.Raw)
			if len(raw) > wireRawLimit {
				raw = strings.ToValidUTF8(raw[:wireRawLimit], "") + "…"
			}
			fmt.Fprintf(&b, "\n  %s", raw)
		}
	}
	return b.String()
}
