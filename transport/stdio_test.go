package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
)

var _ = Describe("stdio client (spawned target)", Ordered, ContinueOnFailure, func() {
	var peer string

	BeforeAll(func() {
		bin, cleanup := buildTestPeer()
		peer = bin
		DeferCleanup(cleanup)
	})

	BeforeEach(func() {
		DeferCleanup(expectNoLeaks) // registered first, so it runs last
	})

	dial := func(opts StdioOptions, args ...string) *StdioConn {
		GinkgoHelper()
		c, err := DialStdio(tpCtx(5*time.Second), append([]string{peer}, args...), opts)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { c.Close() })
		return c
	}
	recv := func(c Conn) string {
		GinkgoHelper()
		b, err := c.Recv(tpCtx(10 * time.Second))
		Expect(err).NotTo(HaveOccurred())
		return string(b)
	}
	childPid := func(line string) int {
		GinkgoHelper()
		var v struct{ Child int }
		Expect(json.Unmarshal([]byte(line), &v)).To(Succeed())
		Expect(v.Child).To(BeNumerically(">", 0))
		return v.Child
	}

	It("round-trips frames byte for byte", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t, Session: "A"}})
		frames := []string{
			`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":"ä\u2028","method":"x","params":{"s":"tab	here","e":"\"\\n"}}`,
			`  {"spaces" : [1, 2.50, -0]}  `,
			`not json`,
			"\x00\xff\xfe",
		}
		for _, f := range frames {
			Expect(c.Send(tpCtx(5*time.Second), []byte(f))).To(Succeed())
			Expect(recv(c)).To(Equal(f))
		}
		big := `{"big":"` + strings.Repeat("0123456789abcdef", 256<<10) + `"}` // 4 MiB
		Expect(c.Send(tpCtx(10*time.Second), []byte(big))).To(Succeed())
		Expect(recv(c) == big).To(BeTrue(), "the 4 MiB frame came back intact")

		Expect(c.Send(tpCtx(time.Second), []byte("{\"a\":\n1}"))).To(MatchError(ErrEmbeddedNewline))
		Expect(c.Send(tpCtx(time.Second), []byte("{\"a\":\r1}"))).To(MatchError(ErrEmbeddedNewline))

		By("SendRaw writing two frames and a garbage line in one write")
		Expect(c.SendRaw(tpCtx(time.Second), []byte("{\"x\":1}\n\n{\"y\":2}\r\n#garbage\n"))).To(Succeed())
		Expect(recv(c)).To(Equal(`{"x":1}`))
		Expect(recv(c)).To(Equal(`{"y":2}`))
		Expect(recv(c)).To(Equal(`#garbage`))

		Expect(c.Close()).To(Succeed())
		Expect(c.Close()).To(Succeed(), "Close is idempotent")
		Expect(c.Exited()).To(BeClosed())
		Expect(c.ExitErr()).NotTo(HaveOccurred())
		Expect(c.ExitCode()).To(Equal(0))
		Expect(c.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ErrClosed))
		_, err := c.Recv(tpCtx(time.Second))
		Expect(err).To(MatchError(ErrClosed))
		Expect(eventsOf(t)()).To(ContainElements(
			HavePrefix("process started: pid "),
			"closing stdin",
			"process exited: exit status 0",
		))
	})

	It("passes Env and Dir to the target", func() {
		dir := GinkgoT().TempDir()
		c := dial(StdioOptions{Env: []string{"MCPCONFORM_TEST_VAR=hello there"}, Dir: dir},
			"-env", "MCPCONFORM_TEST_VAR", "-pwd")
		Expect(recv(c)).To(Equal("hello there"))
		want, err := filepath.EvalSymlinks(dir)
		Expect(err).NotTo(HaveOccurred())
		got, err := filepath.EvalSymlinks(recv(c))
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(want))
	})

	It("captures stderr into the transcript and Stderr()", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t, Session: "A"}}, "-stderr", "hello from stderr")
		Eventually(func() []string { return framesOf(t, jsonrpc.Stderr) }).
			WithTimeout(5 * time.Second).Should(ContainElement("hello from stderr"))
		Expect(c.Stderr()).To(Equal("hello from stderr\n"))
		for _, f := range t.Frames() {
			if f.Direction == jsonrpc.Stderr {
				Expect(f.Session).To(Equal("A"))
			}
		}
	})

	It("reports a missing binary clearly, before starting anything", func() {
		_, err := DialStdio(tpCtx(time.Second), []string{"/nonexistent/dir/mcp-server", "--flag"}, StdioOptions{})
		Expect(err).To(MatchError(ContainSubstring(`target command "/nonexistent/dir/mcp-server" not found: `)))

		_, err = DialStdio(tpCtx(time.Second), []string{"mcpconform-no-such-command-xyz"}, StdioOptions{})
		Expect(err).To(MatchError(ContainSubstring(`target command "mcpconform-no-such-command-xyz" not found: `)))
		Expect(errors.Is(err, exec.ErrNotFound)).To(BeTrue())

		_, err = DialStdio(tpCtx(time.Second), nil, StdioOptions{})
		Expect(err).To(HaveOccurred())
	})

	It("returns io.EOF when the target exits, and reports its exit code", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t}}, "-exit", "3")
		_, err := c.Recv(tpCtx(5 * time.Second))
		Expect(err).To(MatchError(io.EOF))
		Expect(c.Exited()).To(BeClosed())
		var ee *exec.ExitError
		Expect(errors.As(c.ExitErr(), &ee)).To(BeTrue())
		Expect(ee.ExitCode()).To(Equal(3))
		Expect(c.ExitCode()).To(Equal(3))
		Expect(eventsOf(t)()).To(ContainElement("process exited: exit status 3"))
		_, err = c.Recv(tpCtx(time.Second))
		Expect(err).To(MatchError(io.EOF), "io.EOF again")

		err = c.Close()
		Expect(err).To(HaveOccurred(), "a non-zero exit is not a clean exit")
		Expect(errors.As(err, &ee)).To(BeTrue())
	})

	It("escalates to SIGKILL for a target that ignores stdin close and SIGTERM, and reaps it", func() {
		if runtime.GOOS == "windows" {
			Skip("no SIGTERM on Windows")
		}
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t},
			StdinCloseWait: 100 * time.Millisecond, TermWait: 100 * time.Millisecond, KillWait: 5 * time.Second,
		}, "-ignore-term")
		Expect(recv(c)).To(Equal("ready")) // SIGTERM is ignored from here on

		start := time.Now()
		err := c.Close()
		Expect(err).To(MatchError(ContainSubstring("killed by SIGKILL")))
		Expect(time.Since(start)).To(BeNumerically("<", 3*time.Second))
		Expect(c.Exited()).To(BeClosed())
		var ee *exec.ExitError
		Expect(errors.As(c.ExitErr(), &ee)).To(BeTrue())
		Expect(ee.String()).To(Equal("signal: killed"))
		Expect(processGone(c.Pid())).To(BeTrue(), "the process is reaped, not a zombie")
		Expect(eventsOf(t)()).To(ContainElements(
			ContainSubstring("sending SIGTERM to process group"),
			ContainSubstring("sending SIGKILL to process group"),
			"process exited: signal: killed",
		))
		Expect(c.Close()).To(Equal(err), "idempotent")
	})

	It("stops at SIGTERM when that is enough", func() {
		if runtime.GOOS == "windows" {
			Skip("no SIGTERM on Windows")
		}
		c := dial(StdioOptions{StdinCloseWait: 100 * time.Millisecond, TermWait: 5 * time.Second}, "-sleep")
		err := c.Close()
		Expect(err).To(MatchError(ContainSubstring("stopped by SIGTERM")))
		Expect(c.ExitErr()).To(MatchError("signal: terminated"))
	})

	It("kills the whole process group on SIGKILL", func() {
		if runtime.GOOS != "linux" {
			Skip("process group checks need Linux")
		}
		c := dial(StdioOptions{StdinCloseWait: 100 * time.Millisecond, TermWait: 100 * time.Millisecond},
			"-child", "-ignore-term")
		child := childPid(recv(c))
		Expect(recv(c)).To(Equal("ready"))
		Expect(processGone(child)).To(BeFalse())
		Expect(c.Close()).To(MatchError(ContainSubstring("SIGKILL")))
		Eventually(func() bool { return processGone(child) }).WithTimeout(5 * time.Second).Should(BeTrue())
	})

	It("kills what the target left in its group when it exits by itself", func() {
		if runtime.GOOS != "linux" {
			Skip("needs Linux (waitid WNOWAIT)")
		}
		c := dial(StdioOptions{}, "-child")
		child := childPid(recv(c))
		Expect(processGone(child)).To(BeFalse())
		Expect(c.CloseStdin()).To(Succeed())
		Eventually(c.Exited()).WithTimeout(5 * time.Second).Should(BeClosed())
		Expect(c.ExitErr()).NotTo(HaveOccurred())
		Eventually(func() bool { return processGone(child) }).WithTimeout(5 * time.Second).Should(BeTrue())
		Expect(c.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ErrClosed), "stdin is closed")
		Expect(c.Close()).To(Succeed())
	})

	It("discards an over-long line with an event and goes on", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t}}, "-flood", fmt.Sprint(DefaultMaxLineBytes+(1<<20)))
		Expect(recv(c)).To(Equal(`{"after":"flood"}`))
		Expect(eventsOf(t)()).To(ContainElement(
			fmt.Sprintf("stdout: line of %d bytes exceeds the limit of %d bytes; discarded", DefaultMaxLineBytes+(1<<20)+1, DefaultMaxLineBytes)))
		Expect(c.Send(tpCtx(time.Second), []byte(`{"still":"alive"}`))).To(Succeed())
		Expect(recv(c)).To(Equal(`{"still":"alive"}`))
	})

	It("honours MaxLineBytes exactly", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t}, MaxLineBytes: 1000})
		ok := strings.Repeat("a", 1000)
		Expect(c.Send(tpCtx(time.Second), []byte(ok))).To(Succeed())
		Expect(recv(c)).To(Equal(ok))
		Expect(c.Send(tpCtx(time.Second), []byte(ok+"b"))).To(Succeed())
		Expect(c.Send(tpCtx(time.Second), []byte(`{"next":1}`))).To(Succeed())
		Expect(recv(c)).To(Equal(`{"next":1}`))
		Expect(eventsOf(t)()).To(ContainElement(ContainSubstring("line of 1002 bytes exceeds the limit of 1000 bytes")))
	})

	It("carries garbage as lines, skips empty ones, and handles a last line without newline", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t}}, "-garbage")
		var got []string
		for {
			b, err := c.Recv(tpCtx(5 * time.Second))
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
			got = append(got, string(b))
		}
		Expect(got).To(Equal([]string{"not json at all", `{"a":1}`, "   ", `{"unterminated":true}`}))
		Expect(eventsOf(t)()).To(ContainElements(
			"stdout: stream ended without a newline after the last line",
			"stdout closed",
		))
		Expect(c.ExitErr()).NotTo(HaveOccurred())
	})

	It("keeps what a target printed before it exited, though nothing read it and the write to it failed", func() {
		t := jsonrpc.NewTranscript()
		c := dial(StdioOptions{Options: Options{Transcript: t}}, "-garbage")
		Eventually(c.Exited()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(c.Send(tpCtx(time.Second), []byte(`{"too":"late"}`))).NotTo(Succeed(), "the target is gone")
		Expect(c.Close()).To(Succeed())
		Expect(eventsOf(t)()).To(ContainElements(
			"stdout after the connection closed (not read as a message): not json at all",
			`stdout after the connection closed (not read as a message): {"a":1}`,
			`stdout after the connection closed (not read as a message): {"unterminated":true}`,
		))
	})

	It("honours ctx in Recv and in a Send blocked on a target that does not read", func() {
		c := dial(StdioOptions{StdinCloseWait: 100 * time.Millisecond}, "-sleep")
		_, err := c.Recv(tpCtx(50 * time.Millisecond))
		Expect(err).To(MatchError(context.DeadlineExceeded))

		big := []byte(strings.Repeat("z", 4<<20)) // far more than a pipe buffer
		By("a deadline")
		start := time.Now()
		Expect(c.Send(tpCtx(time.Second), big)).To(MatchError(context.DeadlineExceeded))
		Expect(time.Since(start)).To(BeNumerically("<", 3*time.Second))
		Expect(c.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ContainSubstring("out of sync")))

		By("a cancellation")
		c2 := dial(StdioOptions{StdinCloseWait: 100 * time.Millisecond}, "-sleep")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		timer := time.AfterFunc(500*time.Millisecond, cancel)
		defer timer.Stop()
		Expect(c2.Send(ctx, big)).To(MatchError(context.Canceled))
		Expect(c2.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ContainSubstring("out of sync")))
	})

	It("serialises concurrent Sends", func() {
		c := dial(StdioOptions{})
		const n = 32
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer GinkgoRecover()
				f := strings.Repeat(string(rune('A'+i%26)), 100_000+i)
				Expect(c.Send(tpCtx(10*time.Second), []byte(f))).To(Succeed())
			}()
		}
		seen := map[int]bool{}
		for range n {
			l := recv(c)
			Expect(strings.Count(l, l[:1])).To(Equal(len(l)), "a line mixes bytes of two frames")
			seen[len(l)-100_000] = true
		}
		wg.Wait()
		Expect(seen).To(HaveLen(n))
	})
})

var _ = Describe("stdio server side", func() {
	BeforeEach(func() {
		DeferCleanup(expectNoLeaks)
	})

	type pipes struct {
		conn   Conn
		in     *io.PipeWriter // what the client writes
		out    *bufio.Reader  // what the client reads
		outR   *io.PipeReader
		transc *jsonrpc.Transcript
	}
	newPipes := func() pipes {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		t := jsonrpc.NewTranscript()
		c := NewStdioServerConn(inR, outW, Options{Transcript: t, Session: "S"})
		DeferCleanup(func() { c.Close(); inW.Close(); outR.Close() })
		return pipes{conn: c, in: inW, out: bufio.NewReader(outR), outR: outR, transc: t}
	}

	It("round-trips frames over pipes", func() {
		p := newPipes()
		go func() {
			defer GinkgoRecover()
			_, err := io.WriteString(p.in, "{\"a\":1}\r\n\n{\"b\":\"é\"}\n")
			Expect(err).NotTo(HaveOccurred())
			p.in.Close()
		}()
		for _, want := range []string{`{"a":1}`, `{"b":"é"}`} {
			b, err := p.conn.Recv(tpCtx(5 * time.Second))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(want))
		}
		_, err := p.conn.Recv(tpCtx(5 * time.Second))
		Expect(err).To(MatchError(io.EOF))

		go func() {
			defer GinkgoRecover()
			Expect(p.conn.Send(tpCtx(5*time.Second), []byte(`{"c":3}`))).To(Succeed())
		}()
		line, err := p.out.ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal("{\"c\":3}\n"))

		Expect(p.conn.Send(tpCtx(time.Second), []byte("a\nb"))).To(MatchError(ErrEmbeddedNewline))
		rs, ok := As[RawSender](p.conn)
		Expect(ok).To(BeTrue())
		go func() {
			defer GinkgoRecover()
			Expect(rs.SendRaw(tpCtx(5*time.Second), []byte("raw\nbytes"))).To(Succeed())
		}()
		line, err = p.out.ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal("raw\n"))
		buf := make([]byte, 5)
		_, err = io.ReadFull(p.out, buf)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(buf)).To(Equal("bytes"))

		Expect(p.conn.Close()).To(Succeed())
		_, err = p.out.ReadString('\n')
		Expect(err).To(MatchError(io.EOF), "Close closes the writer")
		Expect(p.conn.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ErrClosed))
		Expect(p.conn.Close()).To(Succeed())
	})

	It("never interleaves concurrent Sends", func() {
		p := newPipes()
		const n = 32
		for i := range n {
			go func() {
				defer GinkgoRecover()
				f := strings.Repeat(string(rune('a'+i%26)), 4096+i)
				Expect(p.conn.Send(tpCtx(10*time.Second), []byte(f))).To(Succeed())
			}()
		}
		seen := map[int]bool{}
		for range n {
			l, err := p.out.ReadString('\n')
			Expect(err).NotTo(HaveOccurred())
			l = strings.TrimSuffix(l, "\n")
			Expect(strings.Count(l, l[:1])).To(Equal(len(l)))
			seen[len(l)] = true
		}
		Expect(seen).To(HaveLen(n))
	})

	It("honours ctx in Recv and stops on Close", func() {
		p := newPipes()
		_, err := p.conn.Recv(tpCtx(50 * time.Millisecond))
		Expect(err).To(MatchError(context.DeadlineExceeded))
		done := make(chan error, 1)
		go func() {
			_, err := p.conn.Recv(context.Background())
			done <- err
		}()
		Consistently(done).WithTimeout(20 * time.Millisecond).ShouldNot(Receive())
		Expect(p.conn.Close()).To(Succeed())
		Eventually(done).WithTimeout(time.Second).Should(Receive(MatchError(ErrClosed)))
	})

	It("StdioListener accepts its one conn once", func() {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		DeferCleanup(func() { inW.Close(); outR.Close() })
		l := NewStdioListener(inR, outW, Options{})
		Expect(l.Addr()).To(Equal("stdio"))
		c, err := l.Accept(tpCtx(time.Second))
		Expect(err).NotTo(HaveOccurred())
		Expect(c).NotTo(BeNil())

		_, err = l.Accept(tpCtx(50 * time.Millisecond))
		Expect(err).To(MatchError(context.DeadlineExceeded))

		done := make(chan error, 1)
		go func() {
			_, err := l.Accept(context.Background())
			done <- err
		}()
		Consistently(done).WithTimeout(20 * time.Millisecond).ShouldNot(Receive())
		Expect(l.Close()).To(Succeed())
		Eventually(done).WithTimeout(time.Second).Should(Receive(MatchError(ErrClosed)))
		_, err = l.Accept(context.Background())
		Expect(err).To(MatchError(ErrClosed))
		Expect(c.Send(tpCtx(time.Second), []byte(`{}`))).To(MatchError(ErrClosed), "Close closed the conn")
		Expect(l.Close()).To(Succeed())
	})

	It("serves on real os pipes", func() {
		inR, inW, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		outR, outW, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { inW.Close(); outR.Close() })
		c := NewStdioServerConn(inR, outW, Options{})
		_, err = inW.WriteString("{\"id\":1}\n")
		Expect(err).NotTo(HaveOccurred())
		b, err := c.Recv(tpCtx(5 * time.Second))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"id":1}`))
		Expect(c.Send(tpCtx(5*time.Second), []byte(`{"id":1,"result":{}}`))).To(Succeed())
		line, err := bufio.NewReader(outR).ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal("{\"id\":1,\"result\":{}}\n"))
		Expect(c.Close()).To(Succeed())
	})
})
