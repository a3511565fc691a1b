package transport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// buildTestPeer compiles internal/testpeer into a fresh temporary directory
// and returns the binary's path and a function removing it.
func buildTestPeer() (string, func()) {
	dir, err := os.MkdirTemp("", "mcpconform-testpeer-")
	Expect(err).NotTo(HaveOccurred())
	bin := filepath.Join(dir, "testpeer")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	goTool, err := exec.LookPath("go")
	Expect(err).NotTo(HaveOccurred(), "the go tool is needed to build the test peer")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "./internal/testpeer").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "go build testpeer: %s", out)
	return bin, func() { os.RemoveAll(dir) }
}

// tpCtx is a context for one step of a test.
func tpCtx(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	DeferCleanup(cancel)
	return ctx
}

// ourGoroutines lists the stacks of goroutines started by this file's
// transports that are still running.
func ourGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var ours []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, marker := range []string{
			"transport.(*StdioConn)", "transport.DialStdio", "transport.pumpStdioLines", "transport.pumpStderr",
			"transport.(*stdioServerConn)", "transport.(*WSConn)", "transport.(*WSServer)", "transport.ListenWebSocket",
		} {
			if strings.Contains(g, marker) {
				ours = append(ours, g)
				break
			}
		}
	}
	return ours
}

// expectNoLeaks fails if goroutines of ours outlive the test.
func expectNoLeaks() {
	Eventually(ourGoroutines).WithTimeout(5 * time.Second).Should(BeEmpty())
}

// framesOf returns the transcript frames of one direction, as strings.
func framesOf(t *jsonrpc.Transcript, dir jsonrpc.Direction) []string {
	var out []string
	for _, f := range t.Frames() {
		if f.Direction == dir {
			out = append(out, string(f.Raw))
		}
	}
	return out
}

// eventsOf is framesOf(t, jsonrpc.Event), as a function for Eventually.
func eventsOf(t *jsonrpc.Transcript) func() []string {
	return func() []string { return framesOf(t, jsonrpc.Event) }
}
