package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// RepeatedToolsListID is the id of tools-list's second tools/list, the one
// request the fault tools-order-unstable answers in another order.
const RepeatedToolsListID = "mcpconform-tools-list-again"

// Faults of the tools family's fixture tools (scenarios/server/tools). Each
// breaks one fixture's contract while keeping the result schema-valid, so
// that only the check that reads the result catches it.
var (
	since0326    = protocol.Where(func(v protocol.Version) bool { return v.Judged && v.Name >= protocol.V20250326 })
	stateful1125 = []string{protocol.V20251125}
	// The 2020-12 default dialect came with 2025-11-25 and stays at 2026-07-28.
	dialect2020 = []string{protocol.V20251125, protocol.V20260728}
	// The tool-name rules of tools.mdx came with 2025-11-25.
	toolNameRules = protocol.From(protocol.V20251125)
	since0618     = protocol.Where(func(v protocol.Version) bool { return v.Judged && v.Name >= protocol.V20250618 })

	ImageBadBase64 = &fault.Fault{Name: "image-bad-base64", Versions: since0326,
		Description: "test_image_content answers image data that is not base64"}
	ImageIsError = &fault.Fault{Name: "image-is-error", Versions: since0326,
		Description: "test_image_content answers its image with isError: true"}
	AudioWrongMime = &fault.Fault{Name: "audio-wrong-mime", Versions: since0326,
		Description: "test_audio_content labels its WAV audio image/png"}
	EmbeddedAsLink = &fault.Fault{Name: "embedded-as-link", Versions: since0618,
		Description: "test_embedded_resource answers a resource_link instead of an embedded resource"}
	MixedNoImage = &fault.Fault{Name: "mixed-no-image", Versions: since0326,
		Description: "test_multiple_content_types leaves the image out"}
	ErrorAsProtocolError = &fault.Fault{Name: "error-as-protocol-error", Versions: since0326,
		Description: "test_error_handling fails with a JSON-RPC error (-32603) instead of an isError result"}
	ProgressBackwards = &fault.Fault{Name: "progress-backwards",
		Description: "test_tool_with_progress reports 0, 50, 40"}
	ProgressForeignToken = &fault.Fault{Name: "progress-foreign-token",
		Description: "test_tool_with_progress reports its last step under another progressToken"}
	ProgressAfterCompletion = &fault.Fault{Name: "progress-after-completion",
		// Stateless HTTP keeps no stream open after the answer: the late
		// notification has no way to the client there.
		NotOn:       []fault.Place{{Transport: transport.HTTP, Version: protocol.V20260728}},
		Description: "test_tool_with_progress sends one more notifications/progress for the call's token after its answer"}
	ToolNameMalformed = &fault.Fault{Name: "tool-name-malformed", Versions: toolNameRules,
		Description: "also lists a tool named \"mcpconform tool, v2\" (a space and a comma)"}
	ToolNameDuplicate = &fault.Fault{Name: "tool-name-duplicate", Versions: toolNameRules,
		Description: "lists test_simple_text twice"}
	LoggingSilent = &fault.Fault{Name: "logging-silent", Versions: legacy,
		Description: "test_tool_with_logging sends no notifications/message"}
	SamplingSkipped = &fault.Fault{Name: "sampling-skipped", Versions: legacy,
		Description: "test_sampling answers without sending sampling/createMessage"}
	SamplingIsError = &fault.Fault{Name: "sampling-is-error", Versions: legacy,
		Description: "test_sampling asks the client, then answers isError: true"}
	// The core's fixtures test_simple_text and test_elicitation
	// (reference_tools.go).
	SimpleTextIsError = &fault.Fault{Name: "simple-text-is-error",
		Description: "test_simple_text answers its text with isError: true"}
	ElicitationMessageIgnored = &fault.Fault{Name: "elicitation-message-ignored", Versions: withElicitation,
		Description: "test_elicitation asks with a fixed message instead of the one it was given"}
	ElicitationResultError = &fault.Fault{Name: "elicitation-result-error", Versions: withElicitation,
		Description: "test_elicitation asks the user, then answers isError: true"}
	DefaultsWrong = &fault.Fault{Name: "elicitation-defaults-wrong", Versions: stateful1125,
		Description: "test_elicitation_sep1034_defaults gives score the default 90 instead of 95.5"}
	EnumTitlesUneven = &fault.Fault{Name: "enum-titles-uneven", Versions: stateful1125,
		Description: "test_elicitation_sep1330_enums gives legacyEnum fewer enumNames than enum values"}
	Schema2020Flattened = &fault.Fault{Name: "schema-2020-flattened", Versions: dialect2020,
		Description: "lists json_schema_2020_12_tool without its $schema"}
	UnknownToolAsResult = &fault.Fault{Name: "unknown-tool-as-result", Versions: since0326,
		Description: "answers a call of an unknown tool with an isError result instead of a JSON-RPC error"}
	UnknownToolInternalError = &fault.Fault{Name: "unknown-tool-internal-error", Versions: since0326,
		Description: "answers a call of an unknown tool with -32603 instead of -32602"}
	ValidationAsProtocolError = &fault.Fault{Name: "validation-as-protocol-error", Versions: stateful1125,
		Description: "answers arguments that fail json_schema_2020_12_tool's input schema with -32602 instead of an isError result"}
	ValidationSkipped = &fault.Fault{Name: "validation-skipped", Versions: stateful1125,
		Description: "json_schema_2020_12_tool accepts arguments its input schema refuses"}
	StructuredOffSchema = &fault.Fault{Name: "structured-off-schema", Versions: since0618,
		Description: "test_structured_content answers temperature as a string where its outputSchema says number"}
	StructuredNoText = &fault.Fault{Name: "structured-no-text", Versions: since0618,
		Description: "test_structured_content answers structuredContent with a text item that is not its JSON"}
	// Scoped to one request id, which only tools-list sends, so that every
	// other scenario's lists (pagination, caching, names) keep their order.
	ToolsOrderUnstable = &fault.Fault{Name: "tools-order-unstable", Versions: []string{protocol.V20260728},
		Description: "answers a tools/list whose id is " + RepeatedToolsListID + " (tools-list's second list) with the same tools, the first moved last"}
	Schema2020NoConditionals = &fault.Fault{Name: "schema-2020-no-conditionals", Versions: dialect2020,
		Description: "lists json_schema_2020_12_tool without its if/then/else"}
)

// The paging faults of tools/list (server/utilities/pagination.mdx), at
// every version: the reference lists its tools on one page and refuses any
// cursor, for it never gives one.
var (
	ToolsListNeverEnds = &fault.Fault{Name: "tools-list-never-ends",
		Description: "gives every tools/list page a new nextCursor (tools-page-2, tools-page-3, …) and answers each with the tools again"}
	ToolsListCursorRepeats = &fault.Fault{Name: "tools-list-cursor-repeats",
		Description: "gives every tools/list page the same nextCursor, tools-again, and answers it with the tools again"}
	ToolsInvalidCursorAccepted = &fault.Fault{Name: "tools-invalid-cursor-accepted",
		Description: "answers tools/list with a cursor it never gave with the first page"}
)

// withElicitation are the session versions that have elicitation.
var withElicitation = []string{protocol.V20251125, protocol.V20250618}

var toolFixtureFaults = fault.Set{SimpleTextIsError, ElicitationMessageIgnored, ElicitationResultError, ImageBadBase64, ImageIsError, AudioWrongMime, EmbeddedAsLink, MixedNoImage,
	ErrorAsProtocolError, ProgressBackwards, ProgressForeignToken, ProgressAfterCompletion, ToolNameMalformed, ToolNameDuplicate, LoggingSilent, SamplingSkipped, SamplingIsError,
	DefaultsWrong, EnumTitlesUneven, Schema2020Flattened, Schema2020NoConditionals, ToolsOrderUnstable,
	UnknownToolAsResult, UnknownToolInternalError, ValidationAsProtocolError, ValidationSkipped, StructuredOffSchema, StructuredNoText,
	ToolsListNeverEnds, ToolsListCursorRepeats, ToolsInvalidCursorAccepted}

// Liberties: choices the spec leaves to the server.
var (
	ToolNameDotted = &fault.Fault{Name: "tool-name-dotted", Liberty: true, Versions: toolNameRules,
		Description: "also lists a tool named admin.tools.list-v2_X: dots, a hyphen, an underscore, upper case, all allowed"}
	ProgressFloats = &fault.Fault{Name: "progress-floats", Liberty: true,
		Freedom:     "The `progress` and the `total` values **MAY** be floating point.",
		Description: "test_tool_with_progress reports 0.5, 1.25, 2.75 of no total"}
	ToolsPagesOfOne = &fault.Fault{Name: "tools-pages-of-one", Liberty: true,
		Freedom:     "Page size is determined by the server, and clients MUST NOT assume a fixed page size.",
		Description: "lists its tools one per page (opaque cursors tools-from-N)"}
	ImageJPEG = &fault.Fault{Name: "image-jpeg", Liberty: true, Versions: since0326,
		Freedom:     "The MIME type of the image. Different providers may support different image types.",
		Description: "test_image_content answers a JPEG"}
)

var toolFixtureLiberties = fault.Set{ToolNameDotted, ProgressFloats, ImageJPEG, ToolsPagesOfOne}
