package tools

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/protocol"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the tools family's judges", func() {
	It("accepts base64 with or without padding and refuses anything else", func() {
		Expect(base64OK("aGVsbG8=")).To(BeTrue())
		Expect(base64OK("aGVsbG8")).To(BeTrue())
		Expect(base64OK("")).To(BeFalse())
		Expect(base64OK("not base64!")).To(BeFalse())
	})

	It("names what is wrong with a media item", func() {
		Expect(mediaProblem(protocol.Content{Type: "audio", Data: "UklGRg==", MimeType: "audio/wav"}, "audio")).To(BeEmpty())
		Expect(mediaProblem(protocol.Content{Type: "audio", Data: "UklGRg==", MimeType: "image/png"}, "audio")).To(ContainSubstring("no audio/* type"))
		Expect(mediaProblem(protocol.Content{Type: "image", Data: "%%", MimeType: "image/png"}, "image")).To(ContainSubstring("not base64"))
	})

	It("validates structured content against the subset of JSON Schema it knows", func() {
		var schema map[string]any
		Expect(json.Unmarshal([]byte(`{"type":"object","properties":{"t":{"type":"number"},"c":{"type":"string","enum":["Sunny"]},
			"list":{"type":"array","items":{"type":"integer"}}},"required":["t","c"],"additionalProperties":false}`), &schema)).To(Succeed())
		good := map[string]any{"t": 22.5, "c": "Sunny", "list": []any{1.0, 2.0}}
		Expect(validate(schema, good, "structuredContent")).To(BeEmpty())
		bad := map[string]any{"t": "22.5", "c": "Rain", "list": []any{1.5}, "extra": true}
		Expect(validate(schema, bad, "structuredContent")).To(ConsistOf(
			"structuredContent.t is a string, not number",
			"structuredContent.c = Rain is not in enum [Sunny]",
			"structuredContent.list[0] is a number, not integer",
			"structuredContent.extra is not allowed (additionalProperties: false)"))
		Expect(validate(schema, map[string]any{"t": 1.0}, "structuredContent")).To(ConsistOf("structuredContent.c is required"))
	})

	It("answers a form with its defaults, and one choice of each multi-select", func() {
		params := json.RawMessage(`{"requestedSchema":{"type":"object","properties":{
			"name":{"type":"string","default":"John Doe"},
			"multi":{"type":"array","items":{"anyOf":[{"const":"v1","title":"One"}]}},
			"single":{"type":"string","oneOf":[{"const":"a","title":"A"}]}}}}`)
		answer := acceptDefaults(params).(map[string]any)
		Expect(answer["action"]).To(Equal("accept"))
		Expect(answer["content"]).To(Equal(map[string]any{"name": "John Doe", "multi": []any{"v1"}, "single": "a"}))
	})
})
