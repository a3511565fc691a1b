// Package fault describes the named variants of a reference peer. A fault
// breaks exactly one rule: the checks it must make fail name it. A liberty
// is the mirror image, a conformant variant that uses one freedom the spec
// grants: the checks it exercises name it, and every check must pass it.
// The reference server's variants live in fakes/server, the reference
// client's in fakes/client; the catalogue refers to them by value, so a
// misspelt variant or check is a compile error.
package fault

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/transport"
)

// Fault is one variant of a reference peer: a fault, or with Liberty set
// a conformant variant.
type Fault struct {
	// Name is kebab-case and stable: what --fault, --liberty and the
	// self-test use.
	Name        string
	Description string
	// Liberty marks a conformant variant; Freedom quotes the spec sentence
	// that grants what it does differently.
	Liberty bool
	Freedom string
	// Why explains a fault that necessarily breaks more than one check.
	Why string
	// Transports where the fault is observable; empty means all. (Over
	// HTTP the transport itself refuses requests without a session, so a
	// fault in the engine's pre-initialize handling cannot show.)
	Transports []transport.Kind
	// Versions where the fault is observable; empty means all.
	Versions []string
	// NotOn lists the places (a transport at a version) where it cannot show even so
	// (each stateless HTTP POST is a connection of its own, for example).
	NotOn []Place
	// ShownBy names the scenarios whose traffic shows a fault that only a
	// ledger judge's check names, when the handshake's and the judges' own
	// traffic does not: the self-test runs them with the judges.
	ShownBy []string
}

// Place is a transport at a protocol version.
type Place struct {
	Transport transport.Kind
	Version   string
}

// Kind says "fault" or "liberty".
func (f *Fault) Kind() string {
	if f.Liberty {
		return "liberty"
	}
	return "fault"
}

// ObservableOn reports whether the variant can show on this transport and version.
func (f *Fault) ObservableOn(kind transport.Kind, version string) bool {
	return (len(f.Transports) == 0 || slices.Contains(f.Transports, kind)) &&
		(len(f.Versions) == 0 || slices.Contains(f.Versions, version)) &&
		!slices.Contains(f.NotOn, Place{kind, version})
}

// Set is the fault catalogue of one reference peer.
type Set []*Fault

// Names lists the variants' names, in the set's order.
func (s Set) Names() []string {
	out := make([]string, len(s))
	for i, f := range s {
		out[i] = f.Name
	}
	return out
}

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
	kind := "fault"
	if len(s) > 0 && s[0].Liberty {
		kind = "liberty"
	}
	return nil, fmt.Errorf("unknown %s %q (known: %s)", kind, name, strings.Join(names, ", "))
}
