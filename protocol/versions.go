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

// eras lists every known version, newest first.
var eras = []struct {
	version string
	era     Era
}{
	{V20260728, Stateless},
	{V20251125, Stateful},
	{V20250618, Stateful},
	{V20250326, Stateful},
	{V20241105, Stateful},
}

// Supported returns the known protocol versions, newest first.
func Supported() []string {
	out := make([]string, len(eras))
	for i, e := range eras {
		out[i] = e.version
	}
	return out
}

// EraOf returns the era of a version, and false for unknown versions.
func EraOf(version string) (Era, bool) {
	for _, e := range eras {
		if e.version == version {
			return e.era, true
		}
	}
	return 0, false
}

// IsKnown reports whether version is one of Supported().
func IsKnown(version string) bool {
	_, ok := EraOf(version)
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
