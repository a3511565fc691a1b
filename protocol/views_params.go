package protocol

import "encoding/json"

// Views of what a client sends a server, as the reference server reads it:
// the params of its requests, the results it answers the server's own
// requests with (elicitation, sampling, roots), and the JSON-RPC message an
// HTTP front peeks at before the message is served. Lenient as the views
// of views.go, and held to the generated types the same way
// (views_params_test.go).
//
// The reference server's answers, and the error it refuses a message with,
// must not change with the view it reads through. So where it fails the
// whole message on a decode error, a view here names exactly the fields,
// with exactly the Go types, it refused a message on, even one it does not
// read beyond its type; a field's type decides which values fail it, and
// also what a repeated member or a null does (a null leaves a string as it
// was, but sets a pointer or a map to nil). A view shared with a reader
// that ignores the decode error may name more, for that reader reads each
// field on its own.

// InitializeVersion is initialize's params read for the version asked for
// only: "" when absent or null; anything else of the params, malformed,
// does not hide it.
type InitializeVersion struct {
	ProtocolVersion string `json:"protocolVersion"`
}

// InitializeOffer is initialize's params as a server answers them: the
// version the client asks for ("" when absent or null) and its
// capabilities, each free-form; capabilities that are no object fail it.
type InitializeOffer struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
}

// NamedArgumentsParams are the params of a tools/call or a prompts/get: the
// tool's or the prompt's name, and its arguments, each raw (nil when
// absent). Nothing else is read, so a malformed _meta or task does not
// hide them.
type NamedArgumentsParams struct {
	Name      string                     `json:"name"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

// CallToolTaskParams are a tools/call's params as a server runs the call:
// the tool's name, its arguments whole and raw (for the tool to read), and
// the task the call asks to run as (2025-11-25), nil when none.
type CallToolTaskParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Task      *TaskMetadata   `json:"task"`
}

// ReadResourceParams are a resources/read's params.
type ReadResourceParams struct {
	URI string `json:"uri"`
}

// SetLevelParams are a logging/setLevel's params.
type SetLevelParams struct {
	Level string `json:"level"`
}

// CompleteParams are a completion/complete's params. Ref and Argument are
// objects, not pointers: a null one reads as empty. Argument's name is not
// read, but a complete whose argument name is no string fails the decode.
type CompleteParams struct {
	Ref      CompleteRef      `json:"ref"`
	Argument CompleteArgument `json:"argument"`
}

// CompleteRef is a completion/complete's ref: a prompt ("ref/prompt", its
// name) or a resource template ("ref/resource", its uri).
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name"`
	URI  string `json:"uri"`
}

// CompleteArgument is the argument a completion/complete completes.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ListenParams are a subscriptions/listen's params (2026-07-28), the
// filter read for what it asks: an object, not a pointer (a null one asks
// for nothing).
type ListenParams struct {
	Notifications ListenFilter `json:"notifications"`
}

// ListenFilter is what a subscriptions/listen asks to be told of: the list
// changes it names true, and the task ids of the tasks extension (nil when
// absent or null).
type ListenFilter struct {
	ToolsListChanged   bool     `json:"toolsListChanged"`
	PromptsListChanged bool     `json:"promptsListChanged"`
	TaskIDs            []string `json:"taskIds"`
}

// ListenFilterParams are a subscriptions/listen's params read for which
// filters it names, each raw, by its exact name: a null one is named too.
type ListenFilterParams struct {
	Notifications map[string]json.RawMessage `json:"notifications"`
}

// ExtTaskParams are the params of the tasks extension's tasks/get,
// tasks/update and tasks/cancel (2026-07-28): the task's id and, in
// tasks/update, the responses to its input requests, each raw.
type ExtTaskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// DeclaredCapabilities are the client capabilities a request declares in
// its _meta (2026-07-28): the extensions by name, each raw, and a tasks
// capability (2025-11-25's), raw.
type DeclaredCapabilities struct {
	Extensions map[string]json.RawMessage `json:"extensions"`
	Tasks      json.RawMessage            `json:"tasks"`
}

// ElicitAction is an elicitation/create's result read for its action
// only: a malformed content does not hide it.
type ElicitAction struct {
	Action string `json:"action"`
}

// ElicitAnswer is an elicitation/create's result with each value of its
// content raw, for the reader to read as the type it asked for.
type ElicitAnswer struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content"`
}

// SampledMessage is a sampling/createMessage's result read for its role and
// its content, raw: one block or, from 2025-11-25, an array of them.
type SampledMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// SampledText is a sampling/createMessage's result read for the text of
// its one content block ("" when it has none).
type SampledText struct {
	Content ContentText `json:"content"`
}

// ContentText is a content block read for its text only.
type ContentText struct {
	Text string `json:"text"`
}

// ListedRoots is a roots/list's result read for the uri of each root.
type ListedRoots struct {
	Roots []Root `json:"roots"`
}

// Root is one root of a roots/list's result.
type Root struct {
	URI string `json:"uri"`
}

// MetaRequest is a JSON-RPC request read for its params' _meta only, as an
// HTTP front peeks at a body before the request is served.
type MetaRequest struct {
	Params Meta `json:"params"`
}

// RequestHead is a JSON-RPC request as an HTTP front peeks at its body
// before it is served: its method and, for a tools/call or a prompts/get,
// the params' name and arguments.
type RequestHead struct {
	Method string               `json:"method"`
	Params NamedArgumentsParams `json:"params"`
}

// ResponseHead is a JSON-RPC message read to tell a response and what its
// result holds: the id raw, the method ("" for a response), each member of
// the result raw.
type ResponseHead struct {
	ID     json.RawMessage            `json:"id"`
	Method string                     `json:"method"`
	Result map[string]json.RawMessage `json:"result"`
}
