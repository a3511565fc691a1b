package server

import (
	"context"
	"encoding/json"
	"github.com/mcpconform/mcpconform/fixtures"
	"slices"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The reference server's logging (2025-11-25/server/utilities/logging.mdx
// and the same page of the older versions): logging/setLevel and the
// fixture test_logging_levels, which logs once at each of several levels.

// logLevels are the syslog severities, lowest first (logging.mdx#log-levels).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// utilitiesFamily serves logging; the level set is kept on its
// connection, so the family has no state of its own.
type utilitiesFamily struct{ familyBase }

func newUtilitiesFamily(r *reference) family { return &utilitiesFamily{familyBase{r}} }

func (r *utilitiesFamily) handlers() map[string]Handler {
	return map[string]Handler{protocol.MethodLoggingSetLevel: r.setLevel}
}

// logging/setLevel is gone at 2026-07-28 (the level travels in _meta).
func (*utilitiesFamily) capabilities(version string, caps map[string]any) {
	if !protocol.IsStateless(version) {
		caps["logging"] = map[string]any{}
	}
}

func (r *utilitiesFamily) tools() []refTool {
	return []refTool{{name: fixtures.LoggingLevels,
		description: "Logs one message at each of debug, info, warning and error (those the level set allows), then answers.",
		call:        r.callLoggingLevels}}
}

func (r *utilitiesFamily) setLevel(_ context.Context, p *Peer, req *jsonrpc.Message) (any, *jsonrpc.Error) {
	var params protocol.SetLevelParams
	_ = json.Unmarshal(req.Params, &params)
	if !slices.Contains(logLevels, params.Level) {
		if r.is(InvalidLevelAccepted) {
			return map[string]any{}, nil
		}
		// logging.mdx#error-handling: invalid log level → -32602.
		return nil, rpcError(codes.InvalidParams, "Invalid log level: "+params.Level, nil)
	}
	if r.is(SetLevelRefused) {
		return nil, rpcError(codes.InternalError, "Internal error", nil)
	}
	p.Set("logLevel", params.Level)
	return map[string]any{}, nil
}

func (r *utilitiesFamily) callLoggingLevels(ctx context.Context, p *Peer, _ *jsonrpc.Message, _ json.RawMessage) (any, *jsonrpc.Error) {
	floor := 0 // no level set: the server chooses, and sends everything
	if lv, _ := p.Get("logLevel").(string); lv != "" && !r.is(SetLevelIgnored) {
		floor = slices.Index(logLevels, lv)
	}
	for _, lv := range []string{"debug", "info", "warning", "error"} {
		if slices.Index(logLevels, lv) < floor {
			continue
		}
		_ = p.Notify(ctx, protocol.NotificationMessage, map[string]any{"level": lv, "logger": "mcpconform", "data": "a message at " + lv})
	}
	return textResult(ctx, "logged", false), nil
}
