package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults of the lifecycle family.
var (
	InitWrongVersion = &fault.Fault{Name: "init-wrong-version", Versions: legacy,
		Description: "answers initialize with 2025-03-26 whatever supported version was requested"}
	InitMissingCapabilities = &fault.Fault{Name: "init-missing-capabilities", Versions: legacy,
		Description: "leaves capabilities out of the initialize result"}
	NegotiationEchoesUnsupported = &fault.Fault{Name: "negotiation-echoes-unsupported", Versions: legacy,
		Description: "echoes any requested protocol version, even one it does not support"}
	PingError = &fault.Fault{Name: "ping-error", Versions: legacy,
		Description: "answers ping with an internal error"}
	ServesBeforeInitialize = &fault.Fault{Name: "serves-before-initialize", Versions: legacy,
		Transports:  []transport.Kind{transport.Stdio, transport.WS},
		Description: "serves tools/list before initialize"}
	ParseErrorSilent = &fault.Fault{Name: "parse-error-silent", Transports: []transport.Kind{transport.Stdio, transport.WS},
		Description: "drops malformed JSON without answering"}
	CrashOnMalformedJson = &fault.Fault{Name: "crash-on-malformed-json", NotOn: []string{"http@2026-07-28"},
		Description: "answers the parse error, then drops the connection (exits over stdio, ends the session over HTTP)"}
	InvalidRequestWrongCode = &fault.Fault{Name: "invalid-request-wrong-code", Transports: []transport.Kind{transport.Stdio, transport.WS},
		Description: "answers a request whose method is not a string with -32603 instead of -32600"}
	UnknownMethodInvalidRequest = &fault.Fault{Name: "unknown-method-invalid-request", Description: "answers unknown methods with -32600 instead of -32601"}
	IdNumericStringUnquoted     = &fault.Fault{Name: "id-numeric-string-unquoted", Description: "echoes a string id made of digits (\"42\") as a number (42)"}
	AnswersNotifications        = &fault.Fault{Name: "answers-notifications", // Streamable HTTP answers a notification POST with 202 before the
		// engine sees it, so the stray answer has nowhere to go.
		Transports:  []transport.Kind{transport.Stdio, transport.WS},
		Description: "answers unknown notifications with a -32601 error"}

	ToolMissingInputSchema = &fault.Fault{Name: "tool-missing-input-schema", Description: "lists test_simple_text without its required inputSchema"}

	DiscoverMissingVersions = &fault.Fault{Name: "discover-missing-versions", Versions: modern,
		Description: "leaves supportedVersions out of the server/discover result"}
	DiscoverNoServerInfo = &fault.Fault{Name: "discover-no-server-info", Versions: modern,
		Description: "leaves _meta serverInfo out of the server/discover result"}
	UnsupportedVersionWrongCode = &fault.Fault{Name: "unsupported-version-wrong-code", Versions: modern,
		Description: "rejects an unknown protocol version with -32602 (the 2025 example's code) instead of -32022"}
	MissingMetaAccepted = &fault.Fault{Name: "missing-meta-accepted", Versions: modern,
		Description: "serves requests that lack io.modelcontextprotocol/clientCapabilities"}
	MissingCapabilityWrongCode = &fault.Fault{Name: "missing-capability-wrong-code", Versions: modern,
		Description: "answers a call needing an undeclared capability with -32603 instead of -32021"}
	HeaderMismatchAccepted = &fault.Fault{Name: "header-mismatch-accepted", Versions: modern,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "does not compare Mcp-Method with the body's method"}
)

var lifecycleFaults = fault.Set{
	InitWrongVersion,
	InitMissingCapabilities,
	NegotiationEchoesUnsupported,
	PingError,
	ServesBeforeInitialize,
	ParseErrorSilent,
	CrashOnMalformedJson,
	InvalidRequestWrongCode,
	UnknownMethodInvalidRequest,
	IdNumericStringUnquoted,
	AnswersNotifications,
	ToolMissingInputSchema,
	DiscoverMissingVersions,
	DiscoverNoServerInfo,
	UnsupportedVersionWrongCode,
	MissingMetaAccepted,
	MissingCapabilityWrongCode,
	HeaderMismatchAccepted,
}

// Liberties of the lifecycle family.
var lifecycleLiberties = fault.Set{}
