// Package fault describes a fault: a named mutant of a reference peer that
// breaks exactly one rule. The reference server's faults live in
// fakes/server, the reference client's in fakes/client; the checks that a
// fault must make fail name it in the scenario catalogue, so a misspelt
// fault or check is a compile error.
package fault

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/transport"
)

// Fault is one mutant of a reference peer.
type Fault struct {
	// Name is kebab-case and stable: what --fault and the self-test use.
	Name        string
	Description string
	// Why explains a fault that necessarily breaks more than one check.
	Why string
	// Transports where the fault is observable; empty means all. (Over
	// HTTP the transport itself refuses requests without a session, so a
	// fault in the engine's pre-initialize handling cannot show.)
	Transports []transport.Kind
	// Versions where the fault is observable; empty means all.
	Versions []string
	// NotOn lists "transport@version" pairs where it cannot show even so
	// (each stateless HTTP POST is a connection of its own, for example).
	NotOn []string
}

// ObservableOn reports whether the fault can show on this transport and version.
func (f *Fault) ObservableOn(kind transport.Kind, version string) bool {
	return (len(f.Transports) == 0 || slices.Contains(f.Transports, kind)) &&
		(len(f.Versions) == 0 || slices.Contains(f.Versions, version)) &&
		!slices.Contains(f.NotOn, string(kind)+"@"+version)
}

// Set is the fault catalogue of one reference peer.
type Set []*Fault

// Sorted returns the faults sorted by name.
func (s Set) Sorted() Set {
	out := slices.Clone(s)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Find looks a fault up by name (user input: --fault NAME).
func (s Set) Find(name string) (*Fault, error) {
	for _, f := range s {
		if f.Name == name {
			return f, nil
		}
	}
	names := make([]string, 0, len(s))
	for _, f := range s.Sorted() {
		names = append(names, f.Name)
	}
	return nil, fmt.Errorf("unknown fault %q (known: %s)", name, strings.Join(names, ", "))
}
