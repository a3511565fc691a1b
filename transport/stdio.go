package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// DefaultMaxLineBytes bounds one newline-delimited stdio frame. A longer line
// is recorded as a transport event and discarded, never buffered whole.
const DefaultMaxLineBytes = 16 << 20

// ErrEmbeddedNewline is returned by stdio Send for a frame that contains a
// raw '\n' or '\r': MCP's stdio framing forbids embedded newlines. Use
// SendRaw to put such bytes on the wire deliberately.
var ErrEmbeddedNewline = errors.New("transport: stdio frame contains a raw newline")

// RawSender is implemented by stdio connections: SendRaw writes b exactly as
// given, without validation and without appending a newline, so a scenario
// can send garbage, partial lines or several frames in one write.
type RawSender interface {
	SendRaw(ctx context.Context, b []byte) error
}

// checkStdioFrame rejects frames that would break newline-delimited framing.
func checkStdioFrame(frame []byte) error {
	if bytes.IndexByte(frame, '\n') >= 0 || bytes.IndexByte(frame, '\r') >= 0 {
		return ErrEmbeddedNewline
	}
	return nil
}

// stdioLine is one result of stdioLineReader.next.
type stdioLine struct {
	line         []byte // without the terminator
	discarded    int64  // > 0: an over-long line of this many bytes was dropped
	unterminated bool   // the stream ended without a final newline
}

// stdioLineReader splits a byte stream into newline-delimited lines, keeping
// at most max bytes of any one line in memory.
type stdioLineReader struct {
	br  *bufio.Reader
	max int
	err error // sticky: the error that ended the stream
}

func newStdioLineReader(r io.Reader, max int) *stdioLineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &stdioLineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line. "\n" and "\r\n" terminators are stripped.
// err is io.EOF (or the read error) once nothing more is left.
func (lr *stdioLineReader) next() (stdioLine, error) {
	if lr.err != nil {
		return stdioLine{}, lr.err
	}
	var (
		buf  []byte
		n    int64
		over bool
	)
	for {
		chunk, err := lr.br.ReadSlice('\n')
		n += int64(len(chunk))
		if !over {
			if len(buf)+len(chunk) > lr.max+2 { // +2: room for "\r\n"
				over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if over {
				return stdioLine{discarded: n}, nil
			}
			buf = bytes.TrimSuffix(buf[:len(buf)-1], []byte{'\r'})
			if len(buf) > lr.max {
				return stdioLine{discarded: n}, nil
			}
			return stdioLine{line: buf}, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			lr.err = err
			if n == 0 {
				return stdioLine{}, err
			}
			// Deliver what came before the end of the stream; the next call
			// reports the error.
			if over {
				return stdioLine{discarded: n, unterminated: true}, nil
			}
			return stdioLine{line: buf, unterminated: true}, nil
		}
	}
}

// pumpStdioLines reads lines from r and hands them to out until r fails.
// Over-long lines and a missing final newline are recorded as events in t;
// empty lines are skipped. Once stop is closed, lines are no longer
// delivered; pumpStdioLines then returns at once unless drain is set, in
// which case it keeps reading (so a writer never blocks on a full pipe)
// until r fails, and keeps the first keptAfterClose of those lines in the
// transcript as events (what a target printed as it ended explains how it
// ended). It returns the error that ended the stream.
func pumpStdioLines(r io.Reader, max int, opts Options, what string,
	out chan<- []byte, stop <-chan struct{}, drain bool) error {
	t, session := opts.Transcript, opts.Session
	lr := newStdioLineReader(r, max)
	kept := 0
	for {
		l, err := lr.next()
		if err != nil {
			return err
		}
		if l.discarded > 0 {
			t.Eventf(session, "%s: line of %d bytes exceeds the limit of %d bytes; discarded", what, l.discarded, lr.max)
			// The transcript may be full by then; the note still counts.
			opts.noteWire(NoteOverlongLine, fmt.Sprintf("a line of %d bytes on %s, over the limit of %d bytes, discarded unread", l.discarded, what, lr.max))
			continue
		}
		if l.unterminated {
			t.Eventf(session, "%s: stream ended without a newline after the last line", what)
		}
		if len(l.line) == 0 {
			continue
		}
		select {
		case out <- l.line:
		case <-stop:
			if !drain {
				return ErrClosed
			}
			switch {
			case kept < keptAfterClose:
				t.Eventf(session, "%s after the connection closed (not read as a message): %s", what, jsonrpc.CutEntry(l.line, keptLineBytes))
			case kept == keptAfterClose:
				t.Eventf(session, "%s: more lines after the connection closed; not kept", what)
			}
			kept++
		}
	}
}

// keptAfterClose bounds the lines a closed connection keeps as events, and
// keptLineBytes each of them.
const (
	keptAfterClose = 20
	keptLineBytes  = 2048
)

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stdioWriter serialises writes of whole frames to w.
type stdioWriter struct {
	sem chan struct{} // a mutex that a waiting Send can give up on
	w   io.Writer
}

func newStdioWriter(w io.Writer) *stdioWriter {
	return &stdioWriter{sem: make(chan struct{}, 1), w: w}
}

func (sw *stdioWriter) lock(ctx context.Context, closed <-chan struct{}) error {
	select {
	case sw.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-closed:
		return ErrClosed
	}
}

func (sw *stdioWriter) unlock() { <-sw.sem }

// frameLine returns frame followed by '\n' in a new slice, so it goes out in
// one write.
func frameLine(frame []byte) []byte {
	b := make([]byte, 0, len(frame)+1)
	return append(append(b, frame...), '\n')
}

// ---- server side ----------------------------------------------------------

// stdioServerCloseWait bounds how long Close waits for a Send in flight.
const stdioServerCloseWait = 2 * time.Second

// stdioServerConn is mcpconform's end of a stdio connection when it plays
// the server: frames arrive on r (its stdin) and leave on w (its stdout).
type stdioServerConn struct {
	opts   Options
	r      io.Reader
	w      *stdioWriter
	frames chan []byte
	start  sync.Once
	done   chan struct{} // closed when the reader goroutine ends
	err    error         // why the reader ended; read after done

	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// NewStdioServerConn serves one stdio connection: frames are read from r
// (normally os.Stdin), newline-delimited, and written to w (normally
// os.Stdout) with a '\n' appended. Concurrent Sends never interleave bytes.
// Close closes w, so the peer sees EOF, and r, if they are io.Closers.
//
// The returned Conn also implements RawSender.
func NewStdioServerConn(r io.Reader, w io.Writer, opts Options) Conn {
	return &stdioServerConn{
		opts:   opts,
		r:      r,
		w:      newStdioWriter(w),
		frames: make(chan []byte),
		done:   make(chan struct{}),
		closed: make(chan struct{}),
	}
}

func (c *stdioServerConn) startReader() {
	c.start.Do(func() {
		go func() {
			defer close(c.done)
			err := pumpStdioLines(c.r, DefaultMaxLineBytes, c.opts, "stdin", c.frames, c.closed, false)
			if errors.Is(err, io.EOF) {
				c.opts.Transcript.Eventf(c.opts.Session, "stdin closed by the client")
			}
			c.err = err
		}()
	})
}

// Send writes frame and a newline. Frames with embedded newlines are refused.
func (c *stdioServerConn) Send(ctx context.Context, frame []byte) error {
	if err := checkStdioFrame(frame); err != nil {
		return err
	}
	return c.SendRaw(ctx, frameLine(frame))
}

// SendRaw writes b unchanged.
func (c *stdioServerConn) SendRaw(ctx context.Context, b []byte) error {
	if err := c.w.lock(ctx, c.closed); err != nil {
		return err
	}
	defer c.w.unlock()
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := c.w.w.Write(b); err != nil {
		return fmt.Errorf("transport: stdio write: %w", err)
	}
	return nil
}

// Recv returns the next non-empty line from r.
func (c *stdioServerConn) Recv(ctx context.Context) ([]byte, error) {
	if isClosed(c.closed) {
		return nil, ErrClosed
	}
	c.startReader()
	select {
	case <-c.closed:
		return nil, ErrClosed
	case f := <-c.frames:
		return f, nil
	case <-c.done:
		if isClosed(c.closed) {
			return nil, ErrClosed
		}
		if c.err == nil || errors.Is(c.err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("transport: stdio read: %w", c.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close closes w and r when they are io.Closers. It does not wait for a
// reader blocked on a non-closable r.
func (c *stdioServerConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if wc, ok := c.w.w.(io.Closer); ok {
			// Take the write lock so a frame in flight is not cut off,
			// unless the write is stuck on a peer that stopped reading.
			ctx, cancel := context.WithTimeout(context.Background(), stdioServerCloseWait)
			locked := c.w.lock(ctx, nil) == nil
			cancel()
			c.closeErr = wc.Close()
			if locked {
				c.w.unlock()
			}
		}
		if rc, ok := c.r.(io.Closer); ok {
			if err := rc.Close(); c.closeErr == nil {
				c.closeErr = err
			}
		}
		c.opts.Transcript.Eventf(c.opts.Session, "stdio connection closed")
	})
	return c.closeErr
}

// StdioListener is the Listener for serving on stdio: Accept returns its one
// connection once, then blocks until ctx is done or the listener is closed.
type StdioListener struct {
	conn      Conn
	once      sync.Once
	closed    chan struct{}
	closeOnce sync.Once
}

// NewStdioListener serves one stdio connection on r and w (normally os.Stdin
// and os.Stdout); see NewStdioServerConn.
func NewStdioListener(r io.Reader, w io.Writer, opts Options) *StdioListener {
	return &StdioListener{
		conn:   NewStdioServerConn(r, w, opts),
		closed: make(chan struct{}),
	}
}

// Accept returns the stdio connection on the first call; later calls block
// until ctx is done (ctx.Err()) or the listener is closed (ErrClosed).
func (l *StdioListener) Accept(ctx context.Context) (Conn, error) {
	select {
	case <-l.closed:
		return nil, ErrClosed
	default:
	}
	first := false
	l.once.Do(func() { first = true })
	if first {
		return l.conn, nil
	}
	select {
	case <-l.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Addr is "stdio".
func (l *StdioListener) Addr() string { return "stdio" }

// Close stops Accept and closes the connection (accepted or not), like
// WSServer.Close ends all its connections.
func (l *StdioListener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.closed)
		err = l.conn.Close()
	})
	return err
}
