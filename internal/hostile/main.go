// Command hostile is an MCP server that misbehaves on purpose, one way per
// mode, so that mcpconform's handling of broken targets can be tested
// against real processes over real pipes and sockets. It is written apart
// from mcpconform's own fakes (the standard library and gorilla/websocket
// only): a target that shares no code with the suite.
//
//	hostile --mode NAME [--transport stdio|http|ws] [--pidfile FILE] [--tag T]
//
// Every mode answers initialize correctly (protocol 2025-11-25 or the
// version asked for when it is one of the 2025 revisions; capabilities with
// tools, and tasks where the mode needs them) and then misbehaves in its one
// way (but redirect, which answers initialize too with a redirect).
// Over http and ws the program listens on 127.0.0.1:0 and prints
// "listening on URL" on stderr; over stdio it speaks on stdin/stdout.
//
// --pidfile appends "main PID" (and "child PID" for every child a mode
// starts) to FILE when the process starts, so a test knows what to look
// for; an HTTP stall appends "stalling PID" when it begins, and
// sse-resume-loop appends "resume PID" for every GET that resumes a stream. --tag is ignored: a test puts a unique word in every command line it
// starts, to find its processes in /proc afterwards.
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// modes lists every mode with the transports it makes sense on.
var modes = map[string][]string{
	"conformant": {"stdio", "http", "ws"},

	// HTTP stall shapes, for a request after initialize.
	"headers-then-stall":         {"http"},
	"headers-then-stall-sse":     {"http"},
	"body-trickle":               {"http"},
	"sse-open-forever":           {"http"},
	"sse-close-without-response": {"http"},
	"sse-resume-loop":            {"http"},
	"huge-json-body":             {"http"},
	"content-type-html":          {"http"},
	"content-type-none":          {"http"},

	// WebSocket.
	"ws-upgrade-stall":  {"ws"},
	"ws-binary-frames":  {"ws"},
	"ws-no-subprotocol": {"ws"},

	// Every transport where it makes sense.
	"crash-on-tools-list":   {"stdio", "http", "ws"},
	"exit-at-once":          {"stdio"},
	"hang":                  {"stdio", "http", "ws"},
	"hang-after-initialize": {"stdio", "http", "ws"},
	"banner":                {"stdio"},
	"huge-line":             {"stdio"},
	"invalid-utf8":          {"stdio", "http", "ws"},
	"jsonrpc-missing":       {"stdio", "http", "ws"},
	"jsonrpc-1.0":           {"stdio", "http", "ws"},
	"null-id-request":       {"stdio", "http", "ws"},
	"undeclared-sampling":   {"stdio", "http", "ws"},
	"flood":                 {"stdio", "http", "ws"},
	"flood-hang":            {"stdio", "http", "ws"},
	"long-lines":            {"stdio", "http", "ws"},
	"deep-json":             {"stdio", "http", "ws"},
	"setsid-children":       {"stdio"},
	"garbage-then-hang":     {"stdio"},
	"endless-pages":         {"stdio", "http", "ws"},

	// The credentials of the request quoted in an error (HTTP only: the
	// other transports carry no request headers).
	"echo-secrets": {"http"},
	// bearer-required answers 401 with a Bearer challenge to every request
	// whose Authorization is not "Bearer " + --bearer, and is conformant
	// otherwise: a protected server mcpconform must reach with the token
	// it is given, from the handshake on.
	"bearer-required": {"http", "ws"},

	// Redirects to --redirect-to: every HTTP request (and WebSocket
	// upgrade), or every one but initialize and notifications (so that the
	// handshake completes and what follows is redirected: requests, the SSE
	// GET, the session's DELETE).
	"redirect":                  {"http", "ws"},
	"redirect-after-initialize": {"http"},

	// Terminal control sequences in every text a console may show: a
	// banner line, stderr, tool and prompt names, an argument's name, error
	// messages.
	"control-text": {"stdio"},
}

// controlText is what control-text puts in every text: a clear screen, a
// window title, an OSC 8 hyperlink, a bell, a C1 CSI (U+009B), a NUL, a
// terminal reset, a bidi override, a carriage return. The words around
// them (ctl-...) are what a cleaned console still shows.
const controlText = "ctl-a\x1b[2J\x1b]0;ctl-title\x07ctl-b \x1b]8;;https://evil.example/\x1b\\ctl-link\x1b]8;;\x1b\\ ctl-c\x07\u009b31mctl-d\x00ctl-e\x1bc\u202ectl-f\rctl-g"

var (
	mode      = flag.String("mode", "conformant", "how to misbehave (see --list)")
	transport = flag.String("transport", "stdio", "stdio, http or ws")
	pidfile   = flag.String("pidfile", "", "append 'main PID' / 'child PID' lines to this file")
	_         = flag.String("tag", "", "ignored: a word for tests to find this process by")
	child     = flag.Bool("child", false, "internal: be a child of setsid-children (setsid, ignore SIGTERM, sleep)")
	list      = flag.Bool("list", false, "list the modes and their transports")
	floodMB   = flag.Int("flood-mb", 256, "flood: MB of notifications per session (stdio, ws) or per response stream (http)")
	floodRate = flag.Int("flood-rate", 0, "flood, flood-hang: MB per second at most (0: as fast as the reader takes them)")
	longCount = flag.Int("long-count", 8, "long-lines: notification lines per session")
	longBytes = flag.Int("long-bytes", 3_900_000, "long-lines: bytes per line")
	hugeMB    = flag.Int("huge-mb", 50, "huge-line: MB of the line printed before anything else")
	children  = flag.Int("children", 3, "setsid-children: how many children")
	pageItems = flag.Int("page-items", 100_000, "endless-pages: tools on every tools/list page")
	trickle   = flag.Duration("trickle", 100*time.Millisecond, "body-trickle: pause between two bytes")
	redirTo   = flag.String("redirect-to", "", "redirect modes: the Location (required)")
	bearer    = flag.String("bearer", "", "bearer-required: the one token accepted")
	redirCode = flag.Int("redirect-status", http.StatusTemporaryRedirect, "redirect modes: the 3xx status")
)

func main() {
	flag.Parse()
	if *list {
		names := make([]string, 0, len(modes))
		for n := range modes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%-28s %s\n", n, strings.Join(modes[n], ","))
		}
		return
	}
	if *child {
		runChild()
		return
	}
	trs, ok := modes[*mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "hostile: unknown mode %q (--list)\n", *mode)
		os.Exit(2)
	}
	if !contains(trs, *transport) {
		fmt.Fprintf(os.Stderr, "hostile: mode %s runs over %s, not %s\n", *mode, strings.Join(trs, ","), *transport)
		os.Exit(2)
	}
	if strings.HasPrefix(*mode, "redirect") && *redirTo == "" {
		fmt.Fprintf(os.Stderr, "hostile: mode %s needs --redirect-to\n", *mode)
		os.Exit(2)
	}
	notePid("main", os.Getpid())
	switch *transport {
	case "stdio":
		serveStdio()
	case "http":
		serveHTTP()
	case "ws":
		serveWS()
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// notePid appends "role PID" to --pidfile, if any.
func notePid(role string, pid int) {
	if *pidfile == "" {
		return
	}
	f, err := os.OpenFile(*pidfile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: pidfile: %v\n", err)
		return
	}
	fmt.Fprintf(f, "%s %d\n", role, pid)
	f.Close()
}

// runChild is a child of setsid-children: its own session, deaf to SIGTERM,
// SIGHUP and SIGINT, asleep for ever.
func runChild() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	fmt.Fprintf(os.Stderr, "hostile child pid %d (session %d)\n", os.Getpid(), mustSid())
	hangForever()
}

func mustSid() int {
	sid, _, _ := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	return int(sid)
}

// startSetsidChildren re-executes this program as --child, each in its own
// session (so a process-group kill does not reach it), with the parent's
// stdin, stdout and stderr: the pipes stay open as long as a child lives.
func startSetsidChildren() {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		os.Exit(1)
	}
	for range *children {
		args := []string{"--child"}
		if *pidfile != "" {
			args = append(args, "--pidfile", *pidfile)
		}
		args = append(args, "--tag", flag.Lookup("tag").Value.String())
		cmd := exec.Command(self, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "hostile: child: %v\n", err)
			os.Exit(1)
		}
		notePid("child", cmd.Process.Pid)
		fmt.Fprintf(os.Stderr, "hostile: started child pid %d\n", cmd.Process.Pid)
	}
}

// hangForever blocks the calling goroutine (and, from main, the program):
// hanging is the misbehaviour under test. It waits on a pipe nobody writes
// to, which the runtime does not take for a deadlock.
func hangForever() {
	r, w, err := os.Pipe()
	if err == nil {
		defer w.Close()
		_, _ = io.Copy(io.Discard, r)
	}
	select {} // no pipe: other goroutines (the listeners) keep the program alive
}

// ---------------------------------------------------------------------------
// The protocol core, shared by every transport.

// message is one decoded frame; Method is raw so that a number can be told
// from a string.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// session is what one connection (a stdio process, a WebSocket, an HTTP
// session) knows.
type session struct {
	mu          sync.Mutex
	initialized bool // initialize was answered: the misbehaviour starts
	extrasSent  bool // the once-per-session extras went out
}

func (s *session) afterInit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// takeExtras reports true once per session, after initialize.
func (s *session) takeExtras() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.initialized || s.extrasSent {
		return false
	}
	s.extrasSent = true
	return true
}

var supported = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// reply is the outcome of one frame: messages to send before the answer
// (notifications, requests to the client), the answer itself (nil for a
// notification or a response), and whether this is the initialize answer.
type reply struct {
	before [][]byte
	answer []byte
	isInit bool
	method string
}

// handle decodes one frame and builds the reply of a conformant server,
// plus the mode's extras. The modes that bend the answer itself do so in
// the transports (mutate, stalls).
func handle(s *session, frame []byte) reply {
	frame = bytes.TrimSpace(frame)
	if len(frame) == 0 {
		return reply{}
	}
	var m message
	if frame[0] != '{' || json.Unmarshal(frame, &m) != nil {
		return reply{answer: errorFrame(json.RawMessage("null"), -32700, "Parse error")}
	}
	var method string
	if m.Method != nil && json.Unmarshal(m.Method, &method) != nil {
		id := m.ID
		if id == nil {
			id = json.RawMessage("null")
		}
		return reply{answer: errorFrame(id, -32600, "Invalid Request: method must be a string")}
	}
	if method == "" {
		return reply{} // a response to one of ours, or nonsense we let be
	}
	if m.ID == nil {
		r := reply{method: method}
		if method == "notifications/initialized" && *transport != "http" && s.takeExtras() {
			r.before = extras()
		}
		return r
	}
	r := reply{method: method}
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		v := "2025-11-25"
		if contains(supported, p.ProtocolVersion) {
			v = p.ProtocolVersion
		}
		caps := `{"tools":{"listChanged":false}`
		if *mode == "control-text" {
			caps += `,"prompts":{},"resources":{},"completions":{}`
		}
		if *mode == "hang-after-initialize" {
			caps += `,"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`
		}
		caps += "}"
		r.answer = resultFrame(m.ID, `{"protocolVersion":`+quote(v)+`,"capabilities":`+caps+
			`,"serverInfo":{"name":"hostile-`+*mode+`","version":"0.0.1"}}`)
		r.isInit = true
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
		return r
	case "ping":
		r.answer = resultFrame(m.ID, `{}`)
	case "tools/list":
		if *mode == "crash-on-tools-list" {
			fmt.Fprintln(os.Stderr, "panic: runtime error: invalid memory address or nil pointer dereference (tools/list)")
			os.Exit(1)
		}
		if *mode == "endless-pages" {
			r.answer = endlessPage(m.ID, m.Params)
			break
		}
		desc := `"Echoes its text."`
		if *mode == "invalid-utf8" && s.afterInit() {
			desc = "\"Echoes \xff\xfe its text.\""
		}
		extra := ""
		if *mode == "control-text" {
			extra = `,{"name":` + quote("tool-"+controlText) + `,"description":` + quote(controlText) + `,"inputSchema":{"type":"object"}}`
		}
		r.answer = resultFrame(m.ID, `{"tools":[{"name":"echo","description":`+desc+
			`,"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`+extra+`]}`)
	case "tools/call":
		if *mode == "control-text" {
			r.answer = errorFrame(m.ID, -32602, "no such tool "+controlText)
			break
		}
		r.answer = resultFrame(m.ID, `{"content":[{"type":"text","text":"ok"}],"isError":false}`)
	case "prompts/list":
		if *mode != "control-text" {
			r.answer = errorFrame(m.ID, -32601, "Method not found: "+method)
			break
		}
		r.answer = resultFrame(m.ID, `{"prompts":[{"name":`+quote("prompt-"+controlText)+`,"description":`+quote(controlText)+
			`,"arguments":[{"name":`+quote("arg-"+controlText)+`,"required":true}]}]}`)
	case "resources/templates/list", "completion/complete", "resources/list":
		switch {
		case *mode != "control-text":
			r.answer = errorFrame(m.ID, -32601, "Method not found: "+method)
		case method == "resources/list":
			r.answer = resultFrame(m.ID, `{"resources":[]}`)
		case method == "resources/templates/list":
			r.answer = resultFrame(m.ID, `{"resourceTemplates":[{"name":"t","uriTemplate":`+quote("tpl-"+controlText+"://{x}")+`}]}`)
		default:
			r.answer = errorFrame(m.ID, -32603, "no completion: "+controlText)
		}
	case "prompts/get":
		if *mode != "control-text" {
			r.answer = errorFrame(m.ID, -32601, "Method not found: "+method)
			break
		}
		fmt.Fprintln(os.Stderr, "hostile stderr: prompts/get failed: "+controlText)
		r.answer = errorFrame(m.ID, -32603, "prompt failed: "+controlText)
	default:
		r.answer = errorFrame(m.ID, -32601, "Method not found: "+method)
	}
	if *mode == "deep-json" && method == "tools/list" {
		// Valid JSON, nested far deeper than common decoders read.
		const depth = 100_000
		r.answer = resultFrame(m.ID, `{"deep":`+strings.Repeat("[", depth)+strings.Repeat("]", depth)+`}`)
	}
	// Over HTTP there is no initialized notification to hang the extras
	// on: the first request after initialize carries them.
	if *transport == "http" && s.takeExtras() {
		r.before = extras()
	}
	return r
}

// endlessPage is a tools/list page of --page-items tools, answered at
// once, with a nextCursor every time: the pages never end.
func endlessPage(id, params json.RawMessage) []byte {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p)
	page := 0
	_, _ = fmt.Sscanf(p.Cursor, "page-%d", &page)
	var b bytes.Buffer
	b.WriteString(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}`)
	for i := range *pageItems {
		fmt.Fprintf(&b, `,{"name":"tool-%d-%d","inputSchema":{"type":"object"}}`, page, i)
	}
	fmt.Fprintf(&b, `],"nextCursor":"page-%d"}`, page+1)
	return resultFrame(id, b.String())
}

// extras are the messages a mode sends once per session after initialize.
func extras() [][]byte {
	switch *mode {
	case "null-id-request":
		return [][]byte{[]byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)}
	case "undeclared-sampling":
		return [][]byte{[]byte(`{"jsonrpc":"2.0","id":"hostile-sampling-1","method":"sampling/createMessage","params":` +
			`{"messages":[{"role":"user","content":{"type":"text","text":"What is 2+2?"}}],"maxTokens":16}}`)}
	case "invalid-utf8":
		return [][]byte{[]byte("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":" +
			"{\"level\":\"info\",\"data\":\"caf\xe9 \xff\xfe \xc0\xaf\"}}")}
	case "long-lines":
		out := make([][]byte, 0, *longCount)
		for i := range *longCount {
			out = append(out, notification(i, *longBytes))
		}
		return out
	}
	return nil
}

// notification builds a notifications/message of about size bytes.
func notification(i, size int) []byte {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"hostile","data":"%d `, i)
	tail := `"}}`
	n := size - len(head) - len(tail)
	if n < 0 {
		n = 0
	}
	b := make([]byte, 0, len(head)+n+len(tail))
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte("x"), n)...)
	return append(b, tail...)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func resultFrame(id json.RawMessage, result string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func errorFrame(id json.RawMessage, code int, msg string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, quote(msg)))
}

// mutate bends a frame sent after initialize, for the modes that break the
// JSON-RPC envelope of every message.
func mutate(frame []byte) []byte {
	const prefix = `{"jsonrpc":"2.0",`
	if !bytes.HasPrefix(frame, []byte(prefix)) {
		return frame
	}
	switch *mode {
	case "jsonrpc-missing":
		return append([]byte("{"), frame[len(prefix):]...)
	case "jsonrpc-1.0":
		return append([]byte(`{"jsonrpc":"1.0",`), frame[len(prefix):]...)
	}
	return frame
}

// flooder sends notifications of a few KB each, as fast as send takes them
// or at most --flood-rate, until budget bytes are out, send fails or stop
// is closed.
func flooder(send func([]byte) error, budget int64, stop <-chan struct{}) {
	var sent int64
	started := time.Now()
	for i := 0; sent < budget; i++ {
		select {
		case <-stop:
			return
		default:
		}
		n := notification(i, 4096)
		if send(n) != nil {
			return
		}
		sent += int64(len(n))
		if *floodRate > 0 && i%256 == 255 { // about every MB: keep to the rate
			due := started.Add(time.Duration(float64(sent) / float64(int64(*floodRate)<<20) * float64(time.Second)))
			if wait := time.Until(due); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-stop:
					t.Stop()
					return
				case <-t.C:
				}
			}
		}
	}
}

// hangs reports whether the mode never answers anything (after its
// startup act).
func hangs() bool {
	switch *mode {
	case "hang", "setsid-children", "garbage-then-hang", "flood-hang":
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// stdio

func serveStdio() {
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	var mu sync.Mutex
	write := func(frame []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := out.Write(frame); err != nil {
			return err
		}
		if err := out.WriteByte('\n'); err != nil {
			return err
		}
		return out.Flush()
	}
	switch *mode {
	case "exit-at-once":
		fmt.Fprintln(os.Stderr, "hostile: fatal: no configuration found, exiting")
		os.Exit(1)
	case "banner":
		_ = write([]byte("Server starting on stdio (hostile v0.0.1)..."))
	case "huge-line":
		_ = write(bytes.Repeat([]byte("A"), *hugeMB<<20))
	case "garbage-then-hang":
		_ = write([]byte("this is not JSON-RPC {{{"))
	case "control-text":
		fmt.Fprintln(os.Stderr, "hostile stderr: "+controlText)
		_ = write([]byte("banner: " + controlText))
	case "setsid-children":
		startSetsidChildren()
	}
	stop := make(chan struct{})
	if *mode == "flood" || *mode == "flood-hang" {
		go flooder(write, int64(*floodMB)<<20, stop)
	}
	s := &session{}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 && !hangs() && !(*mode == "hang-after-initialize" && s.afterInit()) {
			r := handle(s, line)
			for _, b := range r.before {
				if write(afterInitMutate(s, b)) != nil {
					os.Exit(0)
				}
			}
			if r.answer != nil {
				a := r.answer
				if !r.isInit {
					a = afterInitMutate(s, a)
				}
				if write(a) != nil {
					os.Exit(0)
				}
			}
		}
		if err != nil {
			close(stop)
			if hangs() || *mode == "hang-after-initialize" {
				hangForever() // stdin closed; a hanging server does not notice
			}
			os.Exit(0)
		}
	}
}

func afterInitMutate(s *session, frame []byte) []byte {
	if s.afterInit() {
		return mutate(frame)
	}
	return frame
}

// ---------------------------------------------------------------------------
// Streamable HTTP

func listen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		os.Exit(1)
	}
	return ln
}

type httpServer struct {
	mu       sync.Mutex
	sessions map[string]*session
}

func (h *httpServer) session(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.sessions[id]
	if !ok {
		s = &session{}
		h.sessions[id] = s
	}
	return s
}

func newSessionID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func serveHTTP() {
	ln := listen()
	h := &httpServer{sessions: map[string]*session{}}
	srv := &http.Server{Handler: http.HandlerFunc(h.serve)}
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		os.Exit(1)
	}
}

func (h *httpServer) serve(w http.ResponseWriter, r *http.Request) {
	if *mode == "bearer-required" && !bearerOK(w, r) {
		return
	}
	if strings.HasPrefix(*mode, "redirect") {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if *mode == "redirect" || !servedBeforeRedirects(body) {
			redirect(w)
			return
		}
	}
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet:
		if *mode == "sse-resume-loop" {
			// Every stream, resumed or not, ends after one id-only event:
			// the client is told to resume, and never gets anything.
			notePid("resume", os.Getpid())
			idOnlyEvent(w)
			return
		}
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	s := h.session(sid)
	if *mode == "flood-hang" {
		// Every request gets a stream of notifications and never its answer.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		flusher, _ := w.(http.Flusher)
		flooder(func(b []byte) error {
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", b); err != nil {
				return err
			}
			if flusher != nil {
				flusher.Flush()
			}
			return nil
		}, int64(*floodMB)<<20, r.Context().Done())
		<-r.Context().Done()
		return
	}
	if *mode == "hang" || (*mode == "hang-after-initialize" && s.afterInit()) {
		notePid("stalling", os.Getpid())
		<-r.Context().Done()
		return
	}
	if len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '[' {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(errorFrame(json.RawMessage("null"), -32600, "batches are not supported"))
		return
	}
	post := s.afterInit() // the misbehaviour is for requests after initialize
	var rep reply
	if post {
		rep = handle(s, body)
	} else {
		// initialize opens a new session; anything before it is served plainly.
		fresh := &session{}
		rep = handle(fresh, body)
		if rep.isInit {
			sid = newSessionID()
			h.mu.Lock()
			h.sessions[sid] = fresh
			h.mu.Unlock()
			w.Header().Set("Mcp-Session-Id", sid)
		}
	}
	if rep.answer == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	if !post {
		w.Header().Set("Content-Type", "application/json")
		w.Write(rep.answer)
		return
	}
	if *mode == "echo-secrets" {
		// A server that quotes the credentials it was sent in an error (as
		// "invalid token …" messages do): what it sent back must not
		// bring them into a report or onto the console.
		var m message
		if json.Unmarshal(body, &m) == nil && string(m.Method) == `"ping"` {
			w.Header().Set("Content-Type", "application/json")
			w.Write(errorFrame(m.ID, -32603, "refused: Authorization="+r.Header.Get("Authorization")+" X-Api-Key="+r.Header.Get("X-Api-Key")))
			return
		}
	}
	ctx := r.Context()
	switch *mode {
	case "headers-then-stall", "headers-then-stall-sse":
		ct := "application/json"
		if *mode == "headers-then-stall-sse" {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		flush()
		notePid("stalling", os.Getpid())
		<-ctx.Done()
		return
	case "body-trickle":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(rep.answer)))
		w.WriteHeader(http.StatusOK)
		flush()
		for _, c := range rep.answer {
			select {
			case <-ctx.Done():
				return
			case <-time.After(*trickle):
			}
			if _, err := w.Write([]byte{c}); err != nil {
				return
			}
			flush()
		}
		return
	case "sse-open-forever":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := io.WriteString(w, ": still working\n\n"); err != nil {
				return
			}
			flush()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	case "sse-close-without-response":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "id: 1\ndata: \n\n")
		flush()
		return // the stream ends; the response never comes
	case "sse-resume-loop":
		idOnlyEvent(w)
		return
	case "huge-json-body":
		// One JSON answer of 33 MiB: over what a client is likely to read.
		pad := strings.Repeat(" ", 33<<20)
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(rep.answer[:len(rep.answer)-1:len(rep.answer)-1], []byte(`,"pad":"`+pad+`"}`)...))
		return
	case "content-type-html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(rep.answer)
		return
	case "content-type-none":
		w.Header()["Content-Type"] = nil // no sniffing: no header at all
		w.Write(rep.answer)
		return
	}
	if len(rep.before) == 0 && *mode != "flood" {
		w.Header().Set("Content-Type", "application/json")
		w.Write(mutate(rep.answer))
		return
	}
	// Messages before the answer: an SSE stream.
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	event := func(b []byte) error {
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", b); err != nil {
			return err
		}
		flush()
		return nil
	}
	for _, b := range rep.before {
		if event(mutate(b)) != nil {
			return
		}
	}
	if *mode == "flood" {
		flooder(event, int64(*floodMB)<<20, ctx.Done())
	}
	_ = event(mutate(rep.answer))
}

// redirect answers with --redirect-status and --redirect-to, and notes
// "redirected PID" in --pidfile, so a test knows a redirect was given.
func redirect(w http.ResponseWriter) {
	notePid("redirected", os.Getpid())
	w.Header().Set("Location", *redirTo)
	w.WriteHeader(*redirCode)
}

// servedBeforeRedirects: redirect-after-initialize serves initialize and
// notifications.
func servedBeforeRedirects(body []byte) bool {
	var m message
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	return m.ID == nil || string(m.Method) == `"initialize"`
}

// resumeEvents numbers the id-only events of sse-resume-loop: each is new,
// so a client that only looks for a new event id sees "progress".
var resumeEvents atomic.Int64

// idOnlyEvent answers with an SSE stream of one event that has an id and no
// data (the priming event of 2025-11-25 transports.mdx), then ends it.
func idOnlyEvent(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "id: loop-%d\ndata: \n\n", resumeEvents.Add(1))
}

// ---------------------------------------------------------------------------
// WebSocket

func serveWS() {
	ln := listen()
	fmt.Fprintf(os.Stderr, "listening on ws://%s/mcp\n", ln.Addr())
	if *mode == "ws-upgrade-stall" {
		upgradeStall(ln)
		return
	}
	up := websocket.Upgrader{
		Subprotocols: []string{"mcp"},
		CheckOrigin:  func(*http.Request) bool { return true },
	}
	if *mode == "ws-no-subprotocol" {
		up.Subprotocols = nil
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *mode == "redirect" {
			redirect(w) // the answer to the upgrade
			return
		}
		if *mode == "bearer-required" && !bearerOK(w, r) {
			return // the token goes on the handshake
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		serveWSConn(c)
	})}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		os.Exit(1)
	}
}

// upgradeStall accepts connections, reads the upgrade request and never
// answers; a connection ends when the peer closes it.
func upgradeStall(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
			os.Exit(1)
		}
		go func() {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c)
		}()
	}
}

func serveWSConn(c *websocket.Conn) {
	defer c.Close()
	s := &session{}
	var mu sync.Mutex
	binary := false
	send := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		typ := websocket.TextMessage
		if binary {
			typ = websocket.BinaryMessage
		}
		c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		return c.WriteMessage(typ, b)
	}
	stop := make(chan struct{})
	defer close(stop)
	if *mode == "flood" || *mode == "flood-hang" {
		go flooder(send, int64(*floodMB)<<20, stop)
	}
	for {
		_, b, err := c.ReadMessage()
		if err != nil {
			return
		}
		if hangs() || (*mode == "hang-after-initialize" && s.afterInit()) {
			continue
		}
		r := handle(s, b)
		for _, x := range r.before {
			if send(afterInitMutate(s, x)) != nil {
				return
			}
		}
		if r.answer == nil {
			continue
		}
		a := r.answer
		if !r.isInit {
			a = afterInitMutate(s, a)
		}
		if err := send(a); err != nil {
			return
		}
		if r.isInit && *mode == "ws-binary-frames" {
			mu.Lock()
			binary = true
			mu.Unlock()
		}
	}
}

// bearerOK answers a request without the one accepted token with 401 and a
// Bearer challenge (RFC 6750 §3), and reports whether it may go on.
func bearerOK(w http.ResponseWriter, r *http.Request) bool {
	if *bearer != "" && r.Header.Get("Authorization") == "Bearer "+*bearer {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write([]byte(`{"error":"invalid_token","error_description":"no bearer token, or not the one accepted"}`))
	return false
}
