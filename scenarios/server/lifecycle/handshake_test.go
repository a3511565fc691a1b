package lifecycle

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/transport"
)

// The handshake's own scenarios against a server that answers every POST
// with one canned answer: an HTTP status and a body, in which ID stands for
// the request's id.
var _ = g.Describe("the handshake scenarios", func() {
	serve := func(status int, body string) client.Target {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			raw, _ := io.ReadAll(r.Body)
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(raw, &req)
			if body != "" {
				w.Header().Set("Content-Type", "application/json")
			}
			w.WriteHeader(status)
			_, _ = io.WriteString(w, strings.ReplaceAll(body, "ID", string(req.ID)))
		}))
		g.DeferCleanup(srv.Close)
		return client.Target{Kind: transport.HTTP, URL: srv.URL + "/mcp"}
	}

	run := func(ctx context.Context, s *scenarios.Scenario, target client.Target, version string, explicit bool, gate *scenarios.Gate) map[string]scenarios.Verdict {
		res := scenarios.Execute(ctx, s, scenarios.Env{Target: target, Version: version, VersionExplicit: explicit,
			Transport: target.Kind, Gate: gate, Timing: scenarios.Timing{ResponseTimeout: 3 * time.Second}})
		out := map[string]scenarios.Verdict{}
		for _, v := range res.Verdicts {
			out[v.Check.ID] = v
		}
		return out
	}

	// notImplemented: the version is not judged, one line says why (or,
	// where it was named, one failure), and the gate says "unsupported".
	notImplemented := func(ctx g.SpecContext, target client.Target, evidence string) {
		gate := &scenarios.Gate{}
		v := run(ctx, discoverScenario, target, protocol.V20260728, false, gate)
		Expect(v[discoverVersionImplemented.ID].Outcome).To(Equal(scenarios.Skip), v[discoverVersionImplemented.ID].Message)
		Expect(v[discoverVersionImplemented.ID].Message).To(And(ContainSubstring("does not implement 2026-07-28"), ContainSubstring(evidence)))
		for id, verdict := range v {
			Expect(verdict.Outcome).To(Equal(scenarios.Skip), "%s: %s", id, verdict.Message)
		}
		Expect(gate.Unsupported()).To(BeTrue())

		gate = &scenarios.Gate{}
		v = run(ctx, discoverScenario, target, protocol.V20260728, true, gate)
		Expect(v[discoverVersionImplemented.ID].Outcome).To(Equal(scenarios.Fail))
		Expect(v[discoverVersionImplemented.ID].Message).To(ContainSubstring(evidence))
		Expect(v[discoverResultSchema.ID].Outcome).To(Equal(scenarios.Skip))
		Expect(gate.Unsupported()).To(BeTrue())
	}

	g.DescribeTable("take server/discover refused as an initialize-era server refuses it for a target without 2026-07-28",
		func(ctx g.SpecContext, status int, body, evidence string) {
			notImplemented(ctx, serve(status, body), evidence)
		},
		// The TypeScript SDK (server-everything). Before: FAIL
		// lifecycle-discover/result-schema, and the version was judged.
		g.Entry("400 with -32000 and id null", 400, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`, `-32000`),
		g.Entry("405 with an empty body", 405, "", "HTTP 405"),
		g.Entry("404 with a plain body", 404, "404 page not found", "HTTP 404"),
		g.Entry("400 with a non-modern error that carries the id", 400, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32600,"message":"Bad Request: Missing session ID"}}`, "HTTP 400 with error -32600"),
		// Modern answers that say the same.
		g.Entry("400 with -32022 and id null", 400, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version"},"id":null}`, "-32022"),
		g.Entry("404 with -32601", 404, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"Method not found"}}`, "-32601"),
		// go-sdk's stateful server. Before: PASS, the version judged.
		g.Entry("a DiscoverResult that lists the 2025 versions only", 200, `{"jsonrpc":"2.0","id":ID,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2025-06-18"],`+
			`"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}`, `without 2026-07-28`),
	)

	// A refusal that does not say the version is missing: the handshake's
	// own check fails and every later scenario there is not judged, once.
	refused := func(ctx g.SpecContext, s *scenarios.Scenario, version string, status int, body, failed, evidence string) {
		target := serve(status, body)
		gate := &scenarios.Gate{}
		v := run(ctx, s, target, version, false, gate)
		Expect(v[failed].Outcome).To(Equal(scenarios.Fail), v[failed].Message)
		Expect(v[failed].Message).To(ContainSubstring(evidence))
		reason, closed := gate.Closed()
		Expect(closed).To(BeTrue())
		Expect(gate.Unsupported()).To(BeFalse())
		Expect(reason).To(And(HavePrefix("the handshake failed in "+s.ID+" over http at "+version+": "), ContainSubstring(evidence)))

		later := run(ctx, s, target, version, false, gate)
		for id, verdict := range later {
			Expect(verdict.Outcome).To(Equal(scenarios.Errored), id)
			Expect(verdict.Message).To(Equal("not judged: " + reason))
		}
	}

	g.DescribeTable("close the gate on a handshake refused for another reason", refused,
		g.Entry("server/discover refused with -32020 (a modern error)", discoverScenario, protocol.V20260728, 400, `{"jsonrpc":"2.0","error":{"code":-32020,"message":"Header mismatch"},"id":null}`, discoverResultSchema.ID, "-32020"),
		g.Entry("server/discover answered 500", discoverScenario, protocol.V20260728, 500, "internal error", discoverResultSchema.ID, "HTTP 500"),
		g.Entry("server/discover answered 200 with -32603 (not a 4xx)", discoverScenario, protocol.V20260728, 200, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32603,"message":"boom"}}`, discoverResultSchema.ID, "-32603"),
		g.Entry("initialize refused with -32603", initializeScenario, protocol.V20251125, 200, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32603,"message":"boom"}}`, initializeResultSchema.ID, "-32603"),
	)

	g.It("takes any other error to server/discover over a message transport as an initialize-era server's", func(ctx g.SpecContext) {
		// stdio.mdx, "Backward Compatibility": "The server returns any
		// other error … the server is legacy." WebSocket reuses stdio's
		// message rules.
		l, err := transport.ListenWebSocket(ctx, "127.0.0.1:0", transport.WSServerOptions{})
		Expect(err).NotTo(HaveOccurred())
		g.DeferCleanup(l.Close)
		go func() {
			for {
				c, err := l.Accept(context.Background())
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					for {
						frame, err := c.Recv(context.Background())
						if err != nil {
							return
						}
						var req struct {
							ID json.RawMessage `json:"id"`
						}
						_ = json.Unmarshal(frame, &req)
						_ = c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32602,"message":"Invalid params"}}`))
					}
				}()
			}
		}()
		notImplemented(ctx, client.Target{Kind: transport.WS, URL: l.Addr()}, "-32602")
	})
})
