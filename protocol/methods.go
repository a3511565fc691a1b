package protocol

import "strings"

// JSON-RPC method names. Where a method exists only in some versions, the
// comment says which; 2026-07-28 changes are listed in its changelog
// (/specification/2026-07-28/changelog).
const (
	// Lifecycle (stateful versions only: /specification/2025-11-25/basic/lifecycle).
	MethodInitialize        = "initialize"
	NotificationInitialized = "notifications/initialized"
	// MethodPing is removed in 2026-07-28.
	MethodPing = "ping"
	// MethodServerDiscover is 2026-07-28 only (/specification/2026-07-28/server/discover).
	MethodServerDiscover = "server/discover"

	MethodToolsList = "tools/list"
	MethodToolsCall = "tools/call"

	MethodPromptsList = "prompts/list"
	MethodPromptsGet  = "prompts/get"

	MethodResourcesList          = "resources/list"
	MethodResourcesTemplatesList = "resources/templates/list"
	MethodResourcesRead          = "resources/read"
	// Resource subscriptions: replaced by subscriptions/listen in 2026-07-28.
	MethodResourcesSubscribe   = "resources/subscribe"
	MethodResourcesUnsubscribe = "resources/unsubscribe"
	// MethodSubscriptionsListen is 2026-07-28 only
	// (/specification/2026-07-28/basic/patterns/subscriptions).
	MethodSubscriptionsListen = "subscriptions/listen"

	MethodCompletionComplete = "completion/complete"
	// MethodLoggingSetLevel is removed in 2026-07-28 (the level travels in
	// _meta as MetaLogLevel).
	MethodLoggingSetLevel = "logging/setLevel"

	// Client features. In 2026-07-28 these are no longer sent as requests
	// but as inputRequests of an InputRequiredResult
	// (/specification/2026-07-28/basic/patterns/mrtr).
	MethodSamplingCreateMessage = "sampling/createMessage"
	MethodElicitationCreate     = "elicitation/create"
	MethodRootsList             = "roots/list"

	// Tasks. 2025-11-25 has get/result/list/cancel in the core protocol
	// (/specification/2025-11-25/basic/utilities/tasks); in 2026-07-28 tasks
	// are the io.modelcontextprotocol/tasks extension with get/update/cancel.
	MethodTasksGet    = "tasks/get"
	MethodTasksResult = "tasks/result"
	MethodTasksList   = "tasks/list"
	MethodTasksCancel = "tasks/cancel"
	MethodTasksUpdate = "tasks/update"

	// Notifications.
	NotificationCancelled            = "notifications/cancelled"
	NotificationProgress             = "notifications/progress"
	NotificationMessage              = "notifications/message"
	NotificationResourcesUpdated     = "notifications/resources/updated"
	NotificationResourcesListChanged = "notifications/resources/list_changed"
	NotificationPromptsListChanged   = "notifications/prompts/list_changed"
	NotificationToolsListChanged     = "notifications/tools/list_changed"
	// NotificationRootsListChanged is removed in 2026-07-28.
	NotificationRootsListChanged = "notifications/roots/list_changed"
	// NotificationElicitationComplete is 2025-11-25 only.
	NotificationElicitationComplete = "notifications/elicitation/complete"
	// NotificationTasksStatus is the 2025-11-25 task status notification.
	NotificationTasksStatus = "notifications/tasks/status"
	// NotificationTasks is the tasks extension's status notification
	// (2026-07-28 with io.modelcontextprotocol/tasks).
	NotificationTasks = "notifications/tasks"
	// NotificationSubscriptionsAcknowledged is 2026-07-28 only.
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// IsNotification reports whether method names a notification (by the
// "notifications/" prefix every MCP notification uses).
func IsNotification(method string) bool {
	return strings.HasPrefix(method, "notifications/")
}
