package serverside

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
)

// Helpers that scenarios of several families share.

// SurvivesProbe judges that the session still answers: any response, a
// result or an error, proves the server is alive and reading.
func (t *T) SurvivesProbe(s *client.Session, check *scenarios.Check) {
	method := t.Version().Probe
	id := jsonrpc.StringID("mcpconform-alive-1")
	resp, err := t.Do(s, client.Call{ID: id, Method: method, Params: map[string]any{}})
	status, note := StatusNote(s, id)
	// Over HTTP a 404 means the session is gone (streamable HTTP session management).
	t.Judge(check, err == nil && status != 404, "a response to "+method+" on the same session", judge.Describe(resp, err)+note)
}

// ListTools fetches every page of tools/list, within the fake client's
// paging budget (client.ListAll): a server that pages without end gives
// the tools of the pages read and a *client.PagingBudgetError saying so.
// A tool that does not decode as a protocol.Tool is left out.
func (t *T) ListTools(s *client.Session) (map[string]protocol.Tool, error) {
	out := map[string]protocol.Tool{}
	l, err := s.ListAll(t.Ctx, protocol.MethodToolsList, client.ListOptions{PageTimeout: t.Env.Timing.ResponseTimeout})
	t.abortIfUnreachable(err)
	if l != nil {
		for _, raw := range l.Items {
			var tl protocol.Tool
			if json.Unmarshal(raw, &tl) == nil {
				out[tl.Name] = tl
			}
		}
	}
	switch {
	case errors.Is(err, client.ErrPagingBudget):
		t.Transcript().Eventf(s.Label(), "%v", err)
		return out, err
	case err != nil:
		return nil, err
	case l.Last != nil && l.Last.Error != nil:
		return nil, fmt.Errorf("tools/list: %s", judge.Describe(l.Last, nil))
	}
	return out, nil
}

// Fixture is the target's tool and arguments for a fixture the scenario
// names among its needs (a fixture it does not name is a harness error, so
// the needs `list` shows are the ones the body uses).
func (t *T) Fixture(fixture string, defaults map[string]any) scenarios.Fixture {
	if !t.Scenario().NeedsFixtureNamed(fixture) {
		t.HarnessError("the scenario uses the fixture %s without naming it in its needs (a defect in mcpconform)", fixture)
	}
	return t.Env.Fixture(fixture, defaults)
}

// RequireTool resolves a fixture to the target's tool and skips the rest of
// the scenario when the target does not list it.
func (t *T) RequireTool(s *client.Session, fixture string, defaults map[string]any) scenarios.Fixture {
	fx := t.Fixture(fixture, defaults)
	t.Step("list tools to find the fixture %s", fixture)
	tools, err := t.ListTools(s)
	if _, found := tools[fx.Tool]; found && errors.Is(err, client.ErrPagingBudget) {
		return fx // on a page read before the listing was stopped
	}
	if err != nil {
		t.needAnswer(s, "tools/list", err)
		t.SkipRest(fmt.Sprintf("the fixture %s could not be looked up: %v", fixture, err))
	}
	if _, ok := tools[fx.Tool]; !ok {
		t.SkipRest(fmt.Sprintf("the target lists no tool %q for the fixture %s (map one with --fixture or the config file)", fx.Tool, fixture))
	}
	return fx
}
