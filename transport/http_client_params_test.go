package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = Describe("x-mcp-header parameters (2026-07-28)", func() {
	rules := func(schema string) []HeaderRule {
		_, bad := ToolParamHeaders(json.RawMessage(schema))
		var out []HeaderRule
		for _, v := range bad {
			out = append(out, v.Rule)
		}
		return out
	}
	prop := func(p string) string { return `{"type":"object","properties":{"p":` + p + `}}` }

	DescribeTable("rejects the annotations the constraints forbid",
		func(schema string, want []HeaderRule) { Expect(rules(schema)).To(Equal(want)) },
		Entry("a valid string", prop(`{"type":"string","x-mcp-header":"Region"}`), []HeaderRule(nil)),
		Entry("a nested property reached by properties alone",
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}}}}`, []HeaderRule(nil)),
		Entry("empty", prop(`{"type":"string","x-mcp-header":""}`), []HeaderRule{HeaderRuleEmpty}),
		Entry("not a string", prop(`{"type":"string","x-mcp-header":7}`), []HeaderRule{HeaderRuleEmpty}),
		Entry("a space", prop(`{"type":"string","x-mcp-header":"My Region"}`), []HeaderRule{HeaderRuleToken}),
		Entry("a colon", prop(`{"type":"string","x-mcp-header":"a:b"}`), []HeaderRule{HeaderRuleToken}),
		Entry("non-ASCII", prop(`{"type":"string","x-mcp-header":"Région"}`), []HeaderRule{HeaderRuleToken}),
		Entry("a tab", prop(`{"type":"string","x-mcp-header":"a\tb"}`), []HeaderRule{HeaderRuleToken}),
		Entry("a number", prop(`{"type":"number","x-mcp-header":"N"}`), []HeaderRule{HeaderRulePrimitive}),
		Entry("an object", prop(`{"type":"object","x-mcp-header":"O"}`), []HeaderRule{HeaderRulePrimitive}),
		Entry("no type", prop(`{"x-mcp-header":"O"}`), []HeaderRule{HeaderRulePrimitive}),
		Entry("under items", prop(`{"type":"array","items":{"type":"string","x-mcp-header":"I"}}`), []HeaderRule{HeaderRuleReachable}),
		Entry("under anyOf", prop(`{"anyOf":[{"type":"string","x-mcp-header":"A"}]}`), []HeaderRule{HeaderRuleReachable}),
		Entry("in $defs", `{"$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"p":{"$ref":"#/$defs/d"}}}`, []HeaderRule{HeaderRuleReachable}),
		Entry("duplicates in another case",
			`{"properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`, []HeaderRule{HeaderRuleUnique}),
	)

	DescribeTable("converts and encodes the argument's value",
		func(typ, arg, want string, present bool) {
			p := ParamHeader{Name: "X", Path: []string{"a", "b"}, Type: typ}
			got, ok := ParamHeaderValue(p, json.RawMessage(`{"a":{"b":`+arg+`}}`))
			Expect(ok).To(Equal(present))
			Expect(got).To(Equal(want))
		},
		Entry("a string as is", "string", `"us-west1"`, "us-west1", true),
		Entry("an empty string", "string", `""`, "", true),
		Entry("an integer in decimal", "integer", `42`, "42", true),
		Entry("42.0 is 42", "integer", `42.0`, "42", true),
		Entry("a boolean", "boolean", `false`, "false", true),
		Entry("non-ASCII in Base64", "string", `"Hello, 世界"`, "=?base64?SGVsbG8sIOS4lueVjA==?=", true),
		Entry("padding in Base64", "string", `" padded "`, "=?base64?IHBhZGRlZCA=?=", true),
		Entry("a newline in Base64", "string", `"line1\nline2"`, "=?base64?bGluZTEKbGluZTI=?=", true),
		Entry("the sentinel itself in Base64", "string", `"=?base64?literal?="`, "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", true),
		Entry("null: no header", "string", `null`, "", false),
	)

	It("learns from an SSE answer read a byte at a time, with CRLF and CR line ends, before the stream ends", func() {
		stream := ": comment\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\r" +
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"t\",\r\n" +
			"data: \"inputSchema\":{\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"R\"}}}}]}}\r\n\r\n" +
			"data: never read\n"
		tp := NewToolParams()
		tee := newToolsListTee(io.NopCloser(iotest.OneByteReader(strings.NewReader(stream))), true, tp)
		buf := make([]byte, 1)
		for read := 0; read < strings.Index(stream, "data: never"); read++ {
			_, err := tee.Read(buf)
			Expect(err).NotTo(HaveOccurred())
		}
		params, ok := tp.Tool("t")
		Expect(ok).To(BeTrue())
		Expect(params).To(Equal([]ParamHeader{{Name: "R", Path: []string{"r"}, Type: "string"}}))
		Expect(tee.Close()).To(Succeed())
	})

	Context("on a connection", func() {
		BeforeEach(func() { DeferCleanup(expectNoHTTPLeaks) })

		const tools = `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{` +
			`"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"q":{"type":"string"}}}},` +
			`{"name":"bad","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}}]}`

		serve := func(sse bool) (*echoEngine, *HTTPClientConn) {
			srv := listen(HTTPServerOptions{})
			eng := startEcho(srv, func(ctx context.Context, conn Conn, fi httpFrameInfo, _ []byte) bool {
				if fi.method() != "tools/list" {
					return false
				}
				if sse {
					_ = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`))
				}
				_ = conn.Send(ctx, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, fi.msg.ID, tools)))
				return true
			})
			c, err := DialStatelessHTTP(testCtx(), srv.Addr(), Options{Transcript: jsonrpc.NewTranscript()})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			return eng, c
		}
		call := func(name string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + name + `","arguments":{"region":"eu","n":7,"q":"x"}}}`)
		}

		for _, sse := range []bool{false, true} {
			It(fmt.Sprintf("learns tools/list (SSE %t) and mirrors the annotated arguments of a later call", sse), func() {
				eng, c := serve(sse)
				tp := c.ToolParams()
				Expect(c.Send(testCtx(), request("1", "tools/list", ""))).To(Succeed())
				eng.nextFrame()
				for {
					if m := decode(recvFrame(c)); m.ID.String() == "1" {
						break
					}
				}
				_, bad := tp.Tool("bad")
				Expect(bad).To(BeFalse(), "an invalid tool is not kept")
				Expect(c.Send(testCtx(), call("t"))).To(Succeed())
				f := eng.nextFrame()
				Expect(f.header.Get("Mcp-Param-Region")).To(Equal("eu"))
				Expect(f.header.Get("Mcp-Param-N")).To(Equal("7"))
				Expect(f.header.Values("Mcp-Param-Q")).To(BeEmpty())
				recvFrame(c)
			})
		}

		It("lets an editor change the headers and the body last", func() {
			eng, c := serve(false)
			c.EditRequests(func(req *http.Request, body []byte) []byte {
				req.Header.Del(HeaderMethod)
				return []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
			})
			Expect(c.Send(testCtx(), call("t"))).To(Succeed())
			f := eng.nextFrame()
			Expect(f.header.Values(HeaderMethod)).To(BeEmpty())
			Expect(string(f.frame)).To(Equal(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
			recvFrame(c)
		})
	})
})
