package client

import (
	"github.com/mcpconform/mcpconform/fakes/peer"
)

// Scripted answers to server-to-client requests.

// ElicitationAnswer builds an elicitation result: accept (with content),
// decline or cancel.
func ElicitationAnswer(action string, content map[string]any) map[string]any {
	res := map[string]any{"action": action}
	if action == "accept" {
		res["content"] = content
	}
	return res
}

// Held is one server-to-client request the scenario holds: it stays
// unanswered until the scenario calls Answer (which returns once the answer
// is written, so what the scenario sends next goes out after it), Decline or
// Ignore. See peer.Held.
type Held = peer.Held

// HeldRequests queues held requests for the scenario; Next waits for the
// next one.
type HeldRequests = peer.HeldRequests

// Hold installs a handler for method that hands each request to the
// scenario instead of answering it.
func (s *Session) Hold(method string) *HeldRequests { return s.peer.Hold(method) }
