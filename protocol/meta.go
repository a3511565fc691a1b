package protocol

// Reserved `_meta` keys (/specification/2026-07-28/basic/index#meta, and
// /specification/2025-11-25/basic/utilities/tasks for the task keys).
const (
	// MetaProgressToken opts a request into notifications/progress.
	MetaProgressToken = "progressToken"

	// Per-request fields of stateless versions (2026-07-28). Protocol
	// version and client capabilities are required on every request.
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaLogLevel replaces logging/setLevel in 2026-07-28.
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaServerInfo is what servers SHOULD put in every result's _meta (2026-07-28).
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaSubscriptionID tags notifications sent on a subscriptions/listen
	// stream (2026-07-28).
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

	// MetaRelatedTask associates a message with a task (2025-11-25).
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
	// MetaModelImmediateResponse is an optional CreateTaskResult _meta
	// string for the model to read while the task runs (2025-11-25).
	MetaModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"

	// OpenTelemetry trace context propagation (2026-07-28, SEP-414).
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
	MetaBaggage     = "baggage"
)

// ExtensionTasks identifies the tasks extension in capabilities.extensions
// (/specification/2026-07-28/basic/versioning#extension-negotiation).
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// HTTP headers of the Streamable HTTP transport
// (/specification/2026-07-28/basic/transports/streamable-http).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderSessionID exists in stateful versions only; 2026-07-28 removes it.
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderMethod and HeaderName are required on 2026-07-28 POSTs (SEP-2243).
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)
