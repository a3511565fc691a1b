package server

import (
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Variants in the versions the server implements. Whether a server that
// does not implement a version is a failure depends on whether the user
// asked for that version by name: the same behaviour is a fault when the
// self-test names the version, and a liberty when it does not.
var (
	// DropsOldest implements 2025-11-25 and 2025-06-18 but not 2025-03-26:
	// asked for it, initialize answers 2025-11-25.
	DropsOldest = &fault.Fault{Name: "drops-2025-03-26", Liberty: true, Versions: []string{protocol.V20250326},
		Freedom:     `lifecycle.mdx: "Otherwise, the server MUST respond with another protocol version it supports."`,
		Description: "does not implement 2025-03-26 and negotiates 2025-11-25 instead"}
	// StatefulOnly implements the session versions only: every 2026-07-28
	// request is refused with -32022, as go-sdk's stateful server does.
	StatefulOnly = &fault.Fault{Name: "stateful-only", Liberty: true,
		Freedom:     `versioning.mdx: a server answers a version it does not implement with UnsupportedProtocolVersionError (-32022)`,
		Description: "implements 2025-11-25, 2025-06-18 and 2025-03-26 only; refuses 2026-07-28 with -32022"}
	// DiscoverVersionRefused is StatefulOnly judged where the user named
	// 2026-07-28: the target does not implement the version asked for.
	DiscoverVersionRefused = &fault.Fault{Name: "refuses-2026-07-28", Versions: []string{protocol.V20260728},
		Description: "refuses every 2026-07-28 request with -32022 although 2026-07-28 was asked for"}
	// InitUnknownVersion answers initialize with a string that is no MCP
	// revision at all.
	// Over HTTP the client then sends that string in MCP-Protocol-Version
	// and every later request is refused, which other checks see as well.
	InitUnknownVersion = &fault.Fault{Name: "init-unknown-version", Versions: legacy,
		Transports:  []transport.Kind{transport.Stdio, transport.WS},
		Description: `answers initialize with protocolVersion "2025-13-45", no MCP revision`}
)

var versionFaults = fault.Set{DiscoverVersionRefused, InitUnknownVersion}

var versionLiberties = fault.Set{DropsOldest, StatefulOnly}

// implementedVersions are the versions a variant implements, newest first.
func implementedVersions(v *fault.Fault) (stateful, stateless []string) {
	stateful, stateless = protocol.JudgedStateful(), protocol.JudgedStateless()
	switch v {
	case DropsOldest:
		stateful = slices.DeleteFunc(stateful, func(s string) bool { return s == protocol.V20250326 })
	case StatefulOnly, DiscoverVersionRefused:
		stateless = nil
	}
	return stateful, stateless
}
