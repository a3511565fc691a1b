package suites

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/issuer"
	"github.com/mcpconform/mcpconform/scenarios"

	"github.com/mcpconform/mcpconform/fakes/peer"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/transport"
)

// Reference is a running reference server (or one of its faults) and the
// target that reaches it.
type Reference struct {
	Target client.Target
	// Auth is the issuer a protected variant trusts, and Tokens the two
	// tokens of sessions A and B it minted (nil for an unprotected one).
	Auth   *scenarios.Auth
	Tokens []string
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
	var l transport.Listener
	var stopIssuer func()
	if server.IsProtected(opts.Variant) {
		l, stopIssuer, err = ref.listenProtected(ctx, kind, opts.Variant)
	} else {
		l, err = server.Listen(ctx, kind, "127.0.0.1:0", opts.Variant, transport.Options{})
	}
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
	if ref.Auth != nil {
		ref.Auth.Resource = l.Addr()
		for _, subject := range []string{"mcpconform-subject-a", "mcpconform-subject-b"} {
			tok, err := ref.Auth.Mint(subject, ref.Auth.Scopes, issuer.Sound)
			if err != nil {
				cancel()
				_ = l.Close()
				stopIssuer()
				return nil, err
			}
			ref.Tokens = append(ref.Tokens, tok)
		}
		ref.Target.Header = http.Header{"Authorization": {"Bearer " + ref.Tokens[0]}}
	}
	ref.stop = func() {
		cancel()
		_ = l.Close()
		<-done
		if stopIssuer != nil {
			stopIssuer()
		}
	}
	return ref, nil
}

// listenProtected serves a protected variant behind its resource-server
// front, with an issuer of its own on loopback that it trusts.
func (ref *Reference) listenProtected(ctx context.Context, kind transport.Kind, v *fault.Fault) (transport.Listener, func(), error) {
	ln, url, err := issuer.Listen("127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	iss, err := issuer.New(url)
	if err != nil {
		_ = ln.Close()
		return nil, nil, err
	}
	srv := iss.Serve(ln)
	stop := func() { _ = srv.Close() }
	l, err := server.ListenProtected(ctx, kind, "127.0.0.1:0", v,
		server.Protection{Issuer: iss.URL(), Keys: iss.PublicKeys(), Introspection: iss.IntrospectionURL()}, transport.Options{})
	if err != nil {
		stop()
		return nil, nil, err
	}
	ref.Auth = &scenarios.Auth{Issuer: iss, Scopes: server.Scopes(v)}
	if v == server.OpaqueTokens {
		ref.Auth.Form = issuer.Opaque
	}
	return l, stop, nil
}
