package suites

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/peer"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/transport"
)

// Reference is a running reference server (or one of its faults) and the
// target that reaches it.
type Reference struct {
	Target client.Target
	stop   func()

	mu   sync.Mutex
	own  []string // invalid messages of its own, not deliberate (in-process only)
	more int
}

// maxOwnKept bounds the invalid messages a Reference keeps.
const maxOwnKept = 100

// OwnInvalid lists the messages an in-process reference sent that the
// schema of the version in use refuses and that its variant does not send
// invalid on purpose: defects of mcpconform (peer.Guard). A reference
// process (stdio) reports them on its stderr instead, which the scenarios
// that judge it turn into harness errors.
func (r *Reference) OwnInvalid() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.own)
	if r.more > 0 {
		out = append(out, fmt.Sprintf("and %d more", r.more))
	}
	return out
}

func (r *Reference) ownInvalid(o peer.OwnInvalid) {
	if o.Deviation != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.own) < maxOwnKept {
		r.own = append(r.own, o.Error())
	} else {
		r.more++
	}
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
	ref := &Reference{}
	if opts.OnOwnInvalid == nil {
		opts.OnOwnInvalid = ref.ownInvalid
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
	ref.Target = client.Target{Kind: kind, URL: l.Addr()}
	ref.stop = func() {
		cancel()
		_ = l.Close()
		<-done
	}
	return ref, nil
}
