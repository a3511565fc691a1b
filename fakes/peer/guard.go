package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
)

// Everything our own peers send is held to the schema of the version in use
// (architecture principle 8): a message of ours that the schema refuses is a
// defect of mcpconform, and a target that rejects it must never be judged
// for it. The guard sits on the one send path of the peer, so no message
// can bypass it: requests, notifications, results, error responses and raw
// frames alike.

// Deviation marks a message we send that breaks the schema on purpose: a
// reference peer's fault that sends something invalid to prove a check on
// the other side fails, or a scenario that probes how the target handles
// invalid input (malformed JSON, a wrong argument type). By names who
// deviates, so a report can say so: "fault tool-missing-input-schema",
// "scenario lifecycle-stateful: malformed JSON".
type Deviation struct {
	By string
}

func (d *Deviation) String() string { return d.By }

// deviationKey carries a Deviation in the context of a send.
type deviationKey struct{}

// Deliberately marks what is sent with ctx (Send, Notify, ReplyError,
// SendRaw, and a request's Do) as a deliberate deviation named by.
func Deliberately(ctx context.Context, by string) context.Context {
	return context.WithValue(ctx, deviationKey{}, &Deviation{By: by})
}

func deviationOf(ctx context.Context) *Deviation {
	d, _ := ctx.Value(deviationKey{}).(*Deviation)
	return d
}

// Deviant, returned by a Handler as its result (or given to Held.Answer),
// sends Result as it is and marks the answer a deliberate deviation named
// by By.
type Deviant struct {
	Result any
	By     string
}

// Outbound is one message the peer is about to write, as the guard sees it.
type Outbound struct {
	Msg *jsonrpc.Message
	// Method is the method of a request or notification, or for a
	// response the method of the request it answers ("" when the peer
	// does not know it: an error for a frame it could not read).
	Method string
	// Answering is the request a response answers, when the peer serves
	// it (nil otherwise).
	Answering *jsonrpc.Message
	// Deviation marks a message sent invalid on purpose (nil: none).
	Deviation *Deviation
}

// What names the message for a report: "result of tools/list", "request
// tools/call", "notification notifications/progress", "error response to
// prompts/get".
func (o Outbound) What() string {
	m := o.Msg
	switch {
	case m == nil:
		return "frame" // SendRaw's, when it is no JSON-RPC message
	case m.Method != "" && !m.ID.IsZero():
		return "request " + m.Method
	case m.Method != "":
		return "notification " + m.Method
	case m.Error != nil && o.Method != "":
		return "error response to " + o.Method
	case m.Error != nil:
		return "error response"
	case o.Method != "":
		return "result of " + o.Method
	}
	return "response"
}

// OwnInvalid is a message of our own that the schema of the version in use
// refuses.
type OwnInvalid struct {
	// What names the message ("result of tools/list").
	What string
	// Version is the protocol version it was validated against ("" when
	// none was agreed yet: then only the JSON-RPC shape is).
	Version string
	// Err says where and why, with the JSON path (a *protocol.SchemaError
	// where the schema refused it).
	Err error
	// Raw is the frame as it was sent.
	Raw []byte
	// Deviation is set when the message was marked as deliberate: not a
	// harness error, only a note.
	Deviation *Deviation
}

func (o OwnInvalid) Error() string {
	at := ""
	if o.Version != "" {
		at = " at " + o.Version
	}
	if o.Deviation != nil {
		return fmt.Sprintf("mcpconform's %s%s is invalid on purpose (%s): %v", o.What, at, o.Deviation, o.Err)
	}
	return fmt.Sprintf("mcpconform's own %s%s is invalid: %v", o.What, at, o.Err)
}

// HarnessMarker starts the line a peer in a process of its own (a
// reference peer the self-test launches) writes to stderr for an invalid
// message of its own, so that the run that judges it, which keeps that
// stderr, can report it as a harness error (HarnessLines).
const HarnessMarker = "mcpconform harness error: "

// Line is the stderr line for o (HarnessMarker and the error).
func (o OwnInvalid) Line() string { return HarnessMarker + o.Error() }

// HarnessLines finds the lines of text that report invalid messages of a
// reference peer of our own (Line), without the marker.
func HarnessLines(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if _, rest, ok := strings.Cut(line, HarnessMarker); ok {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

// Guard validates every message a peer writes against the schema of the
// version in use. The message is still sent as it is: the guard reports,
// it does not repair, so what the target saw is what the report names.
type Guard struct {
	// Version is the protocol version in use for a message ("" when none
	// is agreed yet, as for an answer before initialize: then only the
	// JSON-RPC shape is checked).
	Version func(Outbound) string
	// Exempt, if set, may mark a message as a deliberate deviation (a
	// fault of a reference peer that corrupts exactly this message).
	Exempt func(Outbound) *Deviation
	// Report is told of every invalid message, deliberate ones included
	// (with Deviation set).
	Report func(OwnInvalid)
}

// check validates one outgoing message and reports it when invalid.
func (g *Guard) check(o Outbound, frame []byte) {
	if g == nil || g.Report == nil {
		return
	}
	version := ""
	if g.Version != nil {
		version = g.Version(o)
	}
	if err := Validate(version, o); err != nil {
		g.reportAt(version, o, frame, err)
	}
}

// report is check's report for a frame that is not a message at all.
func (g *Guard) report(o Outbound, frame []byte, err error) {
	if g == nil || g.Report == nil {
		return
	}
	g.reportAt("", o, frame, err)
}

func (g *Guard) reportAt(version string, o Outbound, frame []byte, err error) {
	if o.Deviation == nil && g.Exempt != nil {
		o.Deviation = g.Exempt(o)
	}
	g.Report(OwnInvalid{What: o.What(), Version: version, Err: err, Raw: append([]byte(nil), frame...), Deviation: o.Deviation})
}

// Validate checks one outgoing message against the schema of version
// (protocol.SchemaFor picks the schema of a version without one of its
// own): a request's or notification's params, a result against the result
// type of the method it answers, an error response's JSON-RPC shape. A
// method the schema does not know, or a version without a schema, gets the
// checks of the JSON-RPC shape only (params and result are objects, ids are
// strings or integers).
func Validate(version string, o Outbound) error {
	m := o.Msg
	if m.JSONRPC != jsonrpc.Version {
		return fmt.Errorf("$.jsonrpc: expected %q, got %q", jsonrpc.Version, m.JSONRPC)
	}
	schema := protocol.SchemaFor(version)
	known := func(err error) error {
		if errors.Is(err, protocol.ErrUnknownMethod) || errors.Is(err, protocol.ErrUnknownVersion) {
			return nil
		}
		return err
	}
	switch {
	case m.Method != "":
		if !m.ID.IsZero() && !m.ID.Valid() {
			return fmt.Errorf("$.id: a request id must be a string or an integer, got %s", m.ID)
		}
		if m.Result != nil || m.Error != nil {
			return errors.New("$: a request or notification carries result or error")
		}
		if len(m.Params) > 0 && !isObject(m.Params) {
			return fmt.Errorf("$.params: expected object, got %s", kindOf(m.Params))
		}
		if version == "" {
			return nil
		}
		return known(protocol.ValidateParams(schema, m.Method, m.Params))
	case m.Error != nil:
		// JSON-RPC 2.0 §5: the id is null when the request's could not be
		// read; MCP's schema otherwise leaves it out or gives a request's.
		if !m.ID.IsZero() && !m.ID.IsNull() && !m.ID.Valid() {
			return fmt.Errorf("$.id: expected a string or an integer, got %s", m.ID)
		}
		if m.Result != nil {
			return errors.New("$: a response carries both result and error")
		}
		if len(m.Error.Data) > 0 && !json.Valid(m.Error.Data) {
			return errors.New("$.error.data: invalid JSON")
		}
		return nil
	case !m.ID.IsZero():
		if !m.ID.Valid() {
			return fmt.Errorf("$.id: expected a string or an integer, got %s", m.ID)
		}
		if m.Result == nil {
			return errors.New("$.result: a response carries neither result nor error")
		}
		if !isObject(m.Result) {
			return fmt.Errorf("$.result: expected object, got %s", kindOf(m.Result))
		}
		if version == "" || o.Method == "" {
			return nil
		}
		return known(protocol.ValidateResult(schema, o.Method, m.Result))
	}
	return errors.New("$: neither a request, a notification nor a response (no method, no id)")
}

func isObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func kindOf(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	switch {
	case !json.Valid(b):
		return "invalid JSON"
	case b[0] == '[':
		return "array"
	case b[0] == '"':
		return "string"
	case b[0] == 't' || b[0] == 'f':
		return "boolean"
	case b[0] == 'n':
		return "null"
	}
	return "number"
}
