package peer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = Describe("Requests", func() {
	It("correlates answers by the id's value: \"42\" and 42 are different requests", func() {
		strays := make(chan *jsonrpc.Message, 4)
		w := onWire(peer.Options{OnStrayResponse: func(m *jsonrpc.Message) { strays <- m }})
		got := map[string]chan *jsonrpc.Message{"string": make(chan *jsonrpc.Message, 1), "number": make(chan *jsonrpc.Message, 1)}
		for kind, id := range map[string]jsonrpc.ID{"string": jsonrpc.StringID("42"), "number": jsonrpc.NumberID(42)} {
			go func() {
				defer GinkgoRecover()
				resp, err := w.peer.Do(stepCtx(), peer.Call{ID: id, Method: "which", Params: map[string]any{"kind": kind}})
				Expect(err).NotTo(HaveOccurred())
				got[kind] <- resp
			}()
		}
		ids := map[string]bool{}
		for range 2 {
			q := w.next()
			Expect(q.Method).To(Equal("which"))
			ids[q.ID.String()] = true
		}
		Expect(ids).To(Equal(map[string]bool{`"42"`: true, `42`: true}))
		w.send(`{"jsonrpc":"2.0","id":42,"result":{"kind":"number"}}`)
		w.send(`{"jsonrpc":"2.0","id":"42","result":{"kind":"string"}}`)
		for kind, ch := range got {
			var resp *jsonrpc.Message
			Eventually(ch).WithTimeout(wait).Should(Receive(&resp))
			Expect(result(resp)).To(Equal(map[string]any{"kind": kind}))
		}
		Expect(w.peer.Inbox().Messages()).To(BeEmpty(), "answers to our own requests are not in the inbox")

		// A second answer to the same id answers nothing: it is stray.
		w.send(`{"jsonrpc":"2.0","id":42,"result":{"kind":"again"}}`)
		var stray *jsonrpc.Message
		Eventually(strays).WithTimeout(wait).Should(Receive(&stray))
		Expect(stray.ID.String()).To(Equal("42"))
		Expect(w.peer.Inbox().Messages()).To(ConsistOf(stray))
	})

	It("correlates answers by the id's JSON value: an id echoed with other escaping is the same id, another value is not", func() {
		// What a conformant Node or Python server writes back: the id it
		// parsed, re-encoded with its own escaping.
		strays := make(chan *jsonrpc.Message, 4)
		w := onWire(peer.Options{OnStrayResponse: func(m *jsonrpc.Message) { strays <- m }})
		echoed := map[string]string{"q&a": `"q\u0026a"`, "città": `"citt\u00e0"`, "7": `7.0`}
		got := map[string]chan *jsonrpc.Message{}
		for text := range echoed {
			got[text] = make(chan *jsonrpc.Message, 1)
			id := jsonrpc.StringID(text)
			if text == "7" {
				id = jsonrpc.NumberID(7)
			}
			go func() {
				defer GinkgoRecover()
				resp, err := w.peer.Do(stepCtx(), peer.Call{ID: id, Method: "which"})
				Expect(err).NotTo(HaveOccurred())
				got[text] <- resp
			}()
		}
		for range echoed {
			Expect(w.next().Method).To(Equal("which"))
		}
		// Other values first: a string that differs, a string for a number.
		w.send(`{"jsonrpc":"2.0","id":"q\u0026b","result":{}}`)
		w.send(`{"jsonrpc":"2.0","id":"7","result":{}}`)
		for range 2 {
			var stray *jsonrpc.Message
			Eventually(strays).WithTimeout(wait).Should(Receive(&stray))
		}
		for text, id := range echoed {
			w.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"text":"` + text + `"}}`)
		}
		for text, ch := range got {
			var resp *jsonrpc.Message
			Eventually(ch).WithTimeout(wait).Should(Receive(&resp), "the answer to %q", text)
			Expect(result(resp)).To(Equal(map[string]any{"text": text}))
		}
		Expect(strays).NotTo(Receive(), "no correlated answer is stray")
	})

	It("numbers its requests 1, 2, 3 by default, or with a string prefix", func() {
		w := onWire(peer.Options{})
		for _, want := range []string{"1", "2"} {
			asked := make(chan error, 1)
			go func() {
				_, err := w.peer.Request(stepCtx(), "ping", nil)
				asked <- err
			}()
			q := w.next()
			Expect(q.ID.String()).To(Equal(want))
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, q.ID))
			Eventually(asked).WithTimeout(wait).Should(Receive(BeNil()))
		}

		s := onWire(peer.Options{IDPrefix: "srv-"})
		go func() { _, _ = s.peer.Request(stepCtx(), "ping", nil) }()
		Expect(s.next().ID.String()).To(Equal(`"srv-1"`))
		Expect(s.peer.NextID().String()).To(Equal(`"srv-2"`))
	})

	It("gives up when its context ends, and when the connection ends", func() {
		w := onWire(peer.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := w.peer.Request(ctx, "never", nil)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err).To(MatchError(ContainSubstring("no response")))
		Expect(w.next().Method).To(Equal("never"))

		failed := make(chan error, 1)
		go func() {
			_, err := w.peer.Request(stepCtx(), "pending", nil)
			failed <- err
		}()
		Expect(w.next().Method).To(Equal("pending"))
		Expect(w.in.Close()).To(Succeed())
		Eventually(failed).WithTimeout(wait).Should(Receive(And(
			MatchError(io.EOF),
			MatchError(ContainSubstring("connection closed before the response")),
		)))
		Eventually(w.peer.Done()).WithTimeout(wait).Should(BeClosed())
		Expect(w.peer.Err()).To(MatchError(io.EOF))

		_, err = w.peer.Request(stepCtx(), "after", nil)
		Expect(err).To(MatchError(ContainSubstring("connection closed before the response")), "no wait once the connection is gone")
	})

	It("rewrites what it encodes with Outgoing, but not raw frames", func() {
		w := onWire(peer.Options{Outgoing: func(m *jsonrpc.Message) *jsonrpc.Message {
			switch m.Method {
			case "drop":
				return nil
			case "rename":
				m.Method = "renamed"
			}
			return m
		}})
		Expect(w.peer.Notify(stepCtx(), "rename", map[string]any{"x": 1})).To(Succeed())
		Expect(w.peer.Notify(stepCtx(), "drop", nil)).To(Succeed())
		Expect(w.peer.SendRaw(stepCtx(), []byte(`{"jsonrpc":"2.0","method":"drop"}`))).To(Succeed())
		Expect(w.rest()).To(Equal([]string{
			`{"jsonrpc":"2.0","method":"renamed","params":{"x":1}}`,
			`{"jsonrpc":"2.0","method":"drop"}`,
		}))
	})

	It("writes a request through Call.Send when one is given", func() {
		w := onWire(peer.Options{})
		var via atomic.Pointer[string]
		go func() {
			_, _ = w.peer.Do(stepCtx(), peer.Call{Method: "custom", Send: func(ctx context.Context, frame []byte) error {
				s := string(frame)
				via.Store(&s)
				return w.peer.SendRaw(ctx, frame)
			}})
		}()
		q := w.next()
		Expect(q.Method).To(Equal("custom"))
		Expect(via.Load()).NotTo(BeNil())
		Expect(*via.Load()).To(Equal(string(q.Raw)))
	})
})

var _ = Describe("Serving", func() {
	It("runs handlers concurrently: a slow handler does not hold up another", func() {
		release := make(chan struct{})
		started := make(chan struct{})
		w := onWire(peer.Options{Handlers: map[string]peer.Handler{
			"ping": answer(map[string]any{}),
			"slow": func(ctx context.Context, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				close(started)
				<-release
				return map[string]any{"slow": true}, nil
			},
		}})
		w.send(request(`"slow"`, "slow", nil))
		Eventually(started).WithTimeout(wait).Should(BeClosed())
		w.send(request(`"ping"`, "ping", nil))
		Expect(w.next().ID.String()).To(Equal(`"ping"`), "the ping is answered while the slow handler still runs")
		close(release)
		slow := w.next()
		Expect(slow.ID.String()).To(Equal(`"slow"`))
		Expect(result(slow)).To(HaveKeyWithValue("slow", true))
	})

	It("correlates 20 requests in flight at once between two peers, both ways", func() {
		const n = 20
		var arrived atomic.Int64
		allIn := make(chan struct{})
		a, b := pair(peer.Options{}, peer.Options{IDPrefix: "srv-"})
		b.Handle("barrier", func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			if arrived.Add(1) == n {
				close(allIn)
			}
			select {
			case <-allIn:
			case <-ctx.Done():
				return nil, &jsonrpc.Error{Code: codes.InternalError, Message: "barrier not reached"}
			}
			// and a question back to a, on the same connection
			back, err := b.Request(ctx, "echo", json.RawMessage(req.Params))
			if err != nil {
				return nil, &jsonrpc.Error{Code: codes.InternalError, Message: err.Error()}
			}
			return json.RawMessage(back.Result), nil
		})
		a.Handle("echo", func(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
			return json.RawMessage(req.Params), nil
		})
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := a.Request(stepCtx(), "barrier", map[string]any{"i": i})
				if err == nil && string(resp.Result) != fmt.Sprintf(`{"i":%d}`, i) {
					err = fmt.Errorf("request %d answered with %s", i, resp.Raw)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			Expect(err).NotTo(HaveOccurred(), "request %d", i)
		}
		Expect(a.Inbox().Matching(0, peer.Method("echo"))).To(HaveLen(n), "b's questions are in a's inbox")
		Expect(b.Inbox().Matching(0, func(m *jsonrpc.Message) bool { return m.IsResponse() })).To(BeEmpty())
	})

	It("sends nothing for NoAnswer, the *jsonrpc.Error as given, -32603 for a result it cannot encode, -32601 for an unknown method", func() {
		w := onWire(peer.Options{Handlers: map[string]peer.Handler{
			"silent": answer(peer.NoAnswer),
			"fail": func(context.Context, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return nil, &jsonrpc.Error{Code: -32000, Message: "no", Data: json.RawMessage(`{"why":"because"}`)}
			},
			"bad": answer(make(chan int)),
		}})
		w.send(request("1", "silent", nil))
		w.send(request("2", "fail", nil))
		m := w.next()
		Expect(m.ID.String()).To(Equal("2"))
		Expect(m.Error).To(Equal(&jsonrpc.Error{Code: -32000, Message: "no", Data: json.RawMessage(`{"why":"because"}`)}))
		w.send(request("3", "bad", nil))
		m = w.next()
		Expect(m.ID.String()).To(Equal("3"))
		Expect(m.Error.Code).To(Equal(codes.InternalError))
		w.send(request(`"u"`, "no/such", nil))
		m = w.next()
		Expect(m.ID.String()).To(Equal(`"u"`))
		Expect(m.Error.Code).To(Equal(codes.MethodNotFound))
		Expect(m.Error.Message).To(Equal("Method not found: no/such"))
		Expect(w.rest()).To(BeEmpty(), "the silent request is never answered")
	})

	It("passes unknown methods to NotFound, and lets Handle replace and remove handlers", func() {
		w := onWire(peer.Options{
			Handlers: map[string]peer.Handler{"m": answer(map[string]any{"v": 1})},
			NotFound: func(_ context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"fallback": req.Method}, nil
			},
		})
		w.send(request("1", "m", nil))
		Expect(result(w.next())).To(Equal(map[string]any{"v": 1.0}))
		w.peer.Handle("m", answer(map[string]any{"v": 2}))
		w.send(request("2", "m", nil))
		Expect(result(w.next())).To(Equal(map[string]any{"v": 2.0}))
		w.peer.Handle("m", nil)
		w.send(request("3", "m", nil))
		Expect(result(w.next())).To(Equal(map[string]any{"fallback": "m"}))
	})

	It("passes notifications to their handler or OtherNotifications, and never answers them", func() {
		seen := make(chan string, 4)
		w := onWire(peer.Options{
			Notifications:      map[string]peer.NotificationHandler{"known": func(_ context.Context, m *jsonrpc.Message) { seen <- "known " + m.Method }},
			OtherNotifications: func(_ context.Context, m *jsonrpc.Message) { seen <- "other " + m.Method },
		})
		w.peer.HandleNotification("added", func(_ context.Context, m *jsonrpc.Message) { seen <- "added " + m.Method })
		w.send(`{"jsonrpc":"2.0","method":"known"}`)
		w.send(`{"jsonrpc":"2.0","method":"added"}`)
		w.send(`{"jsonrpc":"2.0","method":"unknown","params":{}}`)
		Expect(w.rest()).To(BeEmpty())
		Expect(seen).To(Receive(Equal("known known")))
		Expect(seen).To(Receive(Equal("added added")))
		Expect(seen).To(Receive(Equal("other unknown")))
		Expect(w.peer.Inbox().Messages()).To(HaveLen(3))
	})

	It("passes frames that are not messages to OnInvalid with Classify's code, and nowhere else", func() {
		type invalid struct {
			frame string
			code  int
		}
		got := make(chan invalid, 8)
		onInvalid := func(_ context.Context, frame []byte, code int) { got <- invalid{string(frame), code} }
		w := onWire(peer.Options{OnInvalid: onInvalid})
		w.send("not json")
		w.send("[1,2]")
		w.send(`{"jsonrpc":"2.0","method":42}`)
		Expect(w.rest()).To(BeEmpty())
		Expect(got).To(Receive(Equal(invalid{"not json", codes.ParseError})))
		Expect(got).To(Receive(Equal(invalid{"[1,2]", codes.InvalidRequest})))
		Expect(got).To(Receive(Equal(invalid{`{"jsonrpc":"2.0","method":42}`, codes.InvalidRequest})))
		Expect(w.peer.Inbox().Messages()).To(BeEmpty())

		strict := onWire(peer.Options{OnInvalid: onInvalid, Classify: func(frame []byte) (*jsonrpc.Message, int) {
			m, code := peer.Decode(frame)
			if m != nil && m.Kind() == jsonrpc.KindInvalid {
				return nil, codes.InvalidRequest
			}
			return m, code
		}})
		strict.send(`{"jsonrpc":"2.0"}`)
		Eventually(got).WithTimeout(wait).Should(Receive(Equal(invalid{`{"jsonrpc":"2.0"}`, codes.InvalidRequest})))
	})

	Describe("notifications/cancelled", func() {
		// work hands its context out and returns once released or
		// cancelled, saying which.
		work := func(ctxs chan<- context.Context, release <-chan struct{}) peer.Handler {
			return func(ctx context.Context, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				ctxs <- ctx
				select {
				case <-ctx.Done():
					return map[string]any{"ended": "cancelled"}, nil
				case <-release:
					return map[string]any{"ended": "released"}, nil
				}
			}
		}
		cancelled := func(id string) string {
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
		}
		// barrier returns once every frame sent before it was read: the
		// read loop handles a notification before it reads the next frame.
		barrier := func(w *wire) {
			GinkgoHelper()
			w.send(request(`"barrier"`, "ping", nil))
			Expect(w.next().ID.String()).To(Equal(`"barrier"`))
		}

		for _, mode := range []struct {
			name   string
			after  peer.AfterCancel
			answer string
		}{
			{"ends the context and drops the answer by default", peer.DropAnswer, ""},
			{"ends the context but sends the answer with SendAnswer", peer.SendAnswer, "cancelled"},
			{"changes nothing with IgnoreCancel", peer.IgnoreCancel, "released"},
		} {
			It(mode.name, func() {
				ctxs := make(chan context.Context, 1)
				release := make(chan struct{})
				w := onWire(peer.Options{AfterCancel: mode.after, Handlers: map[string]peer.Handler{
					"work": work(ctxs, release),
					"ping": answer(map[string]any{}),
				}})
				w.send(request("1", "work", nil))
				var ctx context.Context
				Eventually(ctxs).WithTimeout(wait).Should(Receive(&ctx))

				w.send(cancelled(`"1"`)) // another request's id: "1" is not 1
				w.send(cancelled(`7`))   // no such request
				w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`)
				barrier(w)
				Expect(ctx.Err()).NotTo(HaveOccurred())

				w.send(cancelled(`1`))
				var answered *jsonrpc.Message
				switch mode.after {
				case peer.SendAnswer:
					answered = w.next() // the handler returns as its context ends
					Expect(ctx.Err()).To(MatchError(context.Canceled))
				case peer.DropAnswer:
					barrier(w)
					Expect(ctx.Err()).To(MatchError(context.Canceled))
				case peer.IgnoreCancel:
					barrier(w)
					Expect(ctx.Err()).NotTo(HaveOccurred())
					close(release)
					answered = w.next()
				}
				Expect(w.rest()).To(BeEmpty())
				if mode.answer == "" {
					Expect(answered).To(BeNil())
					return
				}
				Expect(answered.ID.String()).To(Equal("1"))
				Expect(result(answered)).To(Equal(map[string]any{"ended": mode.answer}))
			})
		}
	})
})

var _ = Describe("Held requests", func() {
	It("answers late, and Answer returns once the answer is written", func() {
		w := onWire(peer.Options{})
		held := w.peer.Hold("ask")
		Expect(held.Method()).To(Equal("ask"))
		w.send(request("1", "ask", map[string]any{"q": "late?"}))
		h, err := held.Next(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		Expect(string(h.Request.Params)).To(MatchJSON(`{"q":"late?"}`))
		Expect(w.frames).NotTo(Receive(), "nothing is answered before the script says so")

		h.Answer(map[string]any{"late": true})
		// What the script sends next goes out after the answer.
		Expect(w.peer.Notify(stepCtx(), "after", nil)).To(Succeed())
		m := w.next()
		Expect(m.ID.String()).To(Equal("1"))
		Expect(result(m)).To(Equal(map[string]any{"late": true}))
		Expect(w.next().Method).To(Equal("after"))
		h.Answer(map[string]any{"twice": true}) // only the first release counts
		Expect(w.rest()).To(BeEmpty())
	})

	It("declines with an error response", func() {
		w := onWire(peer.Options{})
		held := w.peer.Hold("ask")
		w.send(request(`"d"`, "ask", nil))
		h, err := held.Next(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		h.Decline(&jsonrpc.Error{Code: -32042, Message: "declined"})
		Expect(w.peer.Notify(stepCtx(), "after", nil)).To(Succeed())
		m := w.next()
		Expect(m.ID.String()).To(Equal(`"d"`))
		Expect(m.Error).To(Equal(&jsonrpc.Error{Code: -32042, Message: "declined"}))
		Expect(w.next().Method).To(Equal("after"))
	})

	It("never answers an ignored request: the asker waits until its own deadline", func() {
		a, b := pair(peer.Options{}, peer.Options{})
		held := b.Hold("ask")
		asked := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err := a.Request(ctx, "ask", nil)
			asked <- err
		}()
		h, err := held.Next(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		h.Ignore()
		Eventually(asked).WithTimeout(wait).Should(Receive(MatchError(context.DeadlineExceeded)))
		// and b goes on serving
		b.Handle("ping", answer(map[string]any{}))
		resp, err := a.Request(stepCtx(), "ping", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(result(resp)).To(BeEmpty())
	})

	It("cancels a request whose cancellation is read before its handler runs", func() {
		// The request is in flight from the moment the read loop takes it:
		// a cancellation written right behind it must find it.
		ctxs := make(chan context.Context, 1)
		release := make(chan struct{})
		w := onWire(peer.Options{Handlers: map[string]peer.Handler{
			"work": func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				<-release // the handler starts only after the cancellation was read
				ctxs <- ctx
				<-ctx.Done()
				return map[string]any{"ended": "cancelled"}, nil
			},
			"ping": answer(map[string]any{}),
		}})
		w.send(request("9", "work", nil))
		w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
		w.send(request(`"barrier"`, "ping", nil))
		Expect(w.next().ID.String()).To(Equal(`"barrier"`))
		close(release)
		var ctx context.Context
		Eventually(ctxs).WithTimeout(wait).Should(Receive(&ctx))
		Expect(ctx.Err()).To(MatchError(context.Canceled))
		Expect(w.rest()).To(BeEmpty(), "no answer to a cancelled request (DropAnswer)")
	})

	It("sees the request cancelled through its Context", func() {
		w := onWire(peer.Options{})
		held := w.peer.Hold("ask")
		w.send(request("5", "ask", nil))
		h, err := held.Next(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Context().Err()).NotTo(HaveOccurred())
		w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
		Eventually(h.Context().Done()).WithTimeout(wait).Should(BeClosed())
		h.Answer(map[string]any{"stale": true})
		Expect(w.rest()).To(BeEmpty(), "no answer to a cancelled request (DropAnswer)")
	})

	It("lets go of a held request when the connection ends", func() {
		w := onWire(peer.Options{})
		held := w.peer.Hold("ask")
		w.send(request("1", "ask", nil))
		h, err := held.Next(stepCtx())
		Expect(err).NotTo(HaveOccurred())
		Expect(w.rest()).To(BeEmpty())
		answered := make(chan struct{})
		go func() {
			h.Answer(map[string]any{})
			close(answered)
		}()
		Eventually(answered).WithTimeout(wait).Should(BeClosed(), "Answer does not wait for a connection that is gone")

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err = held.Next(ctx)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err).To(MatchError(ContainSubstring("no ask request arrived")))
	})
})

var _ = Describe("Inbox", func() {
	note := func(n int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d}}`, n) }
	nOf := func(m *jsonrpc.Message) float64 {
		GinkgoHelper()
		var p struct{ N float64 }
		Expect(json.Unmarshal(m.Params, &p)).To(Succeed())
		return p.N
	}
	isNote := func(n int) func(*jsonrpc.Message) bool {
		return func(m *jsonrpc.Message) bool { return m.Method == "note" && nOf(m) == float64(n) }
	}

	It("keeps notifications, requests and stray responses, not the answers to our own requests", func() {
		w := onWire(peer.Options{Handlers: map[string]peer.Handler{"ping": answer(map[string]any{})}})
		asked := make(chan error, 1)
		go func() {
			_, err := w.peer.Request(stepCtx(), "q", nil)
			asked <- err
		}()
		q := w.next()
		w.send(note(1))
		w.send(request("7", "ping", nil))
		w.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, q.ID))
		Eventually(asked).WithTimeout(wait).Should(Receive(BeNil()))
		Expect(w.next().ID.String()).To(Equal("7"))
		msgs := w.peer.Inbox().Messages()
		Expect(msgs).To(HaveLen(3))
		Expect(msgs[0].Method).To(Equal("note"))
		Expect(msgs[1].Method).To(Equal("ping"))
		Expect(peer.NullIDResponse(msgs[2])).To(BeTrue())
		Expect(w.peer.Inbox().Matching(0, peer.NullIDResponse)).To(HaveLen(1))
	})

	It("waits from a mark, and wakes a waiter when a match arrives", func() {
		w := onWire(peer.Options{})
		in := w.peer.Inbox()
		w.send(note(1))
		_, err := in.WaitFor(stepCtx(), isNote(1))
		Expect(err).NotTo(HaveOccurred())
		mark := in.Mark()
		Expect(mark).To(Equal(1))

		got := make(chan *jsonrpc.Message, 1)
		go func() {
			defer GinkgoRecover()
			m, err := in.WaitFrom(stepCtx(), mark, peer.Method("note"))
			Expect(err).NotTo(HaveOccurred())
			got <- m
		}()
		w.send(note(2))
		var m *jsonrpc.Message
		Eventually(got).WithTimeout(wait).Should(Receive(&m))
		Expect(nOf(m)).To(Equal(2.0), "what came before the mark is not looked at")
		Expect(in.Matching(mark, peer.Method("note"))).To(HaveLen(1))
		Expect(in.Matching(0, peer.Method("note"))).To(HaveLen(2))
		Expect(in.Matching(99, peer.Method("note"))).To(BeEmpty())
	})

	It("honours the deadline of its context", func() {
		w := onWire(peer.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		m, err := w.peer.Inbox().WaitFor(ctx, peer.Method("never"))
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(m).To(BeNil())
		Expect(ctx.Err()).To(MatchError(context.DeadlineExceeded), "the wait ended with its deadline, not before")
	})

	It("ends waits when the connection closes, after what arrived before", func() {
		w := onWire(peer.Options{})
		errs := make(chan error, 1)
		go func() {
			_, err := w.peer.Inbox().WaitFor(context.Background(), peer.Method("never"))
			errs <- err
		}()
		w.send(note(1))
		Expect(w.in.Close()).To(Succeed())
		Eventually(errs).WithTimeout(wait).Should(Receive(And(
			MatchError(io.EOF),
			MatchError(ContainSubstring("connection closed while waiting")),
		)))
		m, err := w.peer.Inbox().WaitFor(stepCtx(), isNote(1))
		Expect(err).NotTo(HaveOccurred(), "a message that arrived before the close is still found")
		Expect(nOf(m)).To(Equal(1.0))
	})

	It("keeps at most its limit, dropping the oldest, and says so", func() {
		full := make(chan int, 4)
		w := onWire(peer.Options{InboxLimit: 3, OnInboxFull: func(limit int) { full <- limit }})
		in := w.peer.Inbox()
		Expect(in.Limit()).To(Equal(3))
		for n := 1; n <= 5; n++ {
			w.send(note(n))
		}
		_, err := in.WaitFor(stepCtx(), isNote(5))
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Mark()).To(Equal(5), "positions count every message")
		Expect(in.Dropped()).To(Equal(2))
		var kept []float64
		for _, m := range in.Messages() {
			kept = append(kept, nOf(m))
		}
		Expect(kept).To(Equal([]float64{3, 4, 5}))
		Expect(in.Matching(0, peer.Method("note"))).To(HaveLen(3))
		Expect(in.Matching(4, peer.Method("note"))).To(HaveLen(1))
		Expect(full).To(Receive(Equal(3)))

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err = in.WaitFor(ctx, isNote(1))
		Expect(err).To(MatchError(context.DeadlineExceeded), "a dropped message is not found")

		for n := 6; n <= 10; n++ {
			w.send(note(n))
		}
		_, err = in.WaitFrom(stepCtx(), 5, isNote(10))
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Dropped()).To(Equal(7))
		Expect(in.Messages()).To(HaveLen(3))
		Expect(nOf(in.Messages()[0])).To(Equal(8.0))
		Expect(full).NotTo(Receive(), "OnInboxFull is called once")
	})

	It("keeps 10 000 messages and 8 MiB unless told otherwise", func() {
		Expect(peer.DefaultInboxLimit).To(Equal(10000))
		Expect(peer.DefaultInboxBytes).To(Equal(8 << 20))
		in := onWire(peer.Options{}).peer.Inbox()
		Expect(in.Limit()).To(Equal(peer.DefaultInboxLimit))
		Expect(in.ByteLimit()).To(Equal(peer.DefaultInboxBytes))
	})

	It("keeps at most its byte limit, dropping the oldest, always the newest, and says so once", func() {
		drops := make(chan peer.InboxDrop, 4)
		w := onWire(peer.Options{InboxBytes: 64 << 10, OnInboxDrop: func(d peer.InboxDrop) { drops <- d }})
		in := w.peer.Inbox()
		big := func(n, size int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d,"pad":"%s"}}`, n, strings.Repeat("x", size))
		}
		for n := 1; n <= 10; n++ {
			w.send(big(n, 16<<10))
		}
		_, err := in.WaitFor(stepCtx(), isNote(10))
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Bytes()).To(BeNumerically("<=", 64<<10))
		Expect(len(in.Messages())).To(BeNumerically("<", 4), "a message of 16 KiB costs its raw bytes and its decoded params")
		Expect(in.Dropped()).To(Equal(10 - len(in.Messages())))
		Expect(in.DroppedBytes()).To(BeNumerically(">", 7*32<<10))
		var d peer.InboxDrop
		Expect(drops).To(Receive(&d))
		Expect(d.String()).To(Equal("inbox: more than 10,000 messages or 65,536 bytes arrived unread; the oldest are dropped from now on (a wait still sees every new message)"))

		w.send(big(11, 1<<20))
		_, err = in.WaitFor(stepCtx(), isNote(11))
		Expect(err).NotTo(HaveOccurred(), "a message over the limit alone is still kept: it is the newest")
		Expect(in.Messages()).To(HaveLen(1))
		Expect(drops).NotTo(Receive(), "the drop is said once")
	})

	It("raises a waiter's panicking predicate in the waiter, not in the read loop", func() {
		w := onWire(peer.Options{})
		in := w.peer.Inbox()
		waiting := make(chan struct{})
		var once sync.Once
		panicked := make(chan any, 1)
		mark := in.Mark()
		go func() {
			defer func() { panicked <- recover() }()
			_, _ = in.WaitFrom(stepCtx(), mark, func(m *jsonrpc.Message) bool {
				if m.Method == "ready" {
					once.Do(func() { close(waiting) }) // the read loop and the waiter may both look
					return false
				}
				panic("a broken predicate")
			})
		}()
		w.send(`{"jsonrpc":"2.0","method":"ready"}`)
		Eventually(waiting).WithTimeout(wait).Should(BeClosed())
		w.send(note(1))
		Eventually(panicked).WithTimeout(wait).Should(Receive(Equal("a broken predicate")))
		w.send(note(2))
		_, err := in.WaitFor(stepCtx(), isNote(2))
		Expect(err).NotTo(HaveOccurred(), "the read loop goes on")
	})

	It("hands a waiter its message even when a flood pushes it out before the waiter looks", func() {
		w := onWire(peer.Options{InboxLimit: 2})
		in := w.peer.Inbox()
		mark := in.Mark()
		looked := make(chan struct{})
		var once sync.Once
		got := make(chan *jsonrpc.Message, 1)
		go func() {
			defer GinkgoRecover()
			m, err := in.WaitFrom(stepCtx(), mark, func(m *jsonrpc.Message) bool {
				once.Do(func() { close(looked) })
				return isNote(1)(m)
			})
			Expect(err).NotTo(HaveOccurred())
			got <- m
		}()
		w.send(note(0))
		Eventually(looked).WithTimeout(wait).Should(BeClosed(), "the waiter waits")
		var burst strings.Builder
		for n := 1; n <= 500; n++ {
			burst.WriteString(note(n) + "\n")
		}
		_, err := io.WriteString(w.in, burst.String())
		Expect(err).NotTo(HaveOccurred())
		var m *jsonrpc.Message
		Eventually(got).WithTimeout(wait).Should(Receive(&m))
		Expect(nOf(m)).To(Equal(1.0))
		Expect(in.Matching(0, isNote(1))).To(BeEmpty(), "note 1 itself is long dropped")
	})
})

var _ = Describe("serving requests", func() {
	It("serves at most MaxServing requests at once, files the rest unserved, and says so once", func() {
		release := make(chan struct{})
		started := make(chan string, 16)
		limits := make(chan int, 4)
		w := onWire(peer.Options{
			MaxServing:   3,
			OnServeLimit: func(limit int) { limits <- limit },
			Handlers: map[string]peer.Handler{"block": func(ctx context.Context, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				started <- req.ID.String()
				<-release
				return map[string]any{}, nil
			}},
		})
		for id := 1; id <= 5; id++ {
			w.send(request(fmt.Sprint(id), "block", nil))
		}
		w.send(`{"jsonrpc":"2.0","method":"after"}`)
		_, err := w.peer.Inbox().WaitFor(stepCtx(), peer.Method("after"))
		Expect(err).NotTo(HaveOccurred())
		Expect(w.peer.Inbox().Matching(0, peer.Method("block"))).To(HaveLen(5), "every request is filed")
		Expect(w.peer.Unserved()).To(Equal(2))
		Expect(limits).To(Receive(Equal(3)))
		var ids []string
		for range 3 {
			var id string
			Eventually(started).WithTimeout(wait).Should(Receive(&id))
			ids = append(ids, id)
		}
		Expect(ids).To(ConsistOf("1", "2", "3"))
		close(release)
		var answered []string
		for range 3 {
			answered = append(answered, w.next().ID.String())
		}
		Expect(answered).To(ConsistOf("1", "2", "3"))
		Expect(w.rest()).To(BeEmpty(), "only the served requests are answered")
		Expect(started).NotTo(Receive(), "no handler ran for the unserved requests")
		Expect(limits).NotTo(Receive(), "the limit is said once")
	})

	It("serves 1024 requests at once unless told otherwise", func() {
		Expect(peer.DefaultMaxServing).To(Equal(1024))
	})
})

var _ = Describe("Run", func() {
	It("ends the handlers' contexts when input ends, waits for them, then returns", func() {
		started := make(chan struct{})
		var returned atomic.Bool
		w := onWire(peer.Options{Handlers: map[string]peer.Handler{
			"wait": func(ctx context.Context, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				close(started)
				<-ctx.Done()
				returned.Store(true)
				return peer.NoAnswer, nil
			},
		}})
		w.send(request("1", "wait", nil))
		Eventually(started).WithTimeout(wait).Should(BeClosed())
		Expect(w.in.Close()).To(Succeed())
		Eventually(w.peer.ran).WithTimeout(wait).Should(Receive(MatchError(io.EOF)))
		Expect(returned.Load()).To(BeTrue(), "Run returns after its handlers")
		Expect(w.peer.Done()).To(BeClosed())
		Expect(w.peer.Err()).To(MatchError(io.EOF))
		Expect(w.peer.Context().Err()).To(MatchError(context.Canceled))
		Expect(w.peer.Run()).To(MatchError(ContainSubstring("Run called twice")))
	})

	It("ends when the context given to New ends", func() {
		ctx, cancel := context.WithCancel(context.Background())
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		DeferCleanup(func() { _ = inW.Close(); _ = outR.Close() })
		p := start(peer.New(ctx, transport.NewStdioServerConn(inR, outW, transport.Options{}), peer.Options{}))
		Expect(p.Err()).NotTo(HaveOccurred(), "no error while it runs")
		cancel()
		Eventually(p.ran).WithTimeout(wait).Should(Receive(MatchError(context.Canceled)))
	})
})
