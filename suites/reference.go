package suites

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/transport"
)

// Reference is a running reference server (or one of its faults) and the
// target that reaches it.
type Reference struct {
	Target client.Target
	stop   func()
}

// Stop shuts the reference down and waits for it.
func (r *Reference) Stop() {
	if r != nil && r.stop != nil {
		r.stop()
	}
}

// StartReference serves the reference on loopback for http and ws; for
// stdio it returns a target that spawns `exe fake-server --stdio` per
// session, a real process over real pipes.
func StartReference(ctx context.Context, kind transport.Kind, opts server.ReferenceOptions, exe string) (*Reference, error) {
	if kind.ProcessesPerSession() > 0 {
		if exe == "" {
			return nil, fmt.Errorf("the stdio reference needs the mcpconform binary")
		}
		argv := []string{exe, "fake-server", "--stdio"}
		if v := opts.Variant; v != nil {
			argv = append(argv, "--"+v.Kind(), v.Name)
		}
		if opts.HoldTaskRequests {
			argv = append(argv, "--hold-task-requests")
		}
		return &Reference{Target: client.Target{Kind: kind, Argv: argv}}, nil
	}
	engine, err := server.NewReference(opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	l, err := server.Listen(ctx, kind, "127.0.0.1:0", opts.Variant, transport.Options{})
	if err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = engine.Serve(ctx, l)
	}()
	return &Reference{
		Target: client.Target{Kind: kind, URL: l.Addr()},
		stop: func() {
			cancel()
			_ = l.Close()
			<-done
		},
	}, nil
}
