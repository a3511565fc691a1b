package peer_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

func TestPeer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fakes/peer")
}

// wait bounds every single wait of these specs.
const wait = 5 * time.Second

// stepCtx is a context bounded by wait, cancelled at the end of the spec.
func stepCtx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	DeferCleanup(cancel)
	return ctx
}

// running is a peer whose read loop runs until the end of the spec.
type running struct {
	*peer.Peer
	ran chan error // receives what Run returned
}

// start runs p's read loop; at the end of the spec p is closed and the loop
// must have ended.
func start(p *peer.Peer) *running {
	r := &running{Peer: p, ran: make(chan error, 1)}
	go func() { r.ran <- p.Run() }()
	DeferCleanup(func() {
		_ = p.Close()
		Eventually(p.Done()).WithTimeout(wait).Should(BeClosed(), "the read loop ends once the connection is closed")
	})
	return r
}

// pair connects two peers over two in-memory pipes, each end a real stdio
// transport connection.
func pair(aOpts, bOpts peer.Options) (a, b *running) {
	abR, abW := io.Pipe() // a → b
	baR, baW := io.Pipe() // b → a
	ca := transport.NewStdioServerConn(baR, abW, transport.Options{})
	cb := transport.NewStdioServerConn(abR, baW, transport.Options{})
	return start(peer.New(context.Background(), ca, aOpts)), start(peer.New(context.Background(), cb, bOpts))
}

// wire is the scripted end of one connection to a peer: frames go in with
// send, every frame the peer writes comes out of frames (closed when the
// peer closes its connection).
type wire struct {
	peer   *running
	in     *io.PipeWriter
	frames chan string
}

// onWire runs a peer with opts on a stdio connection whose other end the
// spec writes and reads line by line.
func onWire(opts peer.Options) *wire {
	inR, inW := io.Pipe()   // spec → peer
	outR, outW := io.Pipe() // peer → spec
	conn := transport.NewStdioServerConn(inR, outW, transport.Options{})
	w := &wire{in: inW, frames: make(chan string, 256)}
	w.peer = start(peer.New(context.Background(), conn, opts))
	go func() {
		defer close(w.frames)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			w.frames <- sc.Text()
		}
	}()
	DeferCleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return w
}

func (w *wire) send(frame string) {
	GinkgoHelper()
	_, err := io.WriteString(w.in, frame+"\n")
	Expect(err).NotTo(HaveOccurred())
}

// next is the next frame the peer wrote, decoded.
func (w *wire) next() *jsonrpc.Message {
	GinkgoHelper()
	var frame string
	Eventually(w.frames).WithTimeout(wait).Should(Receive(&frame), "a frame from the peer")
	m, err := jsonrpc.Decode([]byte(frame))
	Expect(err).NotTo(HaveOccurred(), "frame %q", frame)
	return m
}

// rest ends the peer's input, waits for its read loop and handlers to end,
// closes its connection and returns every frame it still wrote: a barrier,
// whatever the peer was going to write is in the result.
func (w *wire) rest() []string {
	GinkgoHelper()
	Expect(w.in.Close()).To(Succeed())
	Eventually(w.peer.ran).WithTimeout(wait).Should(Receive(MatchError(io.EOF)))
	Expect(w.peer.Close()).To(Succeed())
	var out []string
	deadline := time.After(wait)
	for {
		select {
		case frame, ok := <-w.frames:
			if !ok {
				return out
			}
			out = append(out, frame)
		case <-deadline:
			Fail("the peer's output does not end once its connection is closed")
		}
	}
}

func request(id, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

func result(m *jsonrpc.Message) map[string]any {
	GinkgoHelper()
	Expect(m).NotTo(BeNil())
	Expect(m.Error).To(BeNil(), "expected a result, got %s", m.Raw)
	var r map[string]any
	Expect(json.Unmarshal(m.Result, &r)).To(Succeed())
	return r
}

func answer(v any) peer.Handler {
	return func(context.Context, *jsonrpc.Message) (any, *jsonrpc.Error) { return v, nil }
}
