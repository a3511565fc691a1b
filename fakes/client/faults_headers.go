package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults and liberties of the reference client's 2026-07-28 requests over
// Streamable HTTP: per-request _meta and the standard and custom headers.
// Each acts only in the official scenario it is judged by (headerScenario),
// so that it breaks its one rule and no other family's. The faults that
// change a request's body or headers on the way out are HTTP only: that is
// where the reference client can reach the wire of every request.
var (
	headerVersions = protocol.From(protocol.V20260728)
	httpOnly       = []transport.Kind{transport.HTTP}
)

// The official scenarios of the family, by the names a client is told.
const (
	scenarioRequestMetadata = "request-metadata"
	scenarioStandardHeaders = "http-standard-headers"
	scenarioCustomHeaders   = "http-custom-headers"
	scenarioInvalidTools    = "http-invalid-tool-headers"
	scenarioSchemaRef       = "json-schema-ref-no-deref"
	// scenarioHeaderMismatch is mcpconform's own.
	scenarioHeaderMismatch = "client-http-header-mismatch"
)

var (
	// MetaNoCapabilities breaks "fields marked as required MUST be
	// included on every request" (basic/index.mdx#meta).
	MetaNoCapabilities = &fault.Fault{Name: "meta-no-client-capabilities", Versions: headerVersions, Transports: httpOnly,
		Description: "leaves io.modelcontextprotocol/clientCapabilities out of every request's _meta"}
	// MetaNoClientInfo breaks "Clients SHOULD include
	// io.modelcontextprotocol/clientInfo on every request".
	MetaNoClientInfo = &fault.Fault{Name: "meta-no-client-info", Versions: headerVersions, Transports: httpOnly,
		Description: "leaves io.modelcontextprotocol/clientInfo out of every request's _meta"}
	// CapabilityNotObject breaks the ClientCapabilities type of the _meta
	// field: roots is an object.
	CapabilityNotObject = &fault.Fault{Name: "capability-not-object", Versions: headerVersions,
		Description: `declares "roots": true in clientCapabilities instead of an object`}
	// NoVersionHeader breaks "Every POST request to the MCP endpoint MUST
	// include an MCP-Protocol-Version header."
	NoVersionHeader = &fault.Fault{Name: "no-version-header", Versions: headerVersions, Transports: httpOnly,
		Description: "sends its POSTs without MCP-Protocol-Version"}
	// VersionHeaderMismatch breaks "The header value MUST match the
	// io.modelcontextprotocol/protocolVersion field".
	VersionHeaderMismatch = &fault.Fault{Name: "version-header-mismatch", Versions: headerVersions, Transports: httpOnly,
		Description: "sends MCP-Protocol-Version: 2025-11-25 while _meta says 2026-07-28"}
	// NoVersionRetry breaks "The client SHOULD select a mutually supported
	// version from the supported list and retry the request".
	NoVersionRetry = &fault.Fault{Name: "no-version-retry", Versions: headerVersions,
		Description: "gives up when a request is refused with -32022, though the refusal lists the version it speaks"}
	// FallsBackToInitialize breaks the same SHOULD another way: refused
	// with -32022, a modern error, it falls back to a 2025-11-25
	// initialize (without MCP-Protocol-Version, as that revision's
	// initialize goes) instead of retrying at the listed version.
	FallsBackToInitialize = &fault.Fault{Name: "falls-back-to-initialize", Versions: headerVersions, Transports: httpOnly,
		Description: "answers a -32022 refusal that lists its version by falling back to a 2025-11-25 initialize (no MCP-Protocol-Version, no _meta)"}

	// McpMethodUppercase breaks the Mcp-Method header: header values are
	// case-sensitive, so TOOLS/LIST is not the body's method.
	McpMethodUppercase = &fault.Fault{Name: "mcp-method-uppercase", Versions: headerVersions, Transports: httpOnly,
		Description: "sends Mcp-Method in upper case (TOOLS/CALL for tools/call)"}
	// NoMcpName breaks the Mcp-Name header required on tools/call,
	// resources/read and prompts/get.
	NoMcpName = &fault.Fault{Name: "no-mcp-name", Versions: headerVersions, Transports: httpOnly,
		Description: "sends tools/call, resources/read and prompts/get without Mcp-Name"}

	// McpNameRaw breaks "clients MUST encode it using the Base64 sentinel
	// format" for an Mcp-Name that is not plain ASCII.
	McpNameRaw = &fault.Fault{Name: "mcp-name-raw", Versions: headerVersions, Transports: httpOnly,
		Description: "sends a non-ASCII Mcp-Name as raw UTF-8 instead of =?base64?…?="}

	// NoParamHeaders breaks "conforming clients MUST mirror the designated
	// parameter values into HTTP headers".
	NoParamHeaders = &fault.Fault{Name: "no-param-headers", Versions: headerVersions, Transports: httpOnly,
		Description: "sends no Mcp-Param-* header at all"}
	// ParamBooleanCapitalized breaks the type conversion of "Value
	// Encoding": booleans are lowercase true or false.
	ParamBooleanCapitalized = &fault.Fault{Name: "param-boolean-capitalized", Versions: headerVersions, Transports: httpOnly,
		Description: "mirrors boolean parameters as True and False"}
	// ParamNoBase64 breaks "clients MUST use Base64 encoding of the UTF-8
	// representation" for a value that is not plain ASCII.
	ParamNoBase64 = &fault.Fault{Name: "param-no-base64", Versions: headerVersions, Transports: httpOnly,
		Description: "mirrors non-ASCII parameter values as raw UTF-8 instead of =?base64?…?="}
	// ParamSentinelPlain breaks "clients MUST also Base64-encode any
	// plain-ASCII value that matches the sentinel pattern".
	ParamSentinelPlain = &fault.Fault{Name: "param-sentinel-plain", Versions: headerVersions, Transports: httpOnly,
		Description: "mirrors a value that looks like =?base64?…?= as it is"}
	// ParamUnannotated mirrors parameters that carry no x-mcp-header.
	ParamUnannotated = &fault.Fault{Name: "param-unannotated", Versions: headerVersions, Transports: httpOnly,
		Description: "mirrors every top-level argument, annotated or not, as Mcp-Param-{argument name}"}
	// ParamNullSent breaks "Parameter value is null | Client MUST omit the
	// header".
	ParamNullSent = &fault.Fault{Name: "param-null-sent", Versions: headerVersions, Transports: httpOnly,
		Description: "mirrors an annotated parameter whose value is null as the text null"}

	// NoRelistOnMismatch breaks "the client SHOULD call tools/list to check
	// for changes to the tool's inputSchema, then retry the original request
	// with the appropriate headers".
	NoRelistOnMismatch = &fault.Fault{Name: "no-relist-on-mismatch", Versions: headerVersions, Transports: httpOnly,
		Description: "gives a tools/call up when it is refused with -32020 HeaderMismatch"}

	// The x-mcp-header constraints a client must enforce by rejecting the
	// tool; each fault forgets one.
	AcceptsEmptyHeader = &fault.Fault{Name: "accepts-empty-header", Versions: headerVersions, Transports: httpOnly,
		Description: "keeps (and calls) tools whose x-mcp-header is empty"}
	AcceptsBadHeaderChars = &fault.Fault{Name: "accepts-bad-header-chars", Versions: headerVersions, Transports: httpOnly,
		Description: "keeps (and calls) tools whose x-mcp-header is no HTTP token (space, colon, non-ASCII, control character)"}
	AcceptsDuplicateHeaders = &fault.Fault{Name: "accepts-duplicate-headers", Versions: headerVersions, Transports: httpOnly,
		Description: "keeps (and calls) tools whose x-mcp-header values repeat, case-insensitively"}
	AcceptsNonPrimitiveHeader = &fault.Fault{Name: "accepts-non-primitive-header", Versions: headerVersions, Transports: httpOnly,
		Description: "keeps (and calls) tools with x-mcp-header on object, array, null or number properties"}
	AcceptsUnreachableHeader = &fault.Fault{Name: "accepts-unreachable-header", Versions: headerVersions, Transports: httpOnly,
		Description: "keeps (and calls) tools with x-mcp-header under items, anyOf or $defs"}
	// RejectsAnnotatedTools over-rejects: every tool with an x-mcp-header
	// goes, the valid ones too.
	RejectsAnnotatedTools = &fault.Fault{Name: "rejects-annotated-tools", Versions: headerVersions, Transports: httpOnly,
		Description: "drops every tool that has an x-mcp-header annotation, valid or not"}

	// FetchesNetworkRef breaks "Implementations MUST NOT automatically
	// dereference $ref values that resolve to a network URI."
	FetchesNetworkRef = &fault.Fault{Name: "fetches-network-ref", Versions: headerVersions,
		Description: "after tools/list, fetches every http(s) $ref of the tools' inputSchemas (loopback hosts only)"}

	// StdioNoProbe breaks the stdio page's "SHOULD probe with
	// server/discover before sending any other request" (RECOMMENDED for
	// a client of modern versions only).
	StdioNoProbe = &fault.Fault{Name: "stdio-no-probe", Versions: headerVersions, Transports: []transport.Kind{transport.Stdio},
		Description: "over stdio sends no server/discover probe; its first request is tools/list, retried at a listed version when refused with -32022"}

	// SkipsDiscover sends no server/discover over HTTP: its first request
	// is the scenario's own, retried when refused with -32022. (Over stdio
	// the probe is recommended: StdioNoProbe.)
	SkipsDiscover = &fault.Fault{Name: "skips-discover", Liberty: true, Versions: headerVersions, Transports: httpOnly,
		Description: "over HTTP sends no server/discover; its first request is tools/list, retried at a listed version when refused with -32022",
		Freedom: "Clients MAY call it before sending any other requests to learn the server's supported versions up front, but are not " +
			"required to: a client is free to invoke any RPC inline and handle UnsupportedProtocolVersionError if its preferred version is not supported."}
	// LowercaseHeaderNames sends every MCP header name in lower case.
	LowercaseHeaderNames = &fault.Fault{Name: "lowercase-header-names", Liberty: true, Versions: headerVersions, Transports: httpOnly,
		Description: "sends mcp-protocol-version, mcp-method, mcp-name and mcp-param-* in lower case",
		Freedom:     "Header names (called \"field names\" in RFC 9110) are case-insensitive. Clients and servers MUST use case-insensitive comparisons for header names."}
)

// headerScenario is the scenario each variant acts in; elsewhere the
// reference client is itself.
var headerScenario = map[*fault.Fault][]string{
	MetaNoCapabilities:        {scenarioRequestMetadata},
	MetaNoClientInfo:          {scenarioRequestMetadata},
	CapabilityNotObject:       {scenarioRequestMetadata},
	NoVersionHeader:           {scenarioRequestMetadata},
	VersionHeaderMismatch:     {scenarioRequestMetadata},
	NoVersionRetry:            {scenarioRequestMetadata},
	FallsBackToInitialize:     {scenarioRequestMetadata},
	McpMethodUppercase:        {scenarioStandardHeaders},
	NoMcpName:                 {scenarioStandardHeaders},
	McpNameRaw:                {scenarioStandardHeaders},
	NoParamHeaders:            {scenarioCustomHeaders},
	ParamBooleanCapitalized:   {scenarioCustomHeaders},
	ParamNoBase64:             {scenarioCustomHeaders},
	ParamSentinelPlain:        {scenarioCustomHeaders},
	ParamUnannotated:          {scenarioCustomHeaders},
	ParamNullSent:             {scenarioCustomHeaders},
	NoRelistOnMismatch:        {scenarioHeaderMismatch},
	AcceptsEmptyHeader:        {scenarioInvalidTools},
	AcceptsBadHeaderChars:     {scenarioInvalidTools},
	AcceptsDuplicateHeaders:   {scenarioInvalidTools},
	AcceptsNonPrimitiveHeader: {scenarioInvalidTools},
	AcceptsUnreachableHeader:  {scenarioInvalidTools},
	RejectsAnnotatedTools:     {scenarioInvalidTools},
	FetchesNetworkRef:         {scenarioSchemaRef},
	LowercaseHeaderNames:      {scenarioRequestMetadata, scenarioStandardHeaders, scenarioCustomHeaders},
	SkipsDiscover:             {scenarioRequestMetadata},
	StdioNoProbe:              {scenarioRequestMetadata},
}

// ignoredRule is the constraint each accepts-* fault forgets.
var ignoredRule = map[*fault.Fault]transport.HeaderRule{
	AcceptsEmptyHeader:        transport.HeaderRuleEmpty,
	AcceptsBadHeaderChars:     transport.HeaderRuleToken,
	AcceptsDuplicateHeaders:   transport.HeaderRuleUnique,
	AcceptsNonPrimitiveHeader: transport.HeaderRulePrimitive,
	AcceptsUnreachableHeader:  transport.HeaderRuleReachable,
}

var headerFaults = fault.Set{MetaNoCapabilities, MetaNoClientInfo, CapabilityNotObject, NoVersionHeader, VersionHeaderMismatch,
	NoVersionRetry, FallsBackToInitialize, StdioNoProbe, McpMethodUppercase, NoMcpName, McpNameRaw, NoParamHeaders, ParamBooleanCapitalized, ParamNoBase64, ParamSentinelPlain,
	ParamUnannotated, ParamNullSent, NoRelistOnMismatch, AcceptsEmptyHeader, AcceptsBadHeaderChars, AcceptsDuplicateHeaders, AcceptsNonPrimitiveHeader,
	AcceptsUnreachableHeader, RejectsAnnotatedTools, FetchesNetworkRef}

var headerLiberties = fault.Set{LowercaseHeaderNames, SkipsDiscover}
