package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/peer"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The stdio specs hand the reference client this test binary as its server
// command: run as `client.test relay ADDR TOKEN` it is the relay, as
// `mcpconform relay` is in production.
func init() {
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		if err := transport.RunRelay(context.Background(), os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// referenceWait bounds every single wait of these specs.
const referenceWait = 10 * time.Second

// judgingServer is a server engine on a real listener, with what it
// received from the client under test.
type judgingServer struct {
	// address is what the client is given as its last argument.
	address    string
	transcript *jsonrpc.Transcript
	started    atomic.Int64
	ended      atomic.Int64
}

// serveForClient serves e over kind (stdio through a relay, http or ws)
// until the end of the spec.
func serveForClient(kind transport.Kind, e *server.Engine) *judgingServer {
	GinkgoHelper()
	js := &judgingServer{transcript: jsonrpc.NewTranscript()}
	e.Transcript = js.transcript
	onPeer, onPeerDone := e.OnPeer, e.OnPeerDone
	e.OnPeer = func(p *server.Peer) {
		js.started.Add(1)
		if onPeer != nil {
			onPeer(p)
		}
	}
	e.OnPeerDone = func(p *server.Peer) {
		if onPeerDone != nil {
			onPeerDone(p)
		}
		js.ended.Add(1)
	}
	listenCtx, cancelListen := context.WithTimeout(context.Background(), referenceWait)
	defer cancelListen()
	var (
		l   transport.Listener
		err error
	)
	if kind == transport.Stdio {
		var rl *transport.RelayListener
		rl, err = transport.ListenRelay(listenCtx)
		if err == nil {
			exe, exeErr := os.Executable()
			Expect(exeErr).NotTo(HaveOccurred())
			Expect(exe).NotTo(ContainSubstring(" "), "the server command is split on spaces")
			js.address = strings.Join(rl.Command(exe), " ")
			l = rl
		}
	} else {
		l, err = kind.Listen(listenCtx, "127.0.0.1:0", transport.Options{})
	}
	Expect(err).NotTo(HaveOccurred())
	if js.address == "" {
		js.address = l.Addr()
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.Serve(ctx, l) }()
	DeferCleanup(func() {
		cancel()
		_ = l.Close()
		Eventually(served).WithTimeout(referenceWait).Should(Receive(BeNil()), "the engine stops serving")
		if CurrentSpecReport().Failed() {
			AddReportEntry("server transcript", js.transcript.String())
		}
	})
	return js
}

func serveReferenceForClient(kind transport.Kind) *judgingServer {
	GinkgoHelper()
	e, err := server.NewReference(server.ReferenceOptions{})
	Expect(err).NotTo(HaveOccurred())
	return serveForClient(kind, e)
}

// received lists the requests and notifications the server received, in order.
func (js *judgingServer) received() []*jsonrpc.Message {
	var out []*jsonrpc.Message
	for _, f := range js.transcript.Frames() {
		if f.Direction != jsonrpc.Received {
			continue
		}
		if m, err := jsonrpc.Decode(f.Raw); err == nil && m.Method != "" {
			out = append(out, m)
		}
	}
	return out
}

func (js *judgingServer) methods() []string {
	var out []string
	for _, m := range js.received() {
		out = append(out, m.Method)
	}
	return out
}

// params returns the params of the first message with this method.
func (js *judgingServer) params(method string) map[string]any {
	GinkgoHelper()
	for _, m := range js.received() {
		if m.Method == method {
			var p map[string]any
			Expect(json.Unmarshal(m.Params, &p)).To(Succeed(), "params of %s", method)
			return p
		}
	}
	Fail("the server received no " + method)
	return nil
}

// expectClosed waits until every connection the client opened has ended.
func (js *judgingServer) expectClosed() {
	GinkgoHelper()
	Eventually(func() bool {
		n := js.started.Load()
		return n > 0 && js.ended.Load() == n
	}).WithTimeout(referenceWait).Should(BeTrue(), "the client closes its connection")
}

func runReferenceClient(opts client.ReferenceClientOptions) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*referenceWait)
	defer cancel()
	opts.Log = GinkgoWriter
	if opts.ResponseTimeout == 0 {
		opts.ResponseTimeout = 5 * time.Second
	}
	return client.RunReference(ctx, opts)
}

var allClientKinds = transport.Kinds()

var _ = Describe("reference client", func() {
	Describe("against the reference server", func() {
		stateful := func(kind transport.Kind, version string) {
			js := serveReferenceForClient(kind)
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: version})).To(Succeed())

			Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize, protocol.NotificationInitialized, protocol.MethodToolsList}))
			init := js.params(protocol.MethodInitialize)
			Expect(init).To(HaveKeyWithValue("protocolVersion", version))
			Expect(init).To(HaveKeyWithValue("capabilities", BeAssignableToTypeOf(map[string]any{})))
			Expect(init).To(HaveKeyWithValue("clientInfo", SatisfyAll(
				HaveKeyWithValue("name", client.ReferenceClientName),
				HaveKeyWithValue("version", client.ReferenceClientVersion))))
			js.expectClosed()
		}
		for _, kind := range allClientKinds {
			It("initializes, lists tools and closes over "+string(kind)+" at 2025-11-25", func() { stateful(kind, protocol.V20251125) })
		}
		It("speaks an older stateful version when asked", func() { stateful(transport.WS, protocol.V20250618) })

		for _, kind := range allClientKinds {
			It("discovers, lists tools with _meta and closes over "+string(kind)+" at 2026-07-28", func() {
				js := serveReferenceForClient(kind)
				Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: protocol.V20260728})).To(Succeed())

				Expect(js.methods()).To(Equal([]string{protocol.MethodServerDiscover, protocol.MethodToolsList}))
				for _, m := range []string{protocol.MethodServerDiscover, protocol.MethodToolsList} {
					Expect(js.params(m)).To(HaveKeyWithValue("_meta", SatisfyAll(
						HaveKeyWithValue(protocol.MetaProtocolVersion, protocol.V20260728),
						HaveKey(protocol.MetaClientCapabilities),
						HaveKeyWithValue(protocol.MetaClientInfo, HaveKeyWithValue("name", client.ReferenceClientName)))), m)
				}
				js.expectClosed()
			})
		}

		It("takes the protocol version from the environment when no flag gives it", func() {
			js := serveReferenceForClient(transport.WS)
			Expect(os.Setenv(client.EnvProtocolVersion, protocol.V20250618)).To(Succeed())
			DeferCleanup(os.Unsetenv, client.EnvProtocolVersion)
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address})).To(Succeed())
			Expect(js.params(protocol.MethodInitialize)).To(HaveKeyWithValue("protocolVersion", protocol.V20250618))

			By("an explicit version winning over the environment")
			js = serveReferenceForClient(transport.WS)
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: protocol.V20251125})).To(Succeed())
			Expect(js.params(protocol.MethodInitialize)).To(HaveKeyWithValue("protocolVersion", protocol.V20251125))
		})
	})

	Describe("faults", func() {
		// What the server sees from each fault: exactly one rule broken,
		// the rest as the reference does it.
		expectations := map[*fault.Fault]func(js *judgingServer){
			client.SkipsInitialized: func(js *judgingServer) {
				Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize, protocol.MethodToolsList}))
			},
			client.RequestBeforeInitialize: func(js *judgingServer) {
				Expect(js.methods()).To(Equal([]string{protocol.MethodPing, protocol.MethodInitialize, protocol.NotificationInitialized, protocol.MethodToolsList}))
			},
			client.InitUnsupportedVersion: func(js *judgingServer) {
				Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize, protocol.NotificationInitialized, protocol.MethodToolsList}))
				Expect(js.params(protocol.MethodInitialize)).To(HaveKeyWithValue("protocolVersion", "1999-01-01"))
				Expect(js.params(protocol.MethodInitialize)).To(HaveKey("clientInfo"))
			},
			client.NewerMetaAfterNegotiation: func(js *judgingServer) {
				Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize, protocol.NotificationInitialized, protocol.MethodToolsList, protocol.MethodToolsList}))
				Expect(js.params(protocol.MethodToolsList)).To(HaveKeyWithValue("_meta", HaveKeyWithValue("io.modelcontextprotocol/protocolVersion", protocol.V20260728)))
			},
			client.InitNoClientInfo: func(js *judgingServer) {
				Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize, protocol.NotificationInitialized, protocol.MethodToolsList}))
				Expect(js.params(protocol.MethodInitialize)).NotTo(HaveKey("clientInfo"))
				Expect(js.params(protocol.MethodInitialize)).To(HaveKeyWithValue("protocolVersion", protocol.V20251125))
			},
		}

		// The faults of the initialize handshake, which every stateful
		// version has; the others (the MRTR loop's, the task receiver's,
		// the client surface's, the authorization layer's over HTTP only)
		// are proven by the suites' fault table against the fake server
		// that can show them.
		var handshakeFaults []*fault.Fault
		for _, f := range client.Faults() {
			httpOnly := slices.Equal(f.Transports, []transport.Kind{transport.HTTP})
			// A fault a scenario shows (ShownBy) is not the handshake's.
			if !slices.Contains(f.Versions, protocol.V20260728) && slices.Contains(f.Versions, protocol.V20250326) &&
				!slices.Contains(client.SurfaceFaults(), f) && !httpOnly && len(f.ShownBy) == 0 {
				handshakeFaults = append(handshakeFaults, f)
			}
		}

		It("has an expectation for every handshake fault, and every variant a distinct kebab-case name", func() {
			names := map[string]bool{}
			for _, f := range append(client.Faults(), client.Liberties()...) {
				Expect(f.Name).To(MatchRegexp(`^[a-z0-9]+(-[a-z0-9]+)*$`))
				Expect(names).NotTo(HaveKey(f.Name))
				names[f.Name] = true
				Expect(f.Description).NotTo(BeEmpty())
			}
			for _, f := range handshakeFaults {
				Expect(expectations).To(HaveKey(f), f.Name)
			}
			Expect(expectations).To(HaveLen(len(handshakeFaults)))
		})

		// Over stateful HTTP the transport itself refuses a POST before
		// initialize, so stdio and WebSocket show every fault to the engine.
		for _, f := range handshakeFaults {
			for _, kind := range []transport.Kind{transport.Stdio, transport.WS} {
				It(f.Name+" over "+string(kind), func() {
					js := serveReferenceForClient(kind)
					Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: protocol.V20251125, Fault: f})).To(Succeed())
					expectations[f](js)
					js.expectClosed()
				})
			}
		}

		It("performs a fault even where the judge cannot see it", func() {
			// Stateful HTTP refuses the early ping in the transport (no
			// session yet), so the engine never sees it; the client goes on.
			js := serveReferenceForClient(transport.HTTP)
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Fault: client.RequestBeforeInitialize})).To(Succeed())
			Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize, protocol.NotificationInitialized, protocol.MethodToolsList}))
		})

		It("refuses a fault on a version without the initialize handshake", func() {
			err := runReferenceClient(client.ReferenceClientOptions{Server: "ws://127.0.0.1:1/mcp", Version: protocol.V20260728, Fault: client.SkipsInitialized})
			Expect(err).To(MatchError(ContainSubstring("applies only to protocol versions")))
		})

		It("refuses a fault that is not one of its own", func() {
			foreign := &fault.Fault{Name: client.SkipsInitialized.Name}
			err := runReferenceClient(client.ReferenceClientOptions{Server: "ws://127.0.0.1:1/mcp", Fault: foreign})
			Expect(err).To(MatchError(ContainSubstring("not one of the reference client's")))
		})
	})

	Describe("failing clearly", func() {
		It("when the server cannot be reached", func() {
			// A port that has just been closed: nothing listens there.
			nl, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			hostPort := nl.Addr().String()
			Expect(nl.Close()).To(Succeed())
			for _, address := range []string{"http://" + hostPort + "/mcp", "ws://" + hostPort + "/mcp"} {
				err := runReferenceClient(client.ReferenceClientOptions{Server: address})
				Expect(err).To(MatchError(ContainSubstring(address)))
			}
		})

		It("when the stdio server command does not exist", func() {
			err := runReferenceClient(client.ReferenceClientOptions{Server: "/nonexistent/mcp-server --flag"})
			Expect(err).To(MatchError(ContainSubstring("cannot reach the server")))
		})

		It("when no server is given", func() {
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: "  "})).To(MatchError(ContainSubstring("no server given")))
		})

		It("when asked for an unknown protocol version", func() {
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: "ws://127.0.0.1:1/mcp", Version: "2020-01-01"})).
				To(MatchError(ContainSubstring("unknown protocol version")))
		})

		answers := func(initialize, toolsList server.Handler) *server.Engine {
			return &server.Engine{Requests: map[string]server.Handler{
				protocol.MethodInitialize: initialize,
				protocol.MethodToolsList:  toolsList,
			}}
		}
		initializeAs := func(version string) server.Handler {
			return func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"protocolVersion": version, "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "s", "version": "1"}}, nil
			}
		}
		refuse := func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			return nil, &jsonrpc.Error{Code: -32603, Message: "out of order"}
		}
		noTools := func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
			return map[string]any{"tools": []any{}}, nil
		}

		It("when the server answers initialize with an error", func() {
			js := serveForClient(transport.WS, answers(refuse, noTools))
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address})).
				To(MatchError(ContainSubstring("answered initialize with error -32603")))
		})

		It("when the server answers tools/list with an error", func() {
			js := serveForClient(transport.WS, answers(initializeAs(protocol.V20251125), refuse))
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address})).
				To(MatchError(ContainSubstring("answered tools/list with error -32603")))
			js.expectClosed()
		})

		It("when the server negotiates a version the client does not speak, and disconnects", func() {
			js := serveForClient(transport.WS, answers(initializeAs("2000-01-01"), noTools))
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address})).
				To(MatchError(ContainSubstring(`protocol version "2000-01-01"`)))
			Expect(js.methods()).To(Equal([]string{protocol.MethodInitialize}))
			js.expectClosed()
		})

		It("when the server does not answer", func() {
			silent := func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return peer.NoAnswer, nil
			}
			js := serveForClient(transport.WS, answers(silent, noTools))
			Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, ResponseTimeout: 100 * time.Millisecond})).
				To(MatchError(ContainSubstring("initialize")))
		})
	})
})
