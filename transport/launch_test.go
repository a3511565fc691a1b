package transport_test

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = Describe("Launch", func() {
	script := func(body string) string {
		p := filepath.Join(GinkgoT().TempDir(), "client.sh")
		Expect(os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755)).To(Succeed())
		return p
	}

	It("keeps what the process wrote by the time it has exited, with its exit code", func() {
		tr := jsonrpc.NewTranscript()
		p, err := transport.Launch([]string{script(`echo "to stdout $1"; echo "to stderr" >&2; exit 4`), "arg"},
			transport.LaunchOptions{Transcript: tr, Label: "client", Env: []string{"X=1"}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(p.Exited()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(p.ExitCode()).To(Equal(4))
		Expect(p.Output()).To(ContainSubstring("to stdout arg"))
		Expect(p.Output()).To(ContainSubstring("to stderr"))
		Expect(tr.String()).To(ContainSubstring("process exited"))
	})

	It("stops a process that does not end by itself, and its group", func() {
		p, err := transport.Launch([]string{script(`sleep 600 & sleep 600`)}, transport.LaunchOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Wait(50*time.Millisecond)).To(BeFalse(), "still running")
		p.Stop(5 * time.Second)
		Expect(p.Exited()).To(BeClosed())
		Expect(p.ExitCode()).To(Equal(-1), "ended by a signal")
	})

	It("refuses a command that does not exist before starting anything", func() {
		_, err := transport.Launch([]string{"no-such-client-binary"}, transport.LaunchOptions{})
		Expect(err).To(MatchError(ContainSubstring(`"no-such-client-binary" not found`)))
		_, err = transport.Launch(nil, transport.LaunchOptions{})
		Expect(err).To(MatchError(ContainSubstring("empty command")))
	})
})
