package protocol

// The wire types of each schema version are generated from the MCP schemas
// in ../shared/mcp-spec (beside the repository root); see internal/gen for
// what the generator changes in the schemas and why. The freshness test
// (generate_test.go) runs this exact line into a temporary directory.
//
// ext-tasks/spec.schema.json is not used: it is the extension's vendored
// copy of the draft core schema (near-identical to 2026-07-28), while
// ext-tasks/schema.json already contains every definition the extension
// needs.
//
//go:generate go run ./internal/gen -spec ../../shared/mcp-spec/schema -out . 2025-11-25=v20251125 2026-07-28=v20260728 ext-tasks=exttasks 2025-06-18=v20250618 2025-03-26=v20250326
