package server_test

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
)

// The reference server is the conformant peer every server scenario is
// proven against: it offers every fixture of the contract that a server
// under test offers, at one version or the other.
var _ = Describe("the reference server and the fixtures contract", func() {
	It("lists every fixture a server under test offers", func() {
		listed := map[string]bool{}
		n := 0
		// list pages through method at version, noting the names or URIs of its items.
		list := func(w *wire, method, items, key string, params map[string]any) {
			GinkgoHelper()
			cursor := ""
			for page := 0; page < 50; page++ {
				p := map[string]any{}
				for k, v := range params {
					p[k] = v
				}
				if cursor != "" {
					p["cursor"] = cursor
				}
				n++
				w.send(request(fmt.Sprint(n), method, p))
				var r struct {
					Items      []map[string]any
					NextCursor string `json:"nextCursor"`
				}
				raw := result(w.next())
				b, _ := json.Marshal(raw[items])
				Expect(json.Unmarshal(b, &r.Items)).To(Succeed(), "%s: %s", method, items)
				for _, it := range r.Items {
					name, _ := it[key].(string)
					listed[name] = true
				}
				cursor, _ = raw["nextCursor"].(string)
				if cursor == "" {
					return
				}
			}
			Fail(method + " did not end in 50 pages")
		}
		lists := []struct{ method, items, key string }{
			{protocol.MethodToolsList, "tools", "name"},
			{protocol.MethodPromptsList, "prompts", "name"},
			{protocol.MethodResourcesList, "resources", "uri"},
			{protocol.MethodResourcesTemplatesList, "resourceTemplates", "uriTemplate"},
		}

		e, err := server.NewReference(server.ReferenceOptions{})
		Expect(err).NotTo(HaveOccurred())
		w := overPipes(e)
		w.send(request("0", protocol.MethodInitialize, map[string]any{"protocolVersion": protocol.V20251125,
			"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}))
		result(w.next())
		w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for _, l := range lists {
			list(w, l.method, l.items, l.key, nil)
		}

		e, err = server.NewReference(server.ReferenceOptions{})
		Expect(err).NotTo(HaveOccurred())
		w = overPipes(e)
		meta := map[string]any{"_meta": map[string]any{
			protocol.MetaProtocolVersion: protocol.V20260728,
			protocol.MetaClientInfo:      map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: map[string]any{
				"extensions": map[string]any{protocol.ExtensionTasks: map[string]any{}}},
		}}
		for _, l := range lists {
			list(w, l.method, l.items, l.key, meta)
		}

		var missing []string
		for _, f := range fixtures.Table {
			if f.Side == fixtures.ByServer && !listed[f.Name] && f.Name != fixtures.NotFoundResource {
				missing = append(missing, f.Name)
			}
		}
		Expect(missing).To(BeEmpty(), "fixtures the reference server lists at neither 2025-11-25 nor 2026-07-28")
		Expect(listed).NotTo(HaveKey(fixtures.NotFoundResource), "the URI that must not exist is listed")
	})
})
