package prompts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/server/prompts"
	"github.com/mcpconform/mcpconform/transport"
)

// escaped writes a string id as a server that re-encodes what it parsed
// may: "&" as \u0026 (Go's json.Marshal), anything beyond ASCII as \uXXXX
// (Python's json.dumps).
func escaped(id jsonrpc.ID) jsonrpc.ID {
	var s string
	if json.Unmarshal(id, &s) != nil {
		return id
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '&' || r > 0x7e:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return jsonrpc.ID(b.String())
}

// escapingServer lists one prompt whose required arguments are named "q&a"
// and "città", refuses a prompts/get without one with -32602, and writes the
// id of every response escaped.
func escapingServer() *server.Engine {
	return &server.Engine{
		Requests: map[string]server.Handler{
			protocol.MethodInitialize: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"protocolVersion": protocol.V20251125, "capabilities": map[string]any{"prompts": map[string]any{}},
					"serverInfo": map[string]any{"name": "escaping", "version": "0"}}, nil
			},
			protocol.MethodPromptsList: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"prompts": []any{map[string]any{"name": "ask", "arguments": []any{
					map[string]any{"name": "q&a", "required": true}, map[string]any{"name": "città", "required": true}}}}}, nil
			},
			protocol.MethodPromptsGet: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				var p struct {
					Arguments map[string]any `json:"arguments"`
				}
				_ = json.Unmarshal(req.Params, &p)
				for _, name := range []string{"q&a", "città"} {
					if _, ok := p.Arguments[name].(string); !ok {
						return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "argument " + name + " missing or not a string"}
					}
				}
				return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "ok"}}}}, nil
			},
		},
		Outgoing: func(_ *server.Peer, msg *jsonrpc.Message) *jsonrpc.Message {
			if msg.Method == "" {
				msg.ID = escaped(msg.ID)
			}
			return msg
		},
	}
}

var _ = Describe("prompts-get-every against a server that echoes ids with other escaping", func() {
	// Issue 21: a request id built from an argument's name ("q&a", "città")
	// came back escaped otherwise from a conformant server, was not
	// correlated, and the checks were not judged after a 5 s wait each.
	It("correlates every answer and judges every check", func() {
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		l, err := transport.WS.Listen(ctx, "127.0.0.1:0", transport.Options{})
		Expect(err).NotTo(HaveOccurred())
		go func() { _ = escapingServer().Serve(ctx, l) }()
		DeferCleanup(func() { _ = l.Close() })

		var every *scenarios.Scenario
		for _, s := range prompts.Scenarios() {
			if s.ID == "prompts-get-every" {
				every = s
			}
		}
		Expect(every).NotTo(BeNil())
		env := scenarios.Env{Version: protocol.V20251125, Transport: transport.WS, Target: client.Target{Kind: transport.WS, URL: l.Addr()},
			Timing: scenarios.Timing{ResponseTimeout: 2 * time.Second, ScenarioTimeout: 20 * time.Second, QuietWindow: 50 * time.Millisecond}}
		r := scenarios.Execute(context.Background(), every, env)
		outcomes := map[string]string{}
		for _, v := range r.Verdicts {
			outcomes[v.Check.ID] = string(v.Outcome) + " " + v.Message
		}
		Expect(outcomes).To(HaveKeyWithValue("prompts-get-every/missing-required", "pass "), "the transcript:\n%s", r.Transcript)
		Expect(outcomes).To(HaveKeyWithValue("prompts-get-every/wrong-type", "pass "))
		Expect(r.Transcript).To(ContainSubstring(`"id":"mcpconform-missing-0-q\u0026a"`), "the server escaped the id")
		Expect(r.Transcript).To(ContainSubstring(`"id":"mcpconform-missing-0-citt\u00e0"`))
	})
})
