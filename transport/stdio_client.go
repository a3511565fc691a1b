package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Default shutdown deadlines of a spawned stdio target.
const (
	DefaultStdinCloseWait = 2 * time.Second
	DefaultTermWait       = 2 * time.Second
	DefaultKillWait       = 2 * time.Second
)

// eofExitGrace is how long Recv, having seen stdout end, waits for the
// process to exit before it returns io.EOF, so that ExitErr is meaningful
// right after io.EOF.
const eofExitGrace = time.Second

// StdioOptions configure DialStdio.
type StdioOptions struct {
	Options
	// Env is appended to os.Environ() for the target ("KEY=value"; later
	// entries win).
	Env []string
	// Dir is the target's working directory; empty means ours.
	Dir string
	// StdinCloseWait is how long Close waits for the target to exit after
	// closing its stdin before it sends SIGTERM (default 2s).
	StdinCloseWait time.Duration
	// TermWait is how long Close waits after SIGTERM before SIGKILL
	// (default 2s).
	TermWait time.Duration
	// KillWait is how long Close waits for the process to be reaped after
	// SIGKILL before giving up with an error (default 2s).
	KillWait time.Duration
	// MaxLineBytes bounds one stdout line (default DefaultMaxLineBytes,
	// 16 MiB); a longer line is recorded as an event and discarded.
	MaxLineBytes int
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// StdioConn is a client connection to a stdio server that mcpconform
// spawned: frames go to its stdin and come from its stdout, newline
// delimited; its stderr goes to the transcript and to Stderr.
//
// The target runs in a process group of its own, with a launch token in its
// environment (LaunchEnv). When it exits, whatever is left in its group is
// killed, and on Linux so is every descendant that left the group (setsid,
// double forks: found by the token and by parent links, reaped by us as
// their subreaper). Close runs the shutdown sequence: close stdin, wait,
// SIGTERM to the group and the escaped, wait, SIGKILL to all, wait.
type StdioConn struct {
	opts    StdioOptions
	argv    []string
	cmd     *exec.Cmd
	pid     int
	stdin   *os.File
	stdout  *os.File
	stderr  *os.File
	w       *stdioWriter
	broken  error // set under w's lock: a write stopped part-way through a frame
	frames  chan []byte
	outDone chan struct{} // the stdout pump ended; outErr says why
	outErr  error
	errDone chan struct{} // the stderr pump ended
	ring    *byteRing

	tree    *procTree // signals the group and what escaped it
	exited  chan struct{}
	exitErr error

	stdinOnce sync.Once
	stdinErr  error
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var _ interface {
	Conn
	RawSender
	StderrHolder
} = (*StdioConn)(nil)

// DialStdio spawns argv (directly, never through a shell) as the stdio
// server under test. ctx bounds the start only; the process lives until it
// exits or Close. A missing binary is reported before anything is started.
func DialStdio(ctx context.Context, argv []string, opts StdioOptions) (*StdioConn, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("transport: DialStdio: empty command")
	}
	if err := resolveCommand(argv[0], opts.Dir); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts.StdinCloseWait = orDefault(opts.StdinCloseWait, DefaultStdinCloseWait)
	opts.TermWait = orDefault(opts.TermWait, DefaultTermWait)
	opts.KillWait = orDefault(opts.KillWait, DefaultKillWait)
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}

	token := prepareLaunch()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = launchEnv(opts.Env, token)
	cmd.Dir = opts.Dir
	cmd.SysProcAttr = processAttr()

	// Our own pipes rather than cmd.StdoutPipe: Wait must not close the
	// read ends while frames are still buffered in them, and we want to
	// notice the exit independently of stdout reaching EOF.
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("transport: stdio pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("transport: stdio pipe: %w", err)
	}
	growPipe(outR)
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("transport: stdio pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child has its copies; ours of its ends would keep the pipes open.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("transport: start target %q: %w", argv[0], err)
	}

	c := &StdioConn{
		opts:    opts,
		argv:    append([]string(nil), argv...),
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		stdin:   inW,
		stdout:  outR,
		stderr:  errR,
		w:       newStdioWriter(inW),
		frames:  make(chan []byte),
		outDone: make(chan struct{}),
		errDone: make(chan struct{}),
		ring:    &byteRing{max: stderrRingBytes},
		exited:  make(chan struct{}),
		closed:  make(chan struct{}),
	}
	c.tree = newProcTree(cmd.Process, token, c.exited)
	c.eventf("process started: pid %d: %s", c.pid, formatArgv(argv))
	go c.reap()
	go func() {
		defer close(c.outDone)
		err := pumpStdioLines(outR, opts.MaxLineBytes, opts.Options, "stdout", c.frames, c.closed, true)
		if errors.Is(err, io.EOF) {
			c.eventf("stdout closed")
		}
		c.outErr = err
	}()
	go func() {
		defer close(c.errDone)
		pumpStderr(errR, c.ring, opts.Transcript, opts.Session)
	}()
	return c, nil
}

func (c *StdioConn) eventf(format string, args ...any) {
	c.opts.Transcript.Eventf(c.opts.Session, format, args...)
}

// reap waits for the process and records its exit, once whatever it left
// running (in its group or escaped from it) is killed too.
func (c *StdioConn) reap() {
	defer close(c.exited)
	zombie := waitExitedNoReap(c.pid)
	c.exitErr = c.tree.leaderExited(zombie, c.cmd.Wait)
	status := "unknown status"
	if ps := c.cmd.ProcessState; ps != nil {
		status = ps.String()
	} else if c.exitErr != nil {
		status = c.exitErr.Error()
	}
	c.eventf("process exited: %s", status)
}

// signal sends a shutdown signal to the process group, unless the leader
// has been reaped already (its pgid might then belong to someone else), and
// to every descendant that left the group.
func (c *StdioConn) signal(kill bool) error { return c.tree.signal(kill) }

// Pid is the target's process id, which is also its process group id.
func (c *StdioConn) Pid() int { return c.pid }

// Exited is closed once the process has exited and been reaped.
func (c *StdioConn) Exited() <-chan struct{} { return c.exited }

// ExitErr is the process's exit: nil for exit status 0 or while it is still
// running, otherwise an *exec.ExitError (or the error from waiting).
func (c *StdioConn) ExitErr() error {
	select {
	case <-c.exited:
		return c.exitErr
	default:
		return nil
	}
}

// ExitCode is the process's exit code, or -1 while it runs or if it was
// killed by a signal.
func (c *StdioConn) ExitCode() int {
	select {
	case <-c.exited:
		if ps := c.cmd.ProcessState; ps != nil {
			return ps.ExitCode()
		}
	default:
	}
	return -1
}

// Stderr returns the last 64 KiB the target wrote to stderr.
func (c *StdioConn) Stderr() string { return c.ring.String() }

// Send writes frame followed by a newline. A frame containing a raw '\n' or
// '\r' is refused with ErrEmbeddedNewline; see SendRaw.
func (c *StdioConn) Send(ctx context.Context, frame []byte) error {
	if err := checkStdioFrame(frame); err != nil {
		return err
	}
	return c.SendRaw(ctx, frameLine(frame))
}

// SendRaw writes b to the target's stdin unchanged: no newline is added and
// nothing is checked. If ctx ends while the write is blocked on a target
// that does not read, the write is abandoned; should that cut a frame in
// two, later writes fail, since the stream is out of sync.
func (c *StdioConn) SendRaw(ctx context.Context, b []byte) error {
	if err := c.w.lock(ctx, c.closed); err != nil {
		return err
	}
	defer c.w.unlock()
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	if c.broken != nil {
		return c.broken
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.stdin.SetWriteDeadline(dl)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = c.stdin.SetWriteDeadline(time.Unix(1, 0))
	})
	n, err := c.stdin.Write(b)
	if !stop() {
		<-fired // so the deadline it set is not left for the next write
	}
	_ = c.stdin.SetWriteDeadline(time.Time{})
	if err == nil {
		return nil
	}
	if n > 0 && n < len(b) {
		c.broken = fmt.Errorf("transport: stdin out of sync: an earlier write stopped after %d of %d bytes (%v)", n, len(b), err)
		c.eventf("stdin write stopped after %d of %d bytes: %v", n, len(b), err)
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return context.DeadlineExceeded
	case errors.Is(err, os.ErrClosed):
		return ErrClosed
	}
	return fmt.Errorf("transport: write to target stdin: %w", err)
}

// Recv returns the next non-empty stdout line without its "\n" or "\r\n".
// Once stdout has ended (and the process has exited, waited for briefly) it
// returns io.EOF.
func (c *StdioConn) Recv(ctx context.Context) ([]byte, error) {
	if isClosed(c.closed) {
		return nil, ErrClosed
	}
	select {
	case <-c.closed:
		return nil, ErrClosed
	case f := <-c.frames:
		return f, nil
	case <-c.outDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// stdout has ended.
	if isClosed(c.closed) {
		return nil, ErrClosed
	}
	if c.outErr != nil && !errors.Is(c.outErr, io.EOF) {
		return nil, fmt.Errorf("transport: read target stdout: %w", c.outErr)
	}
	t := time.NewTimer(eofExitGrace)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
	case <-c.closed:
	case <-ctx.Done():
	}
	return nil, io.EOF
}

// CloseStdin closes the target's stdin (the first step of Close), so a
// scenario can watch how the target reacts. Later Sends fail with ErrClosed.
func (c *StdioConn) CloseStdin() error {
	c.stdinOnce.Do(func() {
		c.eventf("closing stdin")
		c.stdinErr = c.stdin.Close()
	})
	return c.stdinErr
}

// Close shuts the target down: it closes stdin, waits StdinCloseWait for the
// process to exit, then sends SIGTERM to its process group, waits TermWait,
// then sends SIGKILL to the group and waits KillWait. It returns nil if the
// target exited by itself with status 0; otherwise an error saying how it
// ended. Close is idempotent and always releases the pipes and goroutines
// (bar a process that survives SIGKILL).
func (c *StdioConn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *StdioConn) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}

func (c *StdioConn) shutdown() error {
	close(c.closed) // Recv and Send stop; stdout is drained from now on
	_ = c.CloseStdin()

	stdinWait, termWait, killWait := shutdownWait(c.opts.StdinCloseWait), shutdownWait(c.opts.TermWait), c.opts.KillWait
	var err error
	switch {
	case c.waitExit(stdinWait):
		if e := c.ExitErr(); e != nil {
			err = fmt.Errorf("transport: target exited: %w", e)
		}
	default:
		c.eventf("process still running %s after stdin was closed; sending %s to process group %d", stdinWait, termSignalName, c.pid)
		_ = c.signal(false)
		if c.waitExit(termWait) {
			err = fmt.Errorf("transport: target did not exit within %s of stdin being closed; stopped by %s (%v)",
				stdinWait, termSignalName, c.ExitErr())
			break
		}
		c.eventf("process still running %s after %s; sending %s to process group %d", termWait, termSignalName, killSignalName, c.pid)
		_ = c.signal(true)
		if c.waitExit(killWait) {
			err = fmt.Errorf("transport: target ignored stdin close and %s; killed by %s", termSignalName, killSignalName)
			break
		}
		c.eventf("process %d still not reaped %s after %s", c.pid, killWait, killSignalName)
		err = fmt.Errorf("transport: target process %d did not exit within %s of %s", c.pid, killWait, killSignalName)
	}

	// A target that exited may have left lines in the pipe: the pump reads
	// them to its end (at once, unless a process outside the group still
	// holds stdout) before our read ends close. Closing them stops the
	// pumps even if some process outside the group still holds the other
	// ends.
	if isClosed(c.exited) {
		waitClosed(c.outDone, outputDrainWait)
	}
	c.stdout.Close()
	c.stderr.Close()
	t := time.NewTimer(c.opts.KillWait)
	defer t.Stop()
	for _, done := range []chan struct{}{c.outDone, c.errDone} {
		select {
		case <-done:
		case <-t.C:
			return err
		}
	}
	return err
}
