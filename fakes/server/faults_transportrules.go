package server

import (
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults and liberties of the Streamable HTTP transport rules
// (2025-11-25/basic/transports.mdx). Most live in an HTTP front of the
// reference's HTTP server (reference_transportrules.go), since the rule is
// the transport's, not the engine's.
var (
	httpOnly = []transport.Kind{transport.HTTP}
	// The 2025-11-25 page is the first to name a status for a foreign
	// Origin (403) and the priming event.
	only20251125 = []string{protocol.V20251125}
	// 403 for a foreign Origin: 2025-11-25 and 2026-07-28; the older pages
	// ask for validation only.
	withOrigin403         = protocol.From(protocol.V20251125)
	withOrigin403OrLegacy = append(slices.Clone(legacy), protocol.V20260728)
	// Versions of a rule every revision's Streamable HTTP keeps.
	everyHTTP = withOrigin403OrLegacy
	// The MCP-Protocol-Version header exists since 2025-06-18.
	withVersionHeader = []string{protocol.V20251125, protocol.V20250618}

	EndedSession400 = &fault.Fault{Name: "ended-session-400", Transports: httpOnly, Versions: legacy,
		Description: "answers a request carrying a session id it ended (after DELETE) with 400 instead of 404"}
	UnknownSession400 = &fault.Fault{Name: "unknown-session-400", Transports: httpOnly, Versions: legacy,
		Description: "answers a request carrying a session id it never issued with 400 instead of 404 (ended sessions still get 404)"}
	MissingSession404 = &fault.Fault{Name: "missing-session-404", Transports: httpOnly, Versions: legacy,
		Description: "answers a POST without Mcp-Session-Id after initialize with 404 instead of 400"}
	SessionIDNotASCII = &fault.Fault{Name: "session-id-not-ascii", Transports: httpOnly, Versions: legacy,
		Description: `assigns session ids with a space in them ("mcp session <id>")`}
	ProtocolVersionUnchecked = &fault.Fault{Name: "protocol-version-unchecked", Transports: httpOnly, Versions: withVersionHeader,
		Description: "serves a request whose MCP-Protocol-Version it does not support, as if the header were absent"}
	ForeignOriginAccepted = &fault.Fault{Name: "foreign-origin-accepted", Transports: httpOnly, Versions: withOrigin403OrLegacy,
		Why:         "no Origin is refused, so neither the foreign Origin alone nor with a foreign Host that agrees with it",
		Description: "serves a request whose Origin is a foreign site (no DNS-rebinding protection)"}
	ForeignHostAccepted = &fault.Fault{Name: "foreign-host-accepted", Transports: httpOnly, Versions: withOrigin403OrLegacy,
		Description: "takes an Origin that agrees with the request's Host header for its own, so a foreign site whose name resolves to it (DNS rebinding) is served"}
	OwnOriginRefused = &fault.Fault{Name: "own-origin-refused", Transports: httpOnly, Versions: withOrigin403OrLegacy,
		Description: "refuses with 403 a request whose Origin is its own (http:// and the Host it was reached at)"}
	OriginRefused400 = &fault.Fault{Name: "origin-refused-400", Transports: httpOnly, Versions: withOrigin403,
		Description: "refuses a request whose Origin is a foreign site with 400 instead of 403"}
	NoPrimingEvent = &fault.Fault{Name: "no-priming-event", Transports: httpOnly, Versions: only20251125,
		Description: "test_reconnection answers on its POST stream at once: no priming event, no polling"}
	NoRetryField = &fault.Fault{Name: "no-retry-field", Transports: httpOnly, Versions: only20251125,
		Description: "closes the POST stream of test_reconnection after a priming event without a retry field"}
	ResumptionDropsResult = &fault.Fault{Name: "resumption-drops-result", Transports: httpOnly, Versions: only20251125,
		Description: "answers a GET with Last-Event-ID with an SSE stream that ends at once: the deferred result is never delivered"}
	ConcurrentPostsRefused = &fault.Fault{Name: "concurrent-posts-refused", Transports: httpOnly, Versions: everyHTTP,
		Description: "refuses with 409 a tools/list POST that comes within 150 ms of another of the same session (as if it were still open); " +
			"at 2026-07-28, which has no sessions, one whose request id is mcpconform-multiple-streams-N within 150 ms of another such"}

	DeleteNotAllowed = &fault.Fault{Name: "delete-not-allowed", Liberty: true, Transports: httpOnly, Versions: legacy,
		Freedom:     `transports.mdx, "Session Management": "The server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions."`,
		Description: "answers DELETE with 405: clients cannot end sessions"}
	Origin403NoBody = &fault.Fault{Name: "origin-403-no-body", Liberty: true, Transports: httpOnly, Versions: withOrigin403OrLegacy,
		Freedom:     `transports.mdx, "Security Warning": "The HTTP response body MAY comprise a JSON-RPC error response that has no id"`,
		Description: "refuses a foreign Origin with 403 and an empty body (no JSON-RPC error)"}
)

var (
	transportRulesFaults = fault.Set{EndedSession400, UnknownSession400, MissingSession404, SessionIDNotASCII, ProtocolVersionUnchecked,
		ForeignOriginAccepted, ForeignHostAccepted, OwnOriginRefused, OriginRefused400, NoPrimingEvent, NoRetryField, ResumptionDropsResult, ConcurrentPostsRefused}
	transportRulesLiberties = fault.Set{DeleteNotAllowed, Origin403NoBody}
)
