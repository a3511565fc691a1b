package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Transport kinds a target can be reached over.
const (
	KindStdio = "stdio"
	KindHTTP  = "http"
	KindWS    = "ws"
)

// Target says how to reach the server under test. Each Dial opens an
// independent connection: a new process for stdio, a new HTTP session or
// WebSocket otherwise.
type Target struct {
	Kind string
	// Argv starts the server (stdio); Env is added to its environment.
	Argv []string
	Env  []string
	// URL is the endpoint (http, ws).
	URL string
	// Header goes on every HTTP request or WebSocket handshake.
	Header http.Header
}

// String describes the target for reports.
func (t Target) String() string {
	switch t.Kind {
	case KindStdio:
		return "stdio: " + strings.Join(t.Argv, " ")
	default:
		return t.Kind + ": " + t.URL
	}
}

// Validate reports a target that cannot be dialled, before anything starts.
func (t Target) Validate() error {
	switch t.Kind {
	case KindStdio:
		if len(t.Argv) == 0 {
			return errors.New("stdio target needs a command after --")
		}
	case KindHTTP, KindWS:
		if t.URL == "" {
			return fmt.Errorf("%s target needs a URL", t.Kind)
		}
	default:
		return fmt.Errorf("unknown target kind %q (want stdio, http or ws)", t.Kind)
	}
	return nil
}

// Dial opens one connection to the target.
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
	topts := transport.Options{Transcript: opts.Transcript, Session: opts.Label, Header: header}
	switch t.Kind {
	case KindStdio:
		c, err := transport.DialStdio(ctx, t.Argv, transport.StdioOptions{Options: topts, Env: t.Env})
		if err != nil {
			return nil, err
		}
		return c, nil
	case KindHTTP:
		if protocol.IsStateless(opts.Version) {
			topts.ProtocolVersion = opts.Version
			c, err := transport.DialStatelessHTTP(ctx, t.URL, topts)
			if err != nil {
				return nil, err
			}
			return c, nil
		}
		c, err := transport.DialHTTP(ctx, t.URL, topts)
		if err != nil {
			return nil, err
		}
		return c, nil
	default:
		c, err := transport.DialWebSocket(ctx, t.URL, topts)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}
