// Package catalogue lists every scenario mcpconform judges, family by
// family, and the faults of the reference peers that prove each check can
// fail. A new family is one more line here.
package catalogue

import (
	"github.com/mcpconform/mcpconform/fakes/authref"
	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/authserver/oauth"
	clientauth "github.com/mcpconform/mcpconform/scenarios/client/auth"
	clientcancellation "github.com/mcpconform/mcpconform/scenarios/client/cancellation"
	"github.com/mcpconform/mcpconform/scenarios/client/httprules"
	clientlifecycle "github.com/mcpconform/mcpconform/scenarios/client/lifecycle"
	clientmrtr "github.com/mcpconform/mcpconform/scenarios/client/mrtr"
	clientskills "github.com/mcpconform/mcpconform/scenarios/client/skills"
	"github.com/mcpconform/mcpconform/scenarios/client/surface"
	clienttasks "github.com/mcpconform/mcpconform/scenarios/client/tasks"
	serverauth "github.com/mcpconform/mcpconform/scenarios/server/auth"
	"github.com/mcpconform/mcpconform/scenarios/server/cancellation"
	serverlifecycle "github.com/mcpconform/mcpconform/scenarios/server/lifecycle"
	servermrtr "github.com/mcpconform/mcpconform/scenarios/server/mrtr"
	"github.com/mcpconform/mcpconform/scenarios/server/prompts"
	"github.com/mcpconform/mcpconform/scenarios/server/resources"
	serverskills "github.com/mcpconform/mcpconform/scenarios/server/skills"
	"github.com/mcpconform/mcpconform/scenarios/server/stateless"
	"github.com/mcpconform/mcpconform/scenarios/server/tasks"
	"github.com/mcpconform/mcpconform/scenarios/server/tasksext"
	servertools "github.com/mcpconform/mcpconform/scenarios/server/tools"
	"github.com/mcpconform/mcpconform/scenarios/server/transportrules"
	"github.com/mcpconform/mcpconform/scenarios/server/utilities"
	"github.com/mcpconform/mcpconform/scenarios/server/wire"
)

var all = func() scenarios.Catalogue {
	var c scenarios.Catalogue
	for _, family := range []scenarios.Catalogue{
		serverlifecycle.Scenarios(),
		tasks.Scenarios(),
		wire.Scenarios(),
		prompts.Scenarios(),
		servertools.Scenarios(),
		resources.Scenarios(),
		utilities.Scenarios(),
		transportrules.Scenarios(),
		servermrtr.Scenarios(),
		tasksext.Scenarios(),
		serverskills.Scenarios(),
		stateless.Scenarios(),
		serverauth.Scenarios(),
		cancellation.Scenarios(),
		clientlifecycle.Scenarios(),
		clientmrtr.Scenarios(),
		clienttasks.Scenarios(),
		clientskills.Scenarios(),
		surface.Scenarios(),
		httprules.Scenarios(),
		clientauth.Scenarios(),
		clientcancellation.Scenarios(),
		oauth.Scenarios(),
	} {
		c = append(c, family...)
	}
	return c.Sorted()
}()

// All returns the whole catalogue sorted by scenario id.
func All() scenarios.Catalogue { return all }

// Faults are the faults of the reference peer that plays against each side
// under test: the reference server's for server scenarios, the reference
// client's for client scenarios.
func Faults() map[scenarios.Side]fault.Set {
	return map[scenarios.Side]fault.Set{
		scenarios.ServerSide:     server.Faults(),
		scenarios.ClientSide:     client.Faults(),
		scenarios.AuthServerSide: authref.Faults(),
	}
}

// Liberties are the conformant variants of the same reference peers.
func Liberties() map[scenarios.Side]fault.Set {
	return map[scenarios.Side]fault.Set{
		scenarios.ServerSide:     server.Liberties(),
		scenarios.ClientSide:     client.Liberties(),
		scenarios.AuthServerSide: authref.Liberties(),
	}
}

// Validate checks the catalogue against the variants of both peers.
func Validate() error {
	variants := map[scenarios.Side]fault.Set{}
	for side, set := range Faults() {
		variants[side] = append(append(fault.Set(nil), set...), Liberties()[side]...)
	}
	return all.Validate(variants)
}
