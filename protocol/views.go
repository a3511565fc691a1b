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
// send is validated against the version's schema before it leaves.

// Content is one content block of a tool result, a prompt message or a
// sampling message: text, image, audio, resource_link or resource.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// URI and Name are a resource_link's.
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is one item of resources/read's contents, or the
// resource of an embedded resource: text or blob.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// ToolResult is a CallToolResult.
type ToolResult struct {
	Content           []Content       `json:"content"`
	IsError           bool            `json:"isError,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// ResultType is 2026-07-28's ("complete", "input_required", "task").
	ResultType string `json:"resultType,omitempty"`
}

// Tool is one tool of tools/list; the schemas stay raw, for the checks
// that judge them.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    json.RawMessage `json:"execution,omitempty"`
}

// ToolsPage is a ListToolsResult.
type ToolsPage struct {
	Tools      []Tool  `json:"tools"`
	NextCursor *string `json:"nextCursor,omitempty"`
}

// Prompt is one prompt of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name     string `json:"name"`
	Required bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a GetPromptResult.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptResult is a GetPromptResult.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// Resource is one resource of resources/list.
type Resource struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"`
}

// ResourceTemplate is one template of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ReadResult is a ReadResourceResult.
type ReadResult struct {
	Contents []ResourceContents `json:"contents"`
}

// CompleteResult is completion/complete's result.
type CompleteResult struct {
	Completion struct {
		Values  []string `json:"values"`
		Total   *int     `json:"total,omitempty"`
		HasMore *bool    `json:"hasMore,omitempty"`
	} `json:"completion"`
}

// ProgressParams are a progress notification's params.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      *float64        `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// LogParams are a notifications/message's params.
type LogParams struct {
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}
