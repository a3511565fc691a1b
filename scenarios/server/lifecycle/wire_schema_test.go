package lifecycle

import (
	"fmt"
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios"
)

var _ = g.Describe("wire-schema's account of the ledger", func() {
	violation := func(scenario, what, err string) scenarios.WireViolation {
		return scenarios.WireViolation{Scenario: scenario, What: what, Err: err, Raw: []byte(`{"jsonrpc":"2.0","method":"` + what + `"}`)}
	}

	g.It("names the scenario, the message and the JSON path of each violation shown", func() {
		text := describeWire([]scenarios.WireViolation{
			violation("tasks-cancel-during-elicitation", "notification notifications/tasks/status", "$.params.ttl: required property is missing (v20251125.TaskStatusNotification, MCP 2025-11-25)"),
		})
		Expect(text).To(HavePrefix("1 invalid message(s), 1 distinct\n"))
		Expect(text).To(ContainSubstring("- in tasks-cancel-during-elicitation: the notification notifications/tasks/status is invalid: $.params.ttl: required property is missing"))
		Expect(text).To(ContainSubstring(`{"jsonrpc":"2.0","method":"notification notifications/tasks/status"}`))
	})

	g.It("counts repeats of one violation instead of listing them", func() {
		same := "$.result.tools[0].inputSchema: required property is missing"
		text := describeWire([]scenarios.WireViolation{
			violation("wire-schema", "result of tools/list", same),
			violation("tasks-status", "result of tools/list", same),
			violation("tasks-status", "result of tools/list", same),
		})
		Expect(text).To(HavePrefix("3 invalid message(s), 1 distinct\n"))
		Expect(strings.Count(text, "\n- in ")).To(Equal(1))
		Expect(text).To(ContainSubstring("- in wire-schema: the result of tools/list is invalid: " + same + " (seen 3 times, in 2 scenarios)"))
	})

	g.It("stays bounded: the first few in full, then a count", func() {
		var all []scenarios.WireViolation
		for i := range 10 {
			all = append(all, violation(fmt.Sprintf("scenario-%d", i), "result of tools/list", fmt.Sprintf("$.result.tools[%d].name: required property is missing", i)))
		}
		all = append(all, all[9]) // a repeat among the rest
		big := violation("scenario-0", "result of tools/call", "$.result.content: expected array, got string")
		big.Raw = []byte(strings.Repeat("x", 5000))
		all = append([]scenarios.WireViolation{big}, all...)

		text := describeWire(all)
		Expect(text).To(HavePrefix("12 invalid message(s), 11 distinct\n"))
		Expect(strings.Count(text, "\n- in ")).To(Equal(wireShown))
		Expect(text).To(ContainSubstring("- in scenario-0: the result of tools/call is invalid: $.result.content: expected array, got string"))
		Expect(text).To(ContainSubstring("- in scenario-1: "))
		Expect(text).NotTo(ContainSubstring("scenario-2:"))
		Expect(text).To(HaveSuffix("\nand 9 more invalid message(s) (8 distinct)"))
		Expect(text).To(ContainSubstring(strings.Repeat("x", wireRawLimit) + "…"))
		Expect(text).NotTo(ContainSubstring(strings.Repeat("x", wireRawLimit+1)))
		Expect(len(text)).To(BeNumerically("<", 1500))
	})
})
