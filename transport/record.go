package transport

import (
	"context"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Record wraps a Conn so every frame sent and received lands in t.
func Record(c Conn, t *jsonrpc.Transcript, session string) Conn {
	return &recorded{Conn: c, t: t, session: session}
}

type recorded struct {
	Conn
	t       *jsonrpc.Transcript
	session string
}

func (r *recorded) Send(ctx context.Context, frame []byte) error {
	r.t.Record(jsonrpc.Sent, r.session, frame)
	return r.Conn.Send(ctx, frame)
}

func (r *recorded) Recv(ctx context.Context) ([]byte, error) {
	b, err := r.Conn.Recv(ctx)
	if err == nil {
		r.t.Record(jsonrpc.Received, r.session, b)
	}
	return b, err
}

// Unwrap gives access to the transport's optional interfaces.
func (r *recorded) Unwrap() Conn { return r.Conn }

// As finds an optional interface on c or on the connections it wraps.
func As[T any](c Conn) (T, bool) {
	for c != nil {
		if t, ok := c.(T); ok {
			return t, true
		}
		u, ok := c.(interface{ Unwrap() Conn })
		if !ok {
			break
		}
		c = u.Unwrap()
	}
	var zero T
	return zero, false
}
