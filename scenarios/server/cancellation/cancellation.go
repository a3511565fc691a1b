// Package cancellation is the server cancellation family: what a server
// does with notifications/cancelled (basic/utilities/cancellation.mdx, at
// 2026-07-28 basic/patterns/cancellation.mdx): a cancellation of a request
// it never received or already answered, a burst of them, and a request in
// flight that is cancelled (it should stop and not answer).
package cancellation

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Scenarios is the family's catalogue.
func Scenarios() scenarios.Catalogue {
	return scenarios.Catalogue{strayScenario, burstScenario, callCancelledScenario, callCancelledLongRunningScenario, disconnectScenario}
}

const (
	family           = "cancellation"
	cancellationSpec = "2025-11-25/basic/utilities/cancellation.mdx"
)

// cancel sends notifications/cancelled for id.
func cancel(t *serverside.T, s *client.Session, id jsonrpc.ID, reason string) {
	ctx, stop := t.Wait()
	defer stop()
	if err := s.Notify(ctx, protocol.NotificationCancelled, map[string]any{"requestId": id, "reason": reason}); err != nil {
		t.Step("notifications/cancelled for %s could not be sent: %v", id, err)
	}
}

// quiet waits up to the quiet window for a message pred accepts, received
// after mark; nil when none came.
func quiet(t *serverside.T, s *client.Session, mark int, pred func(*jsonrpc.Message) bool) *jsonrpc.Message {
	ctx, stop := context.WithTimeout(t.Ctx, t.QuietWindow())
	defer stop()
	m, err := s.Inbox().WaitFrom(ctx, mark, pred)
	if err != nil {
		return nil
	}
	return m
}

// answers accepts the responses carrying id.
func answers(id jsonrpc.ID) func(*jsonrpc.Message) bool {
	return func(m *jsonrpc.Message) bool { return m.Method == "" && m.ID.Equal(id) }
}

// describeStray is what a response that should not exist looked like.
func describeStray(m *jsonrpc.Message) string {
	if m == nil {
		return "no response"
	}
	return fmt.Sprintf("a response: %s", m.Raw)
}
