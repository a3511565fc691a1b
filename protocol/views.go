package protocol

import "encoding/json"

// Views of what a peer under test sends, for the checks that judge it.
//
// The generated types of each version (protocol/v2025…) validate as they
// decode: a result missing one required field does not decode at all. A
// check must judge the one thing it is about even when the target got
// something else wrong (that is the wire-schema check's to judge), so what
// a target sends is read through these lenient views: every field optional,
// nothing validated, one view for the shape every version shares. The
// views name only fields the generated types have (views_test.go holds
// them to it), so they cannot drift from the schema; what our own peers
// send is validated against the version's schema before it leaves. A view
// names only the fields some check reads: any other field, sent with the
// wrong type, would fail the decode of the ones the check does read.

// Content is one content block of a tool result, a prompt message or a
// sampling message: text, image, audio, resource_link or resource.
type Content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     string            `json:"data,omitempty"`
	MimeType string            `json:"mimeType,omitempty"`
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is one item of resources/read's contents, or the
// resource of an embedded resource: text or blob.
type ResourceContents struct {
	URI  string  `json:"uri"`
	Text *string `json:"text,omitempty"`
	Blob *string `json:"blob,omitempty"`
}

// ToolResult is a CallToolResult.
type ToolResult struct {
	Content           []Content       `json:"content"`
	IsError           bool            `json:"isError,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// Tool is one tool of tools/list; the schemas stay raw, for the checks
// that judge them.
type Tool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    ToolExecution   `json:"execution,omitzero"`
}

// ToolExecution is a tool's execution (2025-11-25): whether it runs as a
// task ("forbidden", "optional", "required"; absent is "forbidden").
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ToolsPage is a ListToolsResult.
type ToolsPage struct {
	Tools      []Tool  `json:"tools"`
	NextCursor *string `json:"nextCursor,omitempty"`
}

// Prompt is one prompt of prompts/list.
type Prompt struct {
	Name      string           `json:"name"`
	Arguments []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name     string `json:"name"`
	Required bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a GetPromptResult.
type PromptMessage struct {
	Content Content `json:"content"`
}

// PromptResult is a GetPromptResult.
type PromptResult struct {
	Messages []PromptMessage `json:"messages"`
}

// Resource is one resource of resources/list.
type Resource struct {
	URI string `json:"uri"`
}

// ResourceTemplate is one template of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
}

// ResourceTemplatesPage is a ListResourceTemplatesResult.
type ResourceTemplatesPage struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
}

// ReadResult is a ReadResourceResult.
type ReadResult struct {
	Contents []ResourceContents `json:"contents"`
}

// CompleteResult is completion/complete's result; Completion is nil when
// the result has none.
type CompleteResult struct {
	Completion *Completion `json:"completion"`
}

// Completion is a CompleteResult's completion: Values is nil when absent.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore *bool    `json:"hasMore,omitempty"`
}

// ProgressParams are a progress notification's params.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      *float64        `json:"progress"`
}

// LogParams are a notifications/message's params.
type LogParams struct {
	Data json.RawMessage `json:"data"`
}

// Page is the paging of any list result: nextCursor, absent on the last
// page.
type Page struct {
	NextCursor *string `json:"nextCursor,omitempty"`
}

// Implementation names a peer: serverInfo, clientInfo, and the value of
// _meta's io.modelcontextprotocol/serverInfo (2026-07-28).
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is initialize's result (the versions with a handshake).
type InitializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
}

// ErrorObject is a JSON-RPC error object where a result carries one (a
// failed task's error); code and message are pointers, to tell one absent.
type ErrorObject struct {
	Code    *int            `json:"code"`
	Message *string         `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// MissingCapabilityData is the data of a
// MissingRequiredClientCapabilityError (-32021): the client capabilities
// the request needs, each raw.
type MissingCapabilityData struct {
	RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
}

// Task is a task as a CreateTaskResult and tasks/get give it (2025-11-25).
type Task struct {
	Status string `json:"status"`
	// TTL is null for unlimited, nil when absent or null.
	TTL *int64 `json:"ttl"`
}

// CreateTaskResult is the answer to a task-augmented request (2025-11-25).
type CreateTaskResult struct {
	Task Task `json:"task"`
}

// Cacheable is the caching of a result (2026-07-28), as sent: each field
// nil when absent or null; ttlMs and cacheScope stay raw, for the checks
// that judge their type.
type Cacheable struct {
	ResultType *string          `json:"resultType,omitempty"`
	TTLMs      *json.RawMessage `json:"ttlMs,omitempty"`
	CacheScope *json.RawMessage `json:"cacheScope,omitempty"`
}
