package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

func TestServer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fakes/server")
}

// wait bounds every single wait of these specs.
const wait = 5 * time.Second

// wire is the client end of one real connection to an engine: frames go in
// with send, every frame the engine writes comes out of frames (closed when
// the connection ends).
type wire struct {
	name       string
	send       func(frame string)
	frames     chan string
	closeInput func()        // the client stops sending (stdin EOF / WebSocket close)
	served     chan struct{} // closed when ServeConn (or Serve) returned
	servedErr  error         // what it returned; read after served is closed
}

// stepCtx is a context bounded by wait, cancelled at the end of the spec.
func stepCtx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	DeferCleanup(cancel)
	return ctx
}

// overPipes serves e with ServeConn on a stdio connection over two io.Pipes.
// served receives what ServeConn returned.
func overPipes(e *server.Engine) *wire {
	GinkgoHelper()
	inR, inW := io.Pipe()   // client → engine's stdin
	outR, outW := io.Pipe() // engine's stdout → client
	conn := transport.NewStdioServerConn(inR, outW, transport.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	w := &wire{name: "stdio", served: make(chan struct{})}
	go func() {
		defer close(w.served)
		w.servedErr = e.ServeConn(ctx, conn)
	}()
	frames := make(chan string, 256)
	go func() {
		defer close(frames)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
		for sc.Scan() {
			frames <- sc.Text()
		}
	}()
	w.frames = frames
	w.send = func(frame string) {
		GinkgoHelper()
		_, err := io.WriteString(inW, frame+"\n")
		Expect(err).NotTo(HaveOccurred())
	}
	w.closeInput = func() { _ = inW.Close() }
	DeferCleanup(func() {
		cancel()
		_ = inW.Close()
		Eventually(w.served).WithTimeout(wait).Should(BeClosed(), "ServeConn must return once its context ends")
		_ = outR.Close()
	})
	return w
}

// overWebSocket serves e on a real loopback WebSocket listener and dials it.
func overWebSocket(e *server.Engine) *wire {
	GinkgoHelper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := transport.ListenWebSocket(stepCtx(), "127.0.0.1:0", transport.WSServerOptions{})
	Expect(err).NotTo(HaveOccurred())
	w := &wire{name: "ws", served: make(chan struct{})}
	go func() {
		defer close(w.served)
		w.servedErr = e.Serve(ctx, l)
	}()
	c, err := transport.DialWebSocket(stepCtx(), l.Addr(), transport.Options{})
	Expect(err).NotTo(HaveOccurred())
	frames := make(chan string, 256)
	go func() {
		defer close(frames)
		for {
			b, err := c.Recv(context.Background())
			if err != nil {
				return
			}
			frames <- string(b)
		}
	}()
	DeferCleanup(func() {
		_ = c.Close()
		cancel()
		_ = l.Close()
		Eventually(w.served).WithTimeout(wait).Should(BeClosed())
		Expect(w.servedErr).NotTo(HaveOccurred())
	})
	w.frames = frames
	w.send = func(frame string) {
		GinkgoHelper()
		Expect(c.Send(stepCtx(), []byte(frame))).To(Succeed())
	}
	w.closeInput = func() { _ = c.Close() }
	return w
}

// next is the next frame the engine sent, decoded.
func (w *wire) next() *jsonrpc.Message {
	GinkgoHelper()
	var frame string
	Eventually(w.frames).WithTimeout(wait).Should(Receive(&frame), "a frame from the engine over %s", w.name)
	m, err := jsonrpc.Decode([]byte(frame))
	Expect(err).NotTo(HaveOccurred(), "frame %q", frame)
	return m
}

// rest closes the input and returns every frame the engine still wrote
// before the connection ended. Over stdio ServeConn waits for its handlers
// before it closes stdout, so this is a barrier: whatever the engine was
// going to answer is in the result.
func (w *wire) rest() []string {
	GinkgoHelper()
	w.closeInput()
	var out []string
	Eventually(func() bool {
		for {
			select {
			case f, ok := <-w.frames:
				if !ok {
					return true
				}
				out = append(out, f)
			default:
				return false
			}
		}
	}).WithTimeout(wait).Should(BeTrue(), "the connection ends after the input closes")
	return out
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
	Expect(m.Error).To(BeNil(), "expected a result, got %s", m.Raw)
	var r map[string]any
	Expect(json.Unmarshal(m.Result, &r)).To(Succeed())
	return r
}

func ok(v any) server.Handler {
	return func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) { return v, nil }
}
