package transport

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// A relay lets a client under test speak stdio to a server that lives in
// the judging mcpconform process: the client spawns `mcpconform relay ADDR
// TOKEN`, which connects back over loopback and copies bytes both ways, so
// every verdict is reached in one process. On the socket the framing is the
// stdio framing: one JSON-RPC message per line.
//
// Handshake: the relay sends the listener's token as its first line; the
// listener answers relayAck, or closes the connection when the token is
// wrong, so no other local process can inject messages.

// RelayMaxLineBytes bounds one frame received over a relay connection.
const RelayMaxLineBytes = 4 << 20

// ErrRelayLineTooLong names a line longer than RelayMaxLineBytes. Such a
// line never reaches Recv: it is skipped, said in the transcript and as a
// NoteOverlongLine, and reading goes on (one bad line must not end the
// connection, and the verdict must name the line, not the client's exit).
var ErrRelayLineTooLong = errors.New("transport: relay: line too long")

const (
	relayAck = "mcpconform-relay ok"
	// relayHandshakeWait bounds the token exchange, so a stray connection
	// cannot hold a handshake goroutine.
	relayHandshakeWait = 10 * time.Second
	// relayDrainWait is how long the relay waits, once its stdin has closed,
	// for the judging side to close before it exits anyway.
	relayDrainWait  = 2 * time.Second
	relayTokenBytes = 32
)

// RelayListener accepts relay connections on a loopback port. Each one is a
// Conn with stdio framing.
type RelayListener struct {
	ln    net.Listener
	token string
	opts  Options // Transcript, Session and OnWireNote of every connection
	conns chan *relayConn

	mu   sync.Mutex
	live map[*relayConn]struct{}

	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
}

var _ Listener = (*RelayListener)(nil)

// ListenRelay listens on 127.0.0.1 on an ephemeral port with a fresh random
// token. ctx bounds only the listen; the listener runs until Close.
func ListenRelay(ctx context.Context) (*RelayListener, error) {
	return ListenRelayWith(ctx, Options{})
}

// ListenRelayWith is ListenRelay whose connections tell opts.Transcript
// (under opts.Session) and opts.OnWireNote of every line they skip.
func ListenRelayWith(ctx context.Context, opts Options) (*RelayListener, error) {
	secret := make([]byte, relayTokenBytes)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("transport: relay token: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("transport: relay listen: %w", err)
	}
	l := &RelayListener{
		ln:     ln,
		token:  hex.EncodeToString(secret),
		opts:   opts,
		conns:  make(chan *relayConn),
		live:   map[*relayConn]struct{}{},
		closed: make(chan struct{}),
	}
	l.wg.Add(1)
	go l.acceptLoop()
	return l, nil
}

// Addr is the loopback host:port the relay dials.
func (l *RelayListener) Addr() string { return l.ln.Addr().String() }

// Command is the argv that starts a relay to this listener, given the path
// of the mcpconform binary: [exe, "relay", "127.0.0.1:PORT", TOKEN]. The
// token travels on the command line, so it is visible to local processes
// of the same user, as the client's own command line is.
func (l *RelayListener) Command(exe string) []string {
	return []string{exe, "relay", l.Addr(), l.token}
}

// Accept returns the next connection that presented the token.
func (l *RelayListener) Accept(ctx context.Context) (Conn, error) {
	select {
	case <-l.closed:
		return nil, ErrClosed
	default:
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close stops listening and closes every accepted connection, so each
// relay exits and its client sees the server go away. It is idempotent.
func (l *RelayListener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.closeErr = l.ln.Close()
		l.mu.Lock()
		live := make([]*relayConn, 0, len(l.live))
		for c := range l.live {
			live = append(live, c)
		}
		l.mu.Unlock()
		for _, c := range live {
			_ = c.Close()
		}
		l.wg.Wait()
	})
	return l.closeErr
}

func (l *RelayListener) acceptLoop() {
	defer l.wg.Done()
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient error (EMFILE, aborted connection)
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.handshake(nc)
		}()
	}
}

// handshake checks the token, then queues the connection for Accept.
func (l *RelayListener) handshake(nc net.Conn) {
	// Closing the listener interrupts a handshake in progress.
	stopWatch, watchDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case <-l.closed:
			_ = nc.SetDeadline(time.Unix(1, 0))
		case <-stopWatch:
		}
	}()
	br := bufio.NewReaderSize(nc, 64<<10)
	_ = nc.SetDeadline(time.Now().Add(relayHandshakeWait))
	got, err := readRelayShortLine(br, len(l.token)+2)
	ok := err == nil && subtle.ConstantTimeCompare([]byte(got), []byte(l.token)) == 1
	if ok {
		_, err = nc.Write([]byte(relayAck + "\n"))
		ok = err == nil
	}
	close(stopWatch)
	<-watchDone
	if !ok {
		_ = nc.Close()
		return
	}
	_ = nc.SetDeadline(time.Time{})

	c := newRelayConn(nc, br, l.forget, l.opts)
	l.mu.Lock()
	if relayClosed(l.closed) {
		l.mu.Unlock()
		_ = c.Close()
		return
	}
	l.live[c] = struct{}{}
	l.mu.Unlock()
	select {
	case l.conns <- c:
	case <-l.closed:
		_ = c.Close()
	}
}

func (l *RelayListener) forget(c *relayConn) {
	l.mu.Lock()
	delete(l.live, c)
	l.mu.Unlock()
}

// readRelayShortLine reads one line of at most max bytes, without its
// terminator; the handshake lines are short, anything longer is refused.
func readRelayShortLine(br *bufio.Reader, max int) (string, error) {
	var b []byte
	for len(b) <= max {
		c, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		if c == '\n' {
			return string(bytes.TrimSuffix(b, []byte{'\r'})), nil
		}
		b = append(b, c)
	}
	return "", errors.New("handshake line too long")
}

// relayConn is the judging side of one relay connection.
type relayConn struct {
	nc      net.Conn
	br      *bufio.Reader
	opts    Options
	reads   chan []byte
	done    chan struct{} // the reader ended; err says why
	err     error
	sem     chan struct{} // write lock that a waiting Send can give up on
	forget  func(*relayConn)
	closed  chan struct{}
	closeMu sync.Once
}

var _ interface {
	Conn
	RawSender
} = (*relayConn)(nil)

func newRelayConn(nc net.Conn, br *bufio.Reader, forget func(*relayConn), opts Options) *relayConn {
	c := &relayConn{
		nc:     nc,
		br:     br,
		opts:   opts,
		reads:  make(chan []byte),
		done:   make(chan struct{}),
		sem:    make(chan struct{}, 1),
		forget: forget,
		closed: make(chan struct{}),
	}
	go c.readLoop()
	return c
}

func (c *relayConn) readLoop() {
	defer close(c.done)
	var long *relayLineTooLong
	for {
		line, err := readRelayLine(c.br, RelayMaxLineBytes)
		switch {
		case errors.As(err, &long):
			detail := fmt.Sprintf("a line of %d bytes the client sent, over the limit of %d bytes of a relayed line", long.n, long.max)
			c.opts.Transcript.Eventf(c.opts.Session, "relay: %s; skipped unread, reading on", detail)
			// The transcript may be full by then; the note still counts.
			c.opts.noteWire(NoteOverlongLine, detail)
			continue
		case err != nil:
			c.err = err
			return
		case len(line) == 0:
			continue // blank lines carry nothing, as on stdio
		}
		select {
		case c.reads <- line:
		case <-c.closed:
			return
		}
	}
}

// relayLineTooLong is readRelayLine's error for a line of n bytes.
type relayLineTooLong struct{ n, max int }

func (e *relayLineTooLong) Error() string {
	return fmt.Sprintf("%v: %d bytes, the limit is %d bytes", ErrRelayLineTooLong, e.n, e.max)
}

func (e *relayLineTooLong) Is(target error) bool { return target == ErrRelayLineTooLong }

// readRelayLine returns the next line without its "\n" or "\r\n". A line
// over max bytes is consumed and reported as ErrRelayLineTooLong, never
// held whole. A last line without a newline is returned, then io.EOF.
func readRelayLine(br *bufio.Reader, max int) ([]byte, error) {
	var (
		buf  []byte
		n    int
		over bool
	)
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if !over {
			if len(buf)+len(chunk) > max+2 { // +2: room for "\r\n"
				over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && n == 0 {
			return nil, err
		}
		if err != nil {
			// The stream ended inside a line: deliver it now; the next
			// call reads nothing and reports the end.
			err = nil
		} else if !over {
			buf = buf[:len(buf)-1]
		}
		buf = bytes.TrimSuffix(buf, []byte{'\r'})
		if over || len(buf) > max {
			return nil, &relayLineTooLong{n: n, max: max}
		}
		return buf, nil
	}
}

// Send writes frame and a newline; frames with a raw newline are refused,
// as on stdio.
func (c *relayConn) Send(ctx context.Context, frame []byte) error {
	if bytes.ContainsAny(frame, "\r\n") {
		return ErrEmbeddedNewline
	}
	line := make([]byte, 0, len(frame)+1)
	return c.SendRaw(ctx, append(append(line, frame...), '\n'))
}

// SendRaw writes b unchanged (malformed framing on purpose).
func (c *relayConn) SendRaw(ctx context.Context, b []byte) error {
	select {
	case c.sem <- struct{}{}:
	case <-c.closed:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.sem }()
	if relayClosed(c.closed) {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A cancelled ctx interrupts a write stuck on a relay that stopped
	// reading.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetWriteDeadline(time.Unix(1, 0)) })
	_, err := c.nc.Write(b)
	if !stop() {
		_ = c.nc.SetWriteDeadline(time.Time{})
	}
	switch {
	case err == nil:
		return nil
	case relayClosed(c.closed):
		return ErrClosed
	case ctx.Err() != nil:
		return fmt.Errorf("transport: relay write: %w", ctx.Err())
	default:
		return fmt.Errorf("transport: relay write: %w", err)
	}
}

// Recv returns the next non-empty line, or io.EOF once the relay has closed
// (its client closed the relay's stdin, or the relay died). An over-long
// line is skipped (see ErrRelayLineTooLong).
func (c *relayConn) Recv(ctx context.Context) ([]byte, error) {
	if relayClosed(c.closed) {
		return nil, ErrClosed
	}
	select {
	case line := <-c.reads:
		return line, nil
	case <-c.done:
		if relayClosed(c.closed) {
			return nil, ErrClosed
		}
		if errors.Is(c.err, io.EOF) || errors.Is(c.err, syscall.ECONNRESET) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("transport: relay read: %w", c.err)
	case <-c.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close closes the socket; the relay then exits, so its client sees the
// server end as a stdio server ending would.
func (c *relayConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		close(c.closed)
		if tc, ok := c.nc.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // FIN first: a relay reads EOF, not a reset
		}
		err = c.nc.Close()
		if c.forget != nil {
			c.forget(c)
		}
	})
	return err
}

// RunRelay is the relay process: it dials the judging mcpconform at addr,
// presents token, then copies stdin to the socket and the socket to stdout.
// It returns nil once the judging side has closed the connection, or once
// stdin has ended and the judging side has closed in turn (or has not
// within a short wait). It does not wait for a read from stdin that is in
// progress when it returns.
func RunRelay(ctx context.Context, addr, token string, stdin io.Reader, stdout io.Writer) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("relay: cannot reach mcpconform at %s: %w", addr, err)
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	defer stop()

	_ = nc.SetDeadline(time.Now().Add(relayHandshakeWait))
	if _, err := nc.Write([]byte(token + "\n")); err != nil {
		return relayRefused(ctx, addr, err)
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	if ack, err := readRelayShortLine(br, len(relayAck)+2); err != nil || ack != relayAck {
		return relayRefused(ctx, addr, err)
	}
	_ = nc.SetDeadline(time.Time{})

	fromJudge := make(chan error, 1)
	go func() {
		_, err := io.Copy(stdout, br)
		fromJudge <- err
	}()
	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		_, _ = io.Copy(nc, stdin)
		// Tell the judging side that the client is done, as a closed
		// stdin tells a stdio server.
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()

	select {
	case err := <-fromJudge:
		return relayEnd(ctx, err)
	case <-ctx.Done():
		return ctx.Err()
	case <-stdinDone:
	}
	t := time.NewTimer(relayDrainWait)
	defer t.Stop()
	select {
	case err := <-fromJudge:
		return relayEnd(ctx, err)
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func relayRefused(ctx context.Context, addr string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return fmt.Errorf("relay: mcpconform at %s refused the connection (wrong token?)", addr)
	}
	return fmt.Errorf("relay: handshake with mcpconform at %s: %w", addr, err)
}

// relayEnd classifies how the copy from the judging side ended: EOF or a
// reset (closed with input unread) is the judging side closing.
func relayEnd(ctx context.Context, err error) error {
	switch {
	case err == nil || errors.Is(err, syscall.ECONNRESET):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("relay: %w", err)
	}
}

// relayClosed reports whether ch is closed.
func relayClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
