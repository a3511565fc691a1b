package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// pingEngine answers ping and nothing else.
func pingEngine() *server.Engine {
	return &server.Engine{Requests: map[string]server.Handler{"ping": ok(map[string]any{})}}
}

var _ = Describe("Engine", func() {
	transports := map[string]func(*server.Engine) *wire{"stdio": overPipes, "ws": overWebSocket}

	for _, name := range []string{"stdio", "ws"} {
		connect := transports[name]

		Describe("JSON-RPC hygiene over "+name, func() {
			var w *wire
			BeforeEach(func() { w = connect(pingEngine()) })

			expectError := func(frame string, code int, id string) {
				GinkgoHelper()
				w.send(frame)
				m := w.next()
				Expect(m.Kind()).To(Equal(jsonrpc.KindResponse), "answer to %q: %s", frame, m.Raw)
				Expect(m.Error).NotTo(BeNil(), "answer to %q: %s", frame, m.Raw)
				Expect(m.Error.Code).To(Equal(code), "answer to %q: %s", frame, m.Raw)
				Expect(m.ID.String()).To(Equal(id), "answer to %q: %s", frame, m.Raw)
				Expect(m.Result).To(BeNil())
				Expect(m.JSONRPC).To(Equal("2.0"))
				// The engine keeps serving after every invalid frame.
				w.send(request(`"after"`, "ping", nil))
				pong := w.next()
				Expect(pong.ID.String()).To(Equal(`"after"`))
				Expect(result(pong)).To(BeEmpty())
			}

			It("answers text that is not JSON with -32700 and id null", func() {
				expectError("not json at all", codes.ParseError, "null")
				Expect(w.frames).NotTo(Receive())
				expectError(`{"jsonrpc":"2.0","id":3,"method":"ping"`, codes.ParseError, "null")
			})

			It("answers a method that is not a string with -32600, keeping the readable id", func() {
				expectError(`{"jsonrpc":"2.0","id":"x","method":42}`, codes.InvalidRequest, `"x"`)
				expectError(`{"jsonrpc":"2.0","id":9,"method":""}`, codes.InvalidRequest, `9`)
			})

			It("answers a wrong or missing jsonrpc version with -32600", func() {
				expectError(`{"jsonrpc":"1.0","id":1,"method":"ping"}`, codes.InvalidRequest, "1")
				expectError(`{"jsonrpc":2.0,"id":2,"method":"ping"}`, codes.InvalidRequest, "2")
				expectError(`{"id":"v","method":"ping"}`, codes.InvalidRequest, `"v"`)
			})

			It("answers other invalid objects with -32600, and id null when the id is unreadable", func() {
				expectError(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, codes.InvalidRequest, "null")
				expectError(`42`, codes.InvalidRequest, "null")
				expectError(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codes.InvalidRequest, "null")
				expectError(`{"jsonrpc":"2.0","id":true,"method":"ping"}`, codes.InvalidRequest, "null")
				expectError(`{"jsonrpc":"2.0","id":4,"method":"ping","params":"str"}`, codes.InvalidRequest, "4")
				expectError(`{"jsonrpc":"2.0","id":5}`, codes.InvalidRequest, "5")
				// Request ids are strings or integers, never null (2025-11-25/basic/index.mdx#requests).
				expectError(`{"jsonrpc":"2.0","id":null,"method":"ping"}`, codes.InvalidRequest, "null")
				expectError(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, codes.InvalidRequest, "null")
			})

			It("answers an unknown method with -32601 and the request's id", func() {
				expectError(request(`"u-1"`, "no/such/method", nil), codes.MethodNotFound, `"u-1"`)
				expectError(request(`77`, "tools/list", map[string]any{}), codes.MethodNotFound, `77`)
			})

			It("echoes ids byte for byte", func() {
				for _, id := range []string{`"42"`, `42`, `-3`, `"a b"`} {
					w.send(request(id, "ping", nil))
					Expect(w.next().ID.String()).To(Equal(id))
				}
			})
		})
	}

	Describe("silence", func() {
		It("never answers a notification, known or not", func() {
			seen := make(chan string, 4)
			e := pingEngine()
			e.Notifications = map[string]server.NotificationHandler{
				"notifications/initialized": func(_ context.Context, _ *server.Peer, m *jsonrpc.Message) { seen <- m.Method },
			}
			w := overPipes(e)
			w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			w.send(`{"jsonrpc":"2.0","method":"notifications/no-such-thing","params":{}}`)
			Expect(w.rest()).To(BeEmpty())
			Expect(seen).To(Receive(Equal("notifications/initialized")))
			Eventually(w.served).WithTimeout(wait).Should(BeClosed())
			Expect(w.servedErr).NotTo(HaveOccurred(), "a clean end of input is not an error")
		})

		It("passes unhandled notifications to OtherNotifications", func() {
			seen := make(chan string, 4)
			e := pingEngine()
			e.OtherNotifications = func(_ context.Context, _ *server.Peer, m *jsonrpc.Message) { seen <- m.Method }
			w := overPipes(e)
			w.send(`{"jsonrpc":"2.0","method":"notifications/other"}`)
			Expect(w.rest()).To(BeEmpty())
			Expect(seen).To(Receive(Equal("notifications/other")))
		})

		It("sends nothing at all for a handler that returns peer.NoAnswer", func() {
			called := make(chan string, 1)
			e := pingEngine()
			e.Requests["silent"] = func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				called <- req.ID.String()
				return peer.NoAnswer, nil
			}
			w := overPipes(e)
			w.send(request("1", "silent", nil))
			w.send(request("2", "ping", nil))
			Expect(w.next().ID.String()).To(Equal("2"))
			Expect(w.rest()).To(BeEmpty(), "ServeConn waits for the silent handler before it closes stdout")
			Expect(called).To(Receive(Equal("1")))
		})

		It("ignores a response nobody waits for", func() {
			w := overPipes(pingEngine())
			w.send(`{"jsonrpc":"2.0","id":"srv-404","result":{}}`)
			w.send(`{"jsonrpc":"2.0","id":"srv-405","error":{"code":-1,"message":"x"}}`)
			w.send(request("1", "ping", nil))
			Expect(w.next().ID.String()).To(Equal("1"))
			Expect(w.rest()).To(BeEmpty())
		})
	})

	Describe("concurrency", func() {
		for _, name := range []string{"stdio", "ws"} {
			connect := transports[name]
			It("runs handlers concurrently: a slow handler does not hold up a ping over "+name, func() {
				release := make(chan struct{})
				started := make(chan struct{})
				e := pingEngine()
				e.Requests["slow"] = func(ctx context.Context, _ *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
					close(started)
					select {
					case <-release:
						return map[string]any{"slow": true}, nil
					case <-ctx.Done():
						return nil, &jsonrpc.Error{Code: codes.InternalError, Message: "cancelled"}
					}
				}
				w := connect(e)
				w.send(request(`"slow"`, "slow", nil))
				Eventually(started).WithTimeout(wait).Should(BeClosed())
				w.send(request(`"ping"`, "ping", nil))
				first := w.next()
				Expect(first.ID.String()).To(Equal(`"ping"`), "the ping is answered while the slow handler still runs")
				close(release)
				second := w.next()
				Expect(second.ID.String()).To(Equal(`"slow"`))
				Expect(result(second)).To(HaveKeyWithValue("slow", true))
			})
		}
	})

	Describe("extension points", func() {
		It("lets NotFound, Middleware, Outgoing, OnPeer and OnInvalid take over", func() {
			var peers sync.WaitGroup
			peers.Add(1)
			var mwSeen []string
			var mu sync.Mutex
			e := &server.Engine{
				Requests: map[string]server.Handler{"ping": ok(map[string]any{})},
				NotFound: func(_ context.Context, _ *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					return map[string]any{"fallback": req.Method}, nil
				},
				Middleware: func(next server.Handler) server.Handler {
					return func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
						mu.Lock()
						mwSeen = append(mwSeen, req.Method)
						mu.Unlock()
						if req.Method == "forbidden" {
							return nil, &jsonrpc.Error{Code: -32000, Message: "no"}
						}
						return next(ctx, p, req)
					}
				},
				Outgoing: func(_ *server.Peer, m *jsonrpc.Message) *jsonrpc.Message {
					if m.ID.String() == `"drop"` {
						return nil
					}
					return m
				},
				OnPeer: func(p *server.Peer) { p.Set("greeting", "hi"); peers.Done() },
				OnInvalid: func(ctx context.Context, p *server.Peer, frame []byte, code int) {
					_ = p.Notify(ctx, "invalid/seen", map[string]any{"code": code, "frame": string(frame), "greeting": p.Get("greeting")})
				},
			}
			w := overPipes(e)
			peers.Wait()

			w.send(request("1", "whatever", nil))
			Expect(result(w.next())).To(HaveKeyWithValue("fallback", "whatever"))
			w.send(request("2", "forbidden", nil))
			Expect(w.next().Error.Code).To(Equal(-32000))
			w.send("garbage")
			n := w.next()
			Expect(n.Kind()).To(Equal(jsonrpc.KindNotification))
			Expect(n.Method).To(Equal("invalid/seen"))
			var params map[string]any
			Expect(json.Unmarshal(n.Params, &params)).To(Succeed())
			Expect(params).To(Equal(map[string]any{"code": float64(codes.ParseError), "frame": "garbage", "greeting": "hi"}))
			w.send(request(`"drop"`, "ping", nil))
			w.send(request("3", "ping", nil))
			Expect(w.next().ID.String()).To(Equal("3"))
			Expect(w.rest()).To(BeEmpty(), "Outgoing dropped the answer to \"drop\"")
			mu.Lock()
			defer mu.Unlock()
			Expect(mwSeen).To(ConsistOf("whatever", "forbidden", "ping", "ping"))
		})

		It("answers -32603 when a result cannot be encoded", func() {
			e := pingEngine()
			e.Requests["bad"] = ok(make(chan int))
			w := overPipes(e)
			w.send(request("1", "bad", nil))
			m := w.next()
			Expect(m.ID.String()).To(Equal("1"))
			Expect(m.Error).NotTo(BeNil())
			Expect(m.Error.Code).To(Equal(codes.InternalError))
		})
	})

	Describe("Peer.Request", func() {
		// askTwice asks the client two questions at once and answers with
		// both replies, in the order asked.
		askTwice := func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
			replies := make([]json.RawMessage, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := p.Request(ctx, "sampling/createMessage", map[string]any{"question": i})
					if err != nil {
						errs[i] = err
						return
					}
					replies[i] = resp.Result
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return nil, &jsonrpc.Error{Code: codes.InternalError, Message: err.Error()}
				}
			}
			return map[string]any{"replies": replies}, nil
		}

		for _, name := range []string{"stdio", "ws"} {
			connect := transports[name]
			It("correlates the client's answers with its requests by id over "+name, func() {
				e := &server.Engine{Requests: map[string]server.Handler{"tools/call": askTwice}}
				w := connect(e)
				w.send(request("1", "tools/call", map[string]any{"name": "ask"}))
				asked := map[string]int{} // request id → question
				for range 2 {
					q := w.next()
					Expect(q.Kind()).To(Equal(jsonrpc.KindRequest))
					Expect(q.Method).To(Equal("sampling/createMessage"))
					Expect(q.ID.String()).To(MatchRegexp(`^"srv-\d+"$`), "server request ids are strings")
					var params struct{ Question int }
					Expect(json.Unmarshal(q.Params, &params)).To(Succeed())
					asked[q.ID.String()] = params.Question
				}
				Expect(asked).To(HaveLen(2))
				Expect(asked).To(ContainElements(0, 1))
				// A stray answer first, then the real ones in reverse order of the questions.
				w.send(`{"jsonrpc":"2.0","id":"srv-999","result":{"answer":"stray"}}`)
				for _, question := range []int{1, 0} {
					for id, q := range asked {
						if q == question {
							w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"answer":%d}}`, id, question))
						}
					}
				}
				// A duplicate answer must not block the engine.
				for id := range asked {
					w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"answer":"dup"}}`, id))
				}
				resp := w.next()
				Expect(resp.ID.String()).To(Equal("1"))
				Expect(result(resp)).To(Equal(map[string]any{"replies": []any{
					map[string]any{"answer": float64(0)},
					map[string]any{"answer": float64(1)},
				}}))
				w.send(request("2", "no/such", nil))
				Expect(w.next().ID.String()).To(Equal("2"))
			})
		}

		It("gives up when its context ends", func() {
			e := &server.Engine{Requests: map[string]server.Handler{
				"tools/call": func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
					ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
					defer cancel()
					_, err := p.Request(ctx, "roots/list", nil)
					return map[string]any{"err": fmt.Sprint(err)}, nil
				},
			}}
			w := overPipes(e)
			w.send(request("1", "tools/call", nil))
			q := w.next()
			Expect(q.Method).To(Equal("roots/list"))
			resp := w.next()
			Expect(resp.ID.String()).To(Equal("1"))
			Expect(result(resp)).To(HaveKeyWithValue("err", context.DeadlineExceeded.Error()))
		})

		It("returns from ServeConn when the client leaves while a handler waits for its answer", func() {
			returned := make(chan error, 1)
			e := &server.Engine{Requests: map[string]server.Handler{
				"tools/call": func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
					_, err := p.Request(ctx, "elicitation/create", map[string]any{})
					returned <- err
					return nil, nil
				},
			}}
			w := overPipes(e)
			w.send(request("1", "tools/call", nil))
			Expect(w.next().Method).To(Equal("elicitation/create"))
			w.closeInput() // the client goes away without answering
			Eventually(w.served).WithTimeout(wait).Should(BeClosed(),
				"ServeConn must return at end of input; the pending Peer.Request can never be answered")
			Expect(w.servedErr).NotTo(HaveOccurred())
			Expect(returned).To(Receive(HaveOccurred()))
		})
	})

	Describe("Peer.Inbox and Peer.Hold", func() {
		It("lets a scripted server wait for what the client sends", func() {
			e := &server.Engine{Requests: map[string]server.Handler{
				// await answers once the client has sent notification "go"
				// with the request's params, whenever it comes.
				"await": func(ctx context.Context, p *server.Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
					ctx, cancel := context.WithTimeout(ctx, wait)
					defer cancel()
					m, err := p.Inbox().WaitFor(ctx, func(m *jsonrpc.Message) bool {
						return m.Method == "go" && string(m.Params) == string(req.Params)
					})
					if err != nil {
						return nil, &jsonrpc.Error{Code: codes.InternalError, Message: err.Error()}
					}
					return map[string]any{"went": m.Params}, nil
				},
			}}
			w := overPipes(e)
			w.send(request("1", "await", map[string]any{"n": 1}))
			w.send(`{"jsonrpc":"2.0","method":"go","params":{"n":2}}`)
			w.send(`{"jsonrpc":"2.0","method":"go","params":{"n":1}}`)
			Expect(result(w.next())).To(Equal(map[string]any{"went": map[string]any{"n": float64(1)}}))
		})

		It("keeps requests, notifications and stray responses in the inbox", func() {
			peers := make(chan *server.Peer, 1)
			e := pingEngine()
			e.OnPeer = func(p *server.Peer) { peers <- p }
			w := overPipes(e)
			p := <-peers
			w.send(request("1", "ping", nil))
			w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			w.send(`{"jsonrpc":"2.0","id":"srv-404","result":{}}`)
			Expect(w.next().ID.String()).To(Equal("1"))
			m, err := p.Inbox().WaitFor(stepCtx(), func(m *jsonrpc.Message) bool { return m.IsResponse() })
			Expect(err).NotTo(HaveOccurred())
			Expect(m.ID.String()).To(Equal(`"srv-404"`))
			var kinds []jsonrpc.Kind
			for _, m := range p.Inbox().Messages() {
				kinds = append(kinds, m.Kind())
			}
			Expect(kinds).To(Equal([]jsonrpc.Kind{jsonrpc.KindRequest, jsonrpc.KindNotification, jsonrpc.KindResponse}))
			Expect(w.rest()).To(BeEmpty())
		})

		It("holds a client's requests for the script to answer late or decline", func() {
			held := make(chan *peer.HeldRequests, 1)
			e := pingEngine()
			e.OnPeer = func(p *server.Peer) { held <- p.Hold("tools/call") }
			w := overPipes(e)
			hr := <-held
			w.send(request("1", "tools/call", nil))
			w.send(request("2", "tools/call", nil))
			first, err := hr.Next(stepCtx())
			Expect(err).NotTo(HaveOccurred())
			second, err := hr.Next(stepCtx())
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{first.Request.ID.String(), second.Request.ID.String()}).To(ConsistOf("1", "2"))
			w.send(request("3", "ping", nil))
			Expect(w.next().ID.String()).To(Equal("3"), "the engine goes on serving while requests are held")

			second.Decline(&jsonrpc.Error{Code: -32000, Message: "not now"})
			m := w.next()
			Expect(m.ID.String()).To(Equal(second.Request.ID.String()))
			Expect(m.Error.Code).To(Equal(-32000))
			first.Answer(map[string]any{"late": true})
			m = w.next()
			Expect(m.ID.String()).To(Equal(first.Request.ID.String()))
			Expect(result(m)).To(Equal(map[string]any{"late": true}))
		})
	})

	Describe("notifications/cancelled", func() {
		// work returns when its context ends, saying so.
		work := func(started chan<- struct{}) server.Handler {
			return func(ctx context.Context, _ *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				started <- struct{}{}
				<-ctx.Done()
				return map[string]any{"ended": true}, nil
			}
		}

		It("ends the handler's context and sends no response", func() {
			started := make(chan struct{}, 1)
			e := pingEngine()
			e.Requests["work"] = work(started)
			w := overPipes(e)
			w.send(request(`"w"`, "work", nil))
			Eventually(started).WithTimeout(wait).Should(Receive())
			w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}}`)
			w.send(request("1", "ping", nil))
			Expect(w.next().ID.String()).To(Equal("1"))
			Expect(w.rest()).To(BeEmpty())
		})

		It("answers anyway with RespondAfterCancel, whose handler's context goes on", func() {
			started := make(chan struct{}, 1)
			release := make(chan struct{})
			e := pingEngine()
			e.RespondAfterCancel = true
			e.Requests["work"] = func(ctx context.Context, _ *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				started <- struct{}{}
				select {
				case <-ctx.Done():
					return map[string]any{"ended": "cancelled"}, nil
				case <-release:
					return map[string]any{"ended": "released"}, nil
				}
			}
			w := overPipes(e)
			w.send(request(`"w"`, "work", nil))
			Eventually(started).WithTimeout(wait).Should(Receive())
			w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}}`)
			w.send(request("1", "ping", nil))
			Expect(w.next().ID.String()).To(Equal("1"))
			close(release)
			m := w.next()
			Expect(m.ID.String()).To(Equal(`"w"`))
			Expect(result(m)).To(Equal(map[string]any{"ended": "released"}))
		})
	})

	It("shares the peer's one \"send nothing\" marker with the client", func() {
		Expect(peer.NoAnswer).To(BeIdenticalTo(peer.NoAnswer))
		Expect(peer.NoAnswer).To(BeIdenticalTo(peer.NoAnswer))
	})
})
