package protocol

import (
	"encoding/json"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol/exttasks"
	v0326 "github.com/mcpconform/mcpconform/protocol/v20250326"
	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
	v2 "github.com/mcpconform/mcpconform/protocol/v20260728"
)

var _ = Describe("the views of what a client sends a server", func() {
	It("name only fields the generated types of some version have", func() {
		heldTo(reflect.TypeFor[InitializeVersion](), paramsOf(MethodInitialize)...)
		heldTo(reflect.TypeFor[InitializeOffer](), paramsOf(MethodInitialize)...)
		heldTo(reflect.TypeFor[NamedArgumentsParams](), paramsOf(MethodToolsCall)...)
		heldTo(reflect.TypeFor[NamedArgumentsParams](), paramsOf(MethodPromptsGet)...)
		heldTo(reflect.TypeFor[CallToolTaskParams](), paramsOf(MethodToolsCall)...)
		heldTo(reflect.TypeFor[ReadResourceParams](), paramsOf(MethodResourcesRead)...)
		heldTo(reflect.TypeFor[SetLevelParams](), paramsOf(MethodLoggingSetLevel)...)
		heldTo(reflect.TypeFor[CompleteParams](), paramsOf(MethodCompletionComplete)...)
		heldTo(reflect.TypeFor[PageParams](), paramsOf(MethodPromptsList)...)
		heldTo(reflect.TypeFor[PageParams](), paramsOf(MethodResourcesList)...)
		heldTo(reflect.TypeFor[PageParams](), paramsOf(MethodResourcesTemplatesList)...)
		heldTo(reflect.TypeFor[ExtTaskParams](), paramsOf(MethodTasksUpdate)...)
		heldTo(reflect.TypeFor[ListenFilterParams](), paramsOf(MethodSubscriptionsListen)...)
		// The tasks extension adds taskIds to the filter.
		heldTo(reflect.TypeFor[ListenParams](), append(paramsOf(MethodSubscriptionsListen), reflect.TypeFor[struct {
			Notifications exttasks.TaskSubscriptionNotifications `json:"notifications"`
		}]())...)
		heldTo(reflect.TypeFor[DeclaredCapabilities](), reflect.TypeFor[v1.ClientCapabilities](), reflect.TypeFor[v2.ClientCapabilities]())
		heldTo(reflect.TypeFor[ElicitAction](), resultsOf(MethodElicitationCreate)...)
		heldTo(reflect.TypeFor[ElicitAnswer](), resultsOf(MethodElicitationCreate)...)
		heldTo(reflect.TypeFor[SampledMessage](), resultsOf(MethodSamplingCreateMessage)...)
		heldTo(reflect.TypeFor[SampledText](), resultsOf(MethodSamplingCreateMessage)...)
		heldTo(reflect.TypeFor[ContentText](), reflect.TypeFor[v0326.TextContent](), reflect.TypeFor[v1.TextContent](), reflect.TypeFor[v2.TextContent]())
		heldTo(reflect.TypeFor[ListedRoots](), resultsOf(MethodRootsList)...)
		heldTo(reflect.TypeFor[Root](), reflect.TypeFor[v1.Root](), reflect.TypeFor[v2.Root]())
	})

	It("hold the views of a whole message to the JSON-RPC messages", func() {
		heldTo(reflect.TypeFor[MetaRequest](), reflect.TypeFor[v0326.JSONRPCRequest](), reflect.TypeFor[v1.JSONRPCRequest](), reflect.TypeFor[v2.JSONRPCRequest]())
		heldTo(reflect.TypeFor[RequestHead](), reflect.TypeFor[v1.CallToolRequest](), reflect.TypeFor[v2.CallToolRequest](), reflect.TypeFor[v2.GetPromptRequest]())
		heldTo(reflect.TypeFor[ResponseHead](), reflect.TypeFor[v1.JSONRPCResultResponse](), reflect.TypeFor[v2.JSONRPCResultResponse](), reflect.TypeFor[v2.JSONRPCRequest]())
	})

	It("fail a decode on the fields they name, and on nothing else", func() {
		var offer InitializeOffer
		Expect(json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","capabilities":"none"}`), &offer)).NotTo(Succeed())
		var version InitializeVersion
		Expect(json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","capabilities":"none"}`), &version)).To(Succeed())
		Expect(version.ProtocolVersion).To(Equal("2025-11-25"))

		var named NamedArgumentsParams
		Expect(json.Unmarshal([]byte(`{"name":"t","arguments":{"a":1},"_meta":5,"task":"x"}`), &named)).To(Succeed())
		Expect(named.Name).To(Equal("t"))
		Expect(string(named.Arguments["a"])).To(Equal("1"))

		var complete CompleteParams
		Expect(json.Unmarshal([]byte(`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":5,"value":"v"}}`), &complete)).NotTo(Succeed())
		Expect(json.Unmarshal([]byte(`{"ref":{"type":"ref/prompt","name":"p"},"argument":null,"context":5}`), &complete)).To(Succeed())

		var action ElicitAction
		Expect(json.Unmarshal([]byte(`{"action":"accept","content":5}`), &action)).To(Succeed())
		Expect(action.Action).To(Equal("accept"))
		var answer ElicitAnswer
		Expect(json.Unmarshal([]byte(`{"action":"accept","content":5}`), &answer)).NotTo(Succeed())

		var sampled SampledMessage
		Expect(json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":5}`), &sampled)).To(Succeed())
		var texts []ContentText
		Expect(json.Unmarshal(sampled.Content, &texts)).To(Succeed())
		Expect(texts).To(Equal([]ContentText{{Text: "hi"}}))

		var meta MetaRequest
		Expect(json.Unmarshal([]byte(`{"method":5,"params":{"_meta":{"k":1}}}`), &meta)).To(Succeed())
		Expect(meta.Params.Meta).To(HaveKey("k"))
		Expect(json.Unmarshal([]byte(`{"params":{"_meta":[]}}`), &meta)).NotTo(Succeed())
	})

	It("tell an absent or null field as the reference server always has", func() {
		var version InitializeVersion
		Expect(json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","protocolVersion":null}`), &version)).To(Succeed())
		Expect(version.ProtocolVersion).To(Equal("2025-11-25"), "a null leaves a string as it was")

		var listen ListenParams
		Expect(json.Unmarshal([]byte(`{"notifications":{"taskIds":null}}`), &listen)).To(Succeed())
		Expect(listen.Notifications.TaskIDs).To(BeNil())
		var filter ListenFilterParams
		Expect(json.Unmarshal([]byte(`{"notifications":{"taskIds":null}}`), &filter)).To(Succeed())
		Expect(filter.Notifications).To(HaveKey("taskIds"))

		var call CallToolTaskParams
		Expect(json.Unmarshal([]byte(`{"name":"t","task":{}}`), &call)).To(Succeed())
		Expect(call.Task).NotTo(BeNil())
		Expect(call.Task.TTL).To(BeNil())
		var plain CallToolTaskParams
		Expect(json.Unmarshal([]byte(`{"name":"t"}`), &plain)).To(Succeed())
		Expect(plain.Task).To(BeNil())
	})
})
