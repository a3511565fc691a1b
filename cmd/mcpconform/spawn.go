package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/transport"
)

// defaultSpawnWait bounds how long a target mcpconform started may take to
// accept connections when --wait-for-target does not say.
const defaultSpawnWait = 30 * time.Second

// dialRetry is how often the endpoint is tried while a target comes up.
const dialRetry = 50 * time.Millisecond

// spawnStopGrace is how long a started target has to exit after SIGTERM.
const spawnStopGrace = 2 * time.Second

// errNotReady marks a target that never accepted connections: it cannot
// be judged (exit 3), which is not a usage error.
var errNotReady = errors.New("the target never accepted connections")

// startTarget starts the server command of `server --url URL -- CMD` in a
// process group of its own, with the launch token that lets stop take down
// whatever it started, and waits until URL accepts TCP connections.
func startTarget(ctx context.Context, rawURL string, argv []string, wait time.Duration) (stop func(), err error) {
	p, err := transport.Launch(argv, transport.LaunchOptions{Label: "target"})
	if err != nil {
		return nil, err
	}
	stop = func() { p.Stop(spawnStopGrace) }
	if err := awaitEndpoint(ctx, rawURL, wait, p.Exited()); err != nil {
		select {
		case <-p.Exited():
			err = fmt.Errorf("%w: the target exited with status %d before %s accepted connections", errNotReady, p.ExitCode(), rawURL)
		default:
			stop()
		}
		return nil, fmt.Errorf("%w%s", err, outputNote(p.Output()))
	}
	return stop, nil
}

// awaitEndpoint retries a TCP connection to the URL's host and port until
// one is accepted, the wait ends, or exited (when not nil) closes.
func awaitEndpoint(ctx context.Context, rawURL string, wait time.Duration, exited <-chan struct{}) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" || u.Scheme == "wss" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(dialRetry)
	defer tick.Stop()
	var d net.Dialer
	var last error
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s did not accept a connection within %s (%v)", errNotReady, rawURL, wait, last)
		case <-exited:
			return errNotReady
		case <-tick.C:
		}
	}
}

// outputNote is the end of a target's output for a message, or "".
func outputNote(out string) string {
	out = strings.TrimSpace(out)
	if out == "" {
		return "; it wrote nothing"
	}
	const keep = 2000
	if len(out) > keep {
		out = "…" + out[len(out)-keep:]
	}
	return "; its output:\n" + out
}
