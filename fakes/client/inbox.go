package client

import (
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/jsonrpc"
)

// Inbox keeps every message the server sent that was not the answer to one
// of our requests: notifications, server-to-client requests, and responses
// we cannot correlate (an error with a null id after a malformed frame).
// Waiters match a predicate against messages from a mark on, with a
// deadline. It is the peer's inbox (peer.Inbox), bounded by
// Options.InboxLimit.
type Inbox = peer.Inbox

// Method matches notifications and requests by method name.
func Method(name string) func(*jsonrpc.Message) bool { return peer.Method(name) }

// NullIDResponse matches responses that carry id null or no id: what a
// server sends for a frame whose id it could not read.
func NullIDResponse(m *jsonrpc.Message) bool { return peer.NullIDResponse(m) }
