package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

const (
	// stderrRingBytes is how much of the target's stderr Stderr keeps.
	stderrRingBytes = 64 << 10
	// stderrTranscriptBytes bounds the stderr recorded in the transcript,
	// so that a chatty target cannot crowd the frames out of it.
	stderrTranscriptBytes = 1 << 20
	// stderrMaxLine splits longer stderr lines into pieces of this size.
	stderrMaxLine = 16 << 10
)

// resolveCommand checks that the target binary exists and is executable
// before anything is started. A name with a path separator is taken relative
// to dir (as exec.Cmd does); a bare name is looked up in PATH.
func resolveCommand(name, dir string) error {
	lookup := name
	if dir != "" && !filepath.IsAbs(name) && strings.ContainsAny(name, `/`+string(os.PathSeparator)) {
		lookup = filepath.Join(dir, name)
	}
	if _, err := exec.LookPath(lookup); err != nil {
		return fmt.Errorf("transport: target command %q not found: %w", name, err)
	}
	return nil
}

// formatArgv renders a command line for a transcript event.
func formatArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			parts[i] = fmt.Sprintf("%q", a)
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// byteRing keeps the last max bytes written to it.
type byteRing struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (r *byteRing) Write(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(p) >= r.max {
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		return
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
}

func (r *byteRing) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}

// pumpStderr copies the target's stderr into ring and, line by line and up
// to stderrTranscriptBytes, into t as jsonrpc.Stderr frames. It never blocks
// on anything but r and returns when r fails.
func pumpStderr(r io.Reader, ring *byteRing, t *jsonrpc.Transcript, session string) {
	br := bufio.NewReaderSize(r, stderrMaxLine)
	budget := stderrTranscriptBytes
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			ring.Write(chunk)
			line := strings.TrimRight(string(chunk), "\r\n")
			switch {
			case line == "":
			case budget >= len(line):
				budget -= len(line)
				t.Record(jsonrpc.Stderr, session, []byte(line))
			case budget >= 0:
				budget = -1
				t.Eventf(session, "stderr: more than %d bytes; the rest is not recorded here (the last %d bytes are kept by Stderr())",
					stderrTranscriptBytes, stderrRingBytes)
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
