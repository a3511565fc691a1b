package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The lifecycle family's variants of the reference server, on the wire: each
// liberty does what the spec lets it, each fault breaks its one rule.
var _ = Describe("the reference server's lifecycle variants", func() {
	reference := func(f *fault.Fault) *wire {
		GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{Variant: f})
		Expect(err).NotTo(HaveOccurred())
		return overPipes(e)
	}
	initParams := func(version string) map[string]any {
		return map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}
	}
	modernMeta := func(version string) map[string]any {
		return map[string]any{"_meta": map[string]any{
			protocol.MetaProtocolVersion:    version,
			protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: map[string]any{},
		}}
	}

	Describe("before initialize", func() {
		It("serves tools/list at once with serves-without-initialize (a stateless server's way)", func() {
			w := reference(server.ServesWithoutInitialize)
			w.send(request("1", "tools/list", nil))
			Expect(result(w.next())).To(HaveKey("tools"))
		})

		It("answers nothing to it with silent-before-initialize, and still answers ping", func() {
			w := reference(server.SilentBeforeInitialize)
			w.send(request("1", "tools/list", nil))
			w.send(request("2", "ping", nil))
			// stdio is ordered and the engine answers each request as it
			// comes: the ping's answer is the first frame, and when the input
			// ends nothing for id 1 has followed.
			m := w.next()
			Expect(m.ID.String()).To(Equal("2"))
			Expect(result(m)).To(BeEmpty())
			Expect(w.rest()).To(BeEmpty())
		})
	})

	Describe("an unsupported version in initialize", func() {
		initialize := func(w *wire, version string) *jsonrpc.Message {
			GinkgoHelper()
			w.send(request(`"init"`, "initialize", initParams(version)))
			return w.next()
		}

		It("is refused with the page's example error by negotiation-error-supported", func() {
			m := initialize(reference(server.NegotiationErrorSupported), "1999-01-01")
			Expect(m.Error).NotTo(BeNil(), "%s", m.Raw)
			Expect(m.Error.Code).To(Equal(codes.InvalidParams))
			var data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}
			Expect(json.Unmarshal(m.Error.Data, &data)).To(Succeed())
			Expect(data.Supported).To(ConsistOf(protocol.JudgedStateful()))
			Expect(data.Requested).To(Equal("1999-01-01"))
			// A supported version is negotiated as ever.
			Expect(result(initialize(reference(server.NegotiationErrorSupported), "2025-06-18"))).To(HaveKeyWithValue("protocolVersion", "2025-06-18"))
		})

		It("is refused with an error naming no version by negotiation-wrong-error", func() {
			m := initialize(reference(server.NegotiationWrongError), "1999-01-01")
			Expect(m.Error).NotTo(BeNil(), "%s", m.Raw)
			Expect(m.Error.Code).To(Equal(codes.InternalError))
			Expect(m.Error.Data).To(BeEmpty())
			Expect(result(initialize(reference(server.NegotiationWrongError), "2025-11-25"))).To(HaveKeyWithValue("protocolVersion", "2025-11-25"))
		})
	})

	DescribeTable("answers bad input with the wrong code",
		func(f *fault.Fault, frame string, right int) {
			w := reference(nil)
			w.send(frame)
			Expect(w.next().Error.Code).To(Equal(right))
			w = reference(f)
			w.send(frame)
			m := w.next()
			Expect(m.Error.Code).To(Equal(codes.InvalidParams))
			Expect(m.Error.Code).NotTo(Equal(right))
		},
		Entry("parse-error-wrong-code", server.ParseErrorWrongCode, `{"jsonrpc":"2.0","id":1,"method":"ping" x}`, codes.ParseError),
		Entry("invalid-request-invalid-params", server.InvalidRequestInvalidParams, `{"jsonrpc":"2.0","id":1,"method":42}`, codes.InvalidRequest),
	)

	Describe("escapes-non-ascii-ids", func() {
		It("writes string ids with \\u escapes, as Python does, and leaves other ids alone", func() {
			w := reference(server.EscapesNonASCIIIds)
			w.send(request(`"mcpconform-Ω-7"`, "ping", nil))
			m := w.next()
			Expect(string(m.ID)).To(Equal(`"mcpconform-\u03a9-7"`))
			Expect(string(m.Raw)).NotTo(ContainSubstring("Ω"))
			var id string
			Expect(json.Unmarshal(m.ID, &id)).To(Succeed())
			Expect(id).To(Equal("mcpconform-Ω-7"), "the same JSON string")

			w.send(request(`"🙂"`, "ping", nil))
			Expect(string(w.next().ID)).To(Equal(`"\ud83d\ude42"`), "beyond the BMP: a surrogate pair")
			w.send(request(`"42"`, "ping", nil))
			Expect(string(w.next().ID)).To(Equal(`"42"`))
			w.send(request(`9007199254740991`, "ping", nil))
			Expect(string(w.next().ID)).To(Equal(`9007199254740991`))
			w.send("not json")
			Expect(w.next().ID.IsNull()).To(BeTrue(), "the null id of a parse error stays null")
		})

		It("still answers on the POST that carried the request over Streamable HTTP sessions", func() {
			url := overHTTP(server.EscapesNonASCIIIds)
			_, header, _ := post(url, nil, request(`"init"`, "initialize", initParams("2025-11-25")))
			session := header.Get("Mcp-Session-Id")
			Expect(session).NotTo(BeEmpty())
			h := http.Header{"Mcp-Session-Id": {session}, "MCP-Protocol-Version": {"2025-11-25"}}
			status, _, body := post(url, h, request(`"mcpconform-Ω-7"`, "ping", nil))
			Expect(status).To(Equal(http.StatusOK))
			Expect(body).To(ContainSubstring(`"id":"mcpconform-\u03a9-7"`))
		})
	})

	Describe("discover-any-version", func() {
		It("answers server/discover at any version over stdio, and refuses other requests there", func() {
			w := reference(server.DiscoverAnyVersion)
			w.send(request("1", "server/discover", modernMeta("1900-01-01")))
			Expect(result(w.next())).To(HaveKeyWithValue("supportedVersions", ContainElement("2026-07-28")))
			w.send(request("2", "tools/list", modernMeta("1900-01-01")))
			Expect(w.next().Error.Code).To(Equal(codes.UnsupportedProtocolVersion))
		})

		It("is the reference's -32022 for server/discover over HTTP, where the transport page asks it of every request", func() {
			w := reference(nil)
			w.send(request("1", "server/discover", modernMeta("1900-01-01")))
			Expect(w.next().Error.Code).To(Equal(codes.UnsupportedProtocolVersion))
			url := overHTTP(server.DiscoverAnyVersion)
			status, _, body := post(url, http.Header{"MCP-Protocol-Version": {"1900-01-01"}, "Mcp-Method": {"server/discover"}},
				request("1", "server/discover", modernMeta("1900-01-01")))
			Expect(status).To(Equal(http.StatusBadRequest))
			Expect(body).To(ContainSubstring(`-32022`))
		})
	})

	Describe("refuses-unknown-notifications over Streamable HTTP", func() {
		It("answers an unknown notification 400 with a JSON-RPC error that has no id, and a known one 202", func() {
			url := overHTTP(server.RefusesUnknownNotifications)
			_, header, _ := post(url, nil, request(`"init"`, "initialize", initParams("2025-11-25")))
			h := http.Header{"Mcp-Session-Id": {header.Get("Mcp-Session-Id")}, "MCP-Protocol-Version": {"2025-11-25"}}
			status, _, body := post(url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			Expect(status).To(Equal(http.StatusAccepted))
			Expect(body).To(BeEmpty())

			status, header, body = post(url, h, `{"jsonrpc":"2.0","method":"notifications/mcpconform-unknown"}`)
			Expect(status).To(Equal(http.StatusBadRequest))
			Expect(header.Get("Content-Type")).To(Equal("application/json"))
			m, err := jsonrpc.Decode([]byte(body))
			Expect(err).NotTo(HaveOccurred(), body)
			Expect(m.Error).NotTo(BeNil())
			Expect(m.ID.IsZero()).To(BeTrue(), "no id: %s", body)

			// Stateless (2026-07-28) POSTs are refused the same way.
			status, _, body = post(url, http.Header{"MCP-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"notifications/mcpconform-unknown"}},
				`{"jsonrpc":"2.0","method":"notifications/mcpconform-unknown","params":{}}`)
			Expect(status).To(Equal(http.StatusBadRequest))
			Expect(body).NotTo(ContainSubstring(`"id"`))
		})

		It("is the reference's 202 without the variant", func() {
			url := overHTTP(nil)
			status, _, body := post(url, http.Header{"MCP-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"notifications/mcpconform-unknown"}},
				`{"jsonrpc":"2.0","method":"notifications/mcpconform-unknown","params":{}}`)
			Expect(status).To(Equal(http.StatusAccepted))
			Expect(body).To(BeEmpty())
		})
	})
})

// overHTTP serves the reference (or a variant) on a loopback Streamable HTTP
// listener and returns its endpoint.
func overHTTP(f *fault.Fault) string {
	GinkgoHelper()
	e, err := server.NewReference(server.ReferenceOptions{Variant: f})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	l, err := transport.ListenHTTP(stepCtx(), "127.0.0.1:0", transport.HTTPServerOptions{})
	Expect(err).NotTo(HaveOccurred())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = e.Serve(ctx, l)
	}()
	DeferCleanup(func() {
		cancel()
		_ = l.Close()
		Eventually(served).WithTimeout(wait).Should(BeClosed())
	})
	return l.Addr()
}

// post sends one raw POST, asking for a JSON answer, and returns the
// status, the header and the body (an SSE answer's data lines joined).
func post(url string, h http.Header, body string) (int, http.Header, string) {
	GinkgoHelper()
	req, err := http.NewRequestWithContext(stepCtx(), http.MethodPost, url, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range h {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var data [][]byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimSpace(d))
			}
		}
		b = bytes.Join(data, []byte("\n"))
	}
	return resp.StatusCode, resp.Header, string(b)
}

// -32022 is for a version the server does not implement, and only for one:
// its supported list never names the version it refused
// (2026-07-28/basic/versioning.mdx#protocol-version-negotiation).
var _ = Describe("the reference server's UnsupportedProtocolVersionError", func() {
	modern := func(method, version string) string {
		return request(`"m1"`, method, map[string]any{"_meta": map[string]any{
			protocol.MetaProtocolVersion:    version,
			protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: map[string]any{},
		}})
	}
	supportedOf := func(m *jsonrpc.Message) (supported []string, requested string) {
		GinkgoHelper()
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		Expect(json.Unmarshal(m.Error.Data, &data)).To(Succeed())
		return data.Supported, data.Requested
	}

	It("refuses a version it does not implement, listing every version it serves", func() {
		e, err := server.NewReference(server.ReferenceOptions{})
		Expect(err).NotTo(HaveOccurred())
		w := overPipes(e)
		w.send(modern("tools/list", "1900-01-01"))
		m := w.next()
		Expect(m.Error).NotTo(BeNil(), "%s", m.Raw)
		Expect(m.Error.Code).To(Equal(codes.UnsupportedProtocolVersion))
		supported, requested := supportedOf(m)
		Expect(requested).To(Equal("1900-01-01"))
		Expect(supported).To(ConsistOf(append(protocol.JudgedStateless(), protocol.JudgedStateful()...)))
	})

	// Issue 21: a 2026-07-28-only server refused an initialize naming
	// 2026-07-28 with -32022 while listing 2026-07-28 as supported.
	It("of a 2026-07-28-only variant refuses an initialize at an initialize-era version, and never one at a version it implements", func() {
		e, err := server.NewReference(server.ReferenceOptions{Variant: server.StatelessOnlyHTTP})
		Expect(err).NotTo(HaveOccurred())
		w := overPipes(e)
		initialize := func(id, version string) string {
			return request(id, "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "t", "version": "1"}})
		}
		w.send(initialize(`"i1"`, protocol.V20251125))
		m := w.next()
		Expect(m.Error).NotTo(BeNil(), "%s", m.Raw)
		Expect(m.Error.Code).To(Equal(codes.UnsupportedProtocolVersion))
		supported, requested := supportedOf(m)
		Expect(requested).To(Equal(protocol.V20251125))
		Expect(supported).NotTo(ContainElement(requested))
		for _, version := range protocol.JudgedStateless() {
			w.send(initialize(`"i2"`, version))
			m := w.next()
			Expect(m.Error).NotTo(BeNil(), "initialize is no method of %s: %s", version, m.Raw)
			Expect(m.Error.Code).NotTo(Equal(codes.UnsupportedProtocolVersion), "refused a version it implements: %s", m.Raw)
		}
	})

	for _, version := range protocol.JudgedStateful() {
		It("never refuses "+version+", which it implements through initialize, with -32022", func() {
			e, err := server.NewReference(server.ReferenceOptions{})
			Expect(err).NotTo(HaveOccurred())
			w := overPipes(e)
			w.send(modern("tools/list", version))
			m := w.next()
			Expect(m.Error).NotTo(BeNil(), "a request outside a session: %s", m.Raw)
			Expect(m.Error.Code).NotTo(Equal(codes.UnsupportedProtocolVersion), "refused a version it implements: %s", m.Raw)
			w.send(modern("server/discover", version))
			d := w.next()
			Expect(d.Error).To(BeNil(), "server/discover says what it supports: %s", d.Raw)
			var r struct {
				SupportedVersions []string `json:"supportedVersions"`
			}
			Expect(json.Unmarshal(d.Result, &r)).To(Succeed())
			Expect(r.SupportedVersions).To(ContainElement(version))
		})
	}
})
