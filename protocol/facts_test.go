package protocol_test

import (
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
