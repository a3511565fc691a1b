package server

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
)

// The reference server's surface grows by family (prompts, tools,
// resources, utilities, transport rules), each in files of its own: its
// request handlers, the capabilities it declares, its fixture tools, and
// its faults and liberties. referenceFamilies lists them, in the one order
// that matters; the core (reference.go) merges them, so a family never
// edits another's files.

// family is one family's contribution to the reference server.
type family struct {
	// handlers add request handlers by method (a method the core already
	// serves is not replaced).
	handlers func(r *reference) map[string]Handler
	// modern serves methods under the 2026-07-28 rules in place of the
	// core's handler for them (the tasks extension's tasks/*, which the
	// core serves as tasks v1 in 2025-11-25 sessions).
	modern func(r *reference) map[string]Handler
	// capabilities adds to the capabilities declared at version.
	capabilities func(r *reference, version string, caps map[string]any)
	// tools are fixture tools, listed after the core's.
	tools []refTool
	// faults and liberties of the family.
	faults, liberties fault.Set
	// wrap, when set, wraps the handler of each method served (after every
	// family added its own), so that a family can answer a request of
	// another's method for a fixture of its own and pass the rest on.
	wrap func(r *reference, method string, next Handler) Handler
}

// referenceFamilies are the reference server's families. Their order is
// the order their wraps apply in (each wraps the handlers as the ones
// before it left them: the MRTR family answers its prompt and resource in
// front of the prompts and resources families, the tasks extension in
// front of the tools) and the order their fixture tools are listed in,
// after the core's.
var referenceFamilies = []family{authFamily, mrtrFamily, promptsFamily, resourcesFamily, statelessFamily,
	subscriptionsFamily, tasksExtensionFamily, toolFixturesFamily, transportRulesFamily, utilitiesFamily}

// referenceTools are the fixture tools the reference server lists: the
// core's, then each family's.
var referenceTools = func() []refTool {
	tools := slices.Clone(coreTools)
	for _, f := range referenceFamilies {
		tools = append(tools, f.tools...)
	}
	return tools
}()

// familyHandlers merges the families' handlers into the core's.
func (r *reference) familyHandlers(core map[string]Handler) {
	for _, f := range referenceFamilies {
		if f.handlers == nil {
			continue
		}
		for method, h := range f.handlers(r) {
			if _, taken := core[method]; !taken {
				core[method] = h
			}
		}
	}
	for _, f := range referenceFamilies {
		if f.modern == nil {
			continue
		}
		for method, h := range f.modern(r) {
			legacy := core[method]
			core[method] = func(ctx context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
				switch {
				case isModern(ctx):
					return h(ctx, p, req)
				case legacy != nil:
					return legacy(ctx, p, req)
				}
				return r.notFound(ctx, p, req)
			}
		}
	}
	for _, f := range referenceFamilies {
		if f.wrap == nil {
			continue
		}
		for method, h := range core {
			core[method] = f.wrap(r, method, h)
		}
	}
}

// familyCapabilities lets each family add what it declares.
func (r *reference) familyCapabilities(version string, caps map[string]any) {
	for _, f := range referenceFamilies {
		if f.capabilities != nil {
			f.capabilities(r, version, caps)
		}
	}
}

func familyFaults() (faults, liberties fault.Set) {
	for _, f := range referenceFamilies {
		faults = append(faults, f.faults...)
		liberties = append(liberties, f.liberties...)
	}
	return faults, liberties
}

// toolCall is a family tool's handler: args are the call's arguments.
type toolCall func(r *reference, ctx context.Context, p *Peer, req *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error)
