package protocol

import (
	"encoding/json"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
	v2 "github.com/mcpconform/mcpconform/protocol/v20260728"
)

// paramsOf (views_test.go) reads the params of a request's type as well as
// a notification's.

var _ = Describe("the views of what the client side's peers send", func() {
	It("name only fields the generated types of some version have", func() {
		heldTo(reflect.TypeFor[Meta](), paramsOf(MethodToolsCall)...)
		heldTo(reflect.TypeFor[Meta](), paramsOf(NotificationTasksStatus)...)
		heldTo(reflect.TypeFor[Meta](), resultsOf(MethodTasksResult)...)
		heldTo(reflect.TypeFor[RelatedTask](), reflect.TypeFor[v1.RelatedTaskMetadata]())
		for _, m := range []string{MethodTasksGet, MethodTasksResult, MethodTasksCancel, NotificationTasksStatus, NotificationTasks} {
			heldTo(reflect.TypeFor[RelatedTask](), paramsOf(m)...)
		}
		heldTo(reflect.TypeFor[InitializeParams](), paramsOf(MethodInitialize)...)
		heldTo(reflect.TypeFor[InitializeReply](), resultsOf(MethodInitialize)...)
		heldTo(reflect.TypeFor[DiscoverResult](), resultsOf(MethodServerDiscover)...)
		heldTo(reflect.TypeFor[TasksCapability](), reflect.TypeFor[v1.ClientCapabilitiesTasks]())
		heldTo(reflect.TypeFor[CallToolParams](), paramsOf(MethodToolsCall)...)
		heldTo(reflect.TypeFor[PageParams](), paramsOf(MethodTasksList)...)
		heldTo(reflect.TypeFor[PageParams](), paramsOf(MethodToolsList)...)
		heldTo(reflect.TypeFor[CancelledParams](), paramsOf(NotificationCancelled)...)
		heldTo(reflect.TypeFor[ListedTools](), resultsOf(MethodToolsList)...)
		heldTo(reflect.TypeFor[PromptsPage](), resultsOf(MethodPromptsList)...)
		heldTo(reflect.TypeFor[ResourcesPage](), resultsOf(MethodResourcesList)...)
		heldTo(reflect.TypeFor[ObjectSchema](), reflect.TypeFor[v1.ToolInputSchema](), reflect.TypeFor[v1.ElicitRequestFormParamsRequestedSchema]())
		heldTo(reflect.TypeFor[ElicitParams](), paramsOf(MethodElicitationCreate)...)
		heldTo(reflect.TypeFor[ElicitResult](), resultsOf(MethodElicitationCreate)...)
		heldTo(reflect.TypeFor[CreateMessageParams](), paramsOf(MethodSamplingCreateMessage)...)
		heldTo(reflect.TypeFor[CreateMessageResult](), resultsOf(MethodSamplingCreateMessage)...)
		heldTo(reflect.TypeFor[ListRootsResult](), resultsOf(MethodRootsList)...)
		heldTo(reflect.TypeFor[InputRequest](), reflect.TypeFor[v2.InputRequest]())
		heldTo(reflect.TypeFor[TaskAugmentedParams](), paramsOf(MethodSamplingCreateMessage)...)
		heldTo(reflect.TypeFor[TaskAugmentedParams](), paramsOf(MethodElicitationCreate)...)
		heldTo(reflect.TypeFor[TaskMetadata](), reflect.TypeFor[v1.TaskMetadata]())
		heldTo(reflect.TypeFor[CreateTaskReply](), reflect.TypeFor[v1.CreateTaskResult]())
		heldTo(reflect.TypeFor[TasksPage](), resultsOf(MethodTasksList)...)
		heldTo(reflect.TypeFor[UnsupportedVersionData](), reflect.TypeFor[v2.UnsupportedProtocolVersionErrorErrorData]())
	})

	It("read what a strict decode would refuse, past what they do not name", func() {
		var reply InitializeReply
		Expect(json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":5},"instructions":7}`), &reply)).To(Succeed())
		Expect(reply.ProtocolVersion).To(Equal("2025-11-25"))
		Expect(string(reply.Capabilities)).To(Equal(`{"tools":{}}`))

		var init InitializeParams
		Expect(json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","capabilities":"none"}`), &init)).To(Succeed())
		Expect(*init.ProtocolVersion).To(Equal("2025-11-25"))

		var tools ListedTools
		Expect(json.Unmarshal([]byte(`{"tools":[{"name":"t","title":5,"inputSchema":"x"}],"nextCursor":3}`), &tools)).To(Succeed())
		Expect(tools.Tools).To(HaveLen(1))
		Expect(tools.Tools[0].Name).To(Equal("t"))

		var task TaskAugmentedParams
		Expect(json.Unmarshal([]byte(`{"_meta":[],"messages":"x"}`), &task)).To(Succeed())
		Expect(task.Task).To(BeNil())
	})

	It("tell an absent field from an empty one where a check does", func() {
		var init InitializeParams
		Expect(json.Unmarshal([]byte(`{"protocolVersion":null}`), &init)).To(Succeed())
		Expect(init.ProtocolVersion).To(BeNil())
		Expect(json.Unmarshal([]byte(`{"protocolVersion":""}`), &init)).To(Succeed())
		Expect(init.ProtocolVersion).To(HaveValue(BeEmpty()))

		var page TasksPage
		Expect(json.Unmarshal([]byte(`{"tasks":[]}`), &page)).To(Succeed())
		Expect(page.NextCursor).To(BeNil())

		var created CreateTaskReply
		Expect(json.Unmarshal([]byte(`{}`), &created)).To(Succeed())
		Expect(created.Task).To(BeNil())
	})
})
