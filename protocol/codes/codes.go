// Package codes holds the JSON-RPC and MCP error codes. It imports nothing, so
// the transports can use it without the generated wire types.
package codes

import "strconv"

// JSON-RPC error codes used by MCP. The standard JSON-RPC 2.0 codes come
// first; MCP's own live in -32020..-32099 from 2026-07-28 on
// (/specification/2026-07-28/basic/index#error-codes).
const (
	ParseError     = -32700
	InvalidRequest = -32600
	MethodNotFound = -32601
	InvalidParams  = -32602
	InternalError  = -32603

	// ResourceNotFound is the legacy (2025-11-25 and earlier) resource not
	// found code; 2026-07-28 uses InvalidParams instead, but clients should
	// still accept it (/specification/2026-07-28/server/resources#error-handling).
	ResourceNotFound = -32002

	// HeaderMismatch: an HTTP header disagrees with the request body
	// (2026-07-28, HeaderMismatchError).
	HeaderMismatch = -32020
	// MissingRequiredClientCapability: the request needs a capability the
	// client did not declare in _meta (2026-07-28).
	MissingRequiredClientCapability = -32021
	// UnsupportedProtocolVersion: the server does not implement the
	// requested version; data lists the supported ones (2026-07-28,
	// /specification/2026-07-28/basic/versioning).
	UnsupportedProtocolVersion = -32022
	// URLElicitationRequired: the request needs a URL-mode elicitation first
	// (2025-11-25 only, /specification/2025-11-25/client/elicitation).
	URLElicitationRequired = -32042
)

var codeNames = map[int]string{
	ParseError:                      "ParseError",
	InvalidRequest:                  "InvalidRequest",
	MethodNotFound:                  "MethodNotFound",
	InvalidParams:                   "InvalidParams",
	InternalError:                   "InternalError",
	ResourceNotFound:                "ResourceNotFound",
	HeaderMismatch:                  "HeaderMismatch",
	MissingRequiredClientCapability: "MissingRequiredClientCapability",
	UnsupportedProtocolVersion:      "UnsupportedProtocolVersion",
	URLElicitationRequired:          "URLElicitationRequired",
}

// Name returns the name of a known error code ("InvalidParams"), or
// the number itself.
func Name(code int) string {
	if name, ok := codeNames[code]; ok {
		return name
	}
	return strconv.Itoa(code)
}
