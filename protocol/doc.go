// Package protocol is the conformance suite's knowledge of the Model Context
// Protocol wire format: the protocol versions and how they differ (stateful
// initialize handshake vs stateless per-request metadata), method names,
// error codes, reserved `_meta` keys, and schema validation of incoming
// messages.
//
// The wire types themselves are generated, one package per schema version:
// v20250326 (MCP 2025-03-26), v20250618 (MCP 2025-06-18), v20251125 (MCP
// 2025-11-25), v20260728 (MCP 2026-07-28) and exttasks (the
// io.modelcontextprotocol/tasks extension used with 2026-07-28). Each judged
// version is validated against its own schema. See
// internal/gen for how they are generated and what the generator adjusts.
//
// Validation decodes a message strictly into the generated type for its
// version and method; see ValidateParams, ValidateResult and Decode.
package protocol
