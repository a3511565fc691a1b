package client_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/heapwatch"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

// A hostile target floods notifications before and after it answers
// initialize (issue 8: 1.57 GB in 60 s from a Python flooder). The flooder is
// this test binary run again with floodEnv set: a real process on real pipes
// for stdio, a real loopback server for HTTP and WebSocket, so that only the
// judging side's memory is measured here. Each phase pushes floodPhaseBytes
// in notifications of floodNoteBytes, then a marker the session waits for:
// the run stops by itself once everything was pushed.
const (
	floodEnv        = "MCPCONFORM_TEST_FLOODER"     // stdio, http, ws or stdio-requests
	floodShapeEnv   = "MCPCONFORM_TEST_FLOOD_SHAPE" // what floods: "" (valid notifications), schema-invalid, garbage
	floodPhaseBytes = 24 << 20
	floodNoteBytes  = 8 << 10
	floodMarker     = "flood-done"
	// floodHeapBound is the most the heap in use may grow over its baseline
	// while a session is flooded: the inbox (8 MiB by default), the
	// transcript (4 MiB), a frame or two in flight, and the garbage between
	// two collections.
	floodHeapBound = 64 << 20
)

func init() {
	if mode := os.Getenv(floodEnv); mode != "" {
		if err := runFlooder(mode); err != nil {
			fmt.Fprintln(os.Stderr, "flooder:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

var _ = Describe("a target that floods notifications", Serial, func() {
	// Serial: the heap is the process's, and parallel specs would share it.
	for _, kind := range []transport.Kind{transport.Stdio, transport.HTTP, transport.WS} {
		It(fmt.Sprintf("keeps the memory of a %s session bounded, and the inbox says what it dropped", kind), func() {
			target := startFlooder(kind)
			transcript := jsonrpc.NewTranscript()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			DeferCleanup(cancel)

			heap := watchHeap()
			s, err := client.Connect(ctx, target, client.Options{Transcript: transcript, Label: "A"})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			resp, err := s.Initialize(ctx)
			Expect(err).NotTo(HaveOccurred(), "the answer to initialize comes through the flood")
			Expect(resp.Result).NotTo(BeNil())
			_, err = s.Inbox().WaitFor(ctx, isFloodMarker)
			Expect(err).NotTo(HaveOccurred(), "the marker after the flood reaches a waiting scenario")
			base, peak := heap.Stop()

			in := s.Inbox()
			GinkgoWriter.Printf("%s: heap in use %d MiB at the start, peak %d MiB (+%d MiB); inbox kept %d messages, %d bytes; dropped %d\n",
				kind, base>>20, peak>>20, (peak-base)>>20, len(in.Messages()), in.Bytes(), in.Dropped())
			AddReportEntry(fmt.Sprintf("flood %s: peak heap over baseline (MiB)", kind), (peak-base)>>20)
			Expect(peak-base).To(BeNumerically("<", floodHeapBound), "peak heap in use over the baseline")
			Expect(in.Bytes()).To(BeNumerically("<=", in.ByteLimit()))
			Expect(in.Dropped()).To(BeNumerically(">", 0))
			Expect(strings.Count(transcript.String(), "inbox: ")).To(Equal(1), "the drop is said once in the transcript")
		})
	}
})

var _ = Describe("a stdio target that floods what the session keeps apart from the inbox", Serial, func() {
	// The session's schema violations and garbage frames are bounded by
	// count and each cut: before, they grew with the flood (the violations
	// each with the message's raw bytes: +103 MiB for 48 MB of invalid
	// notifications; the garbage up to InboxLimit frames of any size:
	// 10,000 lines of 16 MiB would be 160 GB).
	for _, shape := range []string{"schema-invalid", "garbage"} {
		It(fmt.Sprintf("keeps the memory bounded under a flood of %s lines", shape), func() {
			target := client.Target{Kind: transport.Stdio, Argv: []string{os.Args[0]},
				Env: []string{floodEnv + "=stdio", floodShapeEnv + "=" + shape}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			DeferCleanup(cancel)
			heap := watchHeap()
			s, err := client.Connect(ctx, target, client.Options{Transcript: jsonrpc.NewTranscript(), Label: "A"})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			_, err = s.Initialize(ctx)
			Expect(err).NotTo(HaveOccurred())
			_, err = s.Inbox().WaitFor(ctx, isFloodMarker)
			Expect(err).NotTo(HaveOccurred())
			base, peak := heap.Stop()
			violations, garbage := s.SchemaViolations(), s.Garbage()
			GinkgoWriter.Printf("stdio, %s: heap in use %d MiB at the start, peak %d MiB (+%d MiB); kept %d violations (%d more counted), %d garbage frames\n",
				shape, base>>20, peak>>20, (peak-base)>>20, len(violations), s.SchemaViolationsDropped(), len(garbage))
			AddReportEntry(fmt.Sprintf("flood stdio %s: peak heap over baseline (MiB)", shape), (peak-base)>>20)
			Expect(peak-base).To(BeNumerically("<", floodHeapBound), "peak heap in use over the baseline")
			Expect(len(violations)).To(BeNumerically("<=", 1000))
			Expect(len(garbage)).To(BeNumerically("<=", 1000))
			for _, v := range violations {
				Expect(len(v.Raw)).To(BeNumerically("<=", 4<<10))
			}
			for _, g := range garbage {
				Expect(len(g)).To(BeNumerically("<=", 4<<10))
			}
			if shape == "schema-invalid" {
				Expect(violations).To(HaveLen(1000))
				Expect(s.SchemaViolationsDropped()).To(BeNumerically(">", 0), "the violations beyond those kept are counted")
			} else {
				Expect(garbage).To(HaveLen(1000))
				Expect(string(garbage[0])).To(HaveSuffix(" bytes]"), "a long frame is kept cut, with its length")
			}
		})
	}
})

var _ = Describe("a target that floods requests and reads no answers", Serial, func() {
	It("keeps the memory of a stdio session bounded: requests beyond those served at once are left unserved", func() {
		target := client.Target{Kind: transport.Stdio, Argv: []string{os.Args[0]}, Env: []string{floodEnv + "=stdio-requests"}}
		transcript := jsonrpc.NewTranscript()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		DeferCleanup(cancel)

		heap := watchHeap()
		s, err := client.Connect(ctx, target, client.Options{Transcript: transcript, Label: "A"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = s.Initialize(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = s.Inbox().WaitFor(ctx, isFloodMarker)
		Expect(err).NotTo(HaveOccurred())
		base, peak := heap.Stop()
		GinkgoWriter.Printf("stdio, requests: heap in use %d MiB at the start, peak %d MiB (+%d MiB); %d goroutines\n",
			base>>20, peak>>20, (peak-base)>>20, runtime.NumGoroutine())
		AddReportEntry("request flood stdio: peak heap over baseline (MiB)", (peak-base)>>20)
		Expect(peak-base).To(BeNumerically("<", floodHeapBound), "peak heap in use over the baseline")
		Expect(runtime.NumGoroutine()).To(BeNumerically("<", 2*peer.DefaultMaxServing), "a goroutine per request served, not per request")
	})
})

var _ = Describe("a target that floods small requests and reads no answers", Serial, func() {
	It("says once in the transcript that requests beyond those served at once are left unanswered", func() {
		target := client.Target{Kind: transport.Stdio, Argv: []string{os.Args[0]},
			Env: []string{floodEnv + "=stdio-requests", floodShapeEnv + "=small"}}
		transcript := jsonrpc.NewTranscript()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		DeferCleanup(cancel)
		s, err := client.Connect(ctx, target, client.Options{Transcript: transcript, Label: "A"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		_, err = s.Initialize(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = s.Inbox().WaitFor(ctx, isFloodMarker)
		Expect(err).NotTo(HaveOccurred())
		line := fmt.Sprintf("more than %d requests from the server at once; the rest are left unanswered", peer.DefaultMaxServing)
		Expect(strings.Count(transcript.String(), line)).To(Equal(1))
	})
})

func isFloodMarker(m *jsonrpc.Message) bool {
	var p struct{ Data string }
	return m.Method == "notifications/message" && json.Unmarshal(m.Params, &p) == nil && p.Data == floodMarker
}

// watchHeap samples the heap until the spec ends or stop is called.
func watchHeap() *heapwatch.Watch {
	w := heapwatch.Start(5 * time.Millisecond)
	DeferCleanup(func() { w.Stop() })
	return w
}

// startFlooder starts the flooder for kind and returns the target reaching
// it; the process is killed at the end of the spec.
func startFlooder(kind transport.Kind) client.Target {
	GinkgoHelper()
	env := []string{floodEnv + "=" + string(kind)}
	if kind == transport.Stdio {
		return client.Target{Kind: kind, Argv: []string{os.Args[0]}, Env: env}
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = GinkgoWriter
	out, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	DeferCleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	var url string
	Eventually(addr).WithTimeout(wait).Should(Receive(&url), "the flooder says where it listens")
	Expect(url).NotTo(BeEmpty())
	return client.Target{Kind: kind, URL: url}
}

// ---- the flooder (runs in the child process) ----

func floodNote(data string) []byte {
	pad := strings.Repeat("x", max(0, floodNoteBytes-100))
	if data == "" {
		data = pad
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
		"params": map[string]any{"level": "info", "logger": "flood", "data": data}})
	return b
}

// floodAnswer answers a request: initialize with the version asked for,
// anything else with an empty result; nil for what is not a request.
func floodAnswer(frame []byte) []byte {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &req) != nil || len(req.ID) == 0 || req.Method == "" {
		return nil
	}
	result := map[string]any{}
	if req.Method == "initialize" {
		result = map[string]any{"protocolVersion": req.Params.ProtocolVersion, "capabilities": map[string]any{"logging": map[string]any{}},
			"serverInfo": map[string]any{"name": "flooder", "version": "0"}}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	return b
}

func isInitialize(frame []byte) bool {
	var req struct{ Method string }
	return json.Unmarshal(frame, &req) == nil && req.Method == "initialize"
}

// flood writes floodPhaseBytes of notes with write: valid notifications,
// or what floodShapeEnv asks for.
func flood(write func([]byte) error) error {
	note, volume := floodNote(""), floodPhaseBytes
	switch os.Getenv(floodShapeEnv) {
	case "schema-invalid":
		note = bytes.Replace(note, []byte(`"level":"info"`), []byte(`"level":5`), 1)
	case "garbage":
		// Three times the volume: what keeps garbage is bounded by count
		// only, and garbage is cheap to receive.
		note = bytes.Repeat([]byte("g"), 32<<10)
		volume = 3 * floodPhaseBytes
	}
	for sent := 0; sent < volume; sent += len(note) {
		if err := write(note); err != nil {
			return err
		}
	}
	return nil
}

func runFlooder(mode string) error {
	switch mode {
	case "stdio":
		return floodStdio()
	case "http":
		return floodHTTP()
	case "ws":
		return floodWS()
	case "stdio-requests":
		return floodStdioRequests()
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// floodStdio floods stdout from the start, answers initialize after the
// first phase, floods again, and exits at the end of stdin.
func floodStdio() error {
	var mu sync.Mutex
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
		return w.Flush()
	}
	inits := make(chan []byte, 1)
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			frame := append([]byte(nil), sc.Bytes()...)
			if isInitialize(frame) {
				inits <- frame
			} else if a := floodAnswer(frame); a != nil {
				_ = write(a)
			}
		}
	}()
	if err := flood(write); err != nil {
		return err
	}
	select {
	case init := <-inits:
		if err := write(floodAnswer(init)); err != nil {
			return err
		}
	case <-eof:
		return nil
	}
	if err := flood(write); err != nil {
		return err
	}
	if err := write(floodNote(floodMarker)); err != nil {
		return err
	}
	<-eof
	return nil
}

// floodStdioRequests answers initialize, stops reading stdin once
// notifications/initialized arrived, and floods requests (each answer the
// session writes then waits on a full pipe), then sends the marker.
func floodStdioRequests() error {
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	write := func(b []byte) error {
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
		return w.Flush()
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m struct{ Method string }
		_ = json.Unmarshal(sc.Bytes(), &m)
		if m.Method == "notifications/initialized" {
			break
		}
		if a := floodAnswer(sc.Bytes()); a != nil {
			if err := write(a); err != nil {
				return err
			}
		}
	}
	pad := strings.Repeat("x", floodNoteBytes-100)
	volume := 2 * floodPhaseBytes
	if os.Getenv(floodShapeEnv) == "small" {
		// Small requests, so the transcript still has room to say what was
		// left unserved: more than the stdout pipe holds (up to 1 MiB),
		// so the flooder is still writing, and not yet reading the answers
		// to the first, when they fill the pipe of its stdin.
		pad, volume = "", 4<<20
	}
	id := 0
	for sent := 0; sent < volume; {
		id++
		b := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":"%s"}}}`, id, pad))
		if err := write(b); err != nil {
			return err
		}
		sent += len(b)
	}
	if err := write(floodNote(floodMarker)); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, os.Stdin) // the end of stdin ends the flooder
	return err
}

// floodHTTP serves Streamable HTTP: the POST carrying initialize gets an SSE
// stream of the first phase and then the answer; the GET stream the second
// phase and the marker.
func floodHTTP() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s/mcp\n", l.Addr())
	// sse starts an event stream on w; write buffers an event, flush sends
	// what is buffered.
	sse := func(w http.ResponseWriter) (write func([]byte) error, flush func()) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", "flood")
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 64<<10)
		flush = func() {
			_ = bw.Flush()
			w.(http.Flusher).Flush()
		}
		write = func(b []byte) error {
			if _, err := fmt.Fprintf(bw, "data: %s\n\n", b); err != nil {
				return err
			}
			if bw.Buffered() > 32<<10 {
				flush()
			}
			return nil
		}
		return write, flush
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			write, flush := sse(w)
			_ = flood(write)
			_ = write(floodNote(floodMarker))
			flush()
			<-r.Context().Done()
		case http.MethodPost:
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			answer := floodAnswer(body)
			if answer == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			if !isInitialize(body) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Mcp-Session-Id", "flood")
				_, _ = w.Write(answer)
				return
			}
			write, flush := sse(w)
			_ = flood(write)
			_ = write(answer)
			flush()
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	return http.Serve(l, mux)
}

// floodWS floods a WebSocket from the upgrade on, answers initialize after
// the first phase, then floods again and sends the marker.
func floodWS() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("ws://%s/mcp\n", l.Addr())
	up := websocket.Upgrader{Subprotocols: []string{transport.WebSocketSubprotocol}}
	return http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		var mu sync.Mutex
		write := func(b []byte) error {
			mu.Lock()
			defer mu.Unlock()
			return ws.WriteMessage(websocket.TextMessage, b)
		}
		inits := make(chan []byte, 1)
		gone := make(chan struct{})
		go func() {
			defer close(gone)
			for {
				_, frame, err := ws.ReadMessage()
				if err != nil {
					return
				}
				if isInitialize(frame) {
					inits <- frame
				} else if a := floodAnswer(frame); a != nil {
					_ = write(a)
				}
			}
		}()
		if flood(write) != nil {
			return
		}
		select {
		case init := <-inits:
			_ = write(floodAnswer(init))
		case <-gone:
			return
		}
		if flood(write) != nil {
			return
		}
		_ = write(floodNote(floodMarker))
		<-gone
	}))
}
