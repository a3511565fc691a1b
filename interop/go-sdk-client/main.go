// Command go-sdk-client is a client harness on go-sdk v1.8.0 that follows
// the official conformance runner's launch contract (the server as the last
// argument, MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_CONTEXT) and makes the
// calls an mcpconform scenario lists in its context (toolCalls, promptGets,
// resourceReads), so go-sdk's client — its MRTR loop, its answers to
// elicitation, sampling and roots — can be judged on every client scenario,
// not only on the official ones its everything-client knows.
//
// It is a separate module so mcpconform's go.mod never depends on go-sdk.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type scenarioContext struct {
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
	PromptGets []struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	} `json:"promptGets"`
	ResourceReads []struct {
		URI string `json:"uri"`
	} `json:"resourceReads"`
}

func main() {
	log.SetPrefix("go-sdk-client: ")
	log.SetFlags(0)
	if len(os.Args) < 2 {
		log.Fatal("usage: go-sdk-client SERVER (a URL, or a stdio server command line)")
	}
	server := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			log.Fatalf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	ctx := context.Background()
	caps := &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		Sampling:    &mcp.SamplingCapabilities{},
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
	}
	opts := &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: formAnswer(req.Params)}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", StopReason: "endTurn",
				Content: &mcp.TextContent{Text: "This is a test response from the go-sdk client."}}, nil
		},
	}
	// GO_SDK_CLIENT_NO_SAMPLING=1 leaves out sampling (go-sdk declares the
	// capability whenever a handler is set), to see what go-sdk does when a
	// server asks for an input type the client did not declare.
	if os.Getenv("GO_SDK_CLIENT_NO_SAMPLING") == "1" {
		caps.Sampling, opts.CreateMessageHandler = nil, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.8.0"}, opts)
	client.AddRoots(&mcp.Root{URI: "file:///test/root", Name: "Test Root"})

	var transport mcp.Transport
	switch {
	case strings.HasPrefix(server, "http://"), strings.HasPrefix(server, "https://"):
		transport = &mcp.StreamableClientTransport{Endpoint: server}
	case strings.Contains(server, "://"):
		log.Fatalf("go-sdk v1.8.0 has no client transport for %s", server)
	default:
		argv := strings.Fields(server)
		transport = &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)}
	}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		log.Fatalf("connect: %v", err)
	}
	defer session.Close()
	log.Printf("scenario %q: connected", scenario)

	if _, err := session.ListTools(ctx, nil); err != nil {
		log.Fatalf("tools/list: %v", err)
	}
	failed := false
	call := func(name string, args map[string]any) {
		if args == nil {
			args = map[string]any{}
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		switch {
		case err != nil:
			log.Printf("tools/call %s: %v", name, err)
			failed = true
		case res.IsError:
			log.Printf("tools/call %s: isError", name)
		default:
			log.Printf("tools/call %s: ok", name)
		}
	}
	switch scenario {
	case "tools_call":
		call("add_numbers", map[string]any{"a": 5, "b": 3})
	case "sep-2322-client-request-state":
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
			call(name, nil)
		}
	}
	for _, c := range sc.ToolCalls {
		call(c.Name, c.Arguments)
	}
	for _, g := range sc.PromptGets {
		if _, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: g.Name, Arguments: g.Arguments}); err != nil {
			log.Printf("prompts/get %s: %v", g.Name, err)
			failed = true
		}
	}
	for _, r := range sc.ResourceReads {
		if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
			log.Printf("resources/read %s: %v", r.URI, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// formAnswer accepts a form with the schema's defaults and a value of the
// right type for each required property without one.
func formAnswer(p *mcp.ElicitParams) map[string]any {
	out := map[string]any{}
	if p == nil || p.RequestedSchema == nil {
		return out
	}
	raw, _ := json.Marshal(p.RequestedSchema)
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	_ = json.Unmarshal(raw, &schema)
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	for _, n := range names {
		prop := schema.Properties[n]
		if d, ok := prop["default"]; ok {
			out[n] = d
			continue
		}
		if !required[n] {
			continue
		}
		switch prop["type"] {
		case "number", "integer":
			out[n] = 1
		case "boolean":
			out[n] = true
		default:
			if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
				out[n] = enum[0]
			} else {
				out[n] = fmt.Sprint("test")
			}
		}
	}
	return out
}
