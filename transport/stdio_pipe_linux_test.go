//go:build linux

package transport

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"
)

var _ = Describe("a spawned target's stdout pipe", func() {
	It("holds 1 MiB, so a long line takes few turns of writer and reader", func() {
		c, err := DialStdio(tpCtx(5*time.Second), []string{"cat"}, StdioOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { c.Close() })
		rc, err := c.stdout.SyscallConn()
		Expect(err).NotTo(HaveOccurred())
		size, ferr := 0, error(nil)
		Expect(rc.Control(func(fd uintptr) { size, ferr = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })).To(Succeed())
		Expect(ferr).NotTo(HaveOccurred())
		Expect(size).To(Equal(stdoutPipeBytes), "the pipe kept its size: does fs.pipe-max-size (/proc/sys/fs/pipe-max-size) allow %d bytes?", stdoutPipeBytes)
	})
})
