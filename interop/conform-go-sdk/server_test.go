// An example of mcpconform from go test: a server built on go-sdk v1.8.0
// judged by the conform package inside its own tests, as a Go MCP project
// would gate its merges. A separate module, so mcpconform's go.mod never
// depends on go-sdk; run it with interop/conform-go-sdk.sh.
package example_test

import (
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpconform/mcpconform/conform"
)

// newServer is the server under test: two of the suite's tool fixtures.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "conform-example", Version: "1.0.0"}, nil)
	type none struct{}
	mcp.AddTool(s, &mcp.Tool{Name: "test_simple_text", Description: "answers one text item"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "This is a simple text response for testing."}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_error_handling", Description: "always answers a tool error"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "This tool always fails"}}}
			res.IsError = true
			return res, nil, nil
		})
	return s
}

// The handler is served by conform on a loopback port for the test's run.
func TestConformance(t *testing.T) {
	server := newServer()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	conform.Server(t, conform.ServerTarget{Handler: handler}, conform.Options{
		SpecVersions: []string{"2025-11-25"},
		Scenarios: []string{"lifecycle-initialize", "lifecycle-ping", "tools-list", "tools-call-simple-text",
			"tools-call-error", "transport-session", "transport-origin", "transport-protocol-version"},
		// What go-sdk v1.8.0 is known to fail here, with the reason on each
		// line; an entry that passes again is an error.
		ExpectedFailures: "expected.yaml",
		ReportDir:        os.Getenv("CONFORM_REPORT_DIR"),
	})
}
