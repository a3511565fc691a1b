package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// The reference client's faults of "Respect the negotiated protocol
// version" (2025-11-25/basic/lifecycle.mdx#operation): after a handshake
// at an older version it uses something only a newer version has.
var (
	// NewerMetaAfterNegotiation lists the tools with 2026-07-28's per-request
	// _meta right after a handshake at an older version.
	NewerMetaAfterNegotiation = &fault.Fault{Name: "newer-meta-after-negotiation", Versions: statefulVersions,
		Description: "after notifications/initialized, lists the tools with the 2026-07-28 _meta key io.modelcontextprotocol/protocolVersion"}
	// TaskAugmentedAtOlderVersion asks for a task on tools/call at a version
	// without tasks: the tools/call of client-tools-call shows it.
	TaskAugmentedAtOlderVersion = &fault.Fault{Name: "task-augmented-at-older-version", Versions: olderThanTasks(),
		ShownBy:     []string{"client-tools-call"},
		Description: "adds a 2025-11-25 task augmentation (task: {ttl}) to its tools/call at a version without tasks"}
)

var versionFaults = fault.Set{NewerMetaAfterNegotiation, TaskAugmentedAtOlderVersion}

// olderThanTasks are the judged versions whose tools/call has no task field.
func olderThanTasks() []string {
	return protocol.Where(func(v protocol.Version) bool {
		return v.Judged && v.Era == protocol.Stateful && !v.RequestHas(protocol.MethodToolsCall, "task")
	})
}
