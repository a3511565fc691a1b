package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults and liberties of the stateless family (2026-07-28: caching hints,
// serverInfo in results, logging by request, resources not found, the HTTP
// methods and standard headers of Streamable HTTP). Each fault breaks one
// rule; the HTTP ones live in the family's HTTP front (reference_stateless.go).

var (
	CachingHintsMissing = &fault.Fault{Name: "caching-hints-missing", Versions: modern,
		Description: "answers resources/read without ttlMs and cacheScope"}
	CachingTTLNegative = &fault.Fault{Name: "caching-ttl-negative", Versions: modern,
		Description: "answers resources/templates/list with ttlMs -1"}
	CachingScopeInvalid = &fault.Fault{Name: "caching-scope-invalid", Versions: modern,
		Description: `answers resources/list with cacheScope "shared", neither "public" nor "private"`}
	CachingScopeVaries = &fault.Fault{Name: "caching-scope-varies", Versions: modern,
		Description: `gives the first page of prompts/list cacheScope "public" and the later pages "private"`}
	ResultNoServerInfo = &fault.Fault{Name: "result-no-server-info", Versions: modern,
		Description: "leaves _meta io.modelcontextprotocol/serverInfo out of every result but server/discover's"}
	LogsWithoutLevel = &fault.Fault{Name: "logs-without-log-level", Versions: modern,
		Description: "test_tool_with_logging sends notifications/message (info) for a request whose _meta carries no logLevel"}
	LogLevelUnchecked = &fault.Fault{Name: "log-level-unchecked", Versions: modern,
		Description: `serves a request whose _meta logLevel is "verbose" (no syslog level) as if it carried none`}
	ModernMissingResourceEmpty = &fault.Fault{Name: "modern-missing-resource-empty", Versions: modern,
		Description: "answers resources/read of an unknown URI with a result whose contents is empty"}
	ModernMissingResourceLegacyCode = &fault.Fault{Name: "modern-missing-resource-32002", Versions: modern,
		Description: "answers resources/read of an unknown URI with -32002, the code of 2025-11-25 and earlier"}
	ModernMissingResourceInternal = &fault.Fault{Name: "modern-missing-resource-internal", Versions: modern,
		Description: "answers resources/read of an unknown URI with -32603"}
	MissingResourceNoData = &fault.Fault{Name: "modern-missing-resource-no-data", Versions: modern,
		Description: "answers resources/read of an unknown URI with -32602 and no data (so no data.uri)"}
	// The HTTP faults of a server that implements 2026-07-28 only (its
	// server/discover lists no other version): the rules of "Earlier
	// Streamable HTTP Revisions" are asked of such a server.
	GetOpensStream = &fault.Fault{Name: "get-opens-stream", Versions: modern, Transports: httpOnly,
		Description: "implements 2026-07-28 only, yet answers a GET to the MCP endpoint with 200 and an (empty) SSE stream"}
	DeleteAccepted = &fault.Fault{Name: "delete-accepted", Versions: modern, Transports: httpOnly,
		Description: "implements 2026-07-28 only, yet answers a DELETE to the MCP endpoint with 200"}
	SessionIDMinted = &fault.Fault{Name: "session-id-minted", Versions: modern, Transports: httpOnly,
		Description: "implements 2026-07-28 only, yet answers every POST with an Mcp-Session-Id header"}
	VersionHeaderOptional = &fault.Fault{Name: "version-header-optional", Versions: modern, Transports: httpOnly,
		Description: "implements 2026-07-28 only, yet serves a POST without MCP-Protocol-Version as if the header matched its _meta"}
	MethodHeaderOptional = &fault.Fault{Name: "method-header-optional", Versions: modern, Transports: httpOnly,
		Description: "serves a POST without the Mcp-Method header as if the header matched the body"}
	NameHeaderOptional = &fault.Fault{Name: "name-header-optional", Versions: modern, Transports: httpOnly,
		Description: "serves a tools/call POST without the Mcp-Name header as if the header matched the body"}
	NameHeaderUnchecked = &fault.Fault{Name: "name-header-unchecked", Versions: modern, Transports: httpOnly,
		Description: "serves a tools/call POST whose Mcp-Name header names another tool than the body (the body wins)"}
	ParamHeaderUnchecked = &fault.Fault{Name: "param-header-unchecked", Versions: modern, Transports: httpOnly,
		Description: "serves a test_x_mcp_header call whose Mcp-Param-Region differs from its region (the body wins)"}
	ParamHeaderOptional = &fault.Fault{Name: "param-header-optional", Versions: modern, Transports: httpOnly,
		Description: "serves a test_x_mcp_header call with a region but no Mcp-Param-Region header"}
	ParamHeaderRequired = &fault.Fault{Name: "param-header-required", Versions: modern, Transports: httpOnly,
		Description: "refuses with -32020 a test_x_mcp_header call without Mcp-Param-Region although its region is absent or null"}
	ParamNotDecoded = &fault.Fault{Name: "param-not-decoded", Versions: modern, Transports: httpOnly,
		Description: "compares a Base64-encoded Mcp-Param-Region (=?base64?…?=) with the body without decoding it, and refuses it with -32020"}
	ParamCharsUnchecked = &fault.Fault{Name: "param-chars-unchecked", Versions: modern, Transports: httpOnly,
		Description: "serves a test_x_mcp_header call whose Mcp-Param-Region carries raw non-ASCII bytes (not Base64-encoded) when they equal the body's"}
	ParamBase64Lenient = &fault.Fault{Name: "param-base64-lenient", Versions: modern, Transports: httpOnly,
		Description: "decodes a Base64 Mcp-Param-Region leniently (padding optional, characters outside the alphabet skipped) and serves the call when it then matches"}
	// The two below read the request head as it came (Go's server
	// canonicalizes names and trims values before any handler).
	HeaderNamesCaseSensitive = &fault.Fault{Name: "header-names-case-sensitive", Versions: modern, Transports: httpOnly,
		Description: "looks Mcp-Method up by its exact spelling: a POST that spells it otherwise (mcp-method, MCP-METHOD) is refused as if it had none"}
	HeaderValueUntrimmed = &fault.Fault{Name: "header-value-untrimmed", Versions: modern, Transports: httpOnly,
		Description: "compares the Mcp-Name value with the body's name as it came, whitespace around it included, and refuses the call with -32020"}
	MethodHeaderCaseFolded = &fault.Fault{Name: "method-header-case-folded", Versions: modern, Transports: httpOnly,
		Description: "compares the Mcp-Method header with the method ignoring case (TOOLS/LIST is taken for tools/list)"}
	NameCharsUnchecked = &fault.Fault{Name: "name-chars-unchecked", Versions: modern, Transports: httpOnly,
		Description: "takes a tools/call whose Mcp-Name carries a non-ASCII name as raw UTF-8 (not Base64-encoded) as it is, and answers it with a result"}
	EncodedNameNotDecoded = &fault.Fault{Name: "encoded-name-not-decoded", Versions: modern, Transports: httpOnly,
		Description: "compares a Base64-encoded Mcp-Name (=?base64?…?=) with the body without decoding it, and refuses it with -32020"}
)

// Capabilities served but not declared in server/discover.
var (
	ModernPromptsUndeclared = &fault.Fault{Name: "modern-prompts-undeclared", Versions: modern,
		Description: "serves prompts/list and prompts/get but leaves prompts out of server/discover's capabilities"}
	ModernResourcesUndeclared = &fault.Fault{Name: "modern-resources-undeclared", Versions: modern,
		Description: "serves resources/list and resources/read but leaves resources out of server/discover's capabilities"}
	ModernLoggingUndeclared = &fault.Fault{Name: "modern-logging-undeclared", Versions: modern,
		Description: "logs for a request that asks (logLevel) but leaves logging out of server/discover's capabilities"}
)

// IndependentRequestOnStream asks the client on a response stream.
var IndependentRequestOnStream = &fault.Fault{Name: "independent-request-on-stream", Versions: modern, Transports: httpOnly,
	Description: "test_streaming_elicitation sends an elicitation/create request on its response stream before it answers"}

// RemembersCapabilities keeps the sampling capability a client declared on
// a connection and lends it to its later requests.
var RemembersCapabilities = &fault.Fault{Name: "remembers-capabilities", Versions: modern,
	Transports:  []transport.Kind{transport.Stdio, transport.WS}, // over HTTP every POST is a connection of its own
	Description: "remembers a sampling capability an earlier request on the connection declared and lends it to later requests that declare none"}

// InvalidXMcpHeader lists a tool whose x-mcp-header annotation is empty.
var InvalidXMcpHeader = &fault.Fault{Name: "invalid-x-mcp-header", Versions: modern,
	Description: `lists a tool test_invalid_x_mcp_header whose string property carries "x-mcp-header": "" (empty)`}

var statelessFaults = fault.Set{InvalidXMcpHeader, RemembersCapabilities,
	IndependentRequestOnStream, ModernPromptsUndeclared, ModernResourcesUndeclared, ModernLoggingUndeclared,
	CachingHintsMissing, CachingTTLNegative, CachingScopeInvalid, CachingScopeVaries,
	ResultNoServerInfo, LogsWithoutLevel, LogLevelUnchecked,
	ModernMissingResourceEmpty, ModernMissingResourceLegacyCode, ModernMissingResourceInternal, MissingResourceNoData,
	GetOpensStream, DeleteAccepted, SessionIDMinted, VersionHeaderOptional, MethodHeaderOptional, NameHeaderOptional, NameHeaderUnchecked, NameCharsUnchecked, EncodedNameNotDecoded,
	ParamHeaderUnchecked, ParamHeaderOptional, ParamHeaderRequired, ParamNotDecoded, ParamCharsUnchecked, ParamBase64Lenient, MethodHeaderCaseFolded,
	HeaderNamesCaseSensitive, HeaderValueUntrimmed}

var (
	CachingPrivate = &fault.Fault{Name: "caching-private-ttl", Liberty: true, Versions: modern,
		Freedom: `caching.mdx, "Cacheable Model": "cacheScope, indicates the intended scope of the cached response, either "public" or "private"", ` +
			`and "Servers MAY return different ttlMs values on different pages"`,
		Description: `gives every cacheable result ttlMs 60000 and cacheScope "private"`}
	StatelessOnlyHTTP = &fault.Fault{Name: "stateless-only-http", Liberty: true, Versions: modern, Transports: httpOnly,
		Freedom: `streamable-http.mdx, "Earlier Streamable HTTP Revisions": "HTTP GET or DELETE to the MCP endpoint: respond with ` +
			`405 Method Not Allowed."`,
		Description: "implements 2026-07-28 only (server/discover lists no other version, an initialize is refused with -32022): GET and DELETE get 405, an Mcp-Session-Id is ignored"}
)

// DualEraHTTP lists 2026-07-28 only in server/discover, as the page's
// example does, yet serves an initialize-era client's initialize, session,
// GET stream and DELETE on the same endpoint.
var DualEraHTTP = &fault.Fault{Name: "dual-era-http", Liberty: true, Versions: modern, Transports: httpOnly,
	Freedom: `versioning.mdx, "Backward Compatibility with Initialization-Based Versions": "A dual-era server MAY serve both eras ` +
		`concurrently on the same endpoint or process."; discover.mdx: supportedVersions are "Protocol versions the server supports. ` +
		`The client should choose one of these for subsequent requests."`,
	Description: "lists only 2026-07-28 in server/discover, and serves 2025-11-25 and 2025-06-18 (initialize, Mcp-Session-Id, GET stream, " +
		"DELETE) on the same endpoint; an initialize of 2025-03-26 negotiates 2025-11-25"}

// UnknownToolFirst validates a tools/call's body before its headers.
var UnknownToolFirst = &fault.Fault{Name: "unknown-tool-before-headers", Liberty: true, Versions: modern, Transports: httpOnly,
	Freedom: `streamable-http.mdx, "Server Validation": servers "MUST reject requests where the values specified in the headers do ` +
		`not match the corresponding values in the request body"; the page orders no other validation of the body before or after it`,
	Description: "refuses a tools/call of a tool it does not list (-32602) before it compares the call's headers with its body"}

var statelessLiberties = fault.Set{CachingPrivate, StatelessOnlyHTTP, UnknownToolFirst, DualEraHTTP}

// modernOnlyHTTP are the variants whose server/discover lists 2026-07-28
// only, so that the rules for such a server are judged on them.
var modernOnlyHTTP = fault.Set{StatelessOnlyHTTP, GetOpensStream, DeleteAccepted, SessionIDMinted, VersionHeaderOptional}
