package protocol

import "encoding/json"

// Views of what the peers of the client side send: the requests a client
// under test makes of the fake server (tools/call, tasks/*, initialize),
// the results it answers with (elicitation, sampling, roots), and what a
// server under test answers the fake client. Lenient as the views of
// views.go, and held to the generated types the same way
// (views_client_test.go).
//
// Where a reader fails the whole message on a decode error, the view names
// nothing it does not read, or keeps it raw: a field a view adds must not
// make a message fail that read before.

// Meta is the _meta of any params or result, each value raw (absent keys
// are absent from the map).
type Meta struct {
	Meta map[string]json.RawMessage `json:"_meta,omitempty"`
}

// RelatedTask is the value of _meta's io.modelcontextprotocol/related-task.
// Read from params, it is what names a task: the params of tasks/get,
// tasks/result and tasks/cancel, and a task status notification's taskId.
type RelatedTask struct {
	TaskID string `json:"taskId"`
}

// InitializeParams are initialize's params as the fake server reads them:
// the version the client asks for (nil when absent, null or no string) and
// its capabilities, raw (a malformed one must not hide the version).
type InitializeParams struct {
	ProtocolVersion *string         `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
}

// InitializeReply is initialize's result as a client reads it to go on:
// the version the server chose and its capabilities, raw. Nothing else is
// read, so nothing else (a malformed serverInfo) can stop a handshake.
type InitializeReply struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
}

// DiscoverResult is server/discover's result (2026-07-28); the
// capabilities stay raw.
type DiscoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
}

// TasksCapability is the tasks capability a client declares (2025-11-25):
// list and cancel are raw (an empty object declares them), requests is by
// request type, then method ("sampling": {"createMessage": {}}).
type TasksCapability struct {
	List     json.RawMessage                       `json:"list,omitempty"`
	Cancel   json.RawMessage                       `json:"cancel,omitempty"`
	Requests map[string]map[string]json.RawMessage `json:"requests,omitempty"`
}

// UnsupportedVersionData is the data of an UnsupportedProtocolVersionError
// (-32022), which initialize's refusal of a version also carries
// (lifecycle.mdx, Error Handling: data.supported).
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested,omitempty"`
}

// CallToolParams are a tools/call's params; each argument stays raw.
type CallToolParams struct {
	Name      string                     `json:"name"`
	Arguments map[string]json.RawMessage `json:"arguments,omitempty"`
	Meta      map[string]json.RawMessage `json:"_meta,omitempty"`
}

// PageParams are the params of a list request: the cursor, nil when absent.
type PageParams struct {
	Cursor *string `json:"cursor,omitempty"`
}

// CancelledParams are a notifications/cancelled's params; the request id
// stays raw, as jsonrpc.ID keeps ids.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId,omitempty"`
}

// ListedTool is a tool of tools/list as a client needs it to call it: its
// name and input schema, raw. Nothing else is read, so a malformed title or
// description does not hide the tools.
type ListedTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// ListedTools is a ListToolsResult read for its ListedTools.
type ListedTools struct {
	Tools []ListedTool `json:"tools"`
}

// PromptsPage is a ListPromptsResult.
type PromptsPage struct {
	Prompts []Prompt `json:"prompts"`
}

// ResourcesPage is a ListResourcesResult.
type ResourcesPage struct {
	Resources []Resource `json:"resources"`
}

// ObjectSchema is the flat object schema of a tool's inputSchema or an
// elicitation's requestedSchema; each property stays free-form.
type ObjectSchema struct {
	Properties map[string]map[string]any `json:"properties,omitempty"`
	Required   []string                  `json:"required,omitempty"`
}

// ElicitParams are an elicitation/create's params: the mode ("" when
// absent, which is form; 2025-11-25), the form's message and requested
// schema.
type ElicitParams struct {
	Mode            string       `json:"mode,omitempty"`
	Message         string       `json:"message"`
	RequestedSchema ObjectSchema `json:"requestedSchema"`
}

// ElicitResult is an elicitation/create's result.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// CreateMessageParams are a sampling/createMessage's params; the messages
// stay raw (a message's content is one block or, from 2025-11-25, an
// array of them).
type CreateMessageParams struct {
	Messages []json.RawMessage `json:"messages"`
	// Tools are the tools the model may use (2025-11-25).
	Tools []Tool `json:"tools,omitempty"`
}

// CreateMessageResult is a sampling/createMessage's result; the content
// stays raw: one block or, from 2025-11-25, an array of them.
type CreateMessageResult struct {
	Content    json.RawMessage `json:"content"`
	StopReason string          `json:"stopReason,omitempty"`
}

// ListRootsResult is a roots/list's result; each root stays raw, for a
// check to read its members by their exact names.
type ListRootsResult struct {
	Roots []json.RawMessage `json:"roots"`
}

// InputRequest is one request of an InputRequiredResult's inputRequests
// (2026-07-28): elicitation/create, sampling/createMessage or roots/list;
// its params stay raw, to be read as the method's.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// TaskMetadata is the task a task-augmented request asks for (2025-11-25):
// the ttl, nil when absent or null.
type TaskMetadata struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// TaskAugmentedParams are a request's params read for the task it asks
// for: nil when it asks for none.
type TaskAugmentedParams struct {
	Task *TaskMetadata `json:"task,omitempty"`
}

// CreateTaskReply is a CreateTaskResult as a client reads it: the task
// stays raw, for the reader's own task type.
type CreateTaskReply struct {
	Task json.RawMessage `json:"task,omitempty"`
}

// TasksPage is a ListTasksResult; each task stays raw, for the reader's
// own task type.
type TasksPage struct {
	Tasks      []json.RawMessage `json:"tasks"`
	NextCursor *string           `json:"nextCursor,omitempty"`
}
