package protocol_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
	v0326 "github.com/mcpconform/mcpconform/protocol/v20250326"
)

// Each judged version is validated against its own schema: what one
// version allows, another may refuse.
var _ = Describe("validation per version", func() {
	It("accepts a resource_link content block from 2025-06-18 on, not in 2025-03-26", func() {
		link := json.RawMessage(`{"content": [{"type": "resource_link", "uri": "file:///a", "name": "a"}]}`)
		Expect(protocol.ValidateResult(protocol.V20250618, protocol.MethodToolsCall, link)).To(Succeed())
		Expect(protocol.ValidateResult(protocol.V20251125, protocol.MethodToolsCall, link)).To(Succeed())

		se := schemaError(protocol.ValidateResult(protocol.V20250326, protocol.MethodToolsCall, link))
		Expect(se.Path).To(Equal("$.result.content[0].type"))
		Expect(se.Reason).To(ContainSubstring(`invalid value "resource_link"`))
		Expect(se.Type).To(Equal("v20250326.CallToolResult"))
		Expect(se.Version).To(Equal(protocol.V20250326))
	})

	It("accepts a URL-mode elicitation only in 2025-11-25, and no elicitation at all in 2025-03-26", func() {
		url := json.RawMessage(`{"mode": "url", "message": "sign in", "url": "https://example.com/auth", "elicitationId": "e1"}`)
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.MethodElicitationCreate, url)).To(Succeed())

		se := schemaError(protocol.ValidateParams(protocol.V20250618, protocol.MethodElicitationCreate, url))
		Expect(se.Path).To(Equal("$.params.requestedSchema"))
		Expect(se.Type).To(Equal("v20250618.ElicitRequest"))

		form := json.RawMessage(`{"message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}`)
		Expect(protocol.ValidateParams(protocol.V20250618, protocol.MethodElicitationCreate, form)).To(Succeed())
		Expect(protocol.ValidateParams(protocol.V20250326, protocol.MethodElicitationCreate, form)).To(MatchError(protocol.ErrUnknownMethod))
	})

	It("accepts a string-array elicitation answer only in 2025-11-25", func() {
		answer := json.RawMessage(`{"action": "accept", "content": {"colours": ["red", "blue"]}}`)
		Expect(protocol.ValidateResult(protocol.V20251125, protocol.MethodElicitationCreate, answer)).To(Succeed())
		se := schemaError(protocol.ValidateResult(protocol.V20250618, protocol.MethodElicitationCreate, answer))
		Expect(se.Path).To(Equal("$.result.content.colours"))
	})

	It("accepts sampling content as an array only in 2025-11-25", func() {
		list := json.RawMessage(`{"role": "assistant", "model": "m", "content": [{"type": "text", "text": "hi"}]}`)
		Expect(protocol.ValidateResult(protocol.V20251125, protocol.MethodSamplingCreateMessage, list)).To(Succeed())
		for _, v := range []string{protocol.V20250618, protocol.V20250326} {
			se := schemaError(protocol.ValidateResult(v, protocol.MethodSamplingCreateMessage, list))
			Expect(se.Path).To(Equal("$.result.content"), v)
			Expect(se.Reason).To(Equal("expected object, got array"), v)
		}
	})

	It("knows task status notifications only from 2025-11-25 on, and requires their ttl there", func() {
		note := json.RawMessage(`{"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000}`)
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.NotificationTasksStatus, note)).To(Succeed())
		for _, v := range []string{protocol.V20250618, protocol.V20250326} {
			Expect(protocol.ValidateParams(v, protocol.NotificationTasksStatus, note)).To(MatchError(protocol.ErrUnknownMethod), v)
			Expect(protocol.ValidateParams(v, protocol.MethodTasksGet, json.RawMessage(`{"taskId": "t1"}`))).To(MatchError(protocol.ErrUnknownMethod), v)
		}

		noTTL := json.RawMessage(`{"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z"}`)
		se := schemaError(protocol.ValidateParams(protocol.V20251125, protocol.NotificationTasksStatus, noTTL))
		Expect(se.Path).To(Equal("$.params.ttl"))
		Expect(se.Reason).To(Equal("required property is missing"))
	})

	It("accepts what every stateful version shares", func() {
		initialize := json.RawMessage(`{"protocolVersion": "2025-03-26", "capabilities": {"tools": {}}, "serverInfo": {"name": "srv", "version": "1"}}`)
		for _, v := range protocol.JudgedStateful() {
			Expect(protocol.ValidateResult(v, protocol.MethodInitialize, initialize)).To(Succeed(), v)
			se := schemaError(protocol.ValidateResult(v, protocol.MethodInitialize, json.RawMessage(`{"capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}`)))
			Expect(se.Path).To(Equal("$.result.protocolVersion"), v)
		}
	})

	It("decodes 2025-03-26 batches, the only version that has them", func() {
		var msg v0326.JSONRPCMessage
		Expect(protocol.Decode(json.RawMessage(`[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"}]`), &msg, "$")).To(Succeed())
		Expect(msg.JSONRPCBatchRequest).NotTo(BeNil())
		Expect(*msg.JSONRPCBatchRequest).To(HaveLen(2))
		Expect((*msg.JSONRPCBatchRequest)[0].JSONRPCRequest).NotTo(BeNil())
		Expect((*msg.JSONRPCBatchRequest)[1].JSONRPCNotification).NotTo(BeNil())

		Expect(protocol.Decode(json.RawMessage(`[{"jsonrpc": "2.0", "id": 1, "result": {}}]`), &msg, "$")).To(Succeed())
		Expect(msg.JSONRPCBatchResponse).NotTo(BeNil())

		se := schemaError(protocol.Decode(json.RawMessage(`[{"jsonrpc": "2.0", "id": 1}]`), &msg, "$"))
		Expect(se.Path).To(HavePrefix("$[0]"))
	})
})
