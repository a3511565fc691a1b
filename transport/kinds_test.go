package transport

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("transport kinds", func() {
	It("lists stdio, http and ws, in that order, in a fresh slice", func() {
		Expect(Kinds()).To(Equal([]Kind{Stdio, HTTP, WS}))
		Expect([]string{Stdio.String(), HTTP.String(), WS.String()}).To(Equal([]string{"stdio", "http", "ws"}))
		ks := Kinds()
		ks[0] = "mutated"
		Expect(Kinds()[0]).To(Equal(Stdio))
	})

	It("parses every kind it lists", func() {
		for _, k := range Kinds() {
			Expect(ParseKind(string(k))).To(Equal(k))
		}
	})

	DescribeTable("refuses an unknown name, listing the known ones",
		func(name string) {
			k, err := ParseKind(name)
			Expect(err).To(MatchError(And(
				ContainSubstring("unknown transport kind"),
				ContainSubstring(`"`+name+`"`),
				ContainSubstring("known kinds: stdio, http, ws"),
			)))
			Expect(k).To(BeEmpty())
		},
		Entry("unknown", "carrier-pigeon"),
		Entry("empty", ""),
		Entry("other case", "HTTP"),
		Entry("surrounding space", " ws"),
		Entry("scheme", "https"),
	)

	DescribeTable("states the facts other code asks instead of switching on names",
		func(k Kind, shared, ordered, headers bool, processes int) {
			Expect(k.SharedServer()).To(Equal(shared), "two sessions reach one server process")
			Expect(k.OrderedResponses()).To(Equal(ordered), "responses arrive in order on one stream")
			Expect(k.PerRequestHeaders()).To(Equal(headers), "requests carry HTTP headers of their own")
			Expect(k.ProcessesPerSession()).To(Equal(processes), "processes a session starts")
		},
		Entry("stdio: a process per session, one ordered stream", Stdio, false, true, false, 1),
		Entry("http: one server, several streams, a POST per message", HTTP, true, false, true, 0),
		Entry("ws: one server, one ordered stream, headers on the handshake only", WS, true, true, false, 0),
		Entry("an unknown kind: no facts", Kind("carrier-pigeon"), false, false, false, 0),
	)

	DescribeTable("checks an endpoint before anything starts",
		func(k Kind, ep Endpoint, problem string) {
			if problem == "" {
				Expect(k.CheckEndpoint(ep)).To(Succeed())
				return
			}
			Expect(k.CheckEndpoint(ep)).To(MatchError(ContainSubstring(problem)))
		},
		Entry("stdio with a command", Stdio, Endpoint{Argv: []string{"srv", "--flag"}}, ""),
		Entry("stdio without a command", Stdio, Endpoint{URL: "http://127.0.0.1:1/mcp"}, "stdio target needs a command"),
		Entry("http with a URL", HTTP, Endpoint{URL: "http://127.0.0.1:1/mcp"}, ""),
		Entry("http without a URL", HTTP, Endpoint{Argv: []string{"srv"}}, "http target needs a URL"),
		Entry("ws with a URL", WS, Endpoint{URL: "ws://127.0.0.1:1/mcp"}, ""),
		Entry("ws without a URL", WS, Endpoint{}, "ws target needs a URL"),
		Entry("an unknown kind", Kind("carrier-pigeon"), Endpoint{URL: "x"}, `unknown target kind "carrier-pigeon" (known kinds: stdio, http, ws)`),
	)

	It("names what it dials, for reports", func() {
		ep := Endpoint{Argv: []string{"node", "build/index.js"}, URL: "ws://127.0.0.1:1/mcp"}
		Expect(Stdio.Address(ep)).To(Equal("node build/index.js"))
		Expect(HTTP.Address(ep)).To(Equal("ws://127.0.0.1:1/mcp"))
		Expect(WS.Address(ep)).To(Equal("ws://127.0.0.1:1/mcp"))
	})

	It("neither dials nor listens on an unknown kind", func() {
		c, err := Kind("carrier-pigeon").Dial(testCtx(), Endpoint{URL: "http://127.0.0.1:1/mcp"}, Options{})
		Expect(err).To(MatchError(ContainSubstring("unknown target kind")))
		Expect(c == nil).To(BeTrue())
		l, err := Kind("carrier-pigeon").Listen(testCtx(), "127.0.0.1:0", Options{})
		Expect(err).To(MatchError(ContainSubstring("unknown transport kind")))
		Expect(l == nil).To(BeTrue())
	})

	Context("dialling and listening", func() {
		BeforeEach(func() {
			DeferCleanup(expectNoHTTPLeaks) // registered first, so they run last
			DeferCleanup(expectNoLeaks)
		})

		It("has no listener for stdio: each session is a process of its own", func() {
			l, err := Stdio.Listen(testCtx(), "127.0.0.1:0", Options{})
			Expect(err).To(MatchError(ContainSubstring("stdio has no listener")))
			Expect(l == nil).To(BeTrue())
		})

		It("listens on http with ListenHTTP and dials it with DialHTTP or DialStatelessHTTP", func() {
			l, err := HTTP.Listen(testCtx(), "127.0.0.1:0", Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(l.Close)
			Expect(l).To(BeAssignableToTypeOf(&HTTPServer{}))
			Expect(l.Addr()).To(HavePrefix("http://127.0.0.1:"))

			for _, stateless := range []bool{false, true} {
				c, err := HTTP.Dial(testCtx(), Endpoint{URL: l.Addr(), Stateless: stateless}, Options{})
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(c.Close)
				hc, ok := c.(*HTTPClientConn)
				Expect(ok).To(BeTrue(), "http dials an *HTTPClientConn")
				Expect(hc.Stateless()).To(Equal(stateless))
				_, ok = As[LastStatusReporter](c)
				Expect(ok).To(BeTrue(), "HTTP client connections report their last status")
				_, ok = As[StderrHolder](c)
				Expect(ok).To(BeFalse())
			}
		})

		It("refuses a URL http cannot dial, with no connection", func() {
			c, err := HTTP.Dial(testCtx(), Endpoint{URL: "ftp://127.0.0.1/mcp"}, Options{})
			Expect(err).To(MatchError(ContainSubstring("not http or https")))
			Expect(c == nil).To(BeTrue())
		})

		It("listens on ws with ListenWebSocket and dials it with DialWebSocket", func() {
			l, err := WS.Listen(testCtx(), "127.0.0.1:0", Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(l.Close)
			Expect(l).To(BeAssignableToTypeOf(&WSServer{}))

			c, err := WS.Dial(testCtx(), Endpoint{URL: l.Addr()}, Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			Expect(c).To(BeAssignableToTypeOf(&WSConn{}))
			sc, err := l.Accept(testCtx())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(sc.Close)
			Expect(c.Send(testCtx(), []byte(`{"jsonrpc":"2.0","method":"ping"}`))).To(Succeed())
			Expect(sc.Recv(testCtx())).To(Equal([]byte(`{"jsonrpc":"2.0","method":"ping"}`)))
		})
	})

	Context("dialling stdio", Ordered, func() {
		var peer string

		BeforeAll(func() {
			bin, cleanup := buildTestPeer()
			peer = bin
			DeferCleanup(cleanup)
		})

		BeforeEach(func() { DeferCleanup(expectNoLeaks) })

		It("spawns the endpoint's command with its environment", func() {
			ep := Endpoint{Argv: []string{peer, "-env", "MCPCONFORM_KIND_TEST"}, Env: []string{"MCPCONFORM_KIND_TEST=spawned"}}
			c, err := Stdio.Dial(tpCtx(5*time.Second), ep, Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			Expect(c).To(BeAssignableToTypeOf(&StdioConn{}))
			Expect(c.Recv(tpCtx(10 * time.Second))).To(Equal([]byte("spawned")))
			_, ok := As[StderrHolder](c)
			Expect(ok).To(BeTrue(), "stdio client connections hold the target's stderr")
			_, ok = As[LastStatusReporter](c)
			Expect(ok).To(BeFalse())
		})

		It("reports a missing binary with no connection", func() {
			c, err := Stdio.Dial(context.Background(), Endpoint{Argv: []string{"/no/such/binary"}}, Options{})
			Expect(err).To(HaveOccurred())
			Expect(c == nil).To(BeTrue())
		})
	})
})
