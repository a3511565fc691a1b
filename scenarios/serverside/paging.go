package serverside

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/scenarios/judge"
)

// The paging judges every list method with a cursor shares
// (server/utilities/pagination.mdx of each version): following nextCursor
// reaches a page without one ("An optional nextCursor field if more results
// exist"), and a cursor the server never gave is refused with -32602
// ("Invalid cursors SHOULD result in an error with code -32602").

// MaxPages bounds a paging loop: a list that still gives a new cursor after
// that many pages is taken for one that never ends.
const MaxPages = 50

// NotACursor is a cursor no server gave.
const NotACursor = "mcpconform-not-a-cursor"

// Paging is what following a list's nextCursor showed.
type Paging struct {
	// Pages is the number of pages answered.
	Pages int
	// Endless says why the pages never end (a cursor given again, or
	// still a new one after MaxPages pages); empty when a last page came.
	Endless string
	// Refused is the answer to a page that was refused or not answered;
	// empty when every page was answered.
	Refused string
	// Results are the pages' results in order, for the caller's items.
	Results []json.RawMessage
	// RefusedAnswer and RefusedErr are that refusal as received, for the
	// caller's own reading (a version refused, say).
	RefusedAnswer *jsonrpc.Message
	RefusedErr    error
}

// PageThrough follows method's nextCursor from the first page, at most
// MaxPages pages, and stops at the first page without one, at a cursor
// given twice (the same page again, for ever), or at a refusal.
func (t *T) PageThrough(s *client.Session, method string) Paging {
	t.Step("page through %s (at most %d pages, no cursor twice)", method, MaxPages)
	var out Paging
	seen := map[string]bool{}
	cursor := ""
	for out.Pages < MaxPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := t.Request(s, method, params)
		if err != nil || resp == nil || resp.Error != nil {
			out.Refused = fmt.Sprintf("page %d: %s", out.Pages+1, judge.Describe(resp, err))
			out.RefusedAnswer, out.RefusedErr = resp, err
			return out
		}
		out.Pages++
		out.Results = append(out.Results, resp.Result)
		var page protocol.Page
		_ = json.Unmarshal(resp.Result, &page)
		if page.NextCursor == nil {
			return out
		}
		if seen[*page.NextCursor] {
			out.Endless = fmt.Sprintf("page %d gives nextCursor %q, which an earlier page gave", out.Pages, *page.NextCursor)
			return out
		}
		seen[*page.NextCursor] = true
		cursor = *page.NextCursor
	}
	out.Endless = fmt.Sprintf("still a new nextCursor after %d pages", MaxPages)
	return out
}

// InvalidCursor sends method with NotACursor and reports whether the answer
// is error -32602, and what the answer was.
func (t *T) InvalidCursor(s *client.Session, method string) (refused bool, actual string) {
	t.Step("send %s with a cursor the server never gave", method)
	resp, err := t.Request(s, method, map[string]any{"cursor": NotACursor})
	return err == nil && judge.IsErrorCode(resp, codes.InvalidParams), judge.Describe(resp, err)
}
