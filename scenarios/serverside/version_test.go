package serverside_test

import (
	"encoding/json"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = Describe("NotImplementedAnswer", func() {
	modern, _ := protocol.Lookup("2026-07-28")
	legacy, _ := protocol.Lookup("2025-11-25")
	errResp := func(code int) *jsonrpc.Message {
		return &jsonrpc.Message{Error: &jsonrpc.Error{Code: code, Message: "no"}}
	}
	result := func(v any) *jsonrpc.Message {
		b, _ := json.Marshal(v)
		return &jsonrpc.Message{Result: b}
	}
	refusal := func(status int, body string) error {
		return &transport.HTTPStatusError{Status: status, Body: body}
	}

	DescribeTable("tells a target that lacks the version from one that fails its handshake",
		func(v protocol.Version, resp *jsonrpc.Message, err error, notImplemented bool) {
			// No session: the rules that tell HTTP from stdio by the
			// session are covered against real servers in the lifecycle
			// family's handshake tests.
			Expect(serverside.NotImplementedAnswer(nil, v, resp, err) != "").To(Equal(notImplemented))
		},
		Entry("-32022", modern, errResp(-32022), errors.New("rejected"), true),
		Entry("no server/discover (-32601)", modern, errResp(-32601), errors.New("rejected"), true),
		Entry("initialize refused with -32601 is a failure", legacy, errResp(-32601), errors.New("rejected"), false),
		Entry("HTTP 400 with a non-modern error: initialize-era", modern, nil,
			refusal(400, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server not initialized"},"id":null}`), true),
		Entry("HTTP 400 with no body: initialize-era", modern, nil, refusal(400, ""), true),
		Entry("HTTP 400 with -32022: a modern server without the version", modern, nil,
			refusal(400, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"x"},"id":1}`), true),
		Entry("HTTP 400 with -32020: a modern header error", modern, nil,
			refusal(400, `{"jsonrpc":"2.0","error":{"code":-32020,"message":"x"},"id":1}`), false),
		Entry("HTTP 500 is a failure", modern, nil, refusal(500, ""), false),
		Entry("a DiscoverResult without the version", modern, result(map[string]any{"supportedVersions": []string{"2025-11-25"}}), nil, true),
		Entry("a DiscoverResult with it", modern, result(map[string]any{"supportedVersions": []string{"2026-07-28"}}), nil, false),
	)
})

var _ = Describe("Declares", func() {
	caps := map[string]any{"tools": map[string]any{}, "tasks": map[string]any{"list": map[string]any{}, "cancel": true}}
	DescribeTable("follows a dotted path through the declared capabilities",
		func(path string, declared bool) { Expect(serverside.Declares(caps, path)).To(Equal(declared)) },
		Entry("a top-level capability", "tools", true),
		Entry("a nested one", "tasks.list", true),
		Entry("a nested one whose value is no object", "tasks.cancel", true),
		Entry("below a value that is no object", "tasks.cancel.x", false),
		Entry("an absent top-level one", "prompts", false),
		Entry("an absent nested one", "tasks.requests", false),
	)
})
