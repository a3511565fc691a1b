package peer_test

import (
	"context"
	"encoding/json"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// caught collects what a guard reports.
type caught struct {
	mu  sync.Mutex
	all []peer.OwnInvalid
}

func (c *caught) report(o peer.OwnInvalid) { c.mu.Lock(); c.all = append(c.all, o); c.mu.Unlock() }

func (c *caught) list() []peer.OwnInvalid {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]peer.OwnInvalid(nil), c.all...)
}

func guardAt(version string, c *caught) *peer.Guard {
	return &peer.Guard{Version: func(peer.Outbound) string { return version }, Report: c.report}
}

var _ = Describe("Guard", func() {
	It("reports a 2026-07-28 tools/list result without the caching hints, and sends it all the same", func() {
		c := &caught{}
		w := onWire(peer.Options{Guard: guardAt(protocol.V20260728, c), Handlers: map[string]peer.Handler{
			"tools/list": answer(map[string]any{"tools": []any{}, "resultType": "complete"}),
		}})
		w.send(request("1", "tools/list", map[string]any{}))
		Expect(result(w.next())).To(HaveKey("tools"), "the guard reports, it does not block")
		Eventually(c.list).WithTimeout(wait).Should(HaveLen(1))
		got := c.list()[0]
		Expect(got.What).To(Equal("result of tools/list"))
		Expect(got.Version).To(Equal(protocol.V20260728))
		Expect(got.Deviation).To(BeNil())
		var se *protocol.SchemaError
		Expect(got.Err).To(BeAssignableToTypeOf(se))
		Expect(got.Err.Error()).To(ContainSubstring("$.result.cacheScope: required property is missing"))
		Expect(got.Error()).To(HavePrefix("mcpconform's own result of tools/list at 2026-07-28 is invalid"))
	})

	It("passes the same result with ttlMs and cacheScope", func() {
		c := &caught{}
		w := onWire(peer.Options{Guard: guardAt(protocol.V20260728, c), Handlers: map[string]peer.Handler{
			"tools/list": answer(map[string]any{"tools": []any{}, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}),
		}})
		w.send(request("1", "tools/list", map[string]any{}))
		result(w.next())
		w.rest()
		Expect(c.list()).To(BeEmpty())
	})

	It("validates requests, notifications and raw frames, and notes deliberate ones as such", func() {
		c := &caught{}
		w := onWire(peer.Options{Guard: guardAt(protocol.V20251125, c)})
		ctx := stepCtx()
		Expect(w.peer.Notify(ctx, "notifications/progress", map[string]any{"progress": "half"})).To(Succeed())
		w.next()
		Expect(w.peer.Notify(peer.Deliberately(ctx, "a spec's probe"), "notifications/progress", map[string]any{"progress": "half"})).To(Succeed())
		w.next()
		Expect(w.peer.SendRaw(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping" not-json}`))).To(Succeed())
		Eventually(w.frames).WithTimeout(wait).Should(Receive(), "the raw frame, sent as it is")
		w.rest()
		got := c.list()
		Expect(got).To(HaveLen(3))
		Expect(got[0].What).To(Equal("notification notifications/progress"))
		Expect(got[0].Err.Error()).To(ContainSubstring("$.params.progress"))
		Expect(got[1].Deviation).NotTo(BeNil())
		Expect(got[1].Deviation.By).To(Equal("a spec's probe"))
		Expect(got[2].What).To(Equal("frame"))
	})

	It("names the method a result answers, and marks a Deviant answer deliberate", func() {
		c := &caught{}
		w := onWire(peer.Options{Guard: guardAt(protocol.V20251125, c), Handlers: map[string]peer.Handler{
			"prompts/get": answer(peer.Deviant{Result: map[string]any{"messages": []any{map[string]any{"role": "system",
				"content": map[string]any{"type": "text", "text": "x"}}}}, By: "fault prompt-system-role"}),
		}})
		w.send(request("7", "prompts/get", map[string]any{"name": "p"}))
		Expect(result(w.next())).To(HaveKey("messages"), "a Deviant's result is sent as it is")
		w.rest()
		Expect(c.list()).To(ConsistOf(And(
			HaveField("What", "result of prompts/get"),
			HaveField("Deviation", Equal(&peer.Deviation{By: "fault prompt-system-role"})))))
	})
})

var _ = DescribeTable("Validate: the JSON-RPC shape of what we send",
	func(version, method string, msg *jsonrpc.Message, wantErr string) {
		err := peer.Validate(version, peer.Outbound{Msg: msg, Method: method})
		if wantErr == "" {
			Expect(err).NotTo(HaveOccurred())
			return
		}
		Expect(err).To(MatchError(ContainSubstring(wantErr)))
	},
	Entry("a null result", protocol.V20251125, "ping", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1), Result: json.RawMessage("null")}, "expected object, got null"),
	Entry("an array result of a method the schema does not know", protocol.V20251125, "x/unknown", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1), Result: json.RawMessage("[]")}, "expected object, got array"),
	Entry("a result before any version is agreed", "", "", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1), Result: json.RawMessage("true")}, "expected object, got boolean"),
	Entry("null params", protocol.V20251125, "", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1), Method: "tools/list", Params: json.RawMessage("null")}, "expected object, got null"),
	Entry("a request with a null id", protocol.V20251125, "", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.ID("null"), Method: "ping"}, "a request id must be a string or an integer"),
	Entry("an error with a null id (JSON-RPC 2.0 §5)", protocol.V20251125, "", jsonrpc.NewError(jsonrpc.ID("null"), -32700, "Parse error", nil), ""),
	Entry("a wrong jsonrpc member", protocol.V20251125, "", &jsonrpc.Message{JSONRPC: "1.0", ID: jsonrpc.NumberID(1), Result: json.RawMessage("{}")}, `expected "2.0"`),
	Entry("a 2026-07-28 server/discover result without ttlMs", protocol.V20260728, "server/discover", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1),
		Result: json.RawMessage(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"cacheScope":"public"}`)}, "$.result.ttlMs: required property is missing"),
	Entry("a valid 2026-07-28 server/discover result", protocol.V20260728, "server/discover", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1),
		Result: json.RawMessage(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"cacheScope":"public","ttlMs":0}`)}, ""),
	Entry("2026-07-28 prompts with arguments null", protocol.V20260728, "prompts/list", &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(1),
		Result: json.RawMessage(`{"resultType":"complete","prompts":[{"name":"p","arguments":null}],"cacheScope":"public","ttlMs":0}`)}, "$.result.prompts[0].arguments: expected array, got null"),
)

var _ = Describe("HarnessLines", func() {
	It("finds the guard's lines in a process's output", func() {
		o := peer.OwnInvalid{What: "result of tools/list", Version: "2026-07-28", Err: context.Canceled}
		text := "starting\n" + o.Line() + "\nbye\n"
		Expect(peer.HarnessLines(text)).To(ConsistOf("mcpconform's own result of tools/list at 2026-07-28 is invalid: context canceled"))
		Expect(peer.HarnessLines("nothing here\n")).To(BeEmpty())
	})
})
