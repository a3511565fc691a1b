package client

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference client's faults. Each breaks exactly one rule of
// 2025-11-25/basic/lifecycle.mdx#initialization, so they apply only to the
// versions that have an initialize handshake.
var statefulVersions = protocol.JudgedStateful()

var (
	// SkipsInitialized breaks "After successful initialization, the client
	// MUST send an initialized notification".
	SkipsInitialized = &fault.Fault{Name: "skips-initialized", Versions: statefulVersions,
		Description: "never sends notifications/initialized after the initialize response"}
	// RequestBeforeInitialize breaks "The initialization phase MUST be the
	// first interaction". A ping, because pings are the one request the
	// spec lets a client send before the initialize response; anything else
	// would break a second rule.
	// Over Streamable HTTP the transport refuses a request without a
	// session before the fake server sees it, so the fault cannot show there.
	RequestBeforeInitialize = &fault.Fault{Name: "request-before-initialize", Versions: statefulVersions,
		Transports:  []transport.Kind{transport.Stdio, transport.WS},
		Description: "sends ping before initialize"}
	// InitUnsupportedVersion breaks "the client MUST send a protocol version
	// it supports".
	InitUnsupportedVersion = &fault.Fault{Name: "init-unsupported-version", Versions: statefulVersions,
		Description: `asks for protocolVersion "1999-01-01" in initialize, then goes on with the version the server answers`}
	// InitNoClientInfo breaks "The client MUST initiate this phase by
	// sending an initialize request containing … Client implementation
	// information".
	InitNoClientInfo = &fault.Fault{Name: "init-no-client-info", Versions: statefulVersions,
		Description: "leaves clientInfo out of the initialize params"}
)

// ProbesDiscoverFirst is a dual-era client: it tries server/discover at
// 2026-07-28 first and falls back to initialize when that is refused.
var ProbesDiscoverFirst = &fault.Fault{Name: "probes-discover-first", Liberty: true, Versions: statefulVersions,
	Description: "sends server/discover at 2026-07-28 before initialize, and falls back to initialize when it is refused",
	Freedom: "2026-07-28/basic/transports/streamable-http.mdx, Backward Compatibility: a client that supports both eras MAY " +
		"send a 2026-07-28 request first and fall back to initialize when the server answers as an older server does"}

// unsupportedVersion is what InitUnsupportedVersion asks for: no MCP
// version, so no client can support it.
const unsupportedVersion = "1999-01-01"

// Faults lists the reference client's faults.
func Faults() fault.Set {
	set := fault.Set{SkipsInitialized, RequestBeforeInitialize, InitUnsupportedVersion, InitNoClientInfo}
	for _, family := range []fault.Set{versionFaults, mrtrFaults, clientTaskFaults, skillsFaults, surfaceFaults, cancellationFaults, headerFaults, authFaults, authScopesFaults, authExtFaults, authDiscoveryFaults, authRegistrationFaults} {
		set = append(set, family...)
	}
	return set
}

// Liberties lists the reference client's conformant variants.
func Liberties() fault.Set {
	set := fault.Set{ProbesDiscoverFirst}
	for _, family := range []fault.Set{mrtrLiberties, clientTaskLiberties, skillsLiberties, surfaceLiberties, headerLiberties, authScopesLiberties, authExtLiberties, authRegistrationLiberties} {
		set = append(set, family...)
	}
	return set.Sorted()
}
