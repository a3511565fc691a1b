package protocol_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
)

var _ = Describe("the task status graph", func() {
	DescribeTable("a step",
		func(from, to protocol.TaskStatus, legal bool) {
			Expect(protocol.TaskTransitionLegal(from, to)).To(Equal(legal))
		},
		Entry("working to input_required", protocol.TaskWorking, protocol.TaskInputRequired, true),
		Entry("input_required back to working", protocol.TaskInputRequired, protocol.TaskWorking, true),
		Entry("working to completed", protocol.TaskWorking, protocol.TaskCompleted, true),
		Entry("input_required to cancelled", protocol.TaskInputRequired, protocol.TaskCancelled, true),
		Entry("the same status again", protocol.TaskCompleted, protocol.TaskCompleted, true),
		Entry("completed to failed", protocol.TaskCompleted, protocol.TaskFailed, false),
		Entry("cancelled to working", protocol.TaskCancelled, protocol.TaskWorking, false),
		Entry("working to an unknown status", protocol.TaskWorking, protocol.TaskStatus("paused"), false),
	)
	It("knows the terminal statuses", func() {
		Expect(protocol.TaskFailed.Terminal()).To(BeTrue())
		Expect(protocol.TaskInputRequired.Terminal()).To(BeFalse())
	})
})
