package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// scripted is a small engine for the client's specs:
//
//	initialize  answers with the requested version (HTTP sessions need it)
//	echo      answers {"params": <the request's params>}
//	notify    sends notification "note" with the request's params, then answers {}
//	spew      writes a frame that is not JSON, then answers {}
//	ask       asks the client elicitation/create with the request's params and
//	          answers {"result": …} or {"error": …} with what the client said
//	bye       sends notification "bye" and drops the connection
//	barrier   answers {"params": …} once `barrier` requests are in flight at once
func scripted(barrier int) *server.Engine {
	var arrived atomic.Int64
	allIn := make(chan struct{})
	echo := func(req *jsonrpc.Message) map[string]any {
		params := json.RawMessage(req.Params)
		if len(params) == 0 {
			params = json.RawMessage("null")
		}
		return map[string]any{"params": params}
	}
	return &server.Engine{Requests: map[string]server.Handler{
		"initialize": func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			var p struct{ ProtocolVersion string }
			_ = json.Unmarshal(req.Params, &p)
			return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "scripted", "version": "0"}}, nil
		},
		"echo": func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			return echo(req), nil
		},
		"notify": func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if err := p.Notify(ctx, "note", json.RawMessage(req.Params)); err != nil {
				return nil, &jsonrpc.Error{Code: codes.InternalError, Message: err.Error()}
			}
			return map[string]any{}, nil
		},
		"spew": func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
			if err := p.SendRaw(ctx, []byte("this is not JSON")); err != nil {
				return nil, &jsonrpc.Error{Code: codes.InternalError, Message: err.Error()}
			}
			return map[string]any{}, nil
		},
		"ask": func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			resp, err := p.Request(ctx, "elicitation/create", json.RawMessage(req.Params))
			if err != nil {
				return nil, &jsonrpc.Error{Code: codes.InternalError, Message: err.Error()}
			}
			if resp.Error != nil {
				return map[string]any{"error": resp.Error}, nil
			}
			return map[string]any{"result": resp.Result}, nil
		},
		"bye": func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
			_ = p.Notify(ctx, "bye", nil)
			p.Close()
			return peer.NoAnswer, nil
		},
		"barrier": func(ctx context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if arrived.Add(1) == int64(barrier) {
				close(allIn)
			}
			select {
			case <-allIn:
				return echo(req), nil
			case <-ctx.Done():
				return nil, &jsonrpc.Error{Code: codes.InternalError, Message: "barrier not reached"}
			}
		},
	}}
}

func resultOf(m *jsonrpc.Message) map[string]any {
	GinkgoHelper()
	Expect(m).NotTo(BeNil())
	Expect(m.Error).To(BeNil(), "expected a result, got %s", m.Raw)
	var r map[string]any
	Expect(json.Unmarshal(m.Result, &r)).To(Succeed())
	return r
}

var _ = Describe("Inbox", func() {
	var s *client.Session
	BeforeEach(func() { s = connect(serve(transport.WS, scripted(0)), client.Options{}) })

	note := func(n int) {
		GinkgoHelper()
		// Over one WebSocket the notification precedes the response, and the
		// read loop files it before it hands over the response.
		resultOf(must(s.Request(stepCtx(), "notify", map[string]any{"n": n})))
	}
	nOf := func(m *jsonrpc.Message) float64 {
		GinkgoHelper()
		var p struct{ N float64 }
		Expect(json.Unmarshal(m.Params, &p)).To(Succeed())
		return p.N
	}

	It("waits from a mark: messages before the mark are ignored", func() {
		note(1)
		mark := s.Inbox().Mark()
		Expect(mark).To(Equal(1))
		note(2)
		m, err := s.Inbox().WaitFrom(stepCtx(), mark, client.Method("note"))
		Expect(err).NotTo(HaveOccurred())
		Expect(nOf(m)).To(Equal(2.0))

		m, err = s.Inbox().WaitFor(stepCtx(), client.Method("note"))
		Expect(err).NotTo(HaveOccurred())
		Expect(nOf(m)).To(Equal(1.0), "WaitFor looks from the start")

		Expect(s.Inbox().Matching(0, client.Method("note"))).To(HaveLen(2))
		Expect(s.Inbox().Matching(mark, client.Method("note"))).To(HaveLen(1))
		Expect(s.Inbox().Matching(99, client.Method("note"))).To(BeEmpty())
		Expect(s.Inbox().Messages()).To(HaveLen(2))
	})

	It("wakes a waiter when a matching message arrives later", func() {
		mark := s.Inbox().Mark()
		got := make(chan *jsonrpc.Message, 1)
		errs := make(chan error, 1)
		go func() {
			defer GinkgoRecover()
			m, err := s.Inbox().WaitFrom(stepCtx(), mark, func(m *jsonrpc.Message) bool {
				return m.Method == "note" && string(m.Params) == `{"n":3}`
			})
			errs <- err
			got <- m
		}()
		note(1)
		note(3)
		Eventually(errs).WithTimeout(wait).Should(Receive(BeNil()))
		Expect(nOf(<-got)).To(Equal(3.0))
	})

	It("honours the deadline of its context", func() {
		note(1)
		mark := s.Inbox().Mark()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		m, err := s.Inbox().WaitFrom(ctx, mark, client.Method("note"))
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(m).To(BeNil())
		Expect(ctx.Err()).To(MatchError(context.DeadlineExceeded), "the wait ended with its deadline, not before")
	})

	It("returns an error to waiters when the connection closes, after what arrived before", func() {
		errs := make(chan error, 1)
		go func() {
			_, err := s.Inbox().WaitFor(context.Background(), client.Method("never"))
			errs <- err
		}()
		_, err := s.Request(stepCtx(), "bye", nil)
		Expect(err).To(MatchError(ContainSubstring("connection closed before the response")))
		Eventually(errs).WithTimeout(wait).Should(Receive(MatchError(ContainSubstring("connection closed while waiting"))))
		Eventually(s.Done()).WithTimeout(wait).Should(BeClosed())
		Expect(s.Err()).To(HaveOccurred())

		m, err := s.Inbox().WaitFor(stepCtx(), client.Method("bye"))
		Expect(err).NotTo(HaveOccurred(), "a message that arrived before the close is still found")
		Expect(m.Method).To(Equal("bye"))
		_, err = s.Inbox().WaitFor(stepCtx(), client.Method("never"))
		Expect(err).To(MatchError(ContainSubstring("connection closed while waiting")))
	})

	It("matches responses with a null or absent id as NullIDResponse", func() {
		for frame, want := range map[string]bool{
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`: true,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`:           true,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"Parse error"}}`:    false,
			`{"jsonrpc":"2.0","id":null,"method":"x"}`:                                    false,
			`{"jsonrpc":"2.0","id":null}`:                                                 false,
		} {
			m, err := jsonrpc.Decode([]byte(frame))
			Expect(err).NotTo(HaveOccurred())
			Expect(client.NullIDResponse(m)).To(Equal(want), frame)
		}
	})
})

func must(m *jsonrpc.Message, err error) *jsonrpc.Message {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return m
}

var _ = Describe("Session", func() {
	for _, kind := range []transport.Kind{transport.WS, transport.HTTP} {
		Context("over "+string(kind), func() {
			It("negotiates the protocol version with initialize", func() {
				s := connect(reference(kind), client.Options{})
				Expect(s.Version()).To(Equal(protocol.LatestStateful))
				Expect(s.Stateless()).To(BeFalse())
				resp, err := s.Initialize(stepCtx())
				Expect(err).NotTo(HaveOccurred())
				Expect(resultOf(resp)).To(HaveKeyWithValue("serverInfo", HaveKeyWithValue("name", server.ReferenceName)))
				Expect(s.ServerVersion).To(Equal("2025-11-25"))
				Expect(s.HasCapability("tools")).To(BeTrue())
				Expect(s.HasCapability("sampling")).To(BeFalse())
				// After the handshake the server serves the session.
				Expect(resultOf(must(s.Request(stepCtx(), "tools/list", nil)))).To(HaveKey("tools"))

				older := connect(reference(kind), client.Options{Version: "2025-06-18"})
				_, err = older.Open(stepCtx())
				Expect(err).NotTo(HaveOccurred())
				Expect(older.ServerVersion).To(Equal("2025-06-18"))
				Expect(resultOf(must(older.Request(stepCtx(), "ping", nil)))).To(BeEmpty())
			})

			It("discovers a 2026-07-28 server with Open", func() {
				s := connect(reference(kind), client.Options{Version: "2026-07-28"})
				Expect(s.Stateless()).To(BeTrue())
				resp, err := s.Open(stepCtx())
				Expect(err).NotTo(HaveOccurred())
				Expect(resultOf(resp)).To(HaveKeyWithValue("supportedVersions", ContainElement("2026-07-28")))
				Expect(s.ServerVersion).To(Equal("2026-07-28"))
				Expect(s.HasCapability("tools")).To(BeTrue())
			})

			It("correlates 20 concurrent pings with their answers", func() {
				s := connect(reference(kind), client.Options{})
				must(s.Initialize(stepCtx()))
				const n = 20
				var wg sync.WaitGroup
				ids := make([]string, n)
				errs := make([]error, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var resp *jsonrpc.Message
						var err error
						if i%2 == 0 {
							resp, err = s.Request(stepCtx(), "ping", nil)
						} else {
							id := jsonrpc.StringID(fmt.Sprintf("%d", i)) // digits, but a string
							resp, err = s.Do(stepCtx(), client.Call{ID: id, Method: "ping"})
							if err == nil && !resp.ID.Equal(id) {
								err = fmt.Errorf("request %s answered with id %s", id, resp.ID)
							}
						}
						if err == nil && (resp.Error != nil || string(resp.Result) != "{}") {
							err = fmt.Errorf("ping answered with %s", resp.Raw)
						}
						errs[i] = err
						if resp != nil {
							ids[i] = resp.ID.String()
						}
					}()
				}
				wg.Wait()
				for i, err := range errs {
					Expect(err).NotTo(HaveOccurred(), "ping %d", i)
				}
				seen := map[string]bool{}
				for _, id := range ids {
					seen[id] = true
				}
				Expect(seen).To(HaveLen(n), "every ping got its own answer")
				Expect(s.Inbox().Messages()).To(BeEmpty(), "every answer was correlated")
			})

			It("correlates 20 requests that are all in flight at once", func() {
				s := connect(serve(kind, scripted(20)), client.Options{})
				must(s.Initialize(stepCtx()))
				const n = 20
				var wg sync.WaitGroup
				got := make([]float64, n)
				errs := make([]error, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						resp, err := s.Request(stepCtx(), "barrier", map[string]any{"i": i})
						if err != nil {
							errs[i] = err
							return
						}
						var r struct{ Params struct{ I float64 } }
						errs[i] = json.Unmarshal(resp.Result, &r)
						got[i] = r.Params.I
					}()
				}
				wg.Wait()
				for i := range n {
					Expect(errs[i]).NotTo(HaveOccurred(), "request %d", i)
					Expect(got[i]).To(Equal(float64(i)), "request %d got the answer to its own params", i)
				}
			})

			It("answers a server-to-client request from its handler", func() {
				s := connect(serve(kind, scripted(0)), client.Options{})
				must(s.Initialize(stepCtx()))
				var asked atomic.Pointer[jsonrpc.Message]
				s.Handle("elicitation/create", func(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					asked.Store(req)
					var p struct{ Message string }
					_ = json.Unmarshal(req.Params, &p)
					return map[string]any{"action": "accept", "content": map[string]any{"echo": p.Message}}, nil
				})
				r := resultOf(must(s.Request(stepCtx(), "ask", map[string]any{"message": "name?"})))
				Expect(r).To(Equal(map[string]any{"result": map[string]any{
					"action": "accept", "content": map[string]any{"echo": "name?"},
				}}))
				Expect(asked.Load()).NotTo(BeNil())
				Expect(asked.Load().Method).To(Equal("elicitation/create"))
				Expect(s.Inbox().Matching(0, client.Method("elicitation/create"))).To(HaveLen(1),
					"server requests are kept in the inbox too")

				s.Handle("elicitation/create", func(context.Context, *jsonrpc.Message) (any, *jsonrpc.Error) {
					return nil, &jsonrpc.Error{Code: -32042, Message: "declined"}
				})
				r = resultOf(must(s.Request(stepCtx(), "ask", map[string]any{"message": "again?"})))
				Expect(r).To(HaveKeyWithValue("error", HaveKeyWithValue("code", float64(-32042))))
			})

			It("holds a server request until the scenario answers it, or never answers it", func() {
				s := connect(serve(kind, scripted(0)), client.Options{})
				must(s.Initialize(stepCtx()))
				held := s.Hold("elicitation/create")
				asked := make(chan *jsonrpc.Message, 1)
				go func() {
					defer GinkgoRecover()
					asked <- must(s.Request(stepCtx(), "ask", map[string]any{"message": "late?"}))
				}()
				h, err := held.Next(stepCtx())
				Expect(err).NotTo(HaveOccurred())
				Expect(asked).NotTo(Receive(), "the server cannot answer before its question is")
				h.Answer(client.ElicitationAnswer("accept", map[string]any{"ok": true}))
				var r *jsonrpc.Message
				Eventually(asked).WithTimeout(5 * time.Second).Should(Receive(&r))
				Expect(resultOf(r)).To(HaveKeyWithValue("result", HaveKeyWithValue("action", "accept")))

				// Never answered: the ask stays open until its own deadline.
				short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				failed := make(chan error, 1)
				go func() {
					defer GinkgoRecover()
					_, err := s.Request(short, "ask", map[string]any{"message": "never?"})
					failed <- err
				}()
				h, err = held.Next(stepCtx())
				Expect(err).NotTo(HaveOccurred())
				h.Ignore()
				// Over HTTP the error names the stream that stayed open
				// (transport.StallError), wrapping the deadline.
				Eventually(failed).WithTimeout(5 * time.Second).Should(Receive(MatchError(context.DeadlineExceeded)))
			})

			It("declines a held server request with an error response", func() {
				s := connect(serve(kind, scripted(0)), client.Options{})
				must(s.Initialize(stepCtx()))
				held := s.Hold("elicitation/create")
				asked := make(chan *jsonrpc.Message, 1)
				go func() {
					defer GinkgoRecover()
					asked <- must(s.Request(stepCtx(), "ask", map[string]any{"message": "declined?"}))
				}()
				h, err := held.Next(stepCtx())
				Expect(err).NotTo(HaveOccurred())
				h.Decline(&jsonrpc.Error{Code: -32042, Message: "not this time"})
				var r *jsonrpc.Message
				Eventually(asked).WithTimeout(wait).Should(Receive(&r))
				Expect(resultOf(r)).To(HaveKeyWithValue("error", And(
					HaveKeyWithValue("code", float64(-32042)),
					HaveKeyWithValue("message", "not this time"),
				)))
			})

			It("answers -32601 to a server request it has no handler for", func() {
				s := connect(serve(kind, scripted(0)), client.Options{})
				must(s.Initialize(stepCtx()))
				r := resultOf(must(s.Request(stepCtx(), "ask", map[string]any{"message": "anyone?"})))
				Expect(r).To(HaveKeyWithValue("error", And(
					HaveKeyWithValue("code", float64(codes.MethodNotFound)),
					HaveKeyWithValue("message", ContainSubstring("elicitation/create")),
				)))
			})

			It("sends the three per-request _meta keys in a 2026-07-28 session", func() {
				caps := map[string]any{"sampling": map[string]any{}}
				s := connect(serve(kind, scripted(0)), client.Options{Version: "2026-07-28", Capabilities: caps})
				var r struct {
					Params struct {
						Meta  map[string]any `json:"_meta"`
						Other string         `json:"other"`
					}
				}
				resp := must(s.Request(stepCtx(), "echo", map[string]any{"other": "kept"}))
				Expect(json.Unmarshal(resultOfRaw(resp), &r)).To(Succeed())
				Expect(r.Params.Other).To(Equal("kept"))
				Expect(r.Params.Meta).To(Equal(map[string]any{
					protocol.MetaProtocolVersion:    "2026-07-28",
					protocol.MetaClientInfo:         map[string]any{"name": "mcpconform", "version": "0.1.0"},
					protocol.MetaClientCapabilities: map[string]any{"sampling": map[string]any{}},
				}))

				// Even without params, and merged with the caller's own _meta.
				resp = must(s.Do(stepCtx(), client.Call{Method: "echo", Meta: map[string]any{"progressToken": "p1"}}))
				r.Params.Meta = nil
				Expect(json.Unmarshal(resultOfRaw(resp), &r)).To(Succeed())
				Expect(r.Params.Meta).To(HaveLen(4))
				Expect(r.Params.Meta).To(HaveKeyWithValue("progressToken", "p1"))
				Expect(r.Params.Meta).To(HaveKeyWithValue(protocol.MetaProtocolVersion, "2026-07-28"))

				// NoMeta leaves them out on purpose.
				resp = must(s.Do(stepCtx(), client.Call{Method: "echo", Params: map[string]any{"x": 1}, NoMeta: true}))
				Expect(string(resultOfRaw(resp))).To(MatchJSON(`{"params":{"x":1}}`))
			})

			It("sends no _meta in a 2025-11-25 session", func() {
				s := connect(serve(kind, scripted(0)), client.Options{})
				must(s.Initialize(stepCtx()))
				Expect(s.ServerVersion).To(Equal("2025-11-25"))
				resp := must(s.Request(stepCtx(), "echo", map[string]any{"x": 1}))
				Expect(string(resultOfRaw(resp))).To(MatchJSON(`{"params":{"x":1}}`))
			})

			It("gets an answer with id null for a garbage frame, in the inbox", func() {
				s := connect(reference(kind), client.Options{})
				must(s.Initialize(stepCtx()))
				mark := s.Inbox().Mark()
				Expect(s.SendRaw(stepCtx(), []byte("this is not JSON {"))).To(Succeed())
				m, err := s.Inbox().WaitFrom(stepCtx(), mark, client.NullIDResponse)
				Expect(err).NotTo(HaveOccurred())
				Expect(m.ID.IsNull()).To(BeTrue())
				Expect(m.Error).NotTo(BeNil())
				Expect(m.Error.Code).To(Equal(codes.ParseError))
				// and the session goes on
				Expect(resultOf(must(s.Request(stepCtx(), "ping", nil)))).To(BeEmpty())
			})
		})
	}

	It("keeps frames from the server that are not JSON-RPC objects", func() {
		s := connect(serve(transport.WS, scripted(0)), client.Options{})
		must(s.Request(stepCtx(), "spew", nil))
		Expect(s.Garbage()).To(Equal([][]byte{[]byte("this is not JSON")}))
		Expect(s.Inbox().Messages()).To(BeEmpty())
	})

	It("keeps a schema violation with its message and its error cut, however long what the server sent", func() {
		long := strings.Repeat("z", 1<<20)
		e := &server.Engine{Requests: map[string]server.Handler{
			"tools/list": func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"resultType": long, "tools": []any{}}, nil
			},
		}}
		s := connect(serve(transport.WS, e), client.Options{Version: protocol.V20260728})
		must(s.Request(stepCtx(), "tools/list", nil))
		v := s.SchemaViolations()
		Expect(v).To(HaveLen(1))
		Expect(v[0].What).To(Equal("result of tools/list"))
		Expect(v[0].Err.Error()).To(HavePrefix(`$.result.resultType: invalid value "zzz`))
		Expect(len(v[0].Err.Error())).To(BeNumerically("<=", 1<<10))
		Expect(string(v[0].Raw)).To(HaveSuffix(" bytes]"))
		Expect(len(v[0].Raw)).To(BeNumerically("<=", 4<<10))
		Expect(s.SchemaViolationsDropped()).To(BeZero())
	})

	It("keeps at most Options.InboxLimit messages in its inbox, the newest", func() {
		t := jsonrpc.NewTranscript()
		s := connect(serve(transport.WS, scripted(0)), client.Options{Transcript: t, InboxLimit: 2})
		for n := 1; n <= 3; n++ {
			must(s.Request(stepCtx(), "notify", map[string]any{"n": n}))
		}
		m, err := s.Inbox().WaitFor(stepCtx(), func(m *jsonrpc.Message) bool { return string(m.Params) == `{"n":3}` })
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Inbox().Messages()).To(HaveLen(2))
		Expect(s.Inbox().Messages()[1]).To(BeIdenticalTo(m))
		Expect(s.Inbox().Dropped()).To(Equal(1))
		Expect(s.Inbox().Mark()).To(Equal(3))
		Expect(t.String()).To(ContainSubstring("inbox: more than 2 messages or 8,388,608 bytes arrived unread; the oldest are dropped"))
	})

	It("records every frame in the transcript under its label", func() {
		t := jsonrpc.NewTranscript()
		s := connect(reference(transport.WS), client.Options{Transcript: t, Label: "A"})
		must(s.Initialize(stepCtx()))
		out := t.String()
		Expect(out).To(MatchRegexp(`send   \[A\] \{"jsonrpc":"2\.0","id":1,"method":"initialize"`))
		Expect(out).To(MatchRegexp(`recv   \[A\] \{"jsonrpc":"2\.0","id":1,"result":`))
		Expect(out).To(MatchRegexp(`send   \[A\] \{"jsonrpc":"2\.0","method":"notifications/initialized"\}`))
	})

	It("fails a request in flight when its context ends", func() {
		s := connect(serve(transport.WS, scripted(2)), client.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := s.Request(ctx, "barrier", nil) // never completes: the barrier wants 2
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err).To(MatchError(ContainSubstring("barrier: no response")))
	})

	It("reports an initialize error as a response and an error", func() {
		e := &server.Engine{Requests: map[string]server.Handler{
			"initialize": func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return nil, &jsonrpc.Error{Code: codes.InvalidParams, Message: "no thanks"}
			},
		}}
		s := connect(serve(transport.WS, e), client.Options{})
		resp, err := s.Initialize(stepCtx())
		Expect(err).To(MatchError(ContainSubstring("initialize rejected: -32602 no thanks")))
		Expect(resp).NotTo(BeNil())
		Expect(resp.Error.Code).To(Equal(codes.InvalidParams))
		Expect(s.ServerVersion).To(BeEmpty())
	})
})

var _ = Describe("Target", func() {
	It("validates before dialling", func() {
		Expect(client.Target{Kind: transport.Stdio}.Validate()).To(MatchError(ContainSubstring("needs a command")))
		Expect(client.Target{Kind: transport.HTTP}.Validate()).To(MatchError(ContainSubstring("needs a URL")))
		Expect(client.Target{Kind: transport.WS}.Validate()).To(MatchError(ContainSubstring("needs a URL")))
		Expect(client.Target{Kind: "carrier-pigeon", URL: "x"}.Validate()).To(MatchError(ContainSubstring("unknown target kind")))
		Expect(client.Target{Kind: transport.Stdio, Argv: []string{"srv", "--flag"}}.Validate()).To(Succeed())
		_, err := client.Connect(stepCtx(), client.Target{Kind: transport.HTTP}, client.Options{})
		Expect(err).To(HaveOccurred())
	})

	It("describes itself for reports", func() {
		Expect(client.Target{Kind: transport.Stdio, Argv: []string{"node", "build/index.js"}}.String()).To(Equal("stdio: node build/index.js"))
		Expect(client.Target{Kind: transport.WS, URL: "ws://127.0.0.1:1/mcp"}.String()).To(Equal("ws: ws://127.0.0.1:1/mcp"))
	})

	It("refuses a stdio command that does not exist", func() {
		_, err := client.Connect(stepCtx(), client.Target{Kind: transport.Stdio, Argv: []string{"/no/such/binary"}}, client.Options{})
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("/no/such/binary"))
	})
})

func resultOfRaw(m *jsonrpc.Message) json.RawMessage {
	GinkgoHelper()
	Expect(m.Error).To(BeNil(), "expected a result, got %s", m.Raw)
	return m.Result
}

// A result is a JSON object (the schema's Result): null, an array, a
// string, a number or true is a violation however the request went out.
var _ = Describe("results that are not objects", func() {
	answering := func(result string) *server.Engine {
		return &server.Engine{Requests: map[string]server.Handler{
			"initialize": func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"protocolVersion": protocol.V20251125, "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "s", "version": "0"}}, nil
			},
			"tools/list": func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				frame := `{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":` + result + `}`
				_ = p.SendRaw(peer.Deliberately(transport.WithRelatedRequest(ctx, req.ID), "a spec's non-object result"), []byte(frame))
				return peer.NoAnswer, nil
			},
		}}
	}
	for _, result := range []string{"null", "[]", `"x"`, "1", "true"} {
		It("are violations, answering Do or a raw request: "+result, func() {
			s := connect(serve(transport.WS, answering(result)), client.Options{Version: protocol.V20251125})
			must(s.Initialize(stepCtx()))
			must(s.Request(stepCtx(), "tools/list", nil))
			Expect(s.SchemaViolations()).To(HaveLen(1), "the answer to Do")

			mark := s.Inbox().Mark()
			Expect(s.SendRaw(stepCtx(), []byte(`{"jsonrpc":"2.0","id":"raw-1","method":"tools/list"}`))).To(Succeed())
			_, err := s.Inbox().WaitFrom(stepCtx(), mark, func(m *jsonrpc.Message) bool { return m.ID.Key() == `"raw-1"` })
			Expect(err).NotTo(HaveOccurred())
			v := s.SchemaViolations()
			Expect(v).To(HaveLen(2), "the answer to a raw request")
			Expect(v[1].What).To(Equal("result of tools/list"))
			Expect(v[1].Err.Error()).To(HavePrefix("$.result: expected object"))
		})
	}
})

var _ = Describe("a raw request that names another protocol version", func() {
	// lifecycle-unsupported-version asks at a version no server speaks:
	// whatever comes back is not a message of the version in use, and
	// lifecycle-unsupported-version (not wire-schema) judges it.
	It("is not held to the session version's schema", func() {
		e := &server.Engine{Requests: map[string]server.Handler{
			"initialize": func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"protocolVersion": protocol.V20251125, "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "s", "version": "0"}}, nil
			},
			"tools/list": func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				frame := `{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":null}`
				_ = p.SendRaw(peer.Deliberately(transport.WithRelatedRequest(ctx, req.ID), "a spec's non-object result"), []byte(frame))
				return peer.NoAnswer, nil
			},
		}}
		s := connect(serve(transport.WS, e), client.Options{Version: protocol.V20251125})
		must(s.Initialize(stepCtx()))
		for _, tc := range []struct{ id, version string }{{"other-1", "1900-01-01"}, {"same-1", protocol.V20251125}} {
			mark := s.Inbox().Mark()
			frame := `{"jsonrpc":"2.0","id":"` + tc.id + `","method":"tools/list","params":{"_meta":{"` + protocol.MetaProtocolVersion + `":"` + tc.version + `"}}}`
			Expect(s.SendRaw(stepCtx(), []byte(frame))).To(Succeed())
			_, err := s.Inbox().WaitFrom(stepCtx(), mark, func(m *jsonrpc.Message) bool { return m.ID.Key() == `"`+tc.id+`"` })
			Expect(err).NotTo(HaveOccurred())
		}
		v := s.SchemaViolations()
		Expect(v).To(HaveLen(1), "only the answer at the session's own version")
		Expect(v[0].What).To(Equal("result of tools/list"))
	})
})
