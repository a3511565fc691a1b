package transport

// WireNote is something a client connection saw on the wire that the frames
// it delivers cannot show: how a response was carried, not what it said.
// Connections report notes through Options.OnWireNote as they see them; the
// fake client keeps them for the checks that judge every message of a run.
type WireNote struct {
	Kind WireNoteKind
	// Detail describes what was seen, for the report ("Content-Type text/html
	// on the answer to POST of tools/list").
	Detail string
}

// WireNoteKind names what a WireNote is about.
type WireNoteKind string

const (
	// NoteContentType: an HTTP response that carries (or should carry) JSON-RPC
	// with a Content-Type that is neither application/json nor
	// text/event-stream, or with none.
	NoteContentType WireNoteKind = "content-type"
	// NoteBinaryFrame: a WebSocket binary frame (messages travel in text frames).
	NoteBinaryFrame WireNoteKind = "binary-frame"
	// NoteSubprotocol: the WebSocket handshake did not select the "mcp"
	// subprotocol the client asked for.
	NoteSubprotocol WireNoteKind = "subprotocol"
	// NoteOverlongLine: a stdio line longer than the transport's limit,
	// discarded unread (it never becomes a frame).
	NoteOverlongLine WireNoteKind = "overlong-line"
)

// noteWire reports a note when the connection's owner asked for them.
func (o Options) noteWire(kind WireNoteKind, detail string) {
	if o.OnWireNote != nil {
		o.OnWireNote(WireNote{Kind: kind, Detail: detail})
	}
}
