package clientside

import (
	"context"
	"encoding/json"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
)

// The fake server's own answers, held to the schema of the version it
// speaks (the guard of fakes/peer validates them on every run; these specs
// pin the answers a strict client rejected).
var _ = g.Describe("the fake server's answers", func() {
	fake := func(version string) *T {
		t := &T{T: &scenarios.T{Env: scenarios.Env{Version: version}}, log: newLog()}
		return t
	}
	initialize := func(t *T, requested string) *jsonrpc.Error {
		params, _ := json.Marshal(map[string]any{"protocolVersion": requested, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "c", "version": "1"}})
		_, rpcErr := t.initialize(Script{})(context.Background(), nil, &jsonrpc.Message{Method: protocol.MethodInitialize, Params: params})
		return rpcErr
	}

	g.It("at 2026-07-28 refuses initialize with -32022 only for a version it does not implement", func() {
		t := fake(protocol.V20260728)
		refusal := initialize(t, protocol.V20251125)
		Expect(refusal).NotTo(BeNil())
		Expect(refusal.Code).To(Equal(codes.UnsupportedProtocolVersion))

		own := initialize(t, protocol.V20260728)
		Expect(own).NotTo(BeNil(), "initialize is no 2026-07-28 method")
		Expect(own.Code).NotTo(Equal(codes.UnsupportedProtocolVersion), "refused its own version, which its supported list names")
		var data struct {
			Supported []string `json:"supported"`
		}
		Expect(json.Unmarshal(own.Data, &data)).To(Succeed())
		Expect(data.Supported).To(Equal([]string{protocol.V20260728}), "it names the versions it supports (versioning.mdx, Backward Compatibility)")
	})

	g.It("at 2026-07-28 lists and discovers with caching hints, and lists prompts without arguments null", func() {
		t := fake(protocol.V20260728)
		s := Script{Tools: []Tool{{Name: "t1"}}, Prompts: []Prompt{{Name: "p1"}}}
		handlers := t.handlers(s)
		for _, method := range []string{protocol.MethodServerDiscover, protocol.MethodToolsList, protocol.MethodPromptsList,
			protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList} {
			result, rpcErr := t.completeResult(handlers[method])(context.Background(), &server.Peer{ID: "peer-1"}, &jsonrpc.Message{ID: jsonrpc.NumberID(1), Method: method})
			Expect(rpcErr).To(BeNil(), method)
			resp, err := jsonrpc.NewResult(jsonrpc.NumberID(1), result)
			Expect(err).NotTo(HaveOccurred())
			resp.JSONRPC = jsonrpc.Version
			Expect(peer.Validate(protocol.V20260728, peer.Outbound{Msg: resp, Method: method})).To(Succeed(), "%s: %s", method, resp.Result)
		}
	})
})
