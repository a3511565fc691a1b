package server

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
)

// The reference server's surface grows by family (prompts, tools,
// resources, utilities, transport rules), each in files of its own. A
// family is a type of its own: it embeds familyBase, which gives it the
// core (the variant, the versions, notFound) and contributes nothing, and
// its own methods say what it adds (family): its request handlers, the
// capabilities it declares, its fixture tools, its wraps, and its faults
// and liberties. Whatever state it keeps is a field of its type, so each
// reference has its own (tests serve many references at once).
//
// To add a family, write its type and its constructor in its files and
// name the constructor in referenceFamilies, in the one order that
// matters; the core (reference.go) builds each family per reference and
// merges them, so a family never edits another's files.

// family is one family's contribution to one reference server.
type family interface {
	// handlers add request handlers by method (a method the core already
	// serves is not replaced).
	handlers() map[string]Handler
	// modern serves methods under the 2026-07-28 rules in place of the
	// core's handler for them (the tasks extension's tasks/*, which the
	// core serves as tasks v1 in 2025-11-25 sessions).
	modern() map[string]Handler
	// capabilities adds to the capabilities declared at version.
	capabilities(version string, caps map[string]any)
	// tools are fixture tools, listed after the core's.
	tools() []refTool
	// wrap wraps the handler of each method served (after every family
	// added its own), so that a family can answer a request of another's
	// method for a fixture of its own and pass the rest on.
	wrap(method string, next Handler) Handler
	// layer wraps the handling of every request, a method nobody serves
	// included, inside the core's version and _meta checks.
	layer(next Handler) Handler
	// faults and liberties of the family.
	faults() fault.Set
	liberties() fault.Set
}

// familyBase is embedded by every family: the reference it is part of, and
// no contribution where the family's own methods add none.
type familyBase struct{ *reference }

func (familyBase) handlers() map[string]Handler        { return nil }
func (familyBase) modern() map[string]Handler          { return nil }
func (familyBase) capabilities(string, map[string]any) {}
func (familyBase) tools() []refTool                    { return nil }
func (familyBase) wrap(_ string, next Handler) Handler { return next }
func (familyBase) layer(next Handler) Handler          { return next }
func (familyBase) faults() fault.Set                   { return nil }
func (familyBase) liberties() fault.Set                { return nil }

// referenceFamilies build the reference server's families, each reference
// its own. Their order is the order their wraps and layers apply in (each
// wraps the handlers as the ones before it left them: the MRTR family
// answers its prompt and resource in front of the prompts and resources
// families, the tasks extension's listen in front of the subscriptions
// family's) and the order their fixture tools are listed in, after the
// core's. A constructor does nothing but make its family: familyFaults
// makes each without a reference, to read its faults.
var referenceFamilies = []func(r *reference) family{newAuthFamily, newCancellationFamily, newMRTRFamily, newPromptsFamily, newResourcesFamily, newSkillsFamily, newStatelessFamily,
	newSubscriptionsFamily, newTasksExtensionFamily, newToolFixturesFamily, newTransportRulesFamily, newUtilitiesFamily}

// buildFamilies gives the reference its families and the fixture tools it
// lists: the core's, then each family's.
func (r *reference) buildFamilies() {
	r.tools = slices.Clone(coreTools)
	for _, newFamily := range referenceFamilies {
		f := newFamily(r)
		r.families = append(r.families, f)
		r.tools = append(r.tools, f.tools()...)
	}
}

// familyHandlers merges the families' handlers into the core's.
func (r *reference) familyHandlers(core map[string]Handler) {
	for _, f := range r.families {
		for method, h := range f.handlers() {
			if _, taken := core[method]; !taken {
				core[method] = h
			}
		}
	}
	for _, f := range r.families {
		for method, h := range f.modern() {
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
	for _, f := range r.families {
		for method, h := range core {
			core[method] = f.wrap(method, h)
		}
	}
}

// notifier is a family that also receives notifications of some methods.
type notifier interface {
	notifications() map[string]NotificationHandler
}

// familyNotifications lets the families that receive notifications have
// them after the core's handler of the method, if any.
func (r *reference) familyNotifications(core map[string]NotificationHandler) {
	for _, f := range r.families {
		n, ok := f.(notifier)
		if !ok {
			continue
		}
		for method, h := range n.notifications() {
			before := core[method]
			core[method] = func(ctx context.Context, p *Peer, msg *jsonrpc.Message) {
				if before != nil {
					before(ctx, p, msg)
				}
				h(ctx, p, msg)
			}
		}
	}
}

// familyLayers puts the families' layers around next, the first innermost.
func (r *reference) familyLayers(next Handler) Handler {
	for _, f := range r.families {
		next = f.layer(next)
	}
	return next
}

// familyCapabilities lets each family add what it declares.
func (r *reference) familyCapabilities(version string, caps map[string]any) {
	for _, f := range r.families {
		f.capabilities(version, caps)
	}
}

// familyFaults are the families' faults and liberties, in their order.
func familyFaults() (faults, liberties fault.Set) {
	for _, newFamily := range referenceFamilies {
		f := newFamily(nil)
		faults = append(faults, f.faults()...)
		liberties = append(liberties, f.liberties()...)
	}
	return faults, liberties
}

// toolCall is a family tool's handler, bound to its family: args are the
// call's arguments.
type toolCall func(ctx context.Context, p *Peer, req *jsonrpc.Message, args json.RawMessage) (any, *jsonrpc.Error)
