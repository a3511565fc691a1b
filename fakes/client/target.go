package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Target says how to reach the server under test. Each Dial opens an
// independent connection: a new process for stdio, a new HTTP session or
// WebSocket otherwise.
type Target struct {
	Kind transport.Kind
	// Argv starts the server (stdio); Env is added to its environment.
	Argv []string
	Env  []string
	// URL is the endpoint (http, ws).
	URL string
	// Header goes on every HTTP request or WebSocket handshake.
	Header http.Header
	// WrapHTTP wraps the round tripper of every HTTP connection (the
	// reference client's OAuth layer, reference_auth.go).
	WrapHTTP func(http.RoundTripper) http.RoundTripper
}

// endpoint is what Kind dials; stateless selects 2026-07-28 Streamable HTTP.
func (t Target) endpoint(stateless bool) transport.Endpoint {
	return transport.Endpoint{Argv: t.Argv, Env: t.Env, URL: t.URL, Stateless: stateless}
}

// String describes the target for reports: "stdio: node build/index.js",
// "http: http://127.0.0.1:3000/mcp".
func (t Target) String() string {
	return fmt.Sprintf("%s: %s", t.Kind, t.Kind.Address(t.endpoint(false)))
}

// Validate reports a target that cannot be dialled, before anything starts.
func (t Target) Validate() error {
	return t.Kind.CheckEndpoint(t.endpoint(false))
}

// Dial opens one connection to the target. A session whose protocol version
// (opts.Version) is stateless (2026-07-28) dials stateless Streamable HTTP
// over http.
func (t Target) Dial(ctx context.Context, opts Options) (transport.Conn, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	header := t.Header.Clone()
	for k, v := range opts.Header {
		if header == nil {
			header = http.Header{}
		}
		header[k] = v
	}
	topts := transport.Options{Transcript: opts.Transcript, Session: opts.Label, Header: header, OnWireNote: opts.OnWireNote, WrapHTTP: t.WrapHTTP}
	stateless := protocol.IsStateless(opts.Version)
	if stateless {
		topts.ProtocolVersion = opts.Version
	}
	return t.Kind.Dial(ctx, t.endpoint(stateless), topts)
}
