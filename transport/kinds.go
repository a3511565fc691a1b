package transport

import (
	"context"
	"fmt"
	"strings"
)

// Kind names a kind of transport: how a client reaches a server, how the
// server listens, and what the rest of mcpconform may assume about its
// sessions. Ask a Kind instead of switching on its name: every fact about a
// kind lives in one table (kindTable).
type Kind string

// The transport kinds, in the order Kinds lists them.
const (
	// Stdio: the client spawns the server per session and speaks to its
	// stdin and stdout, one message per line.
	Stdio Kind = "stdio"
	// HTTP: Streamable HTTP, with sessions (2025-11-25) or stateless
	// (2026-07-28).
	HTTP Kind = "http"
	// WS: WebSocket, one message per text frame, subprotocol "mcp".
	WS Kind = "ws"
)

// Endpoint is what a client dials: a command for a kind whose sessions are
// processes of their own (stdio), a URL for the others.
type Endpoint struct {
	// Argv is the command spawned for each session (stdio), directly, never
	// through a shell.
	Argv []string
	// Env is added to the environment of the spawned command (stdio).
	Env []string
	// URL is the server's endpoint (http, ws).
	URL string
	// Stateless selects 2026-07-28 stateless Streamable HTTP
	// (DialStatelessHTTP) instead of 2025-11-25 sessions (DialHTTP); only
	// http looks at it. The caller decides it from the protocol version.
	Stateless bool
}

// kindInfo is one row of the table of transport kinds.
type kindInfo struct {
	kind Kind
	// dial opens one client session; the endpoint has been checked.
	dial func(ctx context.Context, ep Endpoint, opts Options) (Conn, error)
	// listen starts a server that accepts sessions on addr; nil when each
	// session is a process of its own that serves its stdin and stdout.
	listen func(ctx context.Context, addr string, opts Options) (Listener, error)
	// sharedServer: two sessions of one target reach one server process.
	sharedServer bool
	// orderedResponses: the responses of one session arrive in the order
	// they were sent, on one stream.
	orderedResponses bool
	// perRequestHeaders: every request of a session can carry HTTP headers
	// of its own.
	perRequestHeaders bool
	// processesPerSession: how many processes opening a session starts. A
	// session that needs one is that process, spawned from Endpoint.Argv;
	// the others dial Endpoint.URL.
	processesPerSession int
}

// kindTable is the table of transport kinds, in the order of Kinds.
var kindTable = [...]kindInfo{
	{
		kind: Stdio,
		dial: func(ctx context.Context, ep Endpoint, opts Options) (Conn, error) {
			return asConn(DialStdio(ctx, ep.Argv, StdioOptions{Options: opts, Env: ep.Env}))
		},
		listen:              nil, // served per process: NewStdioListener over its own stdin and stdout
		sharedServer:        false,
		orderedResponses:    true,
		perRequestHeaders:   false,
		processesPerSession: 1,
	},
	{
		kind: HTTP,
		dial: func(ctx context.Context, ep Endpoint, opts Options) (Conn, error) {
			if ep.Stateless {
				return asConn(DialStatelessHTTP(ctx, ep.URL, opts))
			}
			return asConn(DialHTTP(ctx, ep.URL, opts))
		},
		listen: func(ctx context.Context, addr string, opts Options) (Listener, error) {
			return asListener(ListenHTTP(ctx, addr, HTTPServerOptions{Transcript: opts.Transcript, Session: opts.Session}))
		},
		sharedServer:        true,
		orderedResponses:    false, // a POST's SSE stream, other POSTs' streams and the GET stream
		perRequestHeaders:   true,  // every message is a POST of its own
		processesPerSession: 0,
	},
	{
		kind: WS,
		dial: func(ctx context.Context, ep Endpoint, opts Options) (Conn, error) {
			return asConn(DialWebSocket(ctx, ep.URL, opts))
		},
		listen: func(ctx context.Context, addr string, opts Options) (Listener, error) {
			return asListener(ListenWebSocket(ctx, addr, WSServerOptions{Options: opts}))
		},
		sharedServer:        true,
		orderedResponses:    true,
		perRequestHeaders:   false, // headers go on the handshake only
		processesPerSession: 0,
	},
}

// asConn and asListener keep a nil pointer out of the interface on error.
func asConn[C Conn](c C, err error) (Conn, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

func asListener[L Listener](l L, err error) (Listener, error) {
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Kinds lists the transport kinds: stdio, http, ws.
func Kinds() []Kind {
	out := make([]Kind, len(kindTable))
	for i, row := range kindTable {
		out[i] = row.kind
	}
	return out
}

// ParseKind returns the kind named s ("stdio", "http" or "ws"); an unknown
// name is an error that lists the known ones.
func ParseKind(s string) (Kind, error) {
	k := Kind(s)
	if _, ok := k.info(); !ok {
		return "", unknownKind("transport", k)
	}
	return k, nil
}

func unknownKind(what string, k Kind) error {
	names := make([]string, len(kindTable))
	for i, row := range kindTable {
		names[i] = string(row.kind)
	}
	return fmt.Errorf("unknown %s kind %q (known kinds: %s)", what, string(k), strings.Join(names, ", "))
}

// info is the kind's row of the table; an unknown kind has the zero row,
// whose facts are all false.
func (k Kind) info() (kindInfo, bool) {
	for _, row := range kindTable {
		if row.kind == k {
			return row, true
		}
	}
	return kindInfo{}, false
}

// String is the kind's name.
func (k Kind) String() string { return string(k) }

// SharedServer reports whether two sessions of one target reach one server
// process (http, ws), so that what one session does can be seen from the
// other; each stdio session is a process of its own.
func (k Kind) SharedServer() bool {
	row, _ := k.info()
	return row.sharedServer
}

// OrderedResponses reports whether the responses of one session arrive in
// the order they were sent, on one stream (stdio, ws). Over http they arrive
// on several streams (each POST's own, the GET stream), so their order
// across requests is not defined.
func (k Kind) OrderedResponses() bool {
	row, _ := k.info()
	return row.orderedResponses
}

// PerRequestHeaders reports whether a session can carry HTTP headers per
// request (http: every message is a POST of its own). A WebSocket carries
// headers on its handshake only, stdio none.
func (k Kind) PerRequestHeaders() bool {
	row, _ := k.info()
	return row.perRequestHeaders
}

// ProcessesPerSession is how many processes opening one session starts:
// 1 for stdio (the session is the target, spawned from Endpoint.Argv), 0 for
// http and ws (the session dials Endpoint.URL of a running server).
func (k Kind) ProcessesPerSession() int {
	row, _ := k.info()
	return row.processesPerSession
}

// CheckEndpoint reports an endpoint this kind cannot dial, before anything
// starts: a stdio endpoint needs a command, the others a URL.
func (k Kind) CheckEndpoint(ep Endpoint) error {
	row, ok := k.info()
	switch {
	case !ok:
		return unknownKind("target", k)
	case row.processesPerSession > 0 && len(ep.Argv) == 0:
		return fmt.Errorf("%s target needs a command", k)
	case row.processesPerSession == 0 && ep.URL == "":
		return fmt.Errorf("%s target needs a URL", k)
	}
	return nil
}

// Address is the part of ep this kind dials, for reports: the command line
// (stdio) or the URL.
func (k Kind) Address(ep Endpoint) string {
	if row, _ := k.info(); row.processesPerSession > 0 {
		return strings.Join(ep.Argv, " ")
	}
	return ep.URL
}

// Dial opens one client session: stdio spawns ep.Argv (DialStdio), http
// dials ep.URL with DialStatelessHTTP when ep.Stateless and DialHTTP
// otherwise, ws dials ep.URL with DialWebSocket.
func (k Kind) Dial(ctx context.Context, ep Endpoint, opts Options) (Conn, error) {
	if err := k.CheckEndpoint(ep); err != nil {
		return nil, err
	}
	row, _ := k.info()
	return row.dial(ctx, ep, opts)
}

// Listen starts a server for this kind on addr ("127.0.0.1:0" for an
// ephemeral loopback port) with default options and opts' transcript and
// session label: ListenHTTP for http, ListenWebSocket for ws. Stdio has no
// listener: each session is a process of its own, serving its stdin and
// stdout (NewStdioListener).
func (k Kind) Listen(ctx context.Context, addr string, opts Options) (Listener, error) {
	row, ok := k.info()
	switch {
	case !ok:
		return nil, unknownKind("transport", k)
	case row.listen == nil:
		return nil, fmt.Errorf("transport: %s has no listener: each session is a process of its own serving its stdin and stdout", k)
	}
	return row.listen(ctx, addr, opts)
}
