package protocol

import (
	"reflect"

	"github.com/mcpconform/mcpconform/protocol/exttasks"
	v0326 "github.com/mcpconform/mcpconform/protocol/v20250326"
	v0618 "github.com/mcpconform/mcpconform/protocol/v20250618"
	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
	v2 "github.com/mcpconform/mcpconform/protocol/v20260728"
)

// entry maps a method of one version to its generated types.
type entry struct {
	// request is the JSON-RPC request or notification message type.
	request reflect.Type
	// result is nil for notifications.
	result reflect.Type
	// task is the result type when the receiver answers with a task handle
	// instead of the result (2025-11-25 task augmentation, or the 2026-07-28
	// tasks extension's resultType "task").
	task reflect.Type
	// inputRequired: in 2026-07-28 the result may be an InputRequiredResult
	// (/specification/2026-07-28/basic/patterns/mrtr#supported-requests).
	inputRequired bool
}

func request[Req, Res any]() entry {
	return entry{request: reflect.TypeFor[Req](), result: reflect.TypeFor[Res]()}
}

func notification[N any]() entry {
	return entry{request: reflect.TypeFor[N]()}
}

func (e entry) withTask(t reflect.Type) entry { e.task = t; return e }

func (e entry) withInputRequired() entry { e.inputRequired = true; return e }

// registry maps each version with a schema of its own to its methods: only
// the methods that version's schema has (no elicitation before 2025-06-18,
// no tasks before 2025-11-25).
var registry = map[string]map[string]entry{
	// 2025-03-26: the first schema with batches (JSONRPCBatchRequest), no
	// elicitation, no structured tool output.
	V20250326: {
		MethodInitialize:             request[v0326.InitializeRequest, v0326.InitializeResult](),
		MethodPing:                   request[v0326.PingRequest, v0326.Result](),
		MethodToolsList:              request[v0326.ListToolsRequest, v0326.ListToolsResult](),
		MethodToolsCall:              request[v0326.CallToolRequest, v0326.CallToolResult](),
		MethodPromptsList:            request[v0326.ListPromptsRequest, v0326.ListPromptsResult](),
		MethodPromptsGet:             request[v0326.GetPromptRequest, v0326.GetPromptResult](),
		MethodResourcesList:          request[v0326.ListResourcesRequest, v0326.ListResourcesResult](),
		MethodResourcesTemplatesList: request[v0326.ListResourceTemplatesRequest, v0326.ListResourceTemplatesResult](),
		MethodResourcesRead:          request[v0326.ReadResourceRequest, v0326.ReadResourceResult](),
		MethodResourcesSubscribe:     request[v0326.SubscribeRequest, v0326.Result](),
		MethodResourcesUnsubscribe:   request[v0326.UnsubscribeRequest, v0326.Result](),
		MethodCompletionComplete:     request[v0326.CompleteRequest, v0326.CompleteResult](),
		MethodLoggingSetLevel:        request[v0326.SetLevelRequest, v0326.Result](),
		MethodSamplingCreateMessage:  request[v0326.CreateMessageRequest, v0326.CreateMessageResult](),
		MethodRootsList:              request[v0326.ListRootsRequest, v0326.ListRootsResult](),

		NotificationInitialized:          notification[v0326.InitializedNotification](),
		NotificationCancelled:            notification[v0326.CancelledNotification](),
		NotificationProgress:             notification[v0326.ProgressNotification](),
		NotificationMessage:              notification[v0326.LoggingMessageNotification](),
		NotificationResourcesUpdated:     notification[v0326.ResourceUpdatedNotification](),
		NotificationResourcesListChanged: notification[v0326.ResourceListChangedNotification](),
		NotificationPromptsListChanged:   notification[v0326.PromptListChangedNotification](),
		NotificationToolsListChanged:     notification[v0326.ToolListChangedNotification](),
		NotificationRootsListChanged:     notification[v0326.RootsListChangedNotification](),
	},
	// 2025-06-18: adds elicitation/create; no tasks, no
	// notifications/elicitation/complete.
	V20250618: {
		MethodInitialize:             request[v0618.InitializeRequest, v0618.InitializeResult](),
		MethodPing:                   request[v0618.PingRequest, v0618.Result](),
		MethodToolsList:              request[v0618.ListToolsRequest, v0618.ListToolsResult](),
		MethodToolsCall:              request[v0618.CallToolRequest, v0618.CallToolResult](),
		MethodPromptsList:            request[v0618.ListPromptsRequest, v0618.ListPromptsResult](),
		MethodPromptsGet:             request[v0618.GetPromptRequest, v0618.GetPromptResult](),
		MethodResourcesList:          request[v0618.ListResourcesRequest, v0618.ListResourcesResult](),
		MethodResourcesTemplatesList: request[v0618.ListResourceTemplatesRequest, v0618.ListResourceTemplatesResult](),
		MethodResourcesRead:          request[v0618.ReadResourceRequest, v0618.ReadResourceResult](),
		MethodResourcesSubscribe:     request[v0618.SubscribeRequest, v0618.Result](),
		MethodResourcesUnsubscribe:   request[v0618.UnsubscribeRequest, v0618.Result](),
		MethodCompletionComplete:     request[v0618.CompleteRequest, v0618.CompleteResult](),
		MethodLoggingSetLevel:        request[v0618.SetLevelRequest, v0618.Result](),
		MethodSamplingCreateMessage:  request[v0618.CreateMessageRequest, v0618.CreateMessageResult](),
		MethodElicitationCreate:      request[v0618.ElicitRequest, v0618.ElicitResult](),
		MethodRootsList:              request[v0618.ListRootsRequest, v0618.ListRootsResult](),

		NotificationInitialized:          notification[v0618.InitializedNotification](),
		NotificationCancelled:            notification[v0618.CancelledNotification](),
		NotificationProgress:             notification[v0618.ProgressNotification](),
		NotificationMessage:              notification[v0618.LoggingMessageNotification](),
		NotificationResourcesUpdated:     notification[v0618.ResourceUpdatedNotification](),
		NotificationResourcesListChanged: notification[v0618.ResourceListChangedNotification](),
		NotificationPromptsListChanged:   notification[v0618.PromptListChangedNotification](),
		NotificationToolsListChanged:     notification[v0618.ToolListChangedNotification](),
		NotificationRootsListChanged:     notification[v0618.RootsListChangedNotification](),
	},
	V20251125: {
		MethodInitialize:             request[v1.InitializeRequest, v1.InitializeResult](),
		MethodPing:                   request[v1.PingRequest, v1.Result](),
		MethodToolsList:              request[v1.ListToolsRequest, v1.ListToolsResult](),
		MethodToolsCall:              request[v1.CallToolRequest, v1.CallToolResult]().withTask(reflect.TypeFor[v1.CreateTaskResult]()),
		MethodPromptsList:            request[v1.ListPromptsRequest, v1.ListPromptsResult](),
		MethodPromptsGet:             request[v1.GetPromptRequest, v1.GetPromptResult](),
		MethodResourcesList:          request[v1.ListResourcesRequest, v1.ListResourcesResult](),
		MethodResourcesTemplatesList: request[v1.ListResourceTemplatesRequest, v1.ListResourceTemplatesResult](),
		MethodResourcesRead:          request[v1.ReadResourceRequest, v1.ReadResourceResult](),
		MethodResourcesSubscribe:     request[v1.SubscribeRequest, v1.Result](),
		MethodResourcesUnsubscribe:   request[v1.UnsubscribeRequest, v1.Result](),
		MethodCompletionComplete:     request[v1.CompleteRequest, v1.CompleteResult](),
		MethodLoggingSetLevel:        request[v1.SetLevelRequest, v1.Result](),
		MethodSamplingCreateMessage:  request[v1.CreateMessageRequest, v1.CreateMessageResult]().withTask(reflect.TypeFor[v1.CreateTaskResult]()),
		MethodElicitationCreate:      request[v1.ElicitRequest, v1.ElicitResult]().withTask(reflect.TypeFor[v1.CreateTaskResult]()),
		MethodRootsList:              request[v1.ListRootsRequest, v1.ListRootsResult](),
		MethodTasksGet:               request[v1.GetTaskRequest, v1.GetTaskResult](),
		MethodTasksResult:            request[v1.GetTaskPayloadRequest, v1.GetTaskPayloadResult](),
		MethodTasksList:              request[v1.ListTasksRequest, v1.ListTasksResult](),
		MethodTasksCancel:            request[v1.CancelTaskRequest, v1.CancelTaskResult](),

		NotificationInitialized:          notification[v1.InitializedNotification](),
		NotificationCancelled:            notification[v1.CancelledNotification](),
		NotificationProgress:             notification[v1.ProgressNotification](),
		NotificationMessage:              notification[v1.LoggingMessageNotification](),
		NotificationResourcesUpdated:     notification[v1.ResourceUpdatedNotification](),
		NotificationResourcesListChanged: notification[v1.ResourceListChangedNotification](),
		NotificationPromptsListChanged:   notification[v1.PromptListChangedNotification](),
		NotificationToolsListChanged:     notification[v1.ToolListChangedNotification](),
		NotificationRootsListChanged:     notification[v1.RootsListChangedNotification](),
		NotificationElicitationComplete:  notification[v1.ElicitationCompleteNotification](),
		NotificationTasksStatus:          notification[v1.TaskStatusNotification](),
	},
	V20260728: {
		MethodServerDiscover:         request[v2.DiscoverRequest, v2.DiscoverResult](),
		MethodToolsList:              request[v2.ListToolsRequest, v2.ListToolsResult](),
		MethodToolsCall:              request[v2.CallToolRequest, v2.CallToolResult]().withInputRequired().withTask(reflect.TypeFor[exttasks.CreateTaskResult]()),
		MethodPromptsList:            request[v2.ListPromptsRequest, v2.ListPromptsResult](),
		MethodPromptsGet:             request[v2.GetPromptRequest, v2.GetPromptResult]().withInputRequired(),
		MethodResourcesList:          request[v2.ListResourcesRequest, v2.ListResourcesResult](),
		MethodResourcesTemplatesList: request[v2.ListResourceTemplatesRequest, v2.ListResourceTemplatesResult](),
		MethodResourcesRead:          request[v2.ReadResourceRequest, v2.ReadResourceResult]().withInputRequired(),
		MethodSubscriptionsListen:    request[v2.SubscriptionsListenRequest, v2.SubscriptionsListenResult](),
		MethodCompletionComplete:     request[v2.CompleteRequest, v2.CompleteResult](),
		// Input requests of an InputRequiredResult, answered in inputResponses.
		MethodSamplingCreateMessage: request[v2.CreateMessageRequest, v2.CreateMessageResult](),
		MethodElicitationCreate:     request[v2.ElicitRequest, v2.ElicitResult](),
		MethodRootsList:             request[v2.ListRootsRequest, v2.ListRootsResult](),
		// The io.modelcontextprotocol/tasks extension.
		MethodTasksGet:    request[exttasks.GetTaskRequest, exttasks.GetTaskResult](),
		MethodTasksUpdate: request[exttasks.UpdateTaskRequest, exttasks.UpdateTaskResult](),
		MethodTasksCancel: request[exttasks.CancelTaskRequest, exttasks.CancelTaskResult](),

		NotificationCancelled:                 notification[v2.CancelledNotification](),
		NotificationProgress:                  notification[v2.ProgressNotification](),
		NotificationMessage:                   notification[v2.LoggingMessageNotification](),
		NotificationResourcesUpdated:          notification[v2.ResourceUpdatedNotification](),
		NotificationResourcesListChanged:      notification[v2.ResourceListChangedNotification](),
		NotificationPromptsListChanged:        notification[v2.PromptListChangedNotification](),
		NotificationToolsListChanged:          notification[v2.ToolListChangedNotification](),
		NotificationSubscriptionsAcknowledged: notification[v2.SubscriptionsAcknowledgedNotification](),
		NotificationTasks:                     notification[exttasks.TaskStatusNotification](),
	},
}

// inputRequiredResult is the 2026-07-28 interim result of a multi
// round-trip request.
var inputRequiredResult = reflect.TypeFor[v2.InputRequiredResult]()
