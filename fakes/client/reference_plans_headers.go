package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/transport"
)

// The moves of the official scenarios of 2026-07-28's request rules
// (fixtures.md, "Client scenarios"). http-custom-headers needs no plan:
// tools/list and the context's calls are the generic moves, and the
// transport mirrors the parameters.
func init() {
	scenarioPlans[scenarioRequestMetadata] = func(ctx context.Context, rc *referenceRun) error {
		return rc.listToolsRetrying(ctx)
	}
	scenarioPlans[scenarioStandardHeaders] = func(ctx context.Context, rc *referenceRun) error {
		return rc.exerciseNamed(ctx)
	}
	scenarioPlans[scenarioInvalidTools] = func(ctx context.Context, rc *referenceRun) error {
		return rc.callValidTools(ctx)
	}
	scenarioPlans[scenarioHeaderMismatch] = func(ctx context.Context, rc *referenceRun) error {
		return rc.callRelisting(ctx)
	}
	scenarioPlans[scenarioSchemaRef] = func(ctx context.Context, rc *referenceRun) error {
		return rc.listWithoutDereferencing(ctx)
	}
}

func (rc *referenceRun) listedTools(ctx context.Context) ([]protocol.ListedTool, json.RawMessage, error) {
	resp, err := rc.request(ctx, protocol.MethodToolsList, map[string]any{})
	if err != nil {
		return nil, nil, err
	}
	var result protocol.ListedTools
	if err := json.Unmarshal(resp.Result, &result); err != nil {
		return nil, nil, fmt.Errorf("the tools/list result is not an object: %w", err)
	}
	return result.Tools, resp.Result, nil
}

// listToolsRetrying lists the tools, retrying a -32022 refusal at a listed
// version: without server/discover first (liberty skips-discover) the
// refusal comes here.
func (rc *referenceRun) listToolsRetrying(ctx context.Context) error {
	call, _ := rc.opening(Call{Method: protocol.MethodToolsList, Params: map[string]any{}}) // first without server/discover
	resp, err := rc.do(ctx, call)
	if rc.retryVersion(resp) {
		_, err = rc.request(ctx, protocol.MethodToolsList, map[string]any{})
	}
	return err
}

// callRelisting lists the tools and makes the context's calls; a call
// refused with -32020 HeaderMismatch is retried once after listing the
// tools again, whose new annotations the transport learns
// (streamable-http.mdx, Client Behavior: "the client SHOULD call tools/list
// to check for changes to the tool's inputSchema, then retry").
func (rc *referenceRun) callRelisting(ctx context.Context) error {
	if err := rc.listTools(ctx); err != nil {
		return err
	}
	sc, err := rc.context()
	if err != nil {
		return err
	}
	for _, c := range sc.ToolCalls {
		params := map[string]any{"name": c.Name, "arguments": orEmpty(c.Arguments)}
		resp, err := rc.withInput(ctx, protocol.MethodToolsCall, params)
		if resp != nil && resp.Error != nil && resp.Error.Code == codes.HeaderMismatch && !rc.variant(NoRelistOnMismatch) {
			rc.logf("%s refused with %d: listing the tools again and retrying", c.Name, resp.Error.Code)
			if err := rc.listTools(ctx); err != nil {
				return err
			}
			_, err = rc.withInput(ctx, protocol.MethodToolsCall, params)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (rc *referenceRun) context() (scenarioContext, error) {
	var sc scenarioContext
	if rc.opts.Context != "" {
		if err := json.Unmarshal([]byte(rc.opts.Context), &sc); err != nil {
			return sc, fmt.Errorf("$%s is not the JSON object expected: %w", EnvContext, err)
		}
	}
	return sc, nil
}

// exerciseNamed makes every request that has an Mcp-Name: each tool
// called, each resource read, each prompt got, after listing them.
func (rc *referenceRun) exerciseNamed(ctx context.Context) error {
	tools, _, err := rc.listedTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if _, err := rc.callTool(ctx, t.Name, map[string]any{}); err != nil {
			return err
		}
	}
	resp, err := rc.request(ctx, protocol.MethodResourcesList, map[string]any{})
	if err != nil {
		return err
	}
	var resources protocol.ResourcesPage
	_ = json.Unmarshal(resp.Result, &resources)
	for _, r := range resources.Resources {
		if _, err := rc.withInput(ctx, protocol.MethodResourcesRead, map[string]any{"uri": r.URI}); err != nil {
			return err
		}
	}
	resp, err = rc.request(ctx, protocol.MethodPromptsList, map[string]any{})
	if err != nil {
		return err
	}
	var prompts protocol.PromptsPage
	_ = json.Unmarshal(resp.Result, &prompts)
	for _, p := range prompts.Prompts {
		if _, err := rc.withInput(ctx, protocol.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": map[string]any{}}); err != nil {
			return err
		}
	}
	return nil
}

// callValidTools lists the tools, rejects those whose x-mcp-header
// annotations break a constraint (server/tools.mdx#x-mcp-header: "the
// client MUST exclude the invalid tool from the result of tools/list"),
// logs why, and calls every tool it kept.
func (rc *referenceRun) callValidTools(ctx context.Context) error {
	tools, _, err := rc.listedTools(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range tools {
		if !rc.keepTool(t) {
			continue
		}
		if _, err := rc.callTool(ctx, t.Name, placeholderArguments(t.InputSchema)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (rc *referenceRun) keepTool(t protocol.ListedTool) bool {
	params, bad := transport.ToolParamHeaders(t.InputSchema)
	if rc.variant(RejectsAnnotatedTools) && len(params)+len(bad) > 0 {
		rc.logf("warning: tool %s dropped: it has x-mcp-header annotations (fault %s)", t.Name, RejectsAnnotatedTools.Name)
		return false
	}
	ignored := transport.HeaderRule("")
	for f, rule := range ignoredRule {
		if rc.variant(f) {
			ignored = rule
		}
	}
	var why []string
	for _, v := range bad {
		if v.Rule != ignored {
			why = append(why, v.String())
		}
	}
	if len(why) > 0 {
		rc.logf("warning: tool %s rejected: %s", t.Name, strings.Join(why, "; "))
		return false
	}
	return true
}

// placeholderArguments gives every required property of a schema a value
// of its type.
func placeholderArguments(schema json.RawMessage) map[string]any {
	var s protocol.ObjectSchema
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		prop := s.Properties[name]
		switch prop["type"] {
		case "object":
			args[name] = map[string]any{}
		case "null":
			args[name] = nil
		default:
			args[name] = placeholder(prop)
		}
	}
	return args
}

// listWithoutDereferencing lists the tools and makes the context's calls;
// no $ref is fetched (basic/index.mdx#ref-resolution), except by the fault.
func (rc *referenceRun) listWithoutDereferencing(ctx context.Context) error {
	_, result, err := rc.listedTools(ctx)
	if err != nil {
		return err
	}
	if rc.variant(FetchesNetworkRef) {
		rc.fetchRefs(ctx, result)
	}
	sc, err := rc.context()
	if err != nil {
		return err
	}
	for _, c := range sc.ToolCalls {
		if _, err := rc.callTool(ctx, c.Name, c.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// fetchRefs GETs every http(s) $ref in v whose host is a loopback address
// (the fault's reach stays on this machine).
func (rc *referenceRun) fetchRefs(ctx context.Context, v json.RawMessage) {
	var doc any
	_ = json.Unmarshal(v, &doc)
	var refs []string
	var walk func(any)
	walk = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			if ref, ok := n["$ref"].(string); ok {
				refs = append(refs, ref)
			}
			for _, c := range n {
				walk(c)
			}
		case []any:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(doc)
	sort.Strings(refs)
	// A redirect could lead off loopback: never followed.
	client := transport.NewHTTPClient(nil)
	client.Timeout = rc.opts.ResponseTimeout
	for _, ref := range refs {
		u, err := url.Parse(ref)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
			rc.logf("not fetching %s: not a loopback host", ref)
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ref, nil)
		if err != nil {
			continue
		}
		resp, err := client.Do(req)
		if err != nil {
			rc.logf("fetching %s: %v", ref, err)
			continue
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		rc.logf("fetched %s (fault %s): %s", ref, FetchesNetworkRef.Name, resp.Status)
	}
}
