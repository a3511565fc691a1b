package protocol_test

import (
	"encoding/json"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/exttasks"
	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
	v2 "github.com/mcpconform/mcpconform/protocol/v20260728"
)

// schemaError asserts err is a *SchemaError and returns it.
func schemaError(err error) *protocol.SchemaError {
	GinkgoHelper()
	var se *protocol.SchemaError
	Expect(errors.As(err, &se)).To(BeTrue(), "want *SchemaError, got %v", err)
	return se
}

const initializeResult = `{
	"protocolVersion": "2025-11-25",
	"capabilities": {"tools": {"listChanged": true}, "logging": {}},
	"serverInfo": {"name": "srv", "version": "1.0.0"},
	"instructions": "be nice",
	"x-extra": {"unknown members": "are allowed"}
}`

var _ = Describe("ValidateResult", func() {
	Context("2025-11-25", func() {
		const v = protocol.V20251125

		It("accepts a valid InitializeResult", func() {
			Expect(protocol.ValidateResult(v, protocol.MethodInitialize, json.RawMessage(initializeResult))).To(Succeed())
		})

		It("reports a missing protocolVersion with its path", func() {
			err := protocol.ValidateResult(v, protocol.MethodInitialize, json.RawMessage(
				`{"capabilities": {}, "serverInfo": {"name": "srv", "version": "1"}}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.protocolVersion"))
			Expect(se.Reason).To(Equal("required property is missing"))
			Expect(se.Version).To(Equal(v))
			Expect(se.Type).To(Equal("v20251125.InitializeResult"))
			Expect(se.Error()).To(Equal("$.result.protocolVersion: required property is missing (v20251125.InitializeResult, MCP 2025-11-25)"))
		})

		It("reports a wrong JSON type deep in the capabilities", func() {
			err := protocol.ValidateResult(v, protocol.MethodInitialize, json.RawMessage(
				`{"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": "yes"}}, "serverInfo": {"name": "s", "version": "1"}}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.capabilities.tools.listChanged"))
			Expect(se.Reason).To(Equal("expected boolean, got string"))
		})

		It("rejects null where the schema does not allow it", func() {
			err := protocol.ValidateResult(v, protocol.MethodInitialize, json.RawMessage(
				`{"protocolVersion": "2025-11-25", "capabilities": null, "serverInfo": {"name": "s", "version": "1"}}`))
			Expect(schemaError(err).Path).To(Equal("$.result.capabilities"))

			err = protocol.ValidateResult(v, protocol.MethodToolsList, json.RawMessage(`{"tools": [], "nextCursor": null}`))
			Expect(schemaError(err).Path).To(Equal("$.result.nextCursor"))
		})

		It("reports role \"system\" in a prompt message with a path into messages[0].role", func() {
			err := protocol.ValidateResult(v, protocol.MethodPromptsGet, json.RawMessage(
				`{"messages": [{"role": "system", "content": {"type": "text", "text": "hi"}}]}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.messages[0].role"))
			Expect(se.Reason).To(ContainSubstring(`"system"`))
			Expect(se.Reason).To(ContainSubstring(`"assistant", "user"`))
		})

		It("reports a content block of unknown type", func() {
			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(
				`{"content": [{"type": "text", "text": "ok"}, {"type": "bogus", "text": "?"}]}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.content[1].type"))
			Expect(se.Reason).To(ContainSubstring(`invalid value "bogus"`))
			Expect(se.Type).To(Equal("v20251125.CallToolResult"))
		})

		It("reports a content block without a type", func() {
			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(`{"content": [{"text": "ok"}]}`))
			Expect(schemaError(err).Path).To(Equal("$.result.content[0].type"))
		})

		It("checks the selected content variant strictly", func() {
			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(`{"content": [{"type": "image", "data": "AAAA"}]}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.content[0].mimeType"))
			Expect(se.Reason).To(Equal("required property is missing"))
		})

		It("explains an embedded resource that matches neither variant", func() {
			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(
				`{"content": [{"type": "resource", "resource": {"uri": "file:///x"}}]}`))
			se := schemaError(err)
			Expect(se.Path).To(HavePrefix("$.result.content[0].resource."))
			Expect(se.Reason).To(ContainSubstring("matches no variant of EmbeddedResourceResource"))
		})

		It("treats a result with a task member as a CreateTaskResult", func() {
			task := `{"task": {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null}}`
			Expect(protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(task))).To(Succeed())

			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(`{"task": {"taskId": "t1", "status": "sleeping"}}`))
			se := schemaError(err)
			Expect(se.Type).To(Equal("v20251125.CreateTaskResult"))
			Expect(se.Path).To(HavePrefix("$.result.task."))
		})

		It("accepts CreateMessageResult content as a single block or an array", func() {
			single := `{"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}`
			list := `{"role": "assistant", "model": "m", "content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "c1", "name": "t", "input": {}}]}`
			Expect(protocol.ValidateResult(v, protocol.MethodSamplingCreateMessage, json.RawMessage(single))).To(Succeed())
			Expect(protocol.ValidateResult(v, protocol.MethodSamplingCreateMessage, json.RawMessage(list))).To(Succeed())

			err := protocol.ValidateResult(v, protocol.MethodSamplingCreateMessage, json.RawMessage(`{"role": "assistant", "model": "m", "content": "hi"}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.content"))
			Expect(se.Reason).To(Equal("expected object or array, got string"))

			err = protocol.ValidateResult(v, protocol.MethodSamplingCreateMessage, json.RawMessage(`{"role": "assistant", "model": "m", "content": [{"type": "resource_link"}]}`))
			Expect(schemaError(err).Path).To(Equal("$.result.content[0].type"))
		})

		It("rejects invalid JSON", func() {
			se := schemaError(protocol.ValidateResult(v, protocol.MethodPing, json.RawMessage(`{"`)))
			Expect(se.Path).To(Equal("$.result"))
			Expect(se.Reason).To(Equal("invalid JSON"))
		})
	})

	Context("2026-07-28", func() {
		const v = protocol.V20260728

		It("accepts a DiscoverResult", func() {
			Expect(protocol.ValidateResult(v, protocol.MethodServerDiscover, json.RawMessage(`{
				"resultType": "complete", "supportedVersions": ["2026-07-28", "2025-11-25"],
				"capabilities": {"tools": {}}, "cacheScope": "public", "ttlMs": 60000,
				"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "1"}}}`))).To(Succeed())
		})

		It("requires resultType", func() {
			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(`{"content": []}`))
			Expect(schemaError(err).Path).To(Equal("$.result.resultType"))
		})

		It("rejects a resultType the method cannot have", func() {
			err := protocol.ValidateResult(v, protocol.MethodToolsList, json.RawMessage(`{"resultType": "input_required"}`))
			se := schemaError(err)
			Expect(se.Path).To(Equal("$.result.resultType"))
			Expect(se.Reason).To(ContainSubstring(`expected one of "complete"`))
		})

		It("validates an input_required result as InputRequiredResult", func() {
			ok := `{"resultType": "input_required", "requestState": "s", "inputRequests": {
				"a": {"method": "elicitation/create", "params": {"mode": "form", "message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}},
				"b": {"method": "roots/list"}}}`
			Expect(protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(ok))).To(Succeed())

			err := protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(`{"resultType": "input_required", "inputRequests": {"a": {"method": "ping"}}}`))
			se := schemaError(err)
			Expect(se.Type).To(Equal("v20260728.InputRequiredResult"))
			Expect(se.Path).To(Equal("$.result.inputRequests.a.method"))
		})

		It("validates a task handle against the tasks extension", func() {
			task := `{"resultType": "task", "taskId": "t", "status": "working", "createdAt": "x", "lastUpdatedAt": "y", "ttlMs": null, "pollIntervalMs": 500}`
			Expect(protocol.ValidateResult(v, protocol.MethodToolsCall, json.RawMessage(task))).To(Succeed())
		})

		It("tells task states apart by status", func() {
			completed := `{"resultType": "complete", "taskId": "t", "status": "completed", "createdAt": "x", "lastUpdatedAt": "y", "ttlMs": 1000, "result": {"content": []}}`
			Expect(protocol.ValidateResult(v, protocol.MethodTasksGet, json.RawMessage(completed))).To(Succeed())

			err := protocol.ValidateResult(v, protocol.MethodTasksGet, json.RawMessage(`{"resultType": "complete", "taskId": "t", "status": "failed", "createdAt": "x", "lastUpdatedAt": "y", "ttlMs": 1}`))
			se := schemaError(err)
			Expect(se.Type).To(Equal("exttasks.GetTaskResult"))
			Expect(se.Path).To(Equal("$.result.error"))
		})
	})

	It("says when there is nothing to validate against", func() {
		Expect(protocol.ValidateResult(protocol.V20260728, protocol.MethodInitialize, nil)).To(MatchError(protocol.ErrUnknownMethod))
		Expect(protocol.ValidateResult(protocol.V20251125, protocol.NotificationProgress, nil)).To(MatchError(protocol.ErrUnknownMethod))
		Expect(protocol.ValidateResult(protocol.V20241105, protocol.MethodInitialize, nil)).To(MatchError(protocol.ErrUnknownVersion))
		Expect(protocol.ValidateResult("1900-01-01", protocol.MethodInitialize, nil)).To(MatchError(protocol.ErrUnknownVersion))
	})
})

var _ = Describe("ValidateParams", func() {
	It("accepts valid request params", func() {
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.MethodToolsCall, json.RawMessage(`{"name": "echo", "arguments": {"x": 1}}`))).To(Succeed())
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.MethodToolsList, nil)).To(Succeed())
	})

	It("reports missing params and members", func() {
		se := schemaError(protocol.ValidateParams(protocol.V20251125, protocol.MethodToolsCall, nil))
		Expect(se.Path).To(Equal("$.params"))
		Expect(se.Type).To(Equal("v20251125.CallToolRequest"))

		se = schemaError(protocol.ValidateParams(protocol.V20251125, protocol.MethodToolsCall, json.RawMessage(`{"arguments": {}}`)))
		Expect(se.Path).To(Equal("$.params.name"))
	})

	It("validates notifications, including scalar unions", func() {
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.NotificationProgress, json.RawMessage(`{"progressToken": "tok", "progress": 0.5}`))).To(Succeed())
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.NotificationProgress, json.RawMessage(`{"progressToken": 7, "progress": 1}`))).To(Succeed())
		se := schemaError(protocol.ValidateParams(protocol.V20251125, protocol.NotificationProgress, json.RawMessage(`{"progressToken": true, "progress": 1}`)))
		Expect(se.Path).To(Equal("$.params.progressToken"))
		Expect(se.Reason).To(Equal("expected string or integer, got boolean"))
	})

	It("tells integers from other numbers", func() {
		se := schemaError(protocol.ValidateParams(protocol.V20251125, protocol.NotificationProgress, json.RawMessage(`{"progressToken": 1.5, "progress": 1}`)))
		Expect(se.Path).To(Equal("$.params.progressToken"))
		Expect(se.Reason).To(Equal("expected string or integer, got number"))
	})

	It("picks the elicitation mode, defaulting to form", func() {
		form := `{"message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}`
		Expect(protocol.ValidateParams(protocol.V20251125, protocol.MethodElicitationCreate, json.RawMessage(form))).To(Succeed())
		se := schemaError(protocol.ValidateParams(protocol.V20251125, protocol.MethodElicitationCreate, json.RawMessage(`{"mode": "url", "message": "go"}`)))
		Expect(se.Path).To(Equal("$.params.elicitationId"))
		se = schemaError(protocol.ValidateParams(protocol.V20251125, protocol.MethodElicitationCreate, json.RawMessage(`{"mode": "bogus", "message": "m"}`)))
		Expect(se.Path).To(Equal("$.params.mode"))
	})

	It("requires the per-request _meta of 2026-07-28, naming keys in brackets", func() {
		se := schemaError(protocol.ValidateParams(protocol.V20260728, protocol.MethodToolsCall, json.RawMessage(`{"name": "echo"}`)))
		Expect(se.Path).To(Equal("$.params._meta"))

		se = schemaError(protocol.ValidateParams(protocol.V20260728, protocol.MethodToolsCall, json.RawMessage(
			`{"name": "echo", "_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}`)))
		Expect(se.Path).To(Equal(`$.params._meta["io.modelcontextprotocol/protocolVersion"]`))

		Expect(protocol.ValidateParams(protocol.V20260728, protocol.MethodToolsCall, json.RawMessage(
			`{"name": "echo", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}`))).To(Succeed())
	})

	It("validates tasks extension requests", func() {
		Expect(protocol.ValidateParams(protocol.V20260728, protocol.MethodTasksGet, json.RawMessage(`{"taskId": "t"}`))).To(Succeed())
		se := schemaError(protocol.ValidateParams(protocol.V20260728, protocol.MethodTasksUpdate, json.RawMessage(`{"taskId": "t"}`)))
		Expect(se.Path).To(Equal("$.params.inputResponses"))
		Expect(se.Type).To(Equal("exttasks.UpdateTaskRequest"))
	})
})

var _ = Describe("Decode", func() {
	It("decodes CreateMessageResult content given as a single block", func() {
		var r v1.CreateMessageResult
		Expect(protocol.Decode(json.RawMessage(`{"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}`), &r, "$")).To(Succeed())
		Expect(r.Content.TextContent).NotTo(BeNil())
		Expect(r.Content.TextContent.Text).To(Equal("hi"))
		Expect(r.Content.Array).To(BeNil())
	})

	It("decodes CreateMessageResult content given as an array", func() {
		var r v2.CreateMessageResult
		Expect(protocol.Decode(json.RawMessage(`{"resultType": "complete", "role": "assistant", "model": "m", "content": [
			{"type": "text", "text": "a"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]}`), &r, "$")).To(Succeed())
		Expect(r.Content.TextContent).To(BeNil())
		Expect(r.Content.Array).To(HaveLen(2))
		Expect(r.Content.Array[0].TextContent.Text).To(Equal("a"))
		Expect(r.Content.Array[1].ImageContent.MimeType).To(Equal("image/png"))
		Expect(r.Content.Value()).To(HaveLen(2))
	})

	It("reports violations from the given root and leaves the target alone", func() {
		r := exttasks.GetTaskResult{}
		err := protocol.Decode(json.RawMessage(`{"status": "nope"}`), &r, "$.result")
		se := schemaError(err)
		Expect(se.Path).To(Equal("$.result.status"))
		Expect(se.Version).To(BeEmpty())
		Expect(r.Value()).To(BeNil())
	})

	It("decodes whole JSON-RPC messages through the method-discriminated unions", func() {
		var req v1.ClientRequest
		Expect(protocol.Decode(json.RawMessage(`{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "echo"}}`), &req, "$")).To(Succeed())
		Expect(req.CallToolRequest).NotTo(BeNil())
		Expect(*req.CallToolRequest.ID.String).To(Equal("a"))

		se := schemaError(protocol.Decode(json.RawMessage(`{"jsonrpc": "2.0", "id": 1, "method": "server/discover"}`), &req, "$"))
		Expect(se.Path).To(Equal("$.method"))
	})

	It("checks every value of an elicitation result's content", func() {
		var r v1.ElicitResult
		Expect(protocol.Decode(json.RawMessage(`{"action": "accept", "content": {"a": ["x"], "b": 1, "c": true, "d": "s"}}`), &r, "$")).To(Succeed())
		Expect(r.Content["a"].Array).To(Equal([]string{"x"}))
		Expect(*r.Content["b"].Integer).To(Equal(1))

		se := schemaError(protocol.Decode(json.RawMessage(`{"action": "accept", "content": {"d": {"x": 1}}}`), &r, "$"))
		Expect(se.Path).To(Equal("$.content.d"))
		Expect(se.Reason).To(Equal("expected array or string or integer or boolean, got object"))
	})

	It("wants a pointer", func() {
		Expect(protocol.Decode(json.RawMessage(`{}`), v1.Result{}, "$")).To(HaveOccurred())
	})
})

var _ = Describe("ContentBlock", func() {
	DescribeTable("round-trips through JSON",
		func(raw string, variant func(v1.ContentBlock) any) {
			var b v1.ContentBlock
			Expect(json.Unmarshal([]byte(raw), &b)).To(Succeed())
			Expect(variant(b)).NotTo(BeNil())
			out, err := json.Marshal(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(MatchJSON(raw))
		},
		Entry("text", `{"type": "text", "text": "hello", "annotations": {"audience": ["user"], "priority": 0.5}}`,
			func(b v1.ContentBlock) any { return b.TextContent }),
		Entry("image", `{"type": "image", "data": "AAAA", "mimeType": "image/png"}`,
			func(b v1.ContentBlock) any { return b.ImageContent }),
		Entry("resource link", `{"type": "resource_link", "uri": "file:///a", "name": "a"}`,
			func(b v1.ContentBlock) any { return b.ResourceLink }),
		Entry("embedded blob resource", `{"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAA"}}`,
			func(b v1.ContentBlock) any { return b.EmbeddedResource.Resource.BlobResourceContents }),
	)

	It("marshals the variant set in code", func() {
		out, err := json.Marshal([]v1.ContentBlock{{TextContent: &v1.TextContent{Type: "text", Text: "x"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchJSON(`[{"type": "text", "text": "x"}]`))
	})

	It("refuses to marshal with no variant or two", func() {
		_, err := json.Marshal(v1.ContentBlock{})
		Expect(err).To(MatchError(ContainSubstring("no variant set")))
		_, err = json.Marshal(v1.ContentBlock{TextContent: &v1.TextContent{}, ImageContent: &v1.ImageContent{}})
		Expect(err).To(MatchError(ContainSubstring("more than one variant")))
	})

	It("rejects a bad type when decoded directly", func() {
		var b v1.ContentBlock
		Expect(json.Unmarshal([]byte(`{"type": "bogus"}`), &b)).To(MatchError(ContainSubstring(`invalid value "bogus"`)))
		Expect(json.Unmarshal([]byte(`[]`), &b)).To(MatchError(ContainSubstring("expected object, got array")))
	})
})

// A result is an object (the schema's Result) and params, when present, are
// one too: encoding/json decodes null into anything without a word, and
// the walk must not follow it.
var _ = Describe("non-object results and params", func() {
	nonObjects := []string{"null", "[]", `"x"`, "1", "1.5", "true", "false"}
	It("refuses them for every method of every version with a schema", func() {
		for _, version := range protocol.SchemaVersions() {
			for _, method := range protocol.Methods(version) {
				for _, raw := range nonObjects {
					err := protocol.ValidateResult(version, method, json.RawMessage(raw))
					if !errors.Is(err, protocol.ErrUnknownMethod) { // notifications have no result
						Expect(schemaError(err).Path).To(Equal("$.result"), "%s %s result %s", version, method, raw)
					}
					Expect(schemaError(protocol.ValidateParams(version, method, json.RawMessage(raw))).Path).
						To(Equal("$.params"), "%s %s params %s", version, method, raw)
				}
			}
		}
	})
})
