package server_test

import (
	"slices"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = Describe("the fault catalogue", func() {
	It("lists faults sorted by name, each complete and unique", func() {
		faults := server.Faults()
		Expect(faults).NotTo(BeEmpty())
		names := make([]string, 0, len(faults))
		for _, f := range faults {
			Expect(f.Name).To(MatchRegexp(`^[a-z0-9]+(-[a-z0-9]+)*$`), "fault names are kebab-case")
			Expect(f.Description).NotTo(BeEmpty(), "fault %s", f.Name)
			names = append(names, f.Name)
		}
		Expect(sort.StringsAreSorted(names)).To(BeTrue())
		Expect(slices.Compact(slices.Clone(names))).To(HaveLen(len(names)), "names are unique")
	})

	It("returns a new list: callers cannot reorder or drop faults", func() {
		faults := server.Faults()
		first := faults[0]
		faults[0] = nil
		Expect(server.Faults()[0]).To(BeIdenticalTo(first))
	})

	It("builds the reference server for every fault", func() {
		for _, f := range server.Faults() {
			e, err := server.NewReference(server.ReferenceOptions{Variant: f})
			Expect(err).NotTo(HaveOccurred(), "fault %s", f.Name)
			Expect(e).NotTo(BeNil())
			got, err := server.Faults().Find(f.Name)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(BeIdenticalTo(f))
		}
		e, err := server.NewReference(server.ReferenceOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(e).NotTo(BeNil())
	})

	It("refuses a fault of another peer, and finds faults by name for the command line", func() {
		foreign := &fault.Fault{Name: "init-wrong-version"}
		e, err := server.NewReference(server.ReferenceOptions{Variant: foreign})
		Expect(e).To(BeNil())
		Expect(err).To(MatchError(ContainSubstring(`fault "init-wrong-version" is not one of the reference server's`)))
		_, err = server.Faults().Find("no-such-fault")
		Expect(err).To(MatchError(ContainSubstring(`unknown fault "no-such-fault"`)))
		for _, f := range server.Faults() {
			Expect(err.Error()).To(ContainSubstring(f.Name))
		}
	})

	It("says where each fault is observable", func() {
		f := server.HeaderMismatchAccepted
		Expect(f.ObservableOn("http", "2026-07-28")).To(BeTrue())
		Expect(f.ObservableOn("ws", "2026-07-28")).To(BeFalse())
		Expect(f.ObservableOn("http", "2025-11-25")).To(BeFalse())
		f = server.CrashOnMalformedJson
		Expect(f.ObservableOn("http", "2026-07-28")).To(BeFalse())
		Expect(f.ObservableOn("http", "2025-11-25")).To(BeTrue())
		Expect(f.ObservableOn("stdio", "2026-07-28")).To(BeTrue())
		f = server.ServesBeforeInitialize
		Expect(f.ObservableOn("stdio", "2025-11-25")).To(BeTrue())
		Expect(f.ObservableOn("http", "2025-11-25")).To(BeFalse())
		Expect(f.ObservableOn("stdio", "2026-07-28")).To(BeFalse())
		for _, f := range server.Faults() {
			observable := false
			for _, tr := range transport.Kinds() {
				for _, v := range protocol.Supported() {
					observable = observable || f.ObservableOn(tr, v)
				}
			}
			Expect(observable).To(BeTrue(), "fault %s is observable somewhere", f.Name)
		}
	})
})

var _ = Describe("the reference server", func() {
	reference := func(f *fault.Fault) *wire {
		GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{Variant: f})
		Expect(err).NotTo(HaveOccurred())
		return overPipes(e)
	}
	initialize := func(w *wire, version string) map[string]any {
		GinkgoHelper()
		w.send(request(`"init"`, "initialize", map[string]any{
			"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"},
		}))
		m := w.next()
		Expect(m.ID.String()).To(Equal(`"init"`))
		r := result(m)
		w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return r
	}

	It("negotiates a supported version and offers the latest for an unsupported one", func() {
		w := reference(nil)
		Expect(initialize(w, "2025-06-18")).To(And(
			HaveKeyWithValue("protocolVersion", "2025-06-18"),
			HaveKeyWithValue("capabilities", HaveKey("tools")),
			HaveKeyWithValue("serverInfo", HaveKeyWithValue("name", server.ReferenceName)),
		))
		Expect(initialize(reference(nil), "1999-01-01")).To(HaveKeyWithValue("protocolVersion", "2025-11-25"))
	})

	It("refuses requests other than ping before initialize, and serves them after", func() {
		w := reference(nil)
		w.send(request("1", "tools/list", nil))
		m := w.next()
		Expect(m.Error).NotTo(BeNil())
		Expect(m.Error.Code).To(Equal(codes.InvalidRequest))
		w.send(request("2", "ping", nil))
		Expect(result(w.next())).To(BeEmpty())
		initialize(w, "2025-11-25")
		w.send(request("3", "tools/list", nil))
		Expect(result(w.next())).To(HaveKey("tools"))
		w.send(request("4", "no/such", nil))
		Expect(w.next().Error.Code).To(Equal(codes.MethodNotFound))
	})

	It("keeps JSON-RPC hygiene on the wire", func() {
		w := reference(nil)
		w.send("not json at all")
		m := w.next()
		Expect(m.ID.IsNull()).To(BeTrue())
		Expect(m.Error.Code).To(Equal(codes.ParseError))
		w.send(`{"jsonrpc":"2.0","id":"x","method":42}`)
		m = w.next()
		Expect(m.ID.String()).To(Equal(`"x"`))
		Expect(m.Error.Code).To(Equal(codes.InvalidRequest))
		w.send(`{"jsonrpc":"2.0","method":"notifications/unknown"}`)
		w.send(request(`"42"`, "ping", nil))
		m = w.next()
		Expect(m.ID.String()).To(Equal(`"42"`), "the notification got no answer and the string id stays a string")
		Expect(w.rest()).To(BeEmpty())
	})

	It("serves 2026-07-28 requests that carry the per-request _meta", func() {
		w := reference(nil)
		meta := map[string]any{
			protocol.MetaProtocolVersion:    "2026-07-28",
			protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: map[string]any{},
		}
		w.send(request("1", "server/discover", map[string]any{"_meta": meta}))
		Expect(result(w.next())).To(HaveKeyWithValue("supportedVersions", ContainElement("2026-07-28")))
		w.send(request("2", "tools/call", map[string]any{"name": "test_missing_capability", "_meta": meta}))
		m := w.next()
		Expect(m.Error).NotTo(BeNil())
		Expect(m.Error.Code).To(Equal(codes.MissingRequiredClientCapability))
		delete(meta, protocol.MetaClientCapabilities)
		w.send(request("3", "tools/list", map[string]any{"_meta": meta}))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))
	})

	DescribeTable("each fault breaks its rule on the wire",
		func(f *fault.Fault, script func(w *wire) *jsonrpc.Message, conformant, faulty func(*jsonrpc.Message)) {
			conformant(script(reference(nil)))
			faulty(script(reference(f)))
		},
		Entry("ping-error", server.PingError,
			func(w *wire) *jsonrpc.Message { w.send(request("1", "ping", nil)); return w.next() },
			func(m *jsonrpc.Message) { Expect(result(m)).To(BeEmpty()) },
			func(m *jsonrpc.Message) { Expect(m.Error.Code).To(Equal(codes.InternalError)) }),
		Entry("id-numeric-string-unquoted", server.IdNumericStringUnquoted,
			func(w *wire) *jsonrpc.Message { w.send(request(`"42"`, "ping", nil)); return w.next() },
			func(m *jsonrpc.Message) { Expect(m.ID.String()).To(Equal(`"42"`)) },
			func(m *jsonrpc.Message) { Expect(m.ID.String()).To(Equal(`42`)) }),
		Entry("answers-notifications", server.AnswersNotifications,
			func(w *wire) *jsonrpc.Message {
				w.send(`{"jsonrpc":"2.0","method":"notifications/unknown"}`)
				w.send(request("1", "ping", nil))
				return w.next()
			},
			func(m *jsonrpc.Message) { Expect(m.ID.String()).To(Equal("1")) },
			func(m *jsonrpc.Message) {
				Expect(m.Error.Code).To(Equal(codes.MethodNotFound))
				Expect(m.ID.IsNull()).To(BeTrue())
			}),
		Entry("invalid-request-wrong-code", server.InvalidRequestWrongCode,
			func(w *wire) *jsonrpc.Message { w.send(`{"jsonrpc":"2.0","id":1,"method":42}`); return w.next() },
			func(m *jsonrpc.Message) { Expect(m.Error.Code).To(Equal(codes.InvalidRequest)) },
			func(m *jsonrpc.Message) { Expect(m.Error.Code).To(Equal(codes.InternalError)) }),
		Entry("init-wrong-version", server.InitWrongVersion,
			func(w *wire) *jsonrpc.Message {
				w.send(request("1", "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}))
				return w.next()
			},
			func(m *jsonrpc.Message) { Expect(result(m)).To(HaveKeyWithValue("protocolVersion", "2025-11-25")) },
			func(m *jsonrpc.Message) { Expect(result(m)).To(HaveKeyWithValue("protocolVersion", "2025-03-26")) }),
	)

	It("drops the connection after a parse error with crash-on-malformed-json", func() {
		w := reference(server.CrashOnMalformedJson)
		w.send("{{{")
		Expect(w.next().Error.Code).To(Equal(codes.ParseError))
		Eventually(w.frames).WithTimeout(wait).Should(BeClosed())
		Eventually(w.served).WithTimeout(wait).Should(BeClosed())
	})
})
