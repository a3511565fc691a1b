package jsonrpc_test

import (
	"encoding/json"
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = Describe("ID", func() {
	DescribeTable("Valid: a request id is a string or an integer, never null",
		func(raw string, valid bool) { Expect(jsonrpc.ID(raw).Valid()).To(Equal(valid)) },
		Entry("string", `"a b"`, true),
		Entry("numeric string", `"42"`, true),
		Entry("integer", `42`, true),
		Entry("negative integer", ` -3 `, true),
		Entry("null", `null`, false),
		Entry("fraction", `1.5`, false),
		Entry("exponent", `1e3`, false),
		Entry("bool", `true`, false),
		Entry("object", `{"a":1}`, false),
		Entry("absent", ``, false),
		Entry("broken string", `"abc`, false),
	)

	It("keeps a string id and a number id apart, even with the same digits", func() {
		s, n := jsonrpc.StringID("42"), jsonrpc.NumberID(42)
		Expect(s.String()).To(Equal(`"42"`))
		Expect(n.String()).To(Equal(`42`))
		Expect(s.Equal(n)).To(BeFalse())
		Expect(n.Equal(s)).To(BeFalse())
		Expect(s.Key()).NotTo(Equal(n.Key()))
		Expect(s.Equal(jsonrpc.StringID("42"))).To(BeTrue())
		Expect(n.Equal(jsonrpc.NumberID(42))).To(BeTrue())
	})

	It("compares ids as JSON values: strings by their text however escaped, numbers by their exact value", func() {
		Expect(jsonrpc.ID(" 42\n").Equal(jsonrpc.NumberID(42))).To(BeTrue())
		Expect(jsonrpc.ID(" 42\n").Key()).To(Equal(jsonrpc.NumberID(42).Key()))
		// What a Node or Python server writes back for an id it parsed.
		Expect(jsonrpc.ID(`"q\u0026a"`).Equal(jsonrpc.StringID("q&a"))).To(BeTrue())
		Expect(jsonrpc.ID(`"citt\u00e0"`).Equal(jsonrpc.StringID("città"))).To(BeTrue())
		Expect(jsonrpc.ID(`"citt\u00E0"`).Key()).To(Equal(`"città"`))
		Expect(jsonrpc.ID(`"\u0061"`).Equal(jsonrpc.StringID("a"))).To(BeTrue())
		Expect(jsonrpc.ID(`"a\/b"`).Equal(jsonrpc.StringID("a/b"))).To(BeTrue())
		Expect(jsonrpc.ID(`"\u2028"`).Equal(jsonrpc.ID("\"\u2028\""))).To(BeTrue())
		// Numbers: one value however written, exactly.
		Expect(jsonrpc.ID("42.0").Equal(jsonrpc.NumberID(42))).To(BeTrue())
		Expect(jsonrpc.ID("4.2e1").Equal(jsonrpc.NumberID(42))).To(BeTrue())
		Expect(jsonrpc.ID("4200E-2").Key()).To(Equal("42"))
		Expect(jsonrpc.ID("-0").Equal(jsonrpc.NumberID(0))).To(BeTrue())
		Expect(jsonrpc.ID("1.5").Key()).To(Equal("15e-1"))
		Expect(jsonrpc.ID("0.15e1").Key()).To(Equal("15e-1"))
		Expect(jsonrpc.ID("1e400").Key()).To(Equal("1e400"))
		Expect(jsonrpc.ID("9007199254740993").Equal(jsonrpc.ID("9007199254740992"))).To(BeFalse(), "no float rounding")
		Expect(jsonrpc.NumberID(-7).Key()).To(Equal("-7"))
		// Other values: different values stay different.
		Expect(jsonrpc.ID(`"q&b"`).Equal(jsonrpc.StringID("q&a"))).To(BeFalse())
		Expect(jsonrpc.ID("43").Equal(jsonrpc.NumberID(42))).To(BeFalse())
		Expect(jsonrpc.ID("-42").Equal(jsonrpc.NumberID(42))).To(BeFalse())
		Expect(jsonrpc.ID("042").Equal(jsonrpc.NumberID(42))).To(BeFalse(), "not JSON: compared as bytes")
		Expect(jsonrpc.ID("\"a\xff\"").Equal(jsonrpc.ID("\"a\xfe\""))).To(BeFalse(), "not UTF-8: compared as bytes")
		Expect(jsonrpc.ID("1e99999999999999999999").Equal(jsonrpc.ID("1e99999999999999999998"))).To(BeFalse())
		Expect(jsonrpc.ID("null").Equal(jsonrpc.ID(" null"))).To(BeTrue())
		Expect(jsonrpc.ID("null").Equal(jsonrpc.StringID("null"))).To(BeFalse())
		// The raw text is kept for reports.
		Expect(jsonrpc.ID(`"q\u0026a"`).String()).To(Equal(`"q\u0026a"`))
	})

	It("knows absent and null ids", func() {
		var zero jsonrpc.ID
		Expect(zero.IsZero()).To(BeTrue())
		Expect(zero.IsNull()).To(BeFalse())
		Expect(jsonrpc.ID("null").IsNull()).To(BeTrue())
		Expect(jsonrpc.ID("null").IsZero()).To(BeFalse())
		Expect(jsonrpc.NumberID(0).IsZero()).To(BeFalse(), "0 is a valid id, not an absent one")
		Expect(jsonrpc.StringID("").IsZero()).To(BeFalse(), `"" is a valid id, not an absent one`)
	})

	It("marshals the raw text verbatim and an absent id as null", func() {
		for _, raw := range []string{`1.50`, `"042"`, `1e3`, `-0`, `"\u00e9"`} {
			b, err := json.Marshal(jsonrpc.ID(raw))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(raw))
		}
		b, err := json.Marshal(struct {
			ID jsonrpc.ID `json:"id"`
		}{ID: jsonrpc.ID("1.50")})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"id":1.50}`))

		b, err = jsonrpc.ID(nil).MarshalJSON()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("null"))
	})

	It("unmarshals the raw text verbatim", func() {
		var v struct {
			ID jsonrpc.ID `json:"id"`
		}
		Expect(json.Unmarshal([]byte(`{"id":1.50}`), &v)).To(Succeed())
		Expect(v.ID.String()).To(Equal("1.50"))
		Expect(json.Unmarshal([]byte(`{"id":"1"}`), &v)).To(Succeed())
		Expect(v.ID.String()).To(Equal(`"1"`))
		Expect(json.Unmarshal([]byte(`{"id":null}`), &v)).To(Succeed())
		Expect(v.ID.IsNull()).To(BeTrue())
	})

	It("round-trips an id through Decode and Encode unchanged", func() {
		for _, raw := range []string{`"42"`, `42`, `4.20`, `"x y"`, `-1`} {
			m, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"result":{}}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(m.ID.String()).To(Equal(raw))
			resp, err := jsonrpc.NewResult(m.ID, nil)
			Expect(err).NotTo(HaveOccurred())
			b, err := resp.Encode()
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":` + raw + `,"result":{}}`))
		}
	})
})

var _ = Describe("Decode", func() {
	It("refuses text that is not JSON, and says it is not JSON", func() {
		for _, frame := range []string{"not json at all", "", "   ", `{"jsonrpc":"2.0",`, `{"a":1}}`, "[1,"} {
			m, err := jsonrpc.Decode([]byte(frame))
			Expect(err).To(HaveOccurred(), "frame %q", frame)
			Expect(errors.Is(err, jsonrpc.ErrNotObject)).To(BeFalse(), "frame %q", frame)
			Expect(m).To(BeNil())
		}
		_, err := jsonrpc.Decode([]byte("not json at all"))
		Expect(err).To(MatchError(ContainSubstring("not valid JSON")))
		Expect(err).To(MatchError(ContainSubstring("not json at all")))
	})

	It("refuses valid JSON that is not an object with ErrNotObject", func() {
		for _, frame := range []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `[]`, `42`, `"str"`, `null`, `true`, "  [1]\n"} {
			m, err := jsonrpc.Decode([]byte(frame))
			Expect(err).To(MatchError(jsonrpc.ErrNotObject), "frame %q", frame)
			Expect(m).To(BeNil())
		}
	})

	It("says a frame nested deeper than the decoder's limit is that, not that it is not JSON", func() {
		deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
		for _, frame := range []string{deep, `{"jsonrpc":"2.0","id":1,"result":{"a":` + deep + `}}`} {
			m, err := jsonrpc.Decode([]byte(frame))
			Expect(m).To(BeNil())
			Expect(errors.Is(err, jsonrpc.ErrTooDeep)).To(BeTrue(), "not ErrTooDeep: %v", err)
			Expect(err).To(MatchError("frame is JSON nested deeper than the decoder's limit of 10000 levels"))
			Expect(jsonrpc.TooDeep([]byte(frame))).To(BeTrue())
		}
		Expect(jsonrpc.TooDeep([]byte("[1,"))).To(BeFalse(), "JSON cut short is not too deep")
		Expect(jsonrpc.TooDeep([]byte(strings.Repeat("[", 100)+strings.Repeat("]", 100)))).To(BeFalse(), "a depth the decoder reads")
	})

	It("refuses an object whose members have impossible types", func() {
		_, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":42}`))
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, jsonrpc.ErrNotObject)).To(BeFalse())
	})

	DescribeTable("classifies by the members present",
		func(frame string, kind jsonrpc.Kind) {
			m, err := jsonrpc.Decode([]byte(frame))
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Kind()).To(Equal(kind))
			Expect(m.IsRequest()).To(Equal(kind == jsonrpc.KindRequest))
			Expect(m.IsNotification()).To(Equal(kind == jsonrpc.KindNotification))
			Expect(m.IsResponse()).To(Equal(kind == jsonrpc.KindResponse))
		},
		Entry("request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, jsonrpc.KindRequest),
		Entry("request with a string id", `{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`, jsonrpc.KindRequest),
		Entry("notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, jsonrpc.KindNotification),
		Entry("result response", `{"jsonrpc":"2.0","id":1,"result":{}}`, jsonrpc.KindResponse),
		Entry("error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`, jsonrpc.KindResponse),
		Entry("error response with id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, jsonrpc.KindResponse),
		Entry("empty object", `{}`, jsonrpc.KindInvalid),
		Entry("id but neither method nor result", `{"jsonrpc":"2.0","id":1}`, jsonrpc.KindInvalid),
		Entry("result without id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.KindInvalid),
	)

	It("keeps the bytes it decoded, trimmed, as a copy", func() {
		frame := []byte("  {\"jsonrpc\":\"2.0\", \"id\":7,\"method\":\"ping\"}\r\n")
		m, err := jsonrpc.Decode(frame)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(m.Raw)).To(Equal(`{"jsonrpc":"2.0", "id":7,"method":"ping"}`))
		frame[3] = 'X'
		Expect(string(m.Raw)).To(Equal(`{"jsonrpc":"2.0", "id":7,"method":"ping"}`))
		Expect(m.JSONRPC).To(Equal("2.0"))
		Expect(m.Method).To(Equal("ping"))
		Expect(m.ID.String()).To(Equal("7"))
	})

	It("reads members by their exact names only: JSON-RPC names are case-sensitive", func() {
		m, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ID.IsZero()).To(BeTrue())
		Expect(m.Method).To(BeEmpty())
		Expect(m.Kind()).To(Equal(jsonrpc.KindInvalid))

		m, err = jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"a","Method":"b"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Method).To(Equal("a"))

		m, err = jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":7,"error":{"Code":-32600,"message":"x"}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Error).NotTo(BeNil())
		Expect(m.Error.Code).To(BeZero(), `"Code" is not "code"`)
		Expect(m.Error.Message).To(Equal("x"))

		m, err = jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","\u0069d":2,"method":"ping"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ID.String()).To(Equal("2"), "an escaped key is still its name")
	})

	It("encodes an id with &, < and > byte for byte", func() {
		m, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":"a&b<c>","method":"x","params":{"q":"<&>"}}`))
		Expect(err).NotTo(HaveOccurred())
		out, err := m.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal(`{"jsonrpc":"2.0","id":"a&b<c>","method":"x","params":{"q":"<&>"}}`))
	})

	It("does not judge the version member", func() {
		m, err := jsonrpc.Decode([]byte(`{"jsonrpc":"1.0","id":1,"method":"ping"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(m.JSONRPC).To(Equal("1.0"))
		Expect(m.Kind()).To(Equal(jsonrpc.KindRequest))
	})
})

var _ = Describe("building messages", func() {
	It("gives an error response without an id the id null", func() {
		m := jsonrpc.NewError(nil, -32700, "Parse error", nil)
		Expect(m.ID.IsNull()).To(BeTrue())
		b, err := m.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
		Expect(string(m.Raw)).To(Equal(string(b)))
	})

	It("keeps the id and the data of an error response", func() {
		m := jsonrpc.NewError(jsonrpc.StringID("x"), -32602, "bad", map[string]any{"supported": []string{"a"}})
		b, err := m.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad","data":{"supported":["a"]}}}`))
		Expect(m.Error.Error()).To(Equal("jsonrpc error -32602: bad"))
	})

	It("turns a nil result into an empty object", func() {
		m, err := jsonrpc.NewResult(jsonrpc.NumberID(3), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(m.Result)).To(Equal("{}"))
		b, err := m.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":3,"result":{}}`))

		var nilMap map[string]any
		m, err = jsonrpc.NewResult(jsonrpc.NumberID(3), nilMap)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(m.Result)).To(Equal("{}"))
	})

	It("reports a result that cannot be marshalled", func() {
		_, err := jsonrpc.NewResult(jsonrpc.NumberID(1), make(chan int))
		Expect(err).To(MatchError(ContainSubstring("result")))
	})

	It("builds requests and notifications, passing raw params through", func() {
		req, err := jsonrpc.NewRequest(jsonrpc.StringID("r"), "tools/call", json.RawMessage(`{"name":"t"}`))
		Expect(err).NotTo(HaveOccurred())
		b, err := req.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"t"}}`))
		Expect(req.Kind()).To(Equal(jsonrpc.KindRequest))

		n, err := jsonrpc.NewNotification("notifications/initialized", nil)
		Expect(err).NotTo(HaveOccurred())
		b, err = n.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		Expect(n.Kind()).To(Equal(jsonrpc.KindNotification))

		_, err = jsonrpc.NewRequest(jsonrpc.NumberID(1), "x", func() {})
		Expect(err).To(MatchError(ContainSubstring("params of x")))
	})

	It("fills in the version when encoding a bare message", func() {
		m := &jsonrpc.Message{ID: jsonrpc.NumberID(1), Method: "ping"}
		b, err := m.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	})
})
