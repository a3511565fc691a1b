package prompts

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

const (
	promptsPage    = "2025-11-25/server/prompts.mdx"
	completionPage = "2025-11-25/server/utilities/completion.mdx"
	paginationPage = "2025-11-25/server/utilities/pagination.mdx"
	methodComplete = "completion/complete"
)

// The family judges every version: the driver speaks each era (initialize,
// or _meta on every request), and a rule of one version alone is a check
// judged at that version (scenarios.Check.Versions).
var versions = protocol.Judged()

// listPrompts follows nextCursor with the paging judge every list shares
// (serverside.PageThrough); ended is false when the listing did not end (a
// cursor seen before, or still a new one after serverside.MaxPages pages).
func listPrompts(t *serverside.T, s *client.Session) (prompts []protocol.Prompt, pages int, ended bool, loop string) {
	p := t.PageThrough(s, protocol.MethodPromptsList)
	if p.Refused != "" {
		t.Blocked("prompts/list was not answered with a result: %s", p.Refused)
	}
	for i, r := range p.Results {
		var page protocol.PromptsPage
		if err := json.Unmarshal(r, &page); err != nil {
			t.Blocked("the prompts/list result of page %d does not decode: %v", i+1, err)
		}
		prompts = append(prompts, page.Prompts...)
	}
	return prompts, p.Pages, p.Endless == "", p.Endless
}

// raw sends a request outside the session's own schema check and waits for
// its answer: the family judges these results itself (roles, content,
// schema) and names each breach in its own check, so wire-schema does not
// judge them twice.
func raw(t *serverside.T, s *client.Session, id, method string, params any) (*jsonrpc.Message, error) {
	return rawAs(t, s, id, method, params, "")
}

// rawAs is raw for a request invalid on purpose when invalid names why
// ("" for a valid one).
func rawAs(t *serverside.T, s *client.Session, id, method string, params any, invalid string) (*jsonrpc.Message, error) {
	rid := jsonrpc.StringID(id)
	frame, err := s.RequestFrame(client.Call{ID: rid, Method: method, Params: params})
	if err != nil {
		t.Abort("%v", err)
	}
	mark := s.Inbox().Mark()
	ctx, cancel := t.Wait()
	defer cancel()
	send := ctx
	if invalid != "" {
		send = t.Deliberately(ctx, invalid)
	}
	if err := s.SendRaw(send, frame); err != nil {
		return nil, err
	}
	return s.Inbox().WaitFrom(ctx, mark, func(m *jsonrpc.Message) bool {
		return m.Method == "" && (m.Error != nil || m.Result != nil) && m.ID.Key() == rid.Key()
	})
}

// answered stops the body when a request got no answer at all.
func answered(t *serverside.T, what string, resp *jsonrpc.Message, err error) {
	if err != nil || resp == nil {
		t.Blocked("%s was not answered: %s", what, judge.Describe(resp, err))
	}
}

// findPrompt resolves a fixture prompt (mappable like a tool fixture) in
// the target's listing; nil when it is absent.
func findPrompt(t *serverside.T, prompts []protocol.Prompt, fixture string) *protocol.Prompt {
	name := t.Fixture(fixture, nil).Tool
	for i := range prompts {
		if prompts[i].Name == name {
			return &prompts[i]
		}
	}
	return nil
}

// requirePrompt lists the prompts and skips the scenario without the fixture.
func requirePrompt(t *serverside.T, s *client.Session, fixture string) *protocol.Prompt {
	prompts, _, _, _ := listPrompts(t, s)
	p := findPrompt(t, prompts, fixture)
	if p == nil {
		t.SkipRest(fmt.Sprintf("the target lists no prompt %q for the fixture %s (map one with --fixture)", t.Fixture(fixture, nil).Tool, fixture))
	}
	return p
}

// isCode judges an error code, describing what came.
func isCode(resp *jsonrpc.Message, code int) bool {
	return resp != nil && resp.Error != nil && resp.Error.Code == code
}

func check(id, title string, level scenarios.Level, spec, quote string) *scenarios.Check {
	return &scenarios.Check{ID: id, Title: title, Level: level, Spec: spec, Quote: quote}
}
