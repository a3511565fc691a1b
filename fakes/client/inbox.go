package client

import (
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Inbox keeps the messages the server sent that were not the answer to one
// of our requests: notifications, server-to-client requests, and responses
// we cannot correlate (an error with a null id after a malformed frame).
// Waiters match a predicate against messages from a mark on, with a
// deadline. It is the peer's inbox (peer.Inbox), bounded by count
// (Options.InboxLimit) and by bytes (peer.DefaultInboxBytes), so a server
// flooding notifications costs a bounded amount of memory; a waiter still
// sees every message that arrives while it waits.
type Inbox = peer.Inbox

// Method matches notifications and requests by method name.
func Method(name string) func(*jsonrpc.Message) bool { return peer.Method(name) }

// NullIDResponse matches responses that carry id null or no id: what a
// server sends for a frame whose id it could not read.
func NullIDResponse(m *jsonrpc.Message) bool { return peer.NullIDResponse(m) }

// inboxDropNote is the peer's OnInboxDrop for a session: the one transcript
// line saying the inbox started dropping, with both of its bounds.
func inboxDropNote(t *jsonrpc.Transcript, label string) func(peer.InboxDrop) {
	return func(d peer.InboxDrop) { t.Eventf(label, "%s", d) }
}
