package transport_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

// relayWait bounds every single wait of the relay specs.
const relayWait = 5 * time.Second

func relayCtx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), relayWait)
	DeferCleanup(cancel)
	return ctx
}

// relayProcess is RunRelay running in-process on real pipes, standing in
// for the relay a client under test spawns.
type relayProcess struct {
	stdin  *os.File      // the client writes here
	stdout *bufio.Reader // and reads here
	ended  chan error    // RunRelay's result
}

func startRelay(addr, token string) *relayProcess {
	GinkgoHelper()
	inR, inW, err := os.Pipe()
	Expect(err).NotTo(HaveOccurred())
	outR, outW, err := os.Pipe()
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	p := &relayProcess{stdin: inW, stdout: bufio.NewReader(outR), ended: make(chan error, 1)}
	go func() {
		err := transport.RunRelay(ctx, addr, token, inR, outW)
		outW.Close() // the process exits: its client reads EOF
		p.ended <- err
	}()
	DeferCleanup(func() {
		cancel()
		inW.Close()
		inR.Close()
		outR.Close()
	})
	return p
}

func listenRelay() *transport.RelayListener {
	GinkgoHelper()
	l, err := transport.ListenRelay(relayCtx())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(l.Close)
	return l
}

// relayTo starts a relay to l with its own token and accepts the judging side.
func relayTo(l *transport.RelayListener) (*relayProcess, transport.Conn) {
	GinkgoHelper()
	argv := l.Command("mcpconform")
	p := startRelay(argv[2], argv[3])
	c, err := l.Accept(relayCtx())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	return p, c
}

// readLine reads one line the relay wrote to its client, bounded by relayWait.
func (p *relayProcess) readLine() (string, error) {
	type result struct {
		s   string
		err error
	}
	got := make(chan result, 1)
	go func() {
		s, err := p.stdout.ReadString('\n')
		got <- result{s, err}
	}()
	select {
	case r := <-got:
		return r.s, r.err
	case <-time.After(relayWait):
		return "", errors.New("no line from the relay within the wait")
	}
}

var _ = Describe("relay", func() {
	It("hands out a loopback address and a random token in its command", func() {
		l1, l2 := listenRelay(), listenRelay()
		argv := l1.Command("/usr/bin/mcpconform")
		Expect(argv).To(HaveLen(4))
		Expect(argv[:3]).To(Equal([]string{"/usr/bin/mcpconform", "relay", l1.Addr()}))
		Expect(argv[2]).To(HavePrefix("127.0.0.1:"))
		Expect(argv[3]).To(MatchRegexp(`^[0-9a-f]{64}$`))
		Expect(l2.Command("x")[3]).NotTo(Equal(argv[3]), "each listener has its own token")
	})

	It("carries frames both ways with stdio framing", func() {
		p, c := relayTo(listenRelay())

		By("the client writing two frames in one write, a CRLF and a blank line")
		_, err := p.stdin.WriteString(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Recv(relayCtx())).To(BeEquivalentTo(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		Expect(c.Recv(relayCtx())).To(BeEquivalentTo(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))

		By("the client writing one frame in two pieces")
		_, err = p.stdin.WriteString(`{"jsonrpc":"2.0",`)
		Expect(err).NotTo(HaveOccurred())
		_, err = p.stdin.WriteString(`"id":2,"method":"tools/list"}` + "\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Recv(relayCtx())).To(BeEquivalentTo(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))

		By("the judging side answering")
		Expect(c.Send(relayCtx(), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))).To(Succeed())
		Expect(p.readLine()).To(Equal(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))

		By("refusing a frame with a raw newline, and sending raw bytes on purpose")
		Expect(c.Send(relayCtx(), []byte("{}\n{}"))).To(MatchError(transport.ErrEmbeddedNewline))
		raw, ok := transport.As[transport.RawSender](c)
		Expect(ok).To(BeTrue())
		Expect(raw.SendRaw(relayCtx(), []byte("not json\n"))).To(Succeed())
		Expect(p.readLine()).To(Equal("not json\n"))
	})

	It("refuses a connection with the wrong token", func() {
		l := listenRelay()

		By("a relay with a wrong token being refused")
		wrong := startRelay(l.Addr(), strings.Repeat("0", 64))
		Eventually(wrong.ended).WithTimeout(relayWait).Should(Receive(MatchError(ContainSubstring("refused"))))

		By("a raw connection that presents no token and sends a frame being closed unread")
		nc, err := net.Dial("tcp", l.Addr())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(nc.Close)
		_, _ = nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"))
		Expect(nc.SetReadDeadline(time.Now().Add(relayWait))).To(Succeed())
		_, err = nc.Read(make([]byte, 64))
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, os.ErrDeadlineExceeded)).To(BeFalse(), "the listener closes the connection")

		By("the first connection accepted being the one with the right token")
		p, c := relayTo(l)
		_, err = p.stdin.WriteString(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Recv(relayCtx())).To(BeEquivalentTo(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
	})

	It("exits when the judging side closes, so the client sees its server end", func() {
		p, c := relayTo(listenRelay())
		Expect(c.Send(relayCtx(), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))).To(Succeed())
		Expect(c.Close()).To(Succeed())
		Eventually(p.ended).WithTimeout(relayWait).Should(Receive(BeNil()))
		Expect(p.readLine()).To(HaveSuffix("\n"), "what was sent before the close arrives")
		_, err := p.readLine()
		Expect(err).To(MatchError(io.EOF))
		_, err = c.Recv(relayCtx())
		Expect(err).To(MatchError(transport.ErrClosed))
	})

	It("passes the client's end of stdin on as EOF, and exits once the judging side closes", func() {
		p, c := relayTo(listenRelay())
		_, err := p.stdin.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}`) // no final newline
		Expect(err).NotTo(HaveOccurred())
		Expect(p.stdin.Close()).To(Succeed())
		Expect(c.Recv(relayCtx())).To(BeEquivalentTo(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		_, err = c.Recv(relayCtx())
		Expect(err).To(MatchError(io.EOF))
		Consistently(p.ended).WithTimeout(20*time.Millisecond).ShouldNot(Receive(), "the judging side may still answer")
		Expect(c.Send(relayCtx(), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))).To(Succeed())
		Expect(p.readLine()).To(Equal(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
		Expect(c.Close()).To(Succeed())
		Eventually(p.ended).WithTimeout(relayWait).Should(Receive(BeNil()))
	})

	It("exits after a short wait when stdin ends and the judging side stays open", func() {
		p, _ := relayTo(listenRelay())
		Expect(p.stdin.Close()).To(Succeed())
		Eventually(p.ended).WithTimeout(relayWait).Should(Receive(BeNil()))
	})

	It("skips an over-long line, says so with its length, and delivers the next line", func() {
		var mu sync.Mutex
		var notes []transport.WireNote
		transcript := jsonrpc.NewTranscript()
		l, err := transport.ListenRelayWith(relayCtx(), transport.Options{Transcript: transcript, Session: "client",
			OnWireNote: func(n transport.WireNote) { mu.Lock(); notes = append(notes, n); mu.Unlock() }})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(l.Close)
		p, c := relayTo(l)
		long := `{"jsonrpc":"2.0","method":"x","params":{"pad":"` + strings.Repeat("a", transport.RelayMaxLineBytes) + `"}}` + "\n"
		wrote := make(chan error, 1)
		go func() {
			_, err := p.stdin.WriteString(long + `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n")
			wrote <- err
		}()
		Expect(c.Recv(relayCtx())).To(BeEquivalentTo(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), "the line after the long one arrives, and no error before it")
		Eventually(wrote).WithTimeout(relayWait).Should(Receive(BeNil()))
		size := strconv.Itoa(len(long))
		mu.Lock()
		defer mu.Unlock()
		Expect(notes).To(ConsistOf(HaveField("Kind", transport.NoteOverlongLine)))
		Expect(notes[0].Detail).To(And(ContainSubstring(size+" bytes"), ContainSubstring("over the limit of 4194304 bytes")))
		var events []string
		for _, f := range transcript.Frames() {
			if f.Direction == jsonrpc.Event {
				events = append(events, string(f.Raw))
			}
		}
		Expect(events).To(ContainElement(And(ContainSubstring(size+" bytes"), ContainSubstring("skipped"))))
	})

	It("closes its connections when the listener closes", func() {
		l := listenRelay()
		p, c := relayTo(l)
		Expect(l.Close()).To(Succeed())
		Eventually(p.ended).WithTimeout(relayWait).Should(Receive(BeNil()))
		_, err := c.Recv(relayCtx())
		Expect(err).To(MatchError(transport.ErrClosed))
		_, err = l.Accept(relayCtx())
		Expect(err).To(MatchError(transport.ErrClosed))
	})

	It("gives up Recv and Accept when the caller's context ends", func() {
		l := listenRelay()
		_, c := relayTo(l)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Recv(ctx)
		Expect(err).To(MatchError(context.Canceled))
		_, err = l.Accept(ctx)
		Expect(err).To(MatchError(context.Canceled))
	})

	It("fails clearly when nothing listens at the address", func() {
		l, err := transport.ListenRelay(relayCtx())
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr()
		Expect(l.Close()).To(Succeed())
		p := startRelay(addr, "token")
		Eventually(p.ended).WithTimeout(relayWait).Should(Receive(MatchError(ContainSubstring("cannot reach mcpconform at " + addr))))
	})
})
