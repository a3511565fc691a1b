package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// InitializeParams builds the params of an initialize request for version.
func (s *Session) InitializeParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    s.opts.Capabilities,
		"clientInfo":      s.opts.ClientInfo,
	}
}

// Initialize performs the legacy handshake (2025-11-25 and earlier):
// initialize, then notifications/initialized. It returns the initialize
// response as received, whether it is a result or an error; err is set only
// when no response arrived or the handshake could not complete.
func (s *Session) Initialize(ctx context.Context) (*jsonrpc.Message, error) {
	resp, err := s.Request(ctx, protocol.MethodInitialize, s.InitializeParams(s.opts.Version))
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return resp, fmt.Errorf("initialize rejected: %d %s", resp.Error.Code, resp.Error.Message)
	}
	var result protocol.InitializeReply
	caps, err := readReply(resp.Result, &result, &result.Capabilities)
	if err != nil {
		return resp, fmt.Errorf("initialize result is not an object: %w", err)
	}
	s.ServerVersion = result.ProtocolVersion
	s.ServerCapabilities = caps
	if vs, ok := transport.As[transport.VersionSetter](s.conn); ok && result.ProtocolVersion != "" {
		vs.SetProtocolVersion(result.ProtocolVersion)
	}
	if err := s.Notify(ctx, protocol.NotificationInitialized, nil); err != nil {
		return resp, fmt.Errorf("notifications/initialized: %w", err)
	}
	// Streamable HTTP: open the GET stream, where a server sends requests
	// that belong to no open POST (an elicitation from inside a task). A
	// server that offers none answers 405, which is allowed.
	if st, ok := transport.As[streamOpener](s.conn); ok {
		if err := st.OpenStream(ctx); err != nil {
			s.opts.Transcript.Eventf(s.opts.Label, "no GET stream: %v", err)
		}
	}
	return resp, nil
}

type streamOpener interface {
	OpenStream(ctx context.Context) error
}

// Discover calls server/discover (2026-07-28) and keeps the capabilities.
func (s *Session) Discover(ctx context.Context) (*jsonrpc.Message, error) {
	resp, err := s.Request(ctx, protocol.MethodServerDiscover, map[string]any{})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return resp, fmt.Errorf("server/discover rejected: %d %s", resp.Error.Code, resp.Error.Message)
	}
	var result protocol.DiscoverResult
	caps, err := readReply(resp.Result, &result, &result.Capabilities)
	if err != nil {
		return resp, fmt.Errorf("server/discover result is not an object: %w", err)
	}
	s.ServerVersion = s.opts.Version
	s.ServerCapabilities = caps
	return resp, nil
}

// readReply reads a handshake's result into view, and the capabilities
// the view keeps raw (at raw) as the session keeps them: nil when absent or
// null. A result, or capabilities, that is no object fails the read.
func readReply(result json.RawMessage, view any, raw *json.RawMessage) (map[string]any, error) {
	if err := json.Unmarshal(result, view); err != nil {
		return nil, err
	}
	var caps map[string]any
	if len(*raw) > 0 {
		if err := json.Unmarshal(*raw, &caps); err != nil {
			return nil, err
		}
	}
	return caps, nil
}

// Open performs whichever handshake the session's version uses.
func (s *Session) Open(ctx context.Context) (*jsonrpc.Message, error) {
	if s.Stateless() {
		return s.Discover(ctx)
	}
	return s.Initialize(ctx)
}

// HasCapability reports whether the server declared a top-level capability.
func (s *Session) HasCapability(name string) bool {
	_, ok := s.ServerCapabilities[name]
	return ok
}
