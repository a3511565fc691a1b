package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults and liberties of the reference client's answers and transport use
// at 2025-11-25 and earlier (the client surface). Each fault breaks one
// rule; they need the initialize handshake, where server-to-client requests
// travel as requests.
var (
	// elicitationVersions have elicitation (it came with 2025-06-18).
	elicitationVersions = []string{protocol.V20250618, protocol.V20251125}
	// modeVersions have elicitation modes (form and url), and the SSE
	// polling of sse-retry.
	modeVersions = []string{protocol.V20251125}
	// schemaVersions are where json-schema-2020-12-preservation runs.
	schemaVersions = []string{protocol.V20251125, protocol.V20260728}
)

var (
	// ToolCallArgumentsText breaks the tool's inputSchema: add_numbers gets
	// its numbers as strings.
	ToolCallArgumentsText = &fault.Fault{Name: "tool-call-arguments-text",
		Description: `calls add_numbers with {"a": "5", "b": "3"}: numbers as strings, against the tool's inputSchema`}
	// ToolCallArgumentsNotObject breaks the schema of CallToolRequest:
	// arguments must be an object.
	ToolCallArgumentsNotObject = &fault.Fault{Name: "tool-call-arguments-not-object",
		Description: `calls add_numbers with arguments as a JSON text ("{\"a\":5,\"b\":3}") instead of an object`}

	// IgnoresElicitationDefaults breaks "Clients that support defaults
	// SHOULD pre-populate form fields with these values": it accepts with
	// only the required fields.
	IgnoresElicitationDefaults = &fault.Fault{Name: "ignores-elicitation-defaults", Versions: modeVersions,
		Description: "accepts a form with only its required fields, leaving out every default"}
	// ElicitationOffSchema breaks "Clients SHOULD validate all responses
	// against the provided schema": numbers go as strings. Observable where
	// both forms that show it are asked (the defaults form is 2025-11-25's).
	ElicitationOffSchema = &fault.Fault{Name: "elicitation-off-schema", Versions: modeVersions,
		Description: "accepts a form with every number and integer field as a string"}

	// ResumeIgnoresRetry breaks "The client MUST respect the retry field".
	ResumeIgnoresRetry = &fault.Fault{Name: "resume-ignores-retry", Versions: modeVersions,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "resumes a POST's SSE stream at once, without waiting the retry the server sent"}
	// ResumeWithoutLastEventID breaks "it SHOULD issue an HTTP GET … and
	// include the Last-Event-ID header".
	ResumeWithoutLastEventID = &fault.Fault{Name: "resume-without-last-event-id", Versions: modeVersions,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "resumes a POST's SSE stream with a GET that has no Last-Event-ID"}
	// NeverResumes breaks "The client SHOULD then \"poll\" the SSE stream by
	// attempting to reconnect".
	NeverResumes = &fault.Fault{Name: "never-resumes", Versions: modeVersions,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "gives a request up when the server closes its SSE stream before the response"}

	// StripsSchemaDialect drops $schema and additionalProperties from the
	// tool schemas it keeps, as a parser for an older dialect would.
	StripsSchemaDialect = &fault.Fault{Name: "strips-schema-dialect", Versions: schemaVersions,
		Description: "keeps tool inputSchemas without $schema and additionalProperties"}
	// StripsSchemaComposition drops allOf, anyOf, if, then and else.
	StripsSchemaComposition = &fault.Fault{Name: "strips-schema-composition", Versions: schemaVersions,
		Description: "keeps tool inputSchemas without allOf, anyOf, if, then and else"}

	// SamplingInvalidResult answers sampling/createMessage without the
	// model the schema requires.
	SamplingInvalidResult = &fault.Fault{Name: "sampling-invalid-result", Versions: statefulVersions,
		Description: "answers sampling/createMessage with a result that has no model"}
	// RootsInvalidResult answers roots/list with a root without uri.
	RootsInvalidResult = &fault.Fault{Name: "roots-invalid-result", Versions: statefulVersions,
		Description: "answers roots/list with a root that has a name and no uri"}
	// RootsNotFileURI breaks "This MUST be a file:// URI".
	RootsNotFileURI = &fault.Fault{Name: "roots-not-file-uri", Versions: statefulVersions,
		Description: "answers roots/list with the root https://example.com/project"}

	// ModelessElicitationAsURL breaks "Clients MUST treat requests without
	// a mode field as form mode": it takes them for URL mode and accepts
	// without content.
	ModelessElicitationAsURL = &fault.Fault{Name: "modeless-elicitation-as-url", Versions: modeVersions,
		Description: "takes an elicitation/create without mode for URL mode, and accepts it without content"}

	// AnswersUndeclaredSampling, AnswersUndeclaredRoots and
	// AnswersUndeclaredElicitation each leave one capability out of what
	// they declare, yet answer its requests: they support a feature
	// without declaring it.
	AnswersUndeclaredSampling = &fault.Fault{Name: "answers-undeclared-sampling", Versions: statefulVersions,
		Description: "declares no sampling capability, yet answers sampling/createMessage"}
	AnswersUndeclaredRoots = &fault.Fault{Name: "answers-undeclared-roots", Versions: statefulVersions,
		Description: "declares no roots capability, yet answers roots/list"}
	AnswersUndeclaredElicitation = &fault.Fault{Name: "answers-undeclared-elicitation", Versions: elicitationVersions,
		Description: "declares no elicitation capability, yet answers elicitation/create"}
	// SamplingToolUseUndeclared uses tools in sampling without declaring
	// sampling.tools: it answers a tool-enabled request with a tool_use.
	SamplingToolUseUndeclared = &fault.Fault{Name: "sampling-tool-use-undeclared", Versions: modeVersions,
		Description: "declares sampling without tools, yet answers a tool-enabled sampling/createMessage with a tool_use (stopReason toolUse)"}
	// AcceptsUndeclaredURLMode declares form-mode elicitation only, yet
	// accepts a URL-mode request instead of -32602.
	AcceptsUndeclaredURLMode = &fault.Fault{Name: "accepts-undeclared-url-mode", Versions: modeVersions,
		Description: "declares elicitation {form: {}} only, yet accepts a URL-mode elicitation/create"}

	// ExitsOnLateCancel breaks "Both parties MUST handle these race
	// conditions gracefully": a cancellation of a request it has already
	// answered makes it give up.
	ExitsOnLateCancel = &fault.Fault{Name: "exits-on-late-cancel", Versions: statefulVersions,
		Description: "gives up (closes the connection and exits with an error) when the server cancels a request the client already answered"}
	// ExitsOnUnknownCancel breaks "Invalid cancellation notifications
	// SHOULD be ignored" for unknown request ids.
	ExitsOnUnknownCancel = &fault.Fault{Name: "exits-on-unknown-cancel", Versions: statefulVersions,
		Description: "gives up (closes the connection and exits with an error) when the server cancels a request id it never sent"}

	// AnswersAfterCancel breaks "Receivers of cancellation notifications
	// SHOULD: … Not send a response for the cancelled request": its user
	// takes a while, and the answer goes out when the cancellation comes.
	AnswersAfterCancel = &fault.Fault{Name: "answers-after-cancel", Versions: elicitationVersions,
		Description: "answers an elicitation/create the server cancelled while it was pending"}
)

var (
	// ResumesLate waits twice the retry before resuming.
	ResumesLate = &fault.Fault{Name: "resumes-late", Liberty: true, Versions: modeVersions,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "waits twice the server's retry before resuming a POST's SSE stream",
		Freedom:     "The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect."}
	// DeclaresNoClientFeatures declares no roots, sampling or elicitation
	// capability and answers those requests with -32601.
	DeclaresNoClientFeatures = &fault.Fault{Name: "declares-no-client-features", Liberty: true, Versions: statefulVersions,
		Description: "declares no roots, sampling or elicitation capability, and refuses those requests with -32601",
		Freedom:     "Clients that support sampling MUST declare the sampling capability during initialization"}
	// ElicitationFormOnly declares form-mode elicitation only and refuses a
	// URL-mode request with -32602.
	ElicitationFormOnly = &fault.Fault{Name: "elicitation-form-only", Liberty: true, Versions: modeVersions,
		Description: "declares elicitation {form: {}} only, and refuses URL-mode requests with -32602",
		Freedom:     "Clients declaring the elicitation capability MUST support at least one mode (form or url)."}
)

var (
	surfaceFaults = fault.Set{ToolCallArgumentsText, ToolCallArgumentsNotObject, IgnoresElicitationDefaults,
		ElicitationOffSchema, ResumeIgnoresRetry, ResumeWithoutLastEventID, NeverResumes, StripsSchemaDialect,
		StripsSchemaComposition, SamplingInvalidResult, RootsInvalidResult, RootsNotFileURI, ModelessElicitationAsURL, AnswersUndeclaredSampling,
		AnswersUndeclaredRoots, AnswersUndeclaredElicitation, SamplingToolUseUndeclared,
		AcceptsUndeclaredURLMode, AnswersAfterCancel, ExitsOnLateCancel, ExitsOnUnknownCancel}
	surfaceLiberties = fault.Set{ResumesLate, DeclaresNoClientFeatures, ElicitationFormOnly}
)

// SurfaceFaults are the client surface's faults, which the scenarios of
// scenarios/client/surface prove (not the handshake's).
func SurfaceFaults() fault.Set { return surfaceFaults }
