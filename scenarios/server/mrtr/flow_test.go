package mrtr

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

var _ = Describe("the fake client's side of an MRTR exchange", func() {
	requests := func(s string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		Expect(json.Unmarshal([]byte(s), &m)).To(Succeed())
		return m
	}

	It("answers each kind of input request and names what it cannot answer", func() {
		got, unanswerable := answers(requests(`{
			"a": {"method": "elicitation/create", "params": {"mode": "form", "message": "m",
			      "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}, "ok": {"type": "boolean"}, "n": {"type": "integer"}, "c": {"type": "string", "enum": ["red", "blue"]}}}}},
			"b": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}},
			"c": {"method": "roots/list"},
			"d": {"method": "roots/get"}}`))
		Expect(got["a"]).To(Equal(map[string]any{"action": "accept", "content": map[string]any{"name": answeredName, "ok": true, "n": 1, "c": "red"}}))
		Expect(got["b"]).To(HaveKeyWithValue("role", "assistant"))
		Expect(got["c"]).To(HaveKey("roots"))
		Expect(unanswerable).To(Equal([]string{"d"}))
	})

	It("reads a result that asks without saying so as input_required, and one that says nothing else as complete", func() {
		result := func(s string) reply { return parseReply(&jsonrpc.Message{Result: json.RawMessage(s)}, nil) }
		Expect(result(`{"inputRequests": {"a": {"method": "roots/list"}}}`).inputRequired()).To(BeTrue())
		Expect(result(`{"resultType": "input_required", "requestState": "s"}`).inputRequired()).To(BeTrue())
		Expect(result(`{"content": []}`).complete()).To(BeTrue())
		Expect(result(`{"resultType": "complete", "content": []}`).complete()).To(BeTrue())
	})

	It("judges input requests by the schema of the request type their method names", func() {
		v := protocol.V20260728
		_, err := validInputRequest(v, json.RawMessage(`{"method": "roots/list"}`))
		Expect(err).NotTo(HaveOccurred())
		_, err = validInputRequest(v, json.RawMessage(`{"method": "sampling/createMessage", "params": {"messages": []}}`))
		Expect(err).To(HaveOccurred()) // no maxTokens
		_, err = validInputRequest(v, json.RawMessage(`{"method": "elicitation/create", "params": {"mode": "form",
			"requestedSchema": {"type": "object", "properties": {}}}}`))
		Expect(err).To(HaveOccurred()) // no message
		_, err = validInputRequest(v, json.RawMessage(`{"method": "tools/call", "params": {"name": "x"}}`))
		Expect(err).To(HaveOccurred())
	})
})
