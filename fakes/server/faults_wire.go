package server

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Faults of the wire rules (judged by wire-rules on every message of every
// scenario): each breaks one rule of the wire a broken server breaks.
var (
	// Over stdio only: another transport has no stdout.
	StdoutBanner = &fault.Fault{Name: "stdout-banner", Transports: []transport.Kind{transport.Stdio},
		Description: `writes the line "Server starting…" on stdout before its first answer`}
	StdoutOverlongLine = &fault.Fault{Name: "stdout-overlong-line", Transports: []transport.Kind{transport.Stdio},
		Description: "writes one line longer than the client's stdio limit (16 MiB) on stdout before its first answer"}
	InvalidUTF8 = &fault.Fault{Name: "invalid-utf8",
		Description: "answers tools/list with bytes that are not UTF-8 (0xff 0xfe) in a tool's description"}
	JSONRPCVersionWrong = &fault.Fault{Name: "jsonrpc-version-wrong",
		Description: `answers tools/list with "jsonrpc": "1.0"`}
	// Server-to-client requests exist in the session versions only
	// (2026-07-28/basic/transports/index.mdx: servers do not initiate
	// JSON-RPC requests).
	RequestIDNull = &fault.Fault{Name: "request-id-null", Versions: legacy,
		Description: "pings the client with id null while it answers tools/list"}
	UndeclaredCapabilityRequest = &fault.Fault{Name: "undeclared-capability-request", Versions: legacy,
		Description: "asks roots/list (or sampling, or elicitation) of a client that did not declare it, while it answers tools/list"}
	// Over Streamable HTTP the transport routes a response to the stream of
	// the request with its id: one with another id, or a second one, never
	// reaches the client (faultless: a stream ends with its response).
	// The versions before tasks: a newer version's capability or method
	// is observable only where the session's version lacks it.
	NewerCapabilityDeclared = &fault.Fault{Name: "newer-capability-declared", Versions: beforeTasks,
		Description: "declares the tasks capability (2025-11-25's) in its initialize result at 2025-06-18 and 2025-03-26"}
	NewerNotificationSent = &fault.Fault{Name: "newer-notification-sent", Versions: beforeTasks,
		Description: "sends notifications/elicitation/complete (2025-11-25's) after notifications/initialized at 2025-06-18 and 2025-03-26"}
	ResponseUnknownID = &fault.Fault{Name: "response-unknown-id", Transports: []transport.Kind{transport.Stdio, transport.WS},
		Description: `while it answers tools/list, also sends a result with the id "srv-never-asked-1", which the client never sent`}
	DuplicateResponse = &fault.Fault{Name: "duplicate-response", Transports: []transport.Kind{transport.Stdio, transport.WS},
		Description: "answers tools/list twice: the same result, with the same id, two times"}
)

// Faults of the transports' own rules: they live in the listener (see
// Listen) or, for binary frames, in the connection.
var (
	ContentTypeHTML = &fault.Fault{Name: "content-type-html", Transports: []transport.Kind{transport.HTTP},
		Description: "answers every POST that carries JSON-RPC with Content-Type text/html"}
	ContentTypeMissing = &fault.Fault{Name: "content-type-missing", Transports: []transport.Kind{transport.HTTP},
		Description: "answers every POST that carries JSON-RPC without a Content-Type"}
	WSBinaryFrames = &fault.Fault{Name: "ws-binary-frames", Transports: []transport.Kind{transport.WS},
		Description: "sends every message in a binary WebSocket frame"}
	WSNoSubprotocol = &fault.Fault{Name: "ws-no-subprotocol", Transports: []transport.Kind{transport.WS},
		Description: `completes the WebSocket upgrade without selecting the subprotocol "mcp" the client offers`}
)

var wireFaults = fault.Set{
	ContentTypeHTML,
	ContentTypeMissing,
	WSBinaryFrames,
	WSNoSubprotocol,
	StdoutBanner,
	StdoutOverlongLine,
	InvalidUTF8,
	JSONRPCVersionWrong,
	RequestIDNull,
	UndeclaredCapabilityRequest,
	ResponseUnknownID,
	DuplicateResponse,
	NewerCapabilityDeclared,
	NewerNotificationSent,
}

// beforeTasks are the judged versions whose schema has no tasks/get.
var beforeTasks = protocol.Where(func(v protocol.Version) bool {
	return v.Judged && !v.Defines(protocol.MethodTasksGet) && v.Era == protocol.Stateful
})

// Liberties of the wire rules.
var (
	// Requests to the client exist in the session versions only.
	IntegerRequestIDs = &fault.Fault{Name: "integer-request-ids", Liberty: true, Versions: legacy,
		Freedom:     `index.mdx, "Requests": "Requests MUST include a string or integer ID."`,
		Description: "numbers its own requests to the client 1, 2, 3 (integer ids) instead of \"srv-1\", \"srv-2\"…"}
)

var wireLiberties = fault.Set{IntegerRequestIDs}

// banner is what stdout-banner writes before its first answer.
const banner = "Server starting…"

// overlongLine is one byte longer than the stdio reader's limit.
const overlongLine = transport.DefaultMaxLineBytes + 1

// beforeFirstAnswer writes, once per connection, what the stdout faults put
// on stdout before the first answer.
func (r *reference) beforeFirstAnswer(ctx context.Context, p *Peer) {
	if !r.is(StdoutBanner) && !r.is(StdoutOverlongLine) {
		return
	}
	p.Lock()
	done := p.State["stdoutWritten"] != nil
	p.State["stdoutWritten"] = true
	p.Unlock()
	if done {
		return
	}
	if r.is(StdoutBanner) {
		_ = p.SendRaw(ctx, []byte(banner))
		return
	}
	_ = p.SendRaw(ctx, bytes.Repeat([]byte{'x'}, overlongLine))
}

// wireFaultKey marks, in a connection's State, the id of the tools/list
// whose answer the wire faults rewrite.
const wireFaultKey = "wireFaultAnswer"

// wireFaultsInToolsList is what the wire faults do while they answer
// tools/list: mark the answer for outgoing to rewrite, or ask the client
// something first.
func (r *reference) wireFaultsInToolsList(ctx context.Context, p *Peer, req *jsonrpc.Message) {
	switch {
	case r.is(InvalidUTF8) || r.is(JSONRPCVersionWrong):
		p.Set(wireFaultKey, req.ID.Key())
	case r.is(ResponseUnknownID):
		_ = p.SendRaw(transport.WithRelatedRequest(ctx, req.ID), []byte(`{"jsonrpc":"2.0","id":"srv-never-asked-1","result":{}}`))
	case isModern(ctx):
	case r.is(RequestIDNull):
		_ = p.SendRaw(transport.WithRelatedRequest(ctx, req.ID), []byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`))
	case r.is(UndeclaredCapabilityRequest):
		declared, _ := p.Get("clientCapabilities").(map[string]any)
		for _, ask := range []struct{ capability, method string }{
			{"roots", protocol.MethodRootsList},
			{"sampling", protocol.MethodSamplingCreateMessage},
			{"elicitation", protocol.MethodElicitationCreate},
		} {
			if _, ok := declared[ask.capability]; ok {
				continue
			}
			var params any
			switch ask.method {
			case protocol.MethodSamplingCreateMessage:
				params = map[string]any{"maxTokens": 10, "messages": []any{map[string]any{"role": "user",
					"content": map[string]any{"type": "text", "text": "hello"}}}}
			case protocol.MethodElicitationCreate:
				params = elicitationParams("Confirm, please.", nil)
			}
			_, _ = p.Request(transport.WithRelatedRequest(ctx, req.ID), ask.method, params)
			return
		}
	}
}

// wireFaultOutgoing rewrites the answer wireFaultsInToolsList marked.
func (r *reference) wireFaultOutgoing(p *Peer, msg *jsonrpc.Message) *jsonrpc.Message {
	if msg.Method != "" || msg.ID.IsZero() || p.Get(wireFaultKey) != msg.ID.Key() {
		return msg
	}
	switch {
	case r.is(JSONRPCVersionWrong):
		msg.JSONRPC = "1.0"
	case r.is(InvalidUTF8):
		// Raw bytes in the result: json.Marshal keeps a RawMessage's bytes
		// as they are.
		msg.Result = bytes.Replace(msg.Result, []byte("Returns a fixed text."), []byte("Returns a fixed text \xff\xfe."), 1)
	}
	return msg
}

// Listen starts the listener of kind on addr that serves the reference
// with variant v (nil: the reference itself): the variants that live in the
// transport set its options (content-type-html, content-type-missing,
// ws-no-subprotocol); every other variant gets kind.Listen.
func Listen(ctx context.Context, kind transport.Kind, addr string, v *fault.Fault, opts transport.Options) (transport.Listener, error) {
	if l, ok, err := listenTransportRules(ctx, kind, addr, v, opts); ok {
		return l, err
	}
	if l, ok, err := listenStateless(ctx, kind, addr, v, opts); ok {
		return l, err
	}
	switch {
	case kind == transport.HTTP && (v == ContentTypeHTML || v == ContentTypeMissing):
		contentType := "text/html; charset=utf-8"
		if v == ContentTypeMissing {
			contentType = transport.ContentTypeNone
		}
		l, err := transport.ListenHTTP(ctx, addr, transport.HTTPServerOptions{Transcript: opts.Transcript, Session: opts.Session,
			ResponseContentType: contentType})
		if err != nil {
			return nil, err
		}
		return l, nil
	case kind == transport.HTTP && (v == InitializeEraHTTP || v == LegacyHTTPRefused):
		return listenInitializeEra(ctx, addr, opts)
	case kind == transport.WS && v == WSNoSubprotocol:
		l, err := transport.ListenWebSocket(ctx, addr, transport.WSServerOptions{Options: opts, NoSubprotocol: true})
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	return kind.Listen(ctx, addr, opts)
}

// binarySender is a WebSocket connection (*transport.WSConn).
type binarySender interface {
	SendBinary(ctx context.Context, b []byte) error
}

// binaryFrames sends every frame of a WebSocket connection in a binary
// frame (ws-binary-frames).
type binaryFrames struct {
	transport.Conn
	ws binarySender
}

func (b binaryFrames) Send(ctx context.Context, frame []byte) error {
	return b.ws.SendBinary(ctx, frame)
}

// Unwrap gives access to the connection's optional interfaces.
func (b binaryFrames) Unwrap() transport.Conn { return b.Conn }

// twiceConn writes every answer to tools/list two times
// (duplicate-response): the same frame, the same id.
type twiceConn struct{ transport.Conn }

func (c twiceConn) Send(ctx context.Context, frame []byte) error {
	if err := c.Conn.Send(ctx, frame); err != nil {
		return err
	}
	var m protocol.ResponseHead
	if json.Unmarshal(frame, &m) != nil || m.Method != "" || m.ID == nil || m.Result["tools"] == nil {
		return nil
	}
	return c.Conn.Send(ctx, frame)
}

// Unwrap gives access to the connection's optional interfaces.
func (c twiceConn) Unwrap() transport.Conn { return c.Conn }

// wrapConn is the reference's Engine.WrapConn.
func (r *reference) wrapConn(c transport.Conn) transport.Conn {
	if r.is(DuplicateResponse) {
		return twiceConn{c}
	}
	if r.is(WSBinaryFrames) {
		if ws, ok := transport.As[binarySender](c); ok {
			return binaryFrames{Conn: c, ws: ws}
		}
	}
	return c
}
