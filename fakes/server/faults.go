package server

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Fault is a named mutant of the reference server: it breaks exactly one
// rule, and declares the check that must catch it.
type Fault struct {
	Name        string
	Description string
	// Kills is the id of the check this fault must make fail.
	Kills string
	// Transports where the fault is observable; empty means all. (Example:
	// over HTTP the transport itself refuses requests without a session,
	// so a fault in the engine's pre-initialize handling cannot show.)
	Transports []string
	// Versions where the fault is observable; empty means all.
	Versions []string
	// NotOn lists "transport@version" pairs where it cannot show even so
	// (each stateless HTTP POST is a connection of its own, for example).
	NotOn []string
}

// ObservableOn reports whether the fault can show on this transport and version.
func (f Fault) ObservableOn(transport, version string) bool {
	return (len(f.Transports) == 0 || slices.Contains(f.Transports, transport)) &&
		(len(f.Versions) == 0 || slices.Contains(f.Versions, version)) &&
		!slices.Contains(f.NotOn, transport+"@"+version)
}

var (
	legacy = []string{"2025-11-25", "2025-06-18", "2025-03-26"}
	modern = []string{"2026-07-28"}
)

// The fault catalogue. Names are kebab-case and stable: they are what
// `fake-server --fault` and the self-test report use.
var faults = []Fault{
	{Name: "init-wrong-version", Kills: "lifecycle-initialize/version-echoed", Versions: legacy,
		Description: "answers initialize with 2025-03-26 whatever supported version was requested"},
	{Name: "init-missing-capabilities", Kills: "lifecycle-initialize/result-schema", Versions: legacy,
		Description: "leaves capabilities out of the initialize result"},
	{Name: "negotiation-echoes-unsupported", Kills: "lifecycle-version-negotiation/unsupported-version-handled", Versions: legacy,
		Description: "echoes any requested protocol version, even one it does not support"},
	{Name: "ping-error", Kills: "lifecycle-ping/empty-result", Versions: legacy,
		Description: "answers ping with an internal error"},
	{Name: "serves-before-initialize", Kills: "lifecycle-before-initialize/request-rejected", Versions: legacy,
		Transports:  []string{"stdio", "ws"},
		Description: "serves tools/list before initialize"},
	{Name: "parse-error-silent", Kills: "lifecycle-malformed-json/parse-error",
		Transports:  []string{"stdio", "ws"},
		Description: "drops malformed JSON without answering"},
	{Name: "crash-on-malformed-json", Kills: "lifecycle-malformed-json/survives",
		NotOn:       []string{"http@2026-07-28"},
		Description: "answers the parse error, then drops the connection (exits over stdio, ends the session over HTTP)"},
	{Name: "invalid-request-wrong-code", Kills: "lifecycle-invalid-request/invalid-request-error",
		Transports:  []string{"stdio", "ws"},
		Description: "answers a request whose method is not a string with -32603 instead of -32600"},
	{Name: "unknown-method-invalid-request", Kills: "lifecycle-unknown-method/method-not-found",
		Description: "answers unknown methods with -32600 instead of -32601"},
	{Name: "id-numeric-string-unquoted", Kills: "lifecycle-id-echo/ids-exact",
		Description: "echoes a string id made of digits (\"42\") as a number (42)"},
	{Name: "answers-notifications", Kills: "lifecycle-notification-silent/no-response",
		// Streamable HTTP answers a notification POST with 202 before the
		// engine sees it, so the stray answer has nowhere to go.
		Transports:  []string{"stdio", "ws"},
		Description: "answers unknown notifications with a -32601 error"},

	{Name: "discover-missing-versions", Kills: "lifecycle-discover/result-schema", Versions: modern,
		Description: "leaves supportedVersions out of the server/discover result"},
	{Name: "discover-no-server-info", Kills: "lifecycle-discover/server-info", Versions: modern,
		Description: "leaves _meta serverInfo out of the server/discover result"},
	{Name: "unsupported-version-wrong-code", Kills: "lifecycle-unsupported-version/error-32022", Versions: modern,
		Description: "rejects an unknown protocol version with -32602 (the 2025 example's code) instead of -32022"},
	{Name: "missing-meta-accepted", Kills: "lifecycle-missing-meta/invalid-params", Versions: modern,
		Description: "serves requests that lack io.modelcontextprotocol/clientCapabilities"},
	{Name: "missing-capability-wrong-code", Kills: "lifecycle-missing-capability/error-32021", Versions: modern,
		Description: "answers a call needing an undeclared capability with -32603 instead of -32021"},
	{Name: "header-mismatch-accepted", Kills: "lifecycle-header-mismatch/error-32020", Versions: modern,
		Transports:  []string{"http"},
		Description: "does not compare Mcp-Method with the body's method"},
}

// Faults lists the fault catalogue sorted by name.
func Faults() []Fault {
	out := append([]Fault(nil), faults...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FindFault looks a fault up by name.
func FindFault(name string) (Fault, error) {
	for _, f := range faults {
		if f.Name == name {
			return f, nil
		}
	}
	names := make([]string, 0, len(faults))
	for _, f := range Faults() {
		names = append(names, f.Name)
	}
	return Fault{}, fmt.Errorf("unknown fault %q (known: %s)", name, strings.Join(names, ", "))
}

// Killers maps each check id to the faults that must kill it.
func Killers() map[string][]string {
	out := map[string][]string{}
	for _, f := range Faults() {
		out[f.Kills] = append(out[f.Kills], f.Name)
	}
	return out
}
