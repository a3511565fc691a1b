package surface

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSurface(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "client surface")
}

func rawCaps(s string) map[string]json.RawMessage {
	var caps map[string]json.RawMessage
	Expect(json.Unmarshal([]byte(s), &caps)).To(Succeed())
	return caps
}

var _ = Describe("the client surface's judges", func() {
	It("find what in a form's content breaks its requestedSchema", func() {
		content := map[string]any{"name": "Ada", "age": 36.0, "color": "green", "subscribe": true}
		Expect(offSchema(answersForm, content)).To(BeEmpty())

		bad := map[string]any{"name": 7.0, "age": 36.5, "color": "purple", "extra": "x"}
		Expect(offSchema(answersForm, bad)).To(ConsistOf(
			"required subscribe missing",
			`age = 36.5: not an integer`,
			`color = "purple": not one of the enum ["red","green","blue"]`,
			"extra is not a field of the schema",
			`name = 7: not a string`,
		))
		// Numbers as strings: what the elicitation-off-schema fault sends.
		Expect(offSchema(defaultsSchema, map[string]any{"age": "30", "score": "95.5"})).To(HaveLen(2))
	})

	It("read the declared elicitation modes and sampling tools", func() {
		Expect(declaresFormMode(rawCaps(`{"elicitation": {}}`))).To(BeTrue(), "an empty object is form mode")
		Expect(declaresFormMode(rawCaps(`{"elicitation": {"url": {}}}`))).To(BeFalse())
		Expect(declaresURLMode(rawCaps(`{"elicitation": {}}`))).To(BeFalse())
		Expect(declaresURLMode(rawCaps(`{"elicitation": {"form": {}, "url": {}}}`))).To(BeTrue())
		Expect(declaresSamplingTools(rawCaps(`{"sampling": {}}`))).To(BeFalse())
		Expect(declaresSamplingTools(rawCaps(`{"sampling": {"tools": {}}}`))).To(BeTrue())
		Expect(declaresSamplingTools(rawCaps(`{}`))).To(BeFalse())
	})

	It("see tool use in a sampling result, as one block or an array", func() {
		Expect(usesTools(json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}`))).To(BeEmpty())
		Expect(usesTools(json.RawMessage(`{"content":{"type":"tool_use","id":"1","name":"t","input":{}}}`))).To(Equal("tool_use content"))
		Expect(usesTools(json.RawMessage(`{"content":[{"type":"text","text":"x"},{"type":"tool_use"}]}`))).To(Equal("tool_use content"))
		Expect(usesTools(json.RawMessage(`{"content":{"type":"text","text":"x"},"stopReason":"toolUse"}`))).To(Equal("stopReason toolUse"))
	})

	It("judge $defs apart from the $anchor inside it", func() {
		want := canonical(focalSchema)
		stripped := canonical(focalSchema)
		delete(stripped["$defs"].(map[string]any)["address"].(map[string]any), "$anchor")
		Expect(withoutAnchor(stripped["$defs"])).To(Equal(withoutAnchor(want["$defs"])))
		Expect(anchorOf(stripped)).To(BeNil())
		Expect(anchorOf(want)).To(Equal("addressDef"))
	})

	It("take only a schema object from the echo; anything else leaves the preservation not judged, saying why", func() {
		schema, why := echoedSchema(json.RawMessage(`{"schema":{"type":"object","properties":{}}}`))
		Expect(why).To(BeEmpty())
		Expect(schema).To(HaveKey("type"))
		_, why = echoedSchema(json.RawMessage(`{"schema":{}}`))
		Expect(why).To(BeEmpty(), "an empty schema kept nothing: judged")
		_, why = echoedSchema(json.RawMessage(`{"schema":{"name":"json_schema_2020_12_tool","inputSchema":{"type":"object"}}}`))
		Expect(why).To(ContainSubstring("inputSchema, name) are no JSON Schema keywords"))
		_, why = echoedSchema(json.RawMessage(`{"schema":"{\"type\":\"object\"}"}`))
		Expect(why).To(ContainSubstring("not an object"))
		_, why = echoedSchema(json.RawMessage(`{}`))
		Expect(why).To(Equal("no schema argument"))
	})
})
