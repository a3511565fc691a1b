package server

import (
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/protocol"
)

// The reference server's variants. A fault breaks exactly one rule; the
// checks that must catch it name it in the scenario catalogue. A liberty is
// a conformant variant that uses one freedom the spec grants; the checks it
// exercises name it, and every check must pass it. Names are kebab-case and
// stable: they are what --fault, --liberty and the self-test use. Each
// family keeps its own in a file of its own.

var (
	legacy = protocol.JudgedStateful()
	modern = protocol.JudgedStateless()
)

// Faults lists the reference server's faults sorted by name.
func Faults() fault.Set {
	fam, _ := familyFaults()
	return append(append(append(append(append(fault.Set(nil), lifecycleFaults...), taskFaults...), versionFaults...), wireFaults...), fam...).Sorted()
}

// Liberties lists the reference server's conformant variants sorted by name.
func Liberties() fault.Set {
	_, fam := familyFaults()
	return append(append(append(append(append(fault.Set(nil), lifecycleLiberties...), taskLiberties...), versionLiberties...), wireLiberties...), fam...).Sorted()
}

// Variants lists faults and liberties: everything --fault or --liberty may name.
func Variants() fault.Set { return append(Faults(), Liberties()...) }
