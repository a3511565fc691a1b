// Command hostileclient is an MCP client under test that misbehaves in one
// way per mode, written apart from mcpconform's fakes (it shares only the
// names of the fixtures contract), so that the client suite's handling of
// bad clients is tested against a real process: it must reach a clear
// verdict, keep the client's output, and leave no process behind.
//
//	hostileclient --mode MODE [--tag TAG] SERVER
//
// SERVER is what mcpconform appends: a URL, or over stdio the command line
// that starts the relay server. Modes:
//
//	crash            prints to stderr and exits 3 before connecting
//	hang             never connects and never exits
//	hang-after-init  (stdio) initializes, then neither sends nor exits
//	garbage          (stdio) writes lines that are not JSON-RPC, then exits 0
//	setsid           starts a child in a new session that hangs, then hangs
//	long-line        (stdio) sends a line of 5 MiB (over the relay's 4 MiB),
//	                 then initializes and exits 0
//	long-line-exit   (stdio) sends a line of 5 MiB, then exits 0
//	mrtr-endless     (http, 2026-07-28) calls the tool test_mrtr_endless and
//	                 answers every input_required, without any bound
//	oauth-echo       (http, 2025-11-25) authorizes at the protected server,
//	                 then prints every credential of the flow and sends them
//	                 as tools/call arguments (and writes them to --echo-file)
//
// --tag marks the command lines of this process and its children, so a test
// can find any of them left alive.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/mcpconform/mcpconform/fixtures"
)

func main() {
	mode := flag.String("mode", "", "misbehaviour")
	_ = flag.String("tag", "", "marks the command line (for tests)")
	echoFile := flag.String("echo-file", "", "oauth-echo: where to write the credentials it echoes")
	flag.Parse()
	server := ""
	if flag.NArg() > 0 {
		server = flag.Arg(flag.NArg() - 1)
	}
	switch *mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "hostile client: boom, crashing before connecting")
		os.Exit(3)
	case "hang":
		fmt.Fprintln(os.Stderr, "hostile client: hanging without connecting")
		blockForever()
	case "hang-after-init":
		initializeThenHang(server)
	case "garbage":
		garbage(server)
	case "long-line", "long-line-exit":
		longLine(server, *mode == "long-line")
	case "mrtr-endless":
		mrtrEndless(server)
	case "oauth-echo":
		oauthEcho(server, *echoFile)
	case "setsid":
		child := exec.Command(os.Args[0], append([]string{"--mode", "hang"}, os.Args[1:]...)...)
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "hostile client:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "hostile client: started pid %d in a new session\n", child.Process.Pid)
		blockForever()
	default:
		fmt.Fprintf(os.Stderr, "hostile client: unknown mode %q\n", *mode)
		os.Exit(2)
	}
}

// blockForever waits on a pipe nobody writes to: the process lives until it
// is killed, without a timer.
func blockForever() {
	r, _, err := os.Pipe()
	if err == nil {
		_, _ = io.ReadAll(r)
	}
	select {}
}

// relay starts the stdio server command line mcpconform gave.
func relay(server string) (io.WriteCloser, *bufio.Reader) {
	argv := strings.Fields(server)
	if len(argv) == 0 || strings.Contains(argv[0], "://") {
		fmt.Fprintln(os.Stderr, "hostile client: this mode needs a stdio server command line, got", server)
		os.Exit(2)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		os.Exit(1)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "hostile client:", err)
		os.Exit(1)
	}
	return in, bufio.NewReader(out)
}

func initializeThenHang(server string) {
	in, out := relay(server)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`)
	if _, err := out.ReadString('\n'); err != nil {
		os.Exit(1)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(os.Stderr, "hostile client: initialized; now hanging")
	blockForever()
}

func garbage(server string) {
	in, _ := relay(server)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(in, "garbage line %d {not json\n", i)
	}
	fmt.Fprintln(in, `{"jsonrpc":"1.0","id":null,"method":""}`)
	_ = in.Close()
	fmt.Fprintln(os.Stderr, "hostile client: wrote garbage, exiting 0")
}

// noRedirects is this program's HTTP client. It shares no code with the
// suite, so it does not use transport.NewHTTPClient; like it, it never
// follows a redirect (the suite's source guard holds it to that).
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// longLine sends one notification line of 5 MiB, then, if initialize is
// set, the initialize handshake; it exits 0 either way.
func longLine(server string, initialize bool) {
	in, out := relay(server)
	fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}`+"\n", strings.Repeat("x", 5<<20))
	if initialize {
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`)
		if _, err := out.ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "hostile client: no answer to initialize after the long line:", err)
			os.Exit(1)
		}
		fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	_ = in.Close()
	fmt.Fprintln(os.Stderr, "hostile client: sent a long line, exiting 0")
}

// mrtrEndless runs an MRTR loop with no bound over stateless HTTP, written
// out by hand: each round answers every input request and echoes the state.
func mrtrEndless(server string) {
	fmt.Fprintln(os.Stderr, "hostile client: looping on input_required without a bound")
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "hostile", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	params := map[string]any{"name": fixtures.ClientMRTREndless, "arguments": map[string]any{}, "_meta": meta}
	for id := 1; ; id++ {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
		req, _ := http.NewRequest(http.MethodPost, server, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", fixtures.ClientMRTREndless)
		resp, err := noRedirects.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hostile client:", err)
			os.Exit(1)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// An SSE answer carries the JSON in a data line.
		if i := bytes.Index(raw, []byte("data: {")); i >= 0 {
			raw = raw[i+len("data: "):]
			if j := bytes.IndexByte(raw, '\n'); j >= 0 {
				raw = raw[:j]
			}
		}
		var msg struct {
			Result struct {
				ResultType    string                     `json:"resultType"`
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
				RequestState  *string                    `json:"requestState"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil || msg.Result.ResultType != "input_required" {
			fmt.Fprintf(os.Stderr, "hostile client: round %d ended the loop: %s\n", id, raw)
			os.Exit(0)
		}
		answers := map[string]any{}
		for key := range msg.Result.InputRequests {
			answers[key] = map[string]any{"action": "accept", "content": map[string]any{"answer": "again"}}
		}
		params = map[string]any{"name": fixtures.ClientMRTREndless, "arguments": map[string]any{}, "_meta": meta, "inputResponses": answers}
		if msg.Result.RequestState != nil {
			params["requestState"] = *msg.Result.RequestState
		}
	}
}
