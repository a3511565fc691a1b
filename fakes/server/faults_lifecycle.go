package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
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
	CrashOnMalformedJson = &fault.Fault{Name: "crash-on-malformed-json", NotOn: []fault.Place{{Transport: transport.HTTP, Version: protocol.V20260728}},
		Description: "answers the parse error, then drops the connection (exits over stdio, ends the session over HTTP)"}
	SilentBeforeInitialize = &fault.Fault{Name: "silent-before-initialize", Versions: legacy,
		Transports:  []transport.Kind{transport.Stdio, transport.WS},
		Description: "answers nothing at all to a request (other than ping) sent before initialize"}
	NegotiationWrongError = &fault.Fault{Name: "negotiation-wrong-error", Versions: legacy,
		Description: "answers initialize with an unsupported version with -32603 and no list of the versions it supports"}
	// Over HTTP the wrong code travels in the body of a 4xx, which the
	// transport page allows: only the body's code can be judged there.
	ParseErrorWrongCode = &fault.Fault{Name: "parse-error-wrong-code",
		Description: "answers malformed JSON with -32602 instead of -32700 (over HTTP in the body of a 400)"}
	InvalidRequestWrongCode = &fault.Fault{Name: "invalid-request-wrong-code",
		Description: "answers a request whose method is not a string with -32603 instead of -32600"}
	InvalidRequestInvalidParams = &fault.Fault{Name: "invalid-request-invalid-params",
		Description: "answers a request whose method is not a string with -32602 instead of -32600 (over HTTP in the body of a 400)"}
	UnknownMethodInvalidRequest = &fault.Fault{Name: "unknown-method-invalid-request", Description: "answers unknown methods with -32600 instead of -32601"}
	IdNumericStringUnquoted     = &fault.Fault{Name: "id-numeric-string-unquoted", Description: "echoes a string id made of digits (\"42\") as a number (42)",
		Why: "a response whose id is not the request's answers no request the client sent: it breaks wire-rules/response-id as well as lifecycle-id-echo",
		// Over 2025 Streamable HTTP our own server transport routes a
		// response to its POST by id, so the mis-echoed answer never
		// reaches the client and response-id cannot see it.
		NotOn: []fault.Place{{Transport: transport.HTTP, Version: protocol.V20251125}, {Transport: transport.HTTP, Version: protocol.V20250618},
			{Transport: transport.HTTP, Version: protocol.V20250326}}}
	AnswersNotifications = &fault.Fault{Name: "answers-notifications", // Streamable HTTP answers a notification POST with 202 before the
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
	// A mismatch only: a request without the header is still refused
	// (stateless-http-methods/version-header-required judges that).
	VersionHeaderUnchecked = &fault.Fault{Name: "version-header-unchecked", Versions: modern,
		Transports:  []transport.Kind{transport.HTTP},
		Description: "does not compare a present MCP-Protocol-Version header with the body's _meta protocolVersion"}
	// VersionHeaderUnsupportedFirst takes the header's version for the
	// requested one: a version it does not implement gets -32022 before the
	// header is compared with the body.
	VersionHeaderUnsupportedFirst = &fault.Fault{Name: "version-header-unsupported-first", Liberty: true, Versions: modern,
		Transports: []transport.Kind{transport.HTTP},
		Freedom: "2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header: \"If the server does not implement the requested " +
			"protocol version ... it MUST respond with 400 Bad Request and an UnsupportedProtocolVersionError\"; the page orders it neither " +
			"before nor after the header mismatch",
		Description: "answers an MCP-Protocol-Version header naming a version it does not implement with 400 and -32022, before comparing it with _meta"}
	DiscoverWithoutVersionServed = &fault.Fault{Name: "discover-without-version-served", Versions: modern,
		Description: "answers a server/discover that declares no _meta protocolVersion (no _meta at all, or _meta without it) with its DiscoverResult"}
	ClientInfoRequired = &fault.Fault{Name: "client-info-required", Versions: modern,
		Description: "refuses with -32602 a 2026-07-28 request whose _meta has no io.modelcontextprotocol/clientInfo"}
	RemovedMethodsServed = &fault.Fault{Name: "removed-methods-served", Versions: modern,
		Description: "serves ping, logging/setLevel, resources/subscribe and resources/unsubscribe sent with 2026-07-28 _meta as a 2025-11-25 session would"}
	MetaRefusalWithoutID = &fault.Fault{Name: "meta-refusal-without-id", Versions: modern,
		Description: "refuses a server/discover that lacks a required _meta field with -32602 but leaves the request's id out of the error"}
)

var lifecycleFaults = fault.Set{
	InitWrongVersion,
	InitMissingCapabilities,
	NegotiationEchoesUnsupported,
	NegotiationWrongError,
	PingError,
	ServesBeforeInitialize,
	SilentBeforeInitialize,
	ParseErrorSilent,
	ParseErrorWrongCode,
	CrashOnMalformedJson,
	InvalidRequestWrongCode,
	InvalidRequestInvalidParams,
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
	VersionHeaderUnchecked,
	DiscoverWithoutVersionServed,
	ClientInfoRequired,
	MetaRefusalWithoutID,
	RemovedMethodsServed,
}

// Liberties of the lifecycle family: conformant variants that each check
// naming them must pass.
var (
	// Over HTTP the transport itself refuses a request without a session,
	// so the variant shows over stdio and WebSocket only.
	ServesWithoutInitialize = &fault.Fault{Name: "serves-without-initialize", Liberty: true, Versions: legacy,
		Transports: []transport.Kind{transport.Stdio, transport.WS},
		Freedom: `lifecycle.mdx restricts the client, not the server: "The client SHOULD NOT send requests other than pings ` +
			`before the server has responded to the initialize request."`,
		Description: "serves requests sent before initialize, as a stateless server does (stateless serving without initialize)"}
	NegotiationErrorSupported = &fault.Fault{Name: "negotiation-error-supported", Liberty: true, Versions: legacy,
		Freedom: `lifecycle.mdx, "Error Handling": its example initialization error answers an unsupported version with ` +
			`-32602 "Unsupported protocol version" and data.supported`,
		Description: "refuses initialize with an unsupported version with the page's example error: -32602, data.supported and data.requested"}
	// The stdio page's probe: a dual-era client sends server/discover with
	// its preferred version and reads the supported ones from the result.
	// WebSocket is a custom transport that reuses stdio's message rules
	// (stdio.mdx: custom transports "SHOULD reuse this framing and the
	// message rules on this page"); over HTTP the transport page asks 400
	// and -32022 of every request, so the variant answers so there.
	DiscoverAnyVersion = &fault.Fault{Name: "discover-any-version", Liberty: true, Versions: modern,
		Transports: []transport.Kind{transport.Stdio, transport.WS},
		Freedom: `stdio.mdx, "Backward Compatibility": "The server returns a DiscoverResult: the server is modern. ` +
			`Select a mutually supported version from supportedVersions and continue."`,
		Description: "answers server/discover with its DiscoverResult whatever version the request declares"}
	// Over stdio and WebSocket nothing but _meta says which era a request
	// is of; over HTTP the MCP-Protocol-Version header says 2026-07-28, so
	// the variant answers -32602 there.
	DiscoverWithoutVersionLegacy = &fault.Fault{Name: "discover-without-version-legacy", Liberty: true, Versions: modern,
		Transports: []transport.Kind{transport.Stdio, transport.WS},
		Freedom: `versioning.mdx, "Backward Compatibility": a dual-era server serves statelessly "A request carrying modern per-request ` +
			"`_meta`\"; stdio.mdx: \"legacy servers respond to unknown pre-`initialize` requests with implementation-defined errors " +
			`(commonly -32601 or -32602)"`,
		Description: "takes a server/discover without _meta protocolVersion for a legacy client's request before initialize, and answers -32601 (method not found)"}
	// Only Streamable HTTP has an answer to a notification (the POST's
	// status), so the variant shows over HTTP only.
	RefusesUnknownNotifications = &fault.Fault{Name: "refuses-unknown-notifications", Liberty: true,
		Transports: []transport.Kind{transport.HTTP},
		Freedom: `transports.mdx, "Sending Messages to the Server": "If the server cannot accept the input, it MUST return an HTTP error ` +
			`status code (e.g., 400 Bad Request). The HTTP response body MAY comprise a JSON-RPC error response that has no id."`,
		Description: "refuses a notification it does not know with HTTP 400 and a JSON-RPC error without an id (400 with an error body for a notification)"}
	EscapesNonASCIIIds = &fault.Fault{Name: "escapes-non-ascii-ids", Liberty: true,
		Freedom: `index.mdx: "Result responses MUST include the same ID as the request they correspond to." ` +
			`"mcpconform-\u03a9-7" is the same JSON string as "mcpconform-Ω-7" (RFC 8259 §7)`,
		Description: `writes the string ids of its responses with JSON escapes for non-ASCII ("mcpconform-\u03a9-7"), as Python's json module does`}
)

var lifecycleLiberties = fault.Set{
	VersionHeaderUnsupportedFirst,
	ServesWithoutInitialize,
	NegotiationErrorSupported,
	DiscoverAnyVersion,
	DiscoverWithoutVersionLegacy,
	RefusesUnknownNotifications,
	EscapesNonASCIIIds,
}
