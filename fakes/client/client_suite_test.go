package client_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

func TestClient(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fakes/client")
}

// wait bounds every single wait of these specs.
const wait = 5 * time.Second

// stepCtx is a context bounded by wait, cancelled at the end of the spec.
func stepCtx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	DeferCleanup(cancel)
	return ctx
}

// serve runs e on a real loopback listener of the given kind (ws or http)
// until the end of the spec and returns the target that reaches it.
func serve(kind transport.Kind, e *server.Engine) client.Target {
	GinkgoHelper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := kind.Listen(stepCtx(), "127.0.0.1:0", transport.Options{})
	Expect(err).NotTo(HaveOccurred())
	done := make(chan error, 1)
	go func() { done <- e.Serve(ctx, l) }()
	DeferCleanup(func() {
		cancel()
		_ = l.Close()
		Eventually(done).WithTimeout(wait).Should(Receive(BeNil()), "the engine stops serving")
	})
	return client.Target{Kind: kind, URL: l.Addr()}
}

// reference serves the conformant reference server.
func reference(kind transport.Kind) client.Target {
	GinkgoHelper()
	e, err := server.NewReference(server.ReferenceOptions{})
	Expect(err).NotTo(HaveOccurred())
	return serve(kind, e)
}

// connect opens a session that is closed at the end of the spec.
func connect(target client.Target, opts client.Options) *client.Session {
	GinkgoHelper()
	if opts.Transcript == nil {
		opts.Transcript = jsonrpc.NewTranscript()
	}
	s, err := client.Connect(stepCtx(), target, opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = s.Close()
		if CurrentSpecReport().Failed() {
			AddReportEntry("transcript", opts.Transcript.String())
		}
	})
	return s
}
