package protocol_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
)

var _ = Describe("what a version's schema has", func() {
	It("reads methods from the generated schema", func() {
		Expect(protocol.Features(protocol.V20250326).Defines(protocol.MethodElicitationCreate)).To(BeFalse())
		Expect(protocol.Features(protocol.V20250618).Defines(protocol.MethodElicitationCreate)).To(BeTrue())
		Expect(protocol.Features(protocol.V20251125).Defines(protocol.MethodTasksGet)).To(BeTrue())
		Expect(protocol.Features(protocol.V20250618).Defines(protocol.MethodTasksGet)).To(BeFalse())
		Expect(protocol.Features("1999-01-01").Defines(protocol.MethodPing)).To(BeFalse())
	})

	It("reads result fields through arrays, pointers and unions", func() {
		outputSchema := func(v string) bool {
			return protocol.Features(v).ResultHas(protocol.MethodToolsList, "tools", "outputSchema")
		}
		Expect(outputSchema(protocol.V20250326)).To(BeFalse())
		Expect(outputSchema(protocol.V20250618)).To(BeTrue())
		Expect(outputSchema(protocol.V20260728)).To(BeTrue())
		// content is a union; resource_link's uri came with 2025-06-18, audio's data with 2025-03-26.
		Expect(protocol.Features(protocol.V20250326).ResultHas(protocol.MethodToolsCall, "content", "data")).To(BeTrue())
		Expect(protocol.Features(protocol.V20250326).ResultHas(protocol.MethodToolsCall, "structuredContent")).To(BeFalse())
		Expect(protocol.Features(protocol.V20250618).ResultHas(protocol.MethodToolsCall, "structuredContent")).To(BeTrue())
		Expect(protocol.Features(protocol.V20250618).ResultHas(protocol.MethodToolsCall, "nonesuch")).To(BeFalse())
		Expect(protocol.Features(protocol.V20250618).ResultHas("nonesuch/method")).To(BeFalse())
	})

	It("names the params fields a message carries that came with a newer version", func() {
		newer := func(version, method, params string) []protocol.NewerParam {
			return protocol.NewerParams(version, method, json.RawMessage(params))
		}
		Expect(newer(protocol.V20250618, protocol.MethodToolsCall, `{"name":"x","arguments":{"task":1},"task":{"ttl":1000}}`)).
			To(Equal([]protocol.NewerParam{{Path: "task", Since: protocol.V20251125}}), "a tool's own arguments are nobody's feature")
		Expect(newer(protocol.V20251125, protocol.MethodToolsCall, `{"name":"x","task":{"ttl":1000}}`)).To(BeEmpty())
		Expect(newer(protocol.V20251125, protocol.MethodToolsList, `{"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)).
			To(Equal([]protocol.NewerParam{{Path: "_meta.io.modelcontextprotocol/protocolVersion", Since: protocol.V20260728}}))
		// Every request inherits _meta.progressToken, which the generated
		// types of 2025-03-26 leave out of some methods.
		Expect(newer(protocol.V20250326, protocol.MethodToolsList, `{"_meta":{"progressToken":1},"cursor":"c"}`)).To(BeEmpty())
		Expect(newer(protocol.V20250326, protocol.MethodInitialize, `{"protocolVersion":"2025-03-26","capabilities":{"elicitation":{}},"clientInfo":{"name":"a","version":"1"}}`)).
			To(Equal([]protocol.NewerParam{{Path: "capabilities.elicitation", Since: protocol.V20250618}}))
		Expect(newer(protocol.V20250618, "nonesuch/method", `{"task":{}}`)).To(BeEmpty(), "a method the version lacks is NewerThan's")
		Expect(newer(protocol.V20250618, protocol.MethodToolsCall, `[1,2]`)).To(BeEmpty())
	})

	It("names the version that brought what an older one lacks", func() {
		Expect(protocol.NewerThan(protocol.V20250618, "notifications/tasks/status")).To(Equal(protocol.V20251125))
		Expect(protocol.NewerThan(protocol.V20250326, protocol.MethodElicitationCreate)).To(Equal(protocol.V20250618))
		Expect(protocol.NewerThan(protocol.V20250618, protocol.MethodInitialize, "capabilities", "tasks")).To(Equal(protocol.V20251125))
		Expect(protocol.NewerThan(protocol.V20251125, protocol.MethodInitialize, "capabilities", "tasks")).To(BeEmpty())
		Expect(protocol.NewerThan(protocol.V20250326, protocol.MethodInitialize, "capabilities", "completions")).To(BeEmpty())
		Expect(protocol.NewerThan(protocol.V20250618, protocol.MethodInitialize, "capabilities", "nonesuch")).To(BeEmpty())
		Expect(protocol.NewerThan(protocol.V20250618, "vendor/custom")).To(BeEmpty())
		Expect(protocol.NewerThan("1999-01-01", protocol.MethodPing)).To(BeEmpty())
	})

	It("lists the stateful versions whose sessions have a method", func() {
		Expect(protocol.StatefulWith(protocol.MethodElicitationCreate)).To(Equal([]string{protocol.V20251125, protocol.V20250618}))
		Expect(protocol.StatefulWith(protocol.MethodTasksGet)).To(Equal([]string{protocol.V20251125}))
		Expect(protocol.StatefulWith(protocol.MethodPing)).To(Equal(protocol.JudgedStateful()))
	})
})
