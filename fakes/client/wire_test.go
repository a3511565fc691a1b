package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// rawEngine answers initialize, and answers "probe" after writing each of
// frames as is (over WebSocket, in order, before the answer).
func rawEngine(frames ...[]byte) *server.Engine {
	return &server.Engine{Requests: map[string]server.Handler{
		"initialize": func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			var p struct{ ProtocolVersion string }
			_ = json.Unmarshal(req.Params, &p)
			return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "raw", "version": "0"}}, nil
		},
		"probe": func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			for _, f := range frames {
				_ = p.SendRaw(transport.WithRelatedRequest(ctx, req.ID), f)
			}
			return map[string]any{}, nil
		},
	}}
}

// breachesOf opens a session at version declaring caps, lets the server
// write frames, and returns what the session recorded against the wire rules.
func breachesOf(version string, caps map[string]any, frames ...string) []client.WireBreach {
	GinkgoHelper()
	var raw [][]byte
	for _, f := range frames {
		raw = append(raw, []byte(f))
	}
	s := connect(serve(transport.WS, rawEngine(raw...)), client.Options{Version: version, Capabilities: caps})
	_, err := s.Initialize(stepCtx())
	Expect(err).NotTo(HaveOccurred())
	_, err = s.Request(stepCtx(), "probe", map[string]any{})
	Expect(err).NotTo(HaveOccurred())
	return s.WireBreaches()
}

func rules(bs []client.WireBreach) []client.WireRule {
	var out []client.WireRule
	for _, b := range bs {
		out = append(out, b.Rule)
	}
	return out
}

var _ = Describe("the wire rules a session judges every frame by", func() {
	none := map[string]any{}

	It("finds nothing in conformant traffic, whichever id type the server's requests use", func() {
		Expect(breachesOf(protocol.V20251125, map[string]any{"roots": map[string]any{}},
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
			`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`,
			`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		)).To(BeEmpty())
	})

	It("takes a line that is not JSON, JSON that is no message object, and a method that is no string as jsonrpc-only", func() {
		bs := breachesOf(protocol.V20251125, none, "Server starting…", `[1,2]`, `{"hello":"world"}`, `{"jsonrpc":"2.0","id":3,"method":5}`,
			`{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}`)
		Expect(rules(bs)).To(HaveEach(client.RuleJSONRPCOnly))
		Expect(bs).To(HaveLen(5))
		Expect(bs[0].What).To(Equal("a frame that is not JSON"))
		Expect(string(bs[0].Raw)).To(Equal("Server starting…"))
		Expect(bs[2].What).To(ContainSubstring("neither a request, a notification nor a response"))
		Expect(bs[4].What).To(ContainSubstring("both result and error"))
	})

	It("lets a JSON-RPC batch through in 2025-03-26 only", func() {
		batch := `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}]`
		Expect(breachesOf(protocol.V20250326, none, batch)).To(BeEmpty())
		Expect(rules(breachesOf(protocol.V20250618, none, batch))).To(Equal([]client.WireRule{client.RuleJSONRPCOnly}))
	})

	It("takes bytes that are not UTF-8 as utf8 only", func() {
		bs := breachesOf(protocol.V20251125, none, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"a\xffb\"}}")
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleUTF8}))
		Expect(bs[0].What).To(ContainSubstring("offset 84"))
	})

	It("takes a jsonrpc member other than \"2.0\", or none, as jsonrpc-version", func() {
		bs := breachesOf(protocol.V20251125, none,
			`{"jsonrpc":"1.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
			`{"method":"notifications/message","params":{"level":"info","data":"x"}}`,
			`{"jsonrpc":2.0,"method":"notifications/message","params":{"level":"info","data":"x"}}`)
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleJSONRPCVersion, client.RuleJSONRPCVersion, client.RuleJSONRPCVersion}))
		Expect(bs[0].What).To(Equal(`jsonrpc is "1.0" in the notification notifications/message`))
		Expect(bs[1].What).To(Equal("no jsonrpc member in the notification notifications/message"))
	})

	It("takes a response to an id never sent as response-id, and a second response to one as one-response, comparing ids as JSON values", func() {
		s := connect(serve(transport.WS, rawEngine(
			[]byte(`{"jsonrpc":"2.0","id":"q\u0026a","result":{}}`),                // "q&a" again, escaped otherwise
			[]byte(`{"jsonrpc":"2.0","id":1.0,"result":{}}`),                       // initialize's id 1 again
			[]byte(`{"jsonrpc":"2.0","id":"never-sent","result":{}}`),              // no such request
			[]byte(`{"jsonrpc":"2.0","id":"2","error":{"code":-1,"message":"x"}}`), // "2" is not 2
			[]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`),
			[]byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`), // no id: as null
		)), client.Options{Version: protocol.V20251125})
		_, err := s.Initialize(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		// Answered once each: the -32601 of the engine.
		_, err = s.Do(stepCtx(), client.Call{ID: jsonrpc.StringID("q&a"), Method: "ping"})
		Expect(err).NotTo(HaveOccurred())
		// The same id sent twice may be answered twice.
		for range 2 {
			_, err = s.Do(stepCtx(), client.Call{ID: jsonrpc.StringID("twice"), Method: "ping"})
			Expect(err).NotTo(HaveOccurred())
		}
		_, err = s.Request(stepCtx(), "probe", map[string]any{})
		Expect(err).NotTo(HaveOccurred())
		bs := s.WireBreaches()
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleResponseID, client.RuleResponseID, client.RuleOneResponse, client.RuleOneResponse}))
		Expect(bs[0].What).To(Equal(`a result with id "never-sent", which is the id of no request the client sent`))
		Expect(bs[1].What).To(Equal(`an error response with id "2", which is the id of no request the client sent`))
		Expect(bs[2].What).To(Equal(`a second result to the request ping with id "q\u0026a" (answered already)`))
		Expect(bs[3].What).To(Equal(`a second result to the request initialize with id 1.0 (answered already)`))
	})

	It("takes a request id that is null or neither a string nor an integer as request-id", func() {
		bs := breachesOf(protocol.V20251125, none,
			`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`)
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleRequestID, client.RuleRequestID, client.RuleRequestID}))
		Expect(bs[0].What).To(Equal("the request ping has id null"))
	})

	It("takes sampling, elicitation and roots requests to a client that did not declare them as negotiated-capabilities", func() {
		bs := breachesOf(protocol.V20250618, map[string]any{"sampling": map[string]any{}},
			`{"jsonrpc":"2.0","id":"a","method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":"b","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`,
			`{"jsonrpc":"2.0","id":"c","method":"sampling/createMessage","params":{"maxTokens":1,"messages":[]}}`)
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleNegotiatedCapabilities, client.RuleNegotiatedCapabilities}))
		Expect(bs[0].What).To(Equal("roots/list sent to a client that did not declare the roots capability"))
		Expect(bs[1].What).To(Equal("elicitation/create sent to a client that did not declare the elicitation capability"))
	})

	It("takes a 2025-11-25 elicitation in a mode the client did not declare as negotiated-capabilities (empty means form)", func() {
		url := `{"jsonrpc":"2.0","id":"u","method":"elicitation/create","params":{"mode":"url","message":"?","url":"https://example.com","elicitationId":"e"}}`
		form := `{"jsonrpc":"2.0","id":"f","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`
		bs := breachesOf(protocol.V20251125, map[string]any{"elicitation": map[string]any{}}, url, form)
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleNegotiatedCapabilities}))
		Expect(bs[0].What).To(ContainSubstring("in url mode"))
		Expect(breachesOf(protocol.V20251125, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}, url)).To(BeEmpty())
		Expect(rules(breachesOf(protocol.V20251125, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}, form))).
			To(Equal([]client.WireRule{client.RuleNegotiatedCapabilities}))
	})

	It("keeps the first breaches of a rule and counts the rest", func() {
		var frames []string
		for range client.WireBreachKeep + 15 {
			frames = append(frames, "garbage")
		}
		bs := breachesOf(protocol.V20251125, none, frames...)
		Expect(bs).To(HaveLen(client.WireBreachKeep))
		Expect(bs[len(bs)-1].Also).To(Equal(15))
	})

	It("keeps only the start of a long frame", func() {
		bs := breachesOf(protocol.V20251125, none, strings.Repeat("y", 5000))
		Expect(bs).To(HaveLen(1))
		Expect(bs[0].Raw).To(HaveLen(client.WireRawKeep))
	})

	It("records what the transport noted: binary WebSocket frames, the missing subprotocol, an HTTP Content-Type", func() {
		check := func(kind transport.Kind, variant string, rule client.WireRule) {
			GinkgoHelper()
			f, err := server.Variants().Find(variant)
			Expect(err).NotTo(HaveOccurred())
			e, err := server.NewReference(server.ReferenceOptions{Variant: f})
			Expect(err).NotTo(HaveOccurred())
			ctx, cancel := context.WithCancel(context.Background())
			l, err := server.Listen(stepCtx(), kind, "127.0.0.1:0", f, transport.Options{})
			Expect(err).NotTo(HaveOccurred())
			done := make(chan error, 1)
			go func() { done <- e.Serve(ctx, l) }()
			DeferCleanup(func() { cancel(); _ = l.Close(); <-done })
			var notes atomic.Int64
			s := connect(client.Target{Kind: kind, URL: l.Addr()}, client.Options{Version: protocol.V20251125,
				OnWireNote: func(transport.WireNote) { notes.Add(1) }})
			_, err = s.Open(stepCtx())
			Expect(err).NotTo(HaveOccurred())
			bs := s.WireBreaches()
			Expect(rules(bs)).To(HaveEach(rule), "%s", variant)
			Expect(bs).NotTo(BeEmpty(), "%s", variant)
			Expect(bs[0].Raw).To(BeNil())
			Expect(notes.Load()).To(BeNumerically(">", 0), "the caller's own OnWireNote is told too")
		}
		check(transport.WS, server.WSBinaryFrames.Name, client.RuleWSTextFrames)
		check(transport.WS, server.WSNoSubprotocol.Name, client.RuleWSSubprotocol)
		check(transport.HTTP, server.ContentTypeHTML.Name, client.RuleContentType)
		check(transport.HTTP, server.ContentTypeMissing.Name, client.RuleContentType)
	})

	It("takes Content-Type application/json with a charset parameter as application/json (a liberty)", func() {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			body, _ := io.ReadAll(r.Body)
			msg, err := jsonrpc.Decode(body)
			if err != nil || msg.ID.IsZero() {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			resp, _ := jsonrpc.NewResult(msg.ID, map[string]any{"protocolVersion": protocol.V20251125, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "charset", "version": "0"}})
			frame, _ := resp.Encode()
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Mcp-Session-Id", "s1")
			_, _ = w.Write(frame)
		}))
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		srv.Listener = l
		srv.Start()
		DeferCleanup(srv.Close)
		s := connect(client.Target{Kind: transport.HTTP, URL: srv.URL + "/mcp"}, client.Options{Version: protocol.V20251125})
		_, err = s.Open(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		_, err = s.Request(stepCtx(), "ping", map[string]any{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.WireBreaches()).To(BeEmpty())
	})

	It("counts a stdout line the stdio transport discarded as too long, and the banner before the handshake", func() {
		// A server that writes a banner, a line over the 16 MiB limit, then
		// one JSON-RPC notification, and waits for its stdin to close.
		script := `echo 'Server starting'; head -c 16777300 /dev/zero | tr '\0' x; echo; ` +
			`echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ready"}}'; cat >/dev/null`
		s := connect(client.Target{Kind: transport.Stdio, Argv: []string{"sh", "-c", script}}, client.Options{Version: protocol.V20251125})
		_, err := s.Inbox().WaitFor(stepCtx(), func(m *jsonrpc.Message) bool { return m.Method == "notifications/message" })
		Expect(err).NotTo(HaveOccurred())
		bs := s.WireBreaches()
		Expect(rules(bs)).To(Equal([]client.WireRule{client.RuleJSONRPCOnly, client.RuleJSONRPCOnly}))
		Expect(bs[0].What).To(Equal("a line on stdout that is not JSON"))
		Expect(bs[1].What).To(Equal("a line of 16777301 bytes on stdout, over the limit of 16777216 bytes, discarded unread"))
		Expect(s.WireBreaches()).To(HaveLen(2), "asking again adds nothing")
		Expect(bytes.Contains(bs[0].Raw, []byte("Server starting"))).To(BeTrue())
	})
})
