package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// A server may page a list without end (2025-11-25/server/utilities/
// pagination.mdx: "An optional nextCursor field if more results exist"):
// 100,000-item pages without end peaked at 1.87 GB and took 12 min 40 s,
// and the scenario deadline that ended it was blamed on the target, which
// had answered every page in 0.2 s (issue 21). ListAll follows nextCursor
// within a budget of pages and bytes and, beyond it, stops and says so with
// a PagingBudgetError: what happened, not a timeout.

// PagingBudget bounds one listing: the pages followed and the bytes of
// their results. Zero fields take DefaultPagingBudget's.
type PagingBudget struct {
	Pages int
	Bytes int
}

// DefaultPagingBudget is far more than a real server's lists take (a
// thousand tools are a few MiB) and far less than a server that pages
// without end costs.
var DefaultPagingBudget = PagingBudget{Pages: 100, Bytes: 8 << 20}

func (b PagingBudget) orDefaults() PagingBudget {
	if b.Pages <= 0 {
		b.Pages = DefaultPagingBudget.Pages
	}
	if b.Bytes <= 0 {
		b.Bytes = DefaultPagingBudget.Bytes
	}
	return b
}

// ErrPagingBudget is what every PagingBudgetError is (errors.Is): a
// listing stopped because the server kept paging beyond the budget.
var ErrPagingBudget = errors.New("paging budget exceeded")

// PagingStop says which bound a listing ran into.
type PagingStop string

const (
	// PagingTooManyPages: still a nextCursor after Budget.Pages pages.
	PagingTooManyPages PagingStop = "pages"
	// PagingTooManyBytes: the pages' results passed Budget.Bytes.
	PagingTooManyBytes PagingStop = "bytes"
	// PagingCursorRepeated: a page gave a nextCursor an earlier page gave.
	PagingCursorRepeated PagingStop = "cursor-repeated"
)

// PagingBudgetError is why a listing stopped before a last page: the
// server kept returning nextCursor (or returned one it gave before).
type PagingBudgetError struct {
	Method string
	Stop   PagingStop
	Pages  int // pages received
	Bytes  int // bytes of their results
	Items  int // items they held
	Budget PagingBudget
	Cursor string // the last nextCursor
	// Slowest is the longest the server took to answer a page; Took is
	// the whole listing, our own reading and checking of the pages too.
	Slowest, Took time.Duration
}

func (e *PagingBudgetError) Error() string {
	what := "the server keeps returning nextCursor"
	if e.Stop == PagingCursorRepeated {
		what = fmt.Sprintf("the server returned nextCursor %q again, a cursor an earlier page gave", cut(e.Cursor, 80))
	}
	return fmt.Sprintf("%s: stopped after %d page(s) / %s MiB (%s items; the budget is %d pages or %d MiB): %s; "+
		"each page was answered within %s (%s in all, with mcpconform's reading of the pages)",
		e.Method, e.Pages, mib(e.Bytes), jsonrpc.Thousands(e.Items), e.Budget.Pages, e.Budget.Bytes>>20, what,
		roundShort(e.Slowest), roundShort(e.Took))
}

func roundShort(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// Is makes every PagingBudgetError an ErrPagingBudget.
func (e *PagingBudgetError) Is(target error) bool { return target == ErrPagingBudget }

func mib(n int) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// listMembers names the array each list method's result holds.
var listMembers = map[string]string{
	protocol.MethodToolsList:              "tools",
	protocol.MethodPromptsList:            "prompts",
	protocol.MethodResourcesList:          "resources",
	protocol.MethodResourcesTemplatesList: "resourceTemplates",
	protocol.MethodTasksList:              "tasks",
}

// Listing is what ListAll gathered.
type Listing struct {
	Method string
	Items  []json.RawMessage // every page's items, in order
	Pages  int
	Bytes  int
	// Last is the last answer: the last page, or the JSON-RPC error that
	// ended the listing (a JSON-RPC error is not a Go error).
	Last *jsonrpc.Message
}

// ListOptions tune ListAll; every field is optional.
type ListOptions struct {
	// Params are sent with every page (cursor added).
	Params map[string]any
	Budget PagingBudget
	// PageTimeout bounds each page's answer; zero leaves it to ctx.
	PageTimeout time.Duration
}

// ListAll follows nextCursor through a list method (tools/list,
// prompts/list, resources/list, resources/templates/list, tasks/list)
// until a page without one, a JSON-RPC error, or the budget. Beyond the
// budget it returns what it gathered with a *PagingBudgetError; a failed
// request returns what it gathered with that error.
func (s *Session) ListAll(ctx context.Context, method string, opts ListOptions) (*Listing, error) {
	budget := opts.Budget.orDefaults()
	member, ok := listMembers[method]
	if !ok {
		return nil, fmt.Errorf("ListAll: %s is not a list method", method)
	}
	l := &Listing{Method: method}
	seen := map[string]bool{}
	start := time.Now()
	var slowest time.Duration
	stop := func(why PagingStop, cursor string) error {
		return &PagingBudgetError{Method: method, Stop: why, Pages: l.Pages, Bytes: l.Bytes, Items: len(l.Items),
			Budget: budget, Cursor: cursor, Slowest: slowest, Took: time.Since(start)}
	}
	cursor := ""
	for {
		params := map[string]any{}
		for k, v := range opts.Params {
			params[k] = v
		}
		if cursor != "" {
			params["cursor"] = cursor
		}
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if opts.PageTimeout > 0 {
			pctx, cancel = context.WithTimeout(ctx, opts.PageTimeout)
		}
		resp, took, err := s.doTimed(pctx, Call{Method: method, Params: params})
		cancel()
		if err != nil {
			return l, err
		}
		slowest = max(slowest, took)
		l.Last = resp
		if resp.Error != nil {
			return l, nil
		}
		l.Pages++
		l.Bytes += len(resp.Result)
		var page map[string]json.RawMessage
		_ = json.Unmarshal(resp.Result, &page)
		var items []json.RawMessage
		_ = json.Unmarshal(page[member], &items)
		l.Items = append(l.Items, items...)
		var next string
		if json.Unmarshal(page["nextCursor"], &next) != nil || next == "" {
			return l, nil
		}
		switch {
		case seen[next]:
			return l, stop(PagingCursorRepeated, next)
		case l.Bytes >= budget.Bytes:
			return l, stop(PagingTooManyBytes, next)
		case l.Pages >= budget.Pages:
			return l, stop(PagingTooManyPages, next)
		}
		seen[next] = true
		cursor = next
	}
}
