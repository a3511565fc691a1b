package protocol

import "slices"

// Protocol versions (revision dates). Spec: /specification/<version>/basic/lifecycle
// for the stateful revisions, /specification/2026-07-28/basic/versioning for
// the stateless one.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25"
	V20260728 = "2026-07-28"
)

// Latest is the newest protocol version this suite knows.
const Latest = V20260728

// LatestStateful is the newest version that uses the initialize handshake.
const LatestStateful = V20251125

// Era tells how a protocol version establishes what is spoken.
type Era int

const (
	// Stateful ("legacy" in the 2026-07-28 spec) versions negotiate the
	// version and capabilities once, with initialize /
	// notifications/initialized, and keep them for the session.
	Stateful Era = iota + 1
	// Stateless ("modern") versions carry version, client info and
	// capabilities in every request's _meta; there is no handshake, and
	// servers answer server/discover instead (2026-07-28, basic/versioning).
	Stateless
)

func (e Era) String() string {
	switch e {
	case Stateful:
		return "stateful"
	case Stateless:
		return "stateless"
	}
	return "unknown"
}

// Version is everything the suite knows about one protocol version: how a
// session is established, what a harmless probe request is, which
// features exist, and which generated schema judges it. Every other place
// asks this table instead of comparing version strings.
type Version struct {
	Name string
	Era  Era
	// Judged versions are the ones --spec-version accepts (2024-11-05 is
	// only known, so that a server answering with it is recognised).
	Judged bool
	// Handshake is the first request of a session: initialize, or
	// server/discover where there is no handshake (2026-07-28).
	Handshake string
	// Probe is a request every server answers, used as a barrier.
	Probe string
	// SchemaOf is the version whose generated types judge this one: its
	// own where the schema is generated (every judged version), else the
	// newest of its era (2024-11-05, only recognised).
	SchemaOf string
	// Features that exist at this version.
	TasksV1        bool // tasks/get|result|list|cancel (2025-11-25)
	TasksExtension bool // io.modelcontextprotocol/tasks (2026-07-28)
	MRTR           bool // resultType "input_required" (2026-07-28)
	Discover       bool // server/discover (2026-07-28)
	// ElicitationModes: elicitation requests name a mode, form or url
	// (2025-11-25 and after).
	ElicitationModes bool
	// VersionHeader: over HTTP, MCP-Protocol-Version names the version on
	// every request (2025-06-18 and after; streamable-http.mdx#protocol-version-header).
	VersionHeader bool
	// Batches: JSON-RPC batches are allowed (2025-03-26 only).
	Batches bool
	// ProtectedResourceMetadata: an MCP server names its authorization
	// servers in RFC 9728 metadata (2025-06-18 and after; 2025-03-26's
	// server is its own authorization server).
	ProtectedResourceMetadata bool
}

// versions lists every known version, newest first.
var versions = []Version{
	{Name: V20260728, Era: Stateless, Judged: true, Handshake: MethodServerDiscover, Probe: MethodServerDiscover, SchemaOf: V20260728,
		TasksExtension: true, MRTR: true, Discover: true, ElicitationModes: true, ProtectedResourceMetadata: true, VersionHeader: true},
	{Name: V20251125, Era: Stateful, Judged: true, Handshake: MethodInitialize, Probe: MethodPing, SchemaOf: V20251125, TasksV1: true,
		ElicitationModes: true, ProtectedResourceMetadata: true, VersionHeader: true},
	{Name: V20250618, Era: Stateful, Judged: true, Handshake: MethodInitialize, Probe: MethodPing, SchemaOf: V20250618,
		ProtectedResourceMetadata: true, VersionHeader: true},
	{Name: V20250326, Era: Stateful, Judged: true, Handshake: MethodInitialize, Probe: MethodPing, SchemaOf: V20250326, Batches: true},
	{Name: V20241105, Era: Stateful, Handshake: MethodInitialize, Probe: MethodPing, SchemaOf: V20251125},
}

// Lookup returns the table row of a version.
func Lookup(version string) (Version, bool) {
	for _, v := range versions {
		if v.Name == version {
			return v, true
		}
	}
	return Version{}, false
}

// Features is the row of a version (the zero row, no feature, for an
// unknown one).
func Features(version string) Version {
	v, _ := Lookup(version)
	return v
}

// Supported returns the known protocol versions, newest first.
func Supported() []string { return Where(func(Version) bool { return true }) }

// Where lists the known versions (newest first) that satisfy pred.
func Where(pred func(Version) bool) []string {
	var out []string
	for _, v := range versions {
		if pred(v) {
			out = append(out, v.Name)
		}
	}
	return out
}

// Judged lists the versions the suite judges, in the order a user reads
// them: the default first, then the older stateful ones, then the newest.
func Judged() []string {
	return append(Where(func(v Version) bool { return v.Judged && v.Era == Stateful }),
		Where(func(v Version) bool { return v.Judged && v.Era == Stateless })...)
}

// DefaultVersion is the version a run judges when none is named: the
// newest with the initialize handshake, which most implementations serve.
const DefaultVersion = V20251125

// From lists the judged versions from first on (version names are dates),
// in Judged's order: a rule that came with first and stands after it, so a
// newer version inherits it without a word here.
func From(first string) []string {
	return slices.DeleteFunc(Judged(), func(v string) bool { return v < first })
}

// JudgedStateful lists the judged versions with the initialize handshake.
func JudgedStateful() []string {
	return Where(func(v Version) bool { return v.Judged && v.Era == Stateful })
}

// JudgedStateless lists the judged versions without a handshake.
func JudgedStateless() []string {
	return Where(func(v Version) bool { return v.Judged && v.Era == Stateless })
}

// EraOf returns the era of a version, and false for unknown versions.
func EraOf(version string) (Era, bool) {
	v, ok := Lookup(version)
	return v.Era, ok
}

// IsKnown reports whether version is one of Supported().
func IsKnown(version string) bool {
	_, ok := Lookup(version)
	return ok
}

// IsStateless reports whether version is a known stateless (per-request
// _meta, server/discover) version.
func IsStateless(version string) bool {
	era, _ := EraOf(version)
	return era == Stateless
}

// IsStateful reports whether version is a known version that uses the
// initialize handshake.
func IsStateful(version string) bool {
	era, _ := EraOf(version)
	return era == Stateful
}

// SchemaFor is the version whose generated types judge messages of
// version; version itself when unknown.
func SchemaFor(version string) string {
	if v, ok := Lookup(version); ok && v.SchemaOf != "" {
		return v.SchemaOf
	}
	return version
}

// HasSchema reports whether this package has generated types, and so
// validation, for version.
func HasSchema(version string) bool {
	_, ok := registry[version]
	return ok
}

// SchemaVersions returns the versions that HasSchema, newest first.
func SchemaVersions() []string {
	return slices.DeleteFunc(Supported(), func(v string) bool { return !HasSchema(v) })
}
